// Sluice's PostgreSQL CDC connector against the real one: Debezium's PostgresConnector (Maven jars,
// test/fixtures/debezium/pom.xml) in Apache Kafka Connect 4.1.1, and Sluice's in a Sluice worker, on
// the same PostgreSQL tables and the same Kafka broker, each with its own topic.prefix, slot and
// publication, both writing with JsonConverter (schemas on) and SimpleHeaderConverter. The snapshot,
// then inserts (the snapshot's rows again, now streamed), updates (one of a primary key, one leaving a
// TOASTed value out), deletes, a transaction, a column added by ALTER TABLE and changes after it: the
// records must be the same, one by one — key and value (schema and payload), tombstones and headers,
// numbers compared as written — once what must differ is normalized:
// - the topic prefix (schema names, source.name, the logical-name header) becomes <prefix>;
// - source.version is each connector's own version (Debezium's must be the pom's, Sluice's its own);
// - the envelope's ts_ms/ts_us/ts_ns say when each connector handled the change;
// - the header __debezium.context.runId is made anew by each task (both must be UUIDv7s);
// - snapshot events' lsn, txId, sequence and source ts_*: each connector reads in a snapshot of its
//   own (its slot's exported one), so these name different points, transactions and times.
// All must be present and of the right type. Streamed changes come from the same WAL: there lsn, txId,
// sequence and the source's commit times must be equal.
// One pair of connectors has every setting at its default but those naming its own resources; a second
// pair, on a table of its own, runs with decimal.handling.mode=string and time.precision.mode=connect.
// The defaults both connectors declare for the settings Sluice has are compared too.
// SLUICE_DUMP_DIR=<dir> writes both sides' records there as JSON, to look into a difference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VERSION } from "#src/platform/version.ts";
import {
  CDC_CONNECTOR_CLASS,
  differences,
  type Event,
  type Json,
  normalizeChange,
  payloadOf,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
} from "../fixtures/cdc-side-by-side.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";

/** A value too long for the row and incompressible: PostgreSQL moves it out of line (TOAST). */
const TOASTED = Array.from({ length: 3000 }, (_, i) => ((i * 7919) % 65536).toString(36)).join("");

const COLUMNS = [
  "id int PRIMARY KEY DEFAULT 0",
  "c_int2 int2",
  "c_int4 int4 NOT NULL DEFAULT 42",
  "c_int8 int8",
  "c_num numeric(12,3)",
  "c_num_free numeric",
  "c_float4 float4",
  "c_float8 float8",
  "c_bool bool",
  "c_text text DEFAULT 'hello'",
  "c_varchar varchar(40)",
  "c_char char(5)",
  "c_bytea bytea",
  "c_date date",
  "c_time time",
  "c_time3 time(3)",
  "c_timetz timetz",
  "c_ts3 timestamp(3)",
  "c_ts6 timestamp(6)",
  "c_tstz timestamptz",
  "c_tstz3 timestamptz(3)",
  "c_interval interval",
  "c_json json",
  "c_jsonb jsonb",
  "c_uuid uuid",
  "c_mood mood",
  "c_ints int[]",
  "c_texts text[]",
  "c_dates date[]",
  "c_tss timestamp[]",
  "c_tstzs timestamptz[]",
  "c_xml xml",
  "c_toast text",
];
/** Columns left to their defaults: which defaults each connector puts in the schema, and how. */
const DEFAULTED = [
  "d_serial bigserial",
  "d_int2 int2 DEFAULT -3",
  "d_int8 int8 DEFAULT 9223372036854775807",
  "d_bool bool DEFAULT true",
  "d_num numeric(6,2) DEFAULT 1.5",
  "d_num_free numeric DEFAULT 7",
  "d_float4 float4 DEFAULT 0.1",
  "d_float8 float8 DEFAULT -2.5e10",
  "d_varchar varchar(10) DEFAULT 'it''s'",
  "d_char char(3) DEFAULT 'x'",
  "d_null text DEFAULT NULL",
  "d_date date DEFAULT '2020-02-29'",
  "d_today date DEFAULT CURRENT_DATE",
  "d_time time(3) DEFAULT '12:34:56.789'",
  "d_time6 time DEFAULT '12:34:56.123456'",
  "d_ts timestamp DEFAULT '2020-01-01 01:02:03.456789'",
  "d_ts3 timestamp(3) DEFAULT '2020-01-01 01:02:03.456'",
  "d_now timestamp DEFAULT now()",
  "d_tstz timestamptz DEFAULT '2020-01-01 01:02:03+02'",
  "d_tstz_now timestamptz DEFAULT now()",
  "d_interval interval DEFAULT '1 day 02:00:00'",
  "d_uuid uuid DEFAULT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
  "d_uuid_fn uuid DEFAULT gen_random_uuid()",
  "d_json jsonb DEFAULT '{\"a\": 1}'",
  "d_mood mood DEFAULT 'ok'",
  "d_expr int4 DEFAULT (1 + 2)",
];
const INSERT_COLUMNS = COLUMNS.map((c) => c.split(" ")[0]).join(", ");

