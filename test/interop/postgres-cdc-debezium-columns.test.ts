// Debezium's column and record rules, side by side with Debezium's PostgresConnector (see
// postgres-cdc-debezium.test.ts for the set-up and what is normalized): column.mask.with.N.chars,
// column.mask.hash.<algorithm>.with.salt.<salt> (v1, Java-serialized) and its v2 form,
// column.truncate.to.N.chars, column.propagate.source.type, datatype.propagate.source.type (on most
// built-in types, for the length and scale Debezium reports) and message.key.columns, all on one
// table, with REPLICA IDENTITY FULL so deletes and updates carry a `before` to mask too. A second
// pair runs the same rules with skipped.operations=u and tombstones.on.delete=false. The snapshot and
// the streamed changes must be the same records on both sides, schemas (and their parameters)
// included: the hashes are Debezium's own, byte for byte.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  differences,
  type Event,
  type Json,
  normalizeChange,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
} from "../fixtures/cdc-side-by-side.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";
import { waitFor } from "../fixtures/wait.ts";

/** Longer than 65535 bytes of modified UTF-8: Java serializes it as a long string (v1 hashing). */
const LONG_NAME = "Ω".repeat(33_000);

const RULES: Record<string, string> = {
  "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K": "public.people.name",
  "column.mask.hash.MD5.with.salt.s@lt": "public.people.initials",
  "column.mask.hash.v2.SHA-512.with.salt.pepper": "public.people.email",
  "column.mask.with.5.chars": "public.people.secret,public.people.uid",
  "column.truncate.to.6.chars": "public\\.people\\.(code|note|short|blob)",
  "column.propagate.source.type": "public.people.amount,public.people.label,public.people.fixed",
  // uid matches a mask rule first: that one wins, as Debezium takes the first rule a column matches.
  "datatype.propagate.source.type":
    ".+\\.int4,.+\\.timestamp,.+\\.json,.+\\.uuid,.+\\.(int8|bigserial|float8|bool|date|timestamptz|interval|numeric|time)",
  "message.key.columns": "public.people:code",
};

interface Pair {
  label: string;
  settings: Record<string, string>;
}
const PAIRS: Pair[] = [
  { label: "columns", settings: RULES },
  { label: "columns_ops", settings: { ...RULES, "skipped.operations": "u", "tombstones.on.delete": "false" } },
];
const prefixOf = (side: Side, pair: Pair) => sideName(side, pair.label);
const topicOf = (side: Side, pair: Pair) => `${prefixOf(side, pair)}.public.people`;