/**
 * The rows, with NULL for ±infinity in time.precision.mode=connect: Connect's Date and Timestamp are
 * JS Dates in Sluice, which cannot hold the far-off instants Debezium puts there, so Sluice's task fails
 * on them (with a message saying so) where Debezium's writes them.
 */
function rows(infinities: boolean): string[] {
  const inf = (literal: string) => (infinities ? `'${literal}'` : "NULL");
  return [
    `(1, 32767, 2147483647, 9223372036854775807, 123456789.123, 3.14159265358979323846264338327950288, 1.1, 1.7976931348623157e308, true,
      'héllo "wörld" ☃ \\ back', 'varchar', 'ab', '\\x00ff10', '2024-02-29', '23:59:59.999999', '12:34:56.789', '12:34:56.789+05:30',
      '2024-05-06 07:08:09.123', '2024-05-06 07:08:09.123456', '2024-05-06 07:08:09.123456+02', '2024-05-06 07:08:09.1+02',
      '1 year 2 mons 3 days 04:05:06.789', '{"a": [1, 2.50, null], "b": "x"}', '{"b": 1, "a": [true]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      'happy', '{1,NULL,3}', '{"a,b","c\\"d",NULL,""}', '{2024-02-29,NULL}', '{"2024-05-06 07:08:09.123456"}', '{"2024-05-06 07:08:09.123456+02",NULL}', '<a>1</a>', '${TOASTED}')`,
    `(2, ${Array.from({ length: COLUMNS.length - 1 }, (_, i) => (i === 1 ? "DEFAULT" : "NULL")).join(", ")})`,
    `(3, -32768, -2147483648, -9223372036854775808, -0.001, -100, -0.5, -1e-300, false,
      '', '', '', '\\x', '1969-12-31', '00:00:00', '00:00:00.001', '00:00:00-08',
      '1969-12-31 23:59:59.999', '1900-01-01 00:00:00.000001', '1969-12-31 23:59:59.999999+00', '2024-01-01 00:00:00+00',
      '-1 years -2 days +03:00:00', '[]', 'null', '00000000-0000-0000-0000-000000000000',
      'sad', '{}', '{}', '{}', '{}', '{}', '<empty/>', 'short')`,
    `(4, 0, 0, 0, 0, 0.000, 'NaN', 'Infinity', true,
      'x', 'x', 'abcde', '\\xdeadbeef', ${inf("infinity")}, '24:00:00', '23:59:59.999', '24:00:00+00',
      ${inf("infinity")}, ${inf("-infinity")}, 'infinity', '-infinity',
      '0', '{}', '{}', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
      'ok', '{0}', '{NULL}', ${inf("{1970-01-01,infinity}")}, ${inf("{infinity,-infinity}")}, ${inf("{-infinity,infinity}")}, '<b/>', NULL)`,
    `(5, 1, 1, 1, 1.5, 12345678901234567890.000000000001, -0.0, 1e-300, false,
      'tab\tnewline\n', 'v', 'a b', '\\x01', '1500-01-01', '12:00:00', '12:00:00', '12:00:00.123456-03:30',
      '1500-01-01 12:00:00', '0001-01-01 00:00:00', '1500-01-01 12:00:00+00', '9999-12-31 23:59:59.999+00',
      '1 mon', '{"n": 12345678901234567890}', '{"n": 12345678901234567890}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12',
      'happy', '{-1,2147483647}', '{"x y","z"}', '{1500-01-01}', '{"0001-01-01 00:00:00"}', '{"1500-01-01 12:00:00+00"}', '<c>&amp;</c>', NULL)`,
    `(6, NULL, 6, NULL, NULL, NULL, '-Infinity', '-Infinity', NULL,
      NULL, NULL, NULL, NULL, ${inf("-infinity")}, NULL, NULL, NULL,
      ${inf("-infinity")}, ${inf("infinity")}, '-infinity', 'infinity',
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  ];
}

/** The streamed changes, after the snapshot. */
function changes(table: string): string[] {
  return [
    `INSERT INTO ${table} (id, c_int2, c_num, c_text, c_ts6, c_ints) VALUES (10, 7, 1.000, 'ten', '2020-01-01 00:00:00', '{1}')`,
    // The snapshot's rows again, streamed: their values come as pgoutput's text, not through a query.
    `INSERT INTO ${table} (${INSERT_COLUMNS}) SELECT id + 100, ${INSERT_COLUMNS.replace(/^id, /, "")} FROM ${table} WHERE id < 10 ORDER BY id`,
    `UPDATE ${table} SET c_text = 'changed', c_num = 2.5 WHERE id = 10`,
    // The TOASTed column is not changed: pgoutput leaves it out.
    `UPDATE ${table} SET c_int2 = 99 WHERE id = 1`,
    `UPDATE ${table} SET id = 11 WHERE id = 10`,
    `DELETE FROM ${table} WHERE id = 3`,
    `BEGIN; INSERT INTO ${table} (id, c_text) VALUES (20, 'in a transaction'); UPDATE ${table} SET c_bool = NULL WHERE id = 5; DELETE FROM ${table} WHERE id = 20; COMMIT`,
    `ALTER TABLE ${table} ADD COLUMN c_added text DEFAULT 'dflt', ADD COLUMN c_added_num numeric(6,2)`,
    `INSERT INTO ${table} (id, c_text, c_added_num) VALUES (12, 'after alter', 12.5)`,
    `UPDATE ${table} SET c_added = 'set' WHERE id = 1`,
  ];
}
/** The event of the last change ends each topic. */
const isLastChange = (e: Event) => {
  const after = (e.value as { payload?: { after?: { id?: { number: string }; c_added?: string } } } | null)?.payload
    ?.after;
  return after?.id?.number === "1" && after.c_added === "set";
};

interface Pair {
  label: string;
  table: string;
  infinities: boolean;
  settings: Record<string, string>;
}
const PAIRS: Pair[] = [
  { label: "defaults", table: "types", infinities: true, settings: {} },
  {
    label: "string_connect",
    table: "types_connect",
    infinities: false,
    settings: { "decimal.handling.mode": "string", "time.precision.mode": "connect" },
  },
];
const prefixOf = (side: Side, pair: Pair) => sideName(side, pair.label);
const topicOf = (side: Side, pair: Pair) => `${prefixOf(side, pair)}.public.${pair.table}`;

/** As normalizeChange; an initial snapshot's events name the slot's consistent point in `sequence`. */
function normalize(event: Event, side: Side, pair: Pair): Event {
  const snapshotLsn = payloadOf(event)?.source?.snapshot !== "false" ? payloadOf(event)?.source?.lsn : undefined;
  const e = normalizeChange(event, side, prefixOf(side, pair));
  if (snapshotLsn) expect(JSON.parse(payloadOf(event)!.source.sequence)).toEqual([null, snapshotLsn.number]);
  return e;
}

describe(`PostgreSQL CDC: Sluice's connector writes what Debezium ${DEBEZIUM_VERSION}'s writes`, () => {
  let sides: SideBySide;
  const api = (side: Side) => sides.api(side);
  /** Waits until the topic's last event passes `done`; returns all its events. */
  const eventsUntil = (side: Side, pair: Pair, what: string, done: (e: Event) => boolean) =>
    sides.eventsUntil(topicOf(side, pair), what, (all) => done(all[all.length - 1]!));

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare(pg) {
        pg.psql("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
        for (const pair of PAIRS) {
          pg.psql(`CREATE TABLE ${pair.table} (${[...COLUMNS, ...DEFAULTED].join(", ")})`);
          pg.psql(`INSERT INTO ${pair.table} (${INSERT_COLUMNS}) VALUES ${rows(pair.infinities).join(", ")}`);
        }
      },
    });
  }, 240_000);
  afterAll(() => sides?.stop(), 60_000);

  test("the settings both have default to the same values", async () => {
    const validate = (side: Side) =>
      api(side).put(`/connector-plugins/PostgresConnector/config/validate`, { "connector.class": CDC_CONNECTOR_CLASS });
    const [debezium, sluice] = await Promise.all(SIDES.map(validate));
    const defaults = (body: { configs: { definition: { name: string; default_value: string | null } }[] }) =>
      new Map(body.configs.map((c) => [c.definition.name, c.definition.default_value]));
    const [ours, theirs] = [defaults(sluice!.body), defaults(debezium!.body)];
    expect([theirs.get("connector.plugin.version"), ours.get("connector.plugin.version")]).toEqual([
      DEBEZIUM_VERSION,
      VERSION,
    ]);
    // Debezium's plugin.name defaults to decoderbufs, a server-side plugin stock PostgreSQL lacks (so
    // working Debezium configs set pgoutput); Sluice decodes only pgoutput, which is its default.
    expect([theirs.get("plugin.name"), ours.get("plugin.name")]).toEqual(["decoderbufs", "pgoutput"]);
    // Every *.plugin.version (connector, converters) is the version of the project that made the plugin.
    const compared = [...ours.keys()].filter(
      (name) => theirs.has(name) && name !== "plugin.name" && !name.endsWith(".plugin.version"),
    );
    expect(compared).toEqual(
      expect.arrayContaining([
        "decimal.handling.mode",
        "time.precision.mode",
        "snapshot.mode",
        "slot.name",
        "publication.autocreate.mode",
        "tombstones.on.delete",
      ]),
    );
    expect(Object.fromEntries(compared.map((name) => [name, ours.get(name)]))).toEqual(
      Object.fromEntries(compared.map((name) => [name, theirs.get(name)])),
    );
  });

  test("the snapshot and the streamed changes are the same records", async () => {
    for (const pair of PAIRS)
      await sides.createBoth(pair.label, { "table.include.list": `public.${pair.table}`, ...pair.settings });
    // Each slot exists once its snapshot has begun: from then on every change reaches it.
    const snapshotDone = (e: Event) => (e.value as Json | null)?.payload?.source?.snapshot === "last";
    for (const pair of PAIRS) for (const side of SIDES) await eventsUntil(side, pair, "the snapshot", snapshotDone);
    for (const pair of PAIRS) for (const change of changes(pair.table)) sides.pg.psql(change);

    const report: string[] = [];
    for (const pair of PAIRS) {
      const [debezium, sluice] = await Promise.all(
        SIDES.map((side) => eventsUntil(side, pair, "the last change", isLastChange)),
      );
      await sides.dump(prefixOf("debezium", pair), debezium!);
      await sides.dump(prefixOf("sluice", pair), sluice!);
      // 6 snapshot rows; 1 + 6 inserts, 2 updates, a key change (d, tombstone, c), a delete and its
      // tombstone, the transaction (c, u, d, tombstone), and the insert and update after ALTER TABLE.
      const ops = (all: Event[]) => all.map((e) => (e.value as Json | null)?.payload.op ?? "tombstone");
      const expected = [
        ..."rrrrrr",
        ..."ccccccc",
        "u",
        "u",
        "d",
        "tombstone",
        "c",
        "d",
        "tombstone",
        "c",
        "u",
        "d",
        "tombstone",
        "c",
        "u",
      ];
      expect([ops(debezium!), ops(sluice!)], pair.label).toEqual([expected, expected]);
      // The key change's records name the other key in a header (the tombstone keeps the delete's).
      const keyHeaders = (all: Event[]) =>
        all.slice(15, 18).map((e) => Object.keys(e.headers).filter((k) => !k.startsWith("__debezium.context.")));
      expect(keyHeaders(debezium!)).toEqual([["__debezium.newkey"], ["__debezium.newkey"], ["__debezium.oldkey"]]);
      for (let i = 0; i < debezium!.length; i++) {
        const [d, s] = [normalize(debezium![i]!, "debezium", pair), normalize(sluice![i]!, "sluice", pair)];
        report.push(...differences(d, s).map((diff) => `${pair.label} record ${i}${diff}`));
      }
    }
    expect(report).toEqual([]);
  }, 240_000);
});