const COLUMNS = [
  "id int PRIMARY KEY",
  "code varchar(12) NOT NULL",
  "name text",
  "email varchar(20)",
  "initials char(4)",
  "secret text",
  "uid uuid",
  "note varchar(50)",
  "short varchar(4)",
  "blob bytea",
  "amount numeric(10,2)",
  "qty int",
  "at timestamp",
  "doc json",
  "label varchar(30)",
  "fixed char(3)",
];
/** Of more types, for the source type parameters; left to their defaults. */
const TYPED = [
  "big int8 DEFAULT 9007199254740993",
  "ratio float8 DEFAULT 0.5",
  "flag bool DEFAULT true",
  "born date DEFAULT '2000-02-29'",
  "seen timestamptz(3) DEFAULT '2024-01-01 00:00:00.123+00'",
  "dur interval DEFAULT '1 day'",
  "free numeric DEFAULT 1.25",
  "t time(0) DEFAULT '12:00:00'",
  "seq bigserial",
];
const NAMES = COLUMNS.map((c) => c.split(" ")[0]).join(", ");
const ROWS = [
  `(1, 'CODE-000001', 'Ada Lovelace', 'ada@example.com', 'AL', 'hunter2', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    'a rather long note', 'abcd', '\\x0102030405060708', 1234.50, 7, '2024-01-02 03:04:05.123456', '{"a": 1}', 'label one', 'xy')`,
  `(2, 'C2', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `(3, 'ÜNÏ-ÇØDË', 'Zoë ☃ 𝄞', 'müller@exämple.de', 'ÄÖ', '', '00000000-0000-0000-0000-000000000000',
    'ñøté wïth áccents', 'ab', '\\x', -0.01, -1, '1969-12-31 23:59:59', '[]', '', 'é')`,
  `(4, 'C4', '${LONG_NAME}', 'exactly-twenty-chars', 'ABCD', 'x', NULL, 'six ch', 'four', '\\x010203040506', 0, 0, NULL, 'null', 'x', 'abc')`,
];
const CHANGES = [
  `INSERT INTO people (${NAMES}) VALUES (10, 'CODE-000010', 'Grace Hopper', 'grace@navy.mil', 'GH', 's3cr3t', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12',
    'streamed note, long', 'xy', '\\xdeadbeefcafe00', 99.99, 10, '2020-02-29 12:00:00', '{"b": [1, 2]}', 'streamed', 'q')`,
  `INSERT INTO people (${NAMES}) SELECT id + 100, code || '+', ${NAMES.replace(/^id, code, /, "")} FROM people WHERE id < 10 ORDER BY id`,
  "UPDATE people SET secret = 'new secret', note = 'changed note text', amount = 1.5 WHERE id = 1",
  // A change of the key message.key.columns names: a delete of the old key and a create of the new.
  "UPDATE people SET code = 'NEWCODE-1' WHERE id = 1",
  "UPDATE people SET name = 'Grace B. Hopper' WHERE id = 10",
  "DELETE FROM people WHERE id = 2",
  "DELETE FROM people WHERE id = 3",
  `INSERT INTO people (${NAMES}) VALUES (99, 'LAST', 'last', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
];
const isLast = (e: Event) => (e.value as Json | null)?.payload?.after?.code === "LAST";

const normalize = (event: Event, side: Side, pair: Pair) => normalizeChange(event, side, prefixOf(side, pair));

describe(`PostgreSQL CDC column and record rules, as Debezium ${DEBEZIUM_VERSION}'s`, () => {
  let sides: SideBySide;

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare(pg) {
        pg.psql(`CREATE TABLE people (${[...COLUMNS, ...TYPED].join(", ")})`);
        pg.psql("ALTER TABLE people REPLICA IDENTITY FULL");
        pg.psql(`INSERT INTO people (${NAMES}) VALUES ${ROWS.join(", ")}`);
      },
    });
  }, 480_000);
  afterAll(() => sides?.stop(), 60_000);

  test("masked, hashed, truncated and typed columns and the chosen key are Debezium's, snapshot and stream", async () => {
    for (const pair of PAIRS)
      await sides.createBoth(pair.label, { "table.include.list": "public.people", ...pair.settings });
    const snapshotDone = (all: Event[]) => (all.at(-1)!.value as Json | null)?.payload?.source?.snapshot === "last";
    for (const pair of PAIRS)
      for (const side of SIDES) await sides.eventsUntil(topicOf(side, pair), "the snapshot", snapshotDone);
    for (const change of CHANGES) sides.pg.psql(change);

    const report: string[] = [];
    for (const pair of PAIRS) {
      const all: Event[][] = [];
      for (const side of SIDES) {
        const events = await sides.eventsUntil(topicOf(side, pair), "the last change", (es) => isLast(es.at(-1)!));
        await sides.dump(prefixOf(side, pair), events);
        all.push(events);
      }
      const [debezium, sluice] = all as [Event[], Event[]];
      const ops = (es: Event[]) => es.map((e) => (e.value as Json | null)?.payload.op ?? "tombstone");
      expect(ops(sluice), pair.label).toEqual(ops(debezium));
      for (let i = 0; i < debezium.length; i++) {
        const [d, s] = [normalize(debezium[i]!, "debezium", pair), normalize(sluice[i]!, "sluice", pair)];
        report.push(...differences(d, s).map((diff) => `${pair.label} record ${i}${diff}`));
      }
    }
    expect(report).toEqual([]);
  }, 300_000);

  test("slot.failover=true on a server before PostgreSQL 17 fails the task, naming the version, and makes no slot", async () => {
    const version = sides.pg.psql("SELECT current_setting('server_version_num')::int / 10000");
    const name = sideName("sluice", "failover");
    const created = await sides.api("sluice").post("/connectors", {
      name,
      config: sides.connectorConfig("sluice", "failover", {
        "table.include.list": "public.people",
        "slot.failover": "true",
      }),
    });
    expect(created.status).toBe(201);
    const task = await waitFor(
      "the task to fail",
      async () => {
        const status = (await sides.api("sluice").get(`/connectors/${name}/status`)).body as {
          tasks?: { state: string; trace?: string }[];
        };
        const first = status.tasks?.[0];
        return first?.state === "FAILED" ? first : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(Number(version)).toBeLessThan(17);
    expect(task.trace).toContain(`slot.failover=true needs PostgreSQL 17 or later`);
    expect(task.trace).toContain(`the server is PostgreSQL ${version}.`);
    expect(sides.pg.psql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${name}'`)).toBe("0");
  }, 120_000);
});
