// Incremental snapshot keys of many types, Sluice's PostgreSQL connector against Debezium's 3.7 on the same
// PostgreSQL and Kafka (test/fixtures/cdc-side-by-side.ts): the offsets keep the chunk's keys as Java
// objects (ObjectOutputStream, hex), and either connector must read what the other wrote.
// - a table whose primary key has a column of each of 20 types: paused after its first chunk, both sides'
//   incremental_snapshot_primary_key and incremental_snapshot_maximum_key are equal byte for byte.
// - a composite key of numeric, timestamp, timestamptz, date, varchar, bool, float8 and bytea: the same
//   offsets byte for byte mid-snapshot, then every row read once with Debezium's record.
// - Sluice's task restarted in the middle of such a snapshot resumes it after the last row sent: every
//   row arrives.
// - Sluice takes over Debezium's offsets in the middle of such a snapshot (PATCH …/offsets of a stopped
//   connector) and reads the rest of the table, from the row after the last Debezium sent; and Debezium
//   takes over Sluice's the same way.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeKey } from "#src/connectors/postgres-cdc/incremental-snapshot-key.ts";
import {
  differences,
  type Event,
  type Json,
  normalizeTimes,
  payloadOf,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
  withoutPrefix,
} from "../fixtures/cdc-side-by-side.ts";
import { waitFor } from "../fixtures/wait.ts";

const SIGNAL_COLUMNS = "id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048)";
const signalTable = (side: Side, label: string) => `${sideName(side, label)}_signal`;
const topicOf = (side: Side, label: string, table: string) => `${sideName(side, label)}.public.${table}`;
const opOf = (e: Event) => payloadOf(e)?.op as string | undefined;
/** The row's `v` column: each table's rows are told apart by it. */
const vOf = (e: Event) => payloadOf(e)?.after?.v as string | undefined;
const NO_KEY = "aced000570";
const SNAPSHOT_TIMEOUT_MS = 180_000;

/** Each column of the primary key of `every_type`, with the four rows' values. */
const EVERY_TYPE: [string, string, string[]][] = [
  ["n", "numeric", ["-3", "12.50", "100", "123456789012345678901234567890.0123456789"]],
  ["d", "date", ["'2024-02-29'", "'1999-12-31'", "'2000-01-01'", "'0044-03-15 BC'"]],
  [
    "ts",
    "timestamp",
    ["'2024-02-29 13:14:15.123456'", "'1999-12-31 23:59:59'", "'2000-01-01'", "'1970-01-01 00:00:00.000001'"],
  ],
  [
    "tstz",
    "timestamptz",
    ["'2024-02-29 13:14:15.5+02'", "'1999-12-31 23:59:59+00'", "'2000-01-01 00:00+00'", "'1900-06-01 12:00+00'"],
  ],
  ["t", "time", ["'13:14:15.25'", "'00:00:00'", "'23:59:59.999999'", "'12:00'"]],
  ["ttz", "timetz", ["'13:14:15+02'", "'00:00:00+00'", "'23:59:59-05'", "'12:00+00'"]],
  ["b", "bool", ["false", "true", "true", "false"]],
  ["f4", "real", ["1.5", "0.1", "3", "-1e30"]],
  ["f8", "double precision", ["-2.25", "3.141592653589793", "4", "1e300"]],
  ["by", "bytea", ["'\\x00ff10'", "'\\x'", "'\\x01'", "'\\xdeadbeef'"]],
  ["vc", "varchar(20)", ["'abc'", "'é☃'", "'z'", "'last'"]],
  ["ch", "char(5)", ["'ab'", "'x'", "'z'", "'last'"]],
  ["tx", "text", ["'tëxt'", "''", "'z'", "'last'"]],
  ["ci", "citext", ["'CiTe'", "'ß'", "'z'", "'LAST'"]],
  ["i2", "smallint", ["-7", "32767", "1", "-32768"]],
  ["en", "mood", ["'sad'", "'happy'", "'ok'", "'sad'"]],
  ["mo", "money", ["12.34", "-1.5", "0", "99999.99"]],
  ["iv", "interval", ["'1 day 02:03:04'", "'-3 months'", "'0'", "'1 year'"]],
  ["ip", "inet", ["'10.0.0.1'", "'::1'", "'192.168.0.0/16'", "'2001:db8::1'"]],
  ["o", "oid", ["42", "4294967295", "0", "7"]],
];
/**
 * Edge values, two rows a table (chunk size 1: the first is the last sent, the second the maximum), the
 * numeric first to order them.
 */
const EDGE_COLUMNS = "n numeric, d date, ts timestamp, f4 real, f8 double precision, iv interval, mo money, by bytea";
const EDGES: Record<string, [string, string]> = {
  edges_a: [
    "(-0.001, '1582-10-04', '-infinity', 'NaN', '-Infinity', '-1 days -02:03:04.5', -0.01, '\\x00', 'a1')",
    "('Infinity', 'infinity', 'infinity', '-0', '1e-320', '1 year 2 mons 3 days 04:05:06.000007', 0, '\\x0000', 'a2')",
  ],
  edges_b: [
    "(0, '-infinity', '2024-02-29 23:59:59.999999', 'Infinity', 'NaN', '-00:00:00.000001', 1000000, '\\x', 'b1')",
    "('NaN', '1582-10-15', '0001-01-01 00:00:00 BC', '1e-45', '-0', '-178000000 years', -92233720368547758.08, '\\xff', 'b2')",
  ],
};
/** Equal values in one key: Java writes an object it shares (Boolean.TRUE, Integer.valueOf(7), …) once. */
const SHARED_COLUMNS =
  "i1 int, i2 int, i3 int, i4 int, b1 bool, b2 bool, l1 int8, l2 int8, p1 inet, p2 inet, v1 interval, v2 interval, n1 numeric, n2 numeric";
const SHARED: [string, string] = [
  "(7, 7, 1000, 1000, true, true, 5, 5, '::1', '::2', '1 day', '2 days', 3, 3, 'c1')",
  "(8, -128, 128, 128, false, true, 200, 200, '::1', '::1', '1 day', '1 day', 16, 17, 'c2')",
];
const COMPOSITE_ROWS = 1000;
const COMPOSITE_KEY = "SELECT n, ts, tstz, d, vc, b, f8, by";

describe("incremental snapshot keys of many types side by side with Debezium", () => {
  let sides: SideBySide;

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare: (pg) => {
        pg.psql("CREATE EXTENSION citext");
        pg.psql("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
        const columns = EVERY_TYPE.map(([c, t]) => `${c} ${t}`).join(", ");
        const key = EVERY_TYPE.map(([c]) => c).join(", ");
        pg.psql(`CREATE TABLE every_type (${columns}, v text, PRIMARY KEY (${key}))`);
        const rows = [0, 1, 2, 3].map((r) => `(${EVERY_TYPE.map(([, , values]) => values[r]).join(", ")}, 'r${r}')`);
        pg.psql(`INSERT INTO every_type VALUES ${rows.join(", ")}`);
        for (const [table, rows] of Object.entries(EDGES)) {
          pg.psql(`CREATE TABLE ${table} (${EDGE_COLUMNS}, v text, PRIMARY KEY (n, d, ts, f4, f8, iv, mo, by))`);
          pg.psql(`INSERT INTO ${table} VALUES ${rows.join(", ")}`);
        }
        pg.psql(
          'CREATE TABLE other_types (i int, ci cidr, ma macaddr, m8 macaddr8, js jsonb, bt bit(4), vb varbit, nm name, c1 "char", rg int4range, tv tsvector, ls pg_lsn, v text, PRIMARY KEY (i, ci, ma, m8, js, bt, vb, nm, c1, rg, tv, ls))',
        );
        pg.psql(
          `INSERT INTO other_types VALUES (1, '10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05', '{"a": 1}', B'1010', B'101', 'nm1', 'x', '[1,5)', 'a fat cat', '0/16B3748', 'o1'),` +
            ` (2, '::1/128', 'ff:ff:ff:ff:ff:ff', '00:00:00:00:00:00:00:01', '[1, "two"]', B'0001', B'', 'nm2', 'y', 'empty', 'rat', 'FFFFFFFF/FFFFFFFF', 'o2')`,
        );
        // Domains: Debezium reads a domain's values as its base type's (PostgreSQL's results report the base type).
        pg.psql("CREATE DOMAIN price AS numeric CHECK (VALUE > 0)");
        pg.psql("CREATE DOMAIN valid_day AS date");
        pg.psql("CREATE DOMAIN label AS citext");
        pg.psql("CREATE DOMAIN positive_price AS price");
        pg.psql(
          "CREATE TABLE domain_key (n positive_price, d valid_day, l label, p price, v text, PRIMARY KEY (n, d, l, p))",
        );
        pg.psql(
          "INSERT INTO domain_key VALUES (1.5, '2024-01-01', 'One', 2, 'd1'), (12345678.90, '1999-01-01', 'two', 3.25, 'd2')",
        );
        pg.psql(
          `CREATE TABLE shared_values (${SHARED_COLUMNS}, v text, PRIMARY KEY (i1, i2, i3, i4, b1, b2, l1, l2, p1, p2, v1, v2, n1, n2))`,
        );
        pg.psql(`INSERT INTO shared_values VALUES ${SHARED.join(", ")}`);
        // Chunks ordered by numeric first; the other columns vary within one numeric value.
        const compositeColumns =
          "n numeric(12,3), ts timestamp, tstz timestamptz, d date, vc varchar(20), b bool, f8 float8, by bytea, v text";
        const compositeKey = "n, ts, tstz, d, vc, b, f8, by";
        const compositeRows = (rows: number) =>
          `SELECT (g / 4) * 1.125 - 50, timestamp '2024-01-01' + (g % 4) * interval '1 day 1.5 seconds',` +
          ` timestamptz '2024-01-01 00:00+00' - (g % 3) * interval '1 hour', date '1999-12-31' + (g % 2),` +
          ` 'key ' || (g % 4), g % 2 = 0, g * 0.5, decode(lpad(to_hex(g), 4, '0'), 'hex'), 'v' || g` +
          ` FROM generate_series(1, ${rows}) g`;
        for (const table of ["composite", "restarted", "taken_over", "given_back"]) {
          pg.psql(`CREATE TABLE ${table} (${compositeColumns}, PRIMARY KEY (${compositeKey}))`);
          pg.psql(`INSERT INTO ${table} ${compositeRows(COMPOSITE_ROWS)}`);
        }
        pg.psql("ANALYZE");
      },
    });
  }, 180_000);
  afterAll(() => sides?.stop(), 60_000);

  const signal = (label: string, id: string, type: string, data: unknown, only: Side[] = SIDES) => {
    for (const side of only)
      sides.pg.psql(
        `INSERT INTO ${signalTable(side, label)} VALUES ('${id}', '${type}', '${JSON.stringify(data).replaceAll("'", "''")}')`,
      );
  };
  /** Connector `label` on `only` (both sides by default) capturing `table`, streaming from its slot, no snapshot. */
  const create = async (
    label: string,
    table: string,
    chunkSize: number,
    only: Side[] = SIDES,
    settings: Partial<Record<Side, Record<string, string>>> = {},
  ) => {
    for (const side of only) sides.pg.psql(`CREATE TABLE ${signalTable(side, label)} (${SIGNAL_COLUMNS})`);
    for (const side of only) {
      const created = await sides.api(side).post("/connectors", {
        name: sideName(side, label),
        config: sides.connectorConfig(side, label, {
          "snapshot.mode": "no_data",
          "table.include.list": `public.${table}`,
          "signal.data.collection": `public.${signalTable(side, label)}`,
          "incremental.snapshot.chunk.size": String(chunkSize),
          ...settings[side],
        }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    for (const side of only)
      await waitFor(
        `${side}'s slot in use`,
        () =>
          sides.pg
            .psql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${sideName(side, label)}'`)
            .trim() === "t",
        { timeoutMs: 90_000, intervalMs: 200 },
      );
  };
  const remove = async (label: string, only: Side[] = SIDES) => {
    for (const side of only) {
      const deleted = await sides.api(side).delete(`/connectors/${sideName(side, label)}`);
      expect(deleted.status).toBeLessThan(300);
    }
    // A test server allows few replication slots: each side's goes with its connector.
    for (const side of only)
      await waitFor(
        `${side}'s slot inactive`,
        () =>
          sides.pg
            .psql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${sideName(side, label)}' AND active`)
            .trim() === "0",
      );
    for (const side of only) sides.pg.psql(`SELECT pg_drop_replication_slot('${sideName(side, label)}')`);
  };
  const offsetOf = async (side: Side, label: string): Promise<Json | undefined> => {
    const body = (await sides.api(side).get(`/connectors/${sideName(side, label)}/offsets`)).body as Json;
    return body.offsets?.[0]?.offset;
  };
  /** The side's offset once the last row sent is `key` (its first values' texts, joined by |). */
  const offsetAfter = (side: Side, label: string, key: string) =>
    waitFor(
      `${side}'s offsets with ${key} sent`,
      async () => {
        const offset = await offsetOf(side, label);
        const sent = offset?.incremental_snapshot_primary_key;
        if (typeof sent !== "string" || sent === NO_KEY) return undefined;
        const texts = decodeKey(sent)!.map((k) => k.text);
        return texts.slice(0, key.split("|").length).join("|") === key ? offset : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    ).catch(async (err) => {
      const sent = (await offsetOf(side, label))?.incremental_snapshot_primary_key;
      throw new Error(`${err}; the last sent: ${sent ? JSON.stringify(decodeKey(sent)) : sent}`);
    });
  /**
   * An execute-snapshot and a pause-snapshot in one transaction: both sides see the pause before the
   * first chunk's watermarks, so each hands on that chunk alone and waits.
   */
  const executePaused = (label: string, table: string, only: Side[] = SIDES) => {
    for (const side of only) {
      const insert = (id: string, type: string, data: unknown) =>
        `INSERT INTO ${signalTable(side, label)} VALUES ('${id}', '${type}', '${JSON.stringify(data)}');`;
      sides.pg.psql(
        `BEGIN; ${insert(`snap-${label}`, "execute-snapshot", { "data-collections": [`public.${table}`] })}` +
          ` ${insert(`pause-${label}`, "pause-snapshot", {})} COMMIT;`,
      );
    }
  };
  /** SLUICE_DUMP_DIR=<dir>: both sides' offsets, where the unit tests' captured keys come from. */
  const dumpOffsets = async (table: string, offsets: Record<Side, Json>) => {
    if (process.env.SLUICE_DUMP_DIR)
      await Bun.write(`${process.env.SLUICE_DUMP_DIR}/offsets-${table}.json`, JSON.stringify(offsets, null, 1));
  };
  const events = async (topic: string) => sides.events(topic).catch(() => [] as Event[]);
  /** The topic's events once every `v` of the table is there (as read or streamed). */
  const everyRow = async (side: Side, label: string, table: string) => {
    const vs = sides.pg.psql(`SELECT v FROM ${table}`).trim().split("\n");
    return waitFor(
      `every row of ${table} on ${topicOf(side, label, table)}`,
      async () => {
        const all = await events(topicOf(side, label, table));
        const seen = new Set(all.map(vOf));
        return vs.every((v) => seen.has(v)) ? all : undefined;
      },
      { timeoutMs: SNAPSHOT_TIMEOUT_MS, intervalMs: 1000 },
    ).catch((err) => {
      throw new Error(
        `${err}${
          side === "debezium"
            ? `\n${sides.kafkaConnect
                .log()
                .split("\n")
                .filter((l) => /ERROR|WARN|SQL|operator|xception/.test(l))
                .slice(-40)
                .join("\n")}`
            : ""
        }`,
      );
    });
  };

  test("a key of 20 types: the offsets mid-snapshot are Debezium's byte for byte", async () => {
    await create("types", "every_type", 2);
    executePaused("types", "every_type");
    // Paused after the first chunk: the second row (numeric 12.50) is the last sent.
    const offsets = {
      debezium: await offsetAfter("debezium", "types", "12.50"),
      sluice: await offsetAfter("sluice", "types", "12.50"),
    };
    await dumpOffsets("every_type", offsets);
    for (const key of ["incremental_snapshot_primary_key", "incremental_snapshot_maximum_key"])
      expect(offsets.sluice[key], key).toBe(offsets.debezium[key]);
    // The second row sent last; the largest key (numeric first) is the fourth row's.
    const sent = decodeKey(offsets.debezium.incremental_snapshot_primary_key)!;
    expect(sent.map((k): string => k.kind)).toEqual([
      "BigDecimal",
      "Date",
      ...["String", "String", "String", "String"],
      "Boolean",
      "Float",
      "Double",
      "Bytes",
      ...["String", "String", "String"],
      "PGobject",
      "Integer",
      "String",
      "BigDecimal",
      "PGInterval",
      "PGobject",
      "Long",
    ]);
    expect(sent[0]!.text).toBe("12.50");
    expect(decodeKey(offsets.debezium.incremental_snapshot_maximum_key)![1]!.text).toBe("0044-03-15 BC");
    await remove("types");
  }, 300_000);

  test("edge values (numeric NaN and infinities, ±infinity dates, Julian dates, negative intervals, signed zeros), equal values Java shares, domains and types PgJDBC has no class for: the offsets are Debezium's byte for byte", async () => {
    for (const [table, label, first] of [
      ["edges_a", "edga", "-0.001"],
      ["edges_b", "edgb", "0"],
      ["shared_values", "shrd", "7"],
      ["domain_key", "dom", "1.5"],
      ["other_types", "oth", "1"],
    ] as const) {
      await create(label, table, 1, SIDES, { debezium: { "database.stringtype": "unspecified" } });
      executePaused(label, table);
      const offsets = {
        debezium: await offsetAfter("debezium", label, first),
        sluice: await offsetAfter("sluice", label, first),
      };
      await dumpOffsets(table, offsets);
      for (const key of ["incremental_snapshot_primary_key", "incremental_snapshot_maximum_key"])
        expect(offsets.sluice[key], `${table} ${key}`).toBe(offsets.debezium[key]);
      await remove(label);
    }
  }, 300_000);

  test("a composite key of numeric, timestamp(tz), date, varchar, bool, float8 and bytea: offsets and records as Debezium's", async () => {
    // Debezium 3.7 reads time and timestamp keys as strings and binds them back as varchar, which
    // PostgreSQL refuses to compare with a timestamp column ("operator does not exist: timestamp without
    // time zone > character varying"): its snapshot of such a table stops after the first chunk unless
    // PgJDBC sends strings untyped. Sluice's chunk query writes untyped literals.
    await create("comp", "composite", 100, SIDES, { debezium: { "database.stringtype": "unspecified" } });
    executePaused("comp", "composite");
    // Paused after the first chunk: its last row is the last sent.
    const last = sides.pg.psql(`${COMPOSITE_KEY} FROM composite ORDER BY ${COMPOSITE_KEY.slice(7)} OFFSET 99 LIMIT 1`);
    const offsets = {
      debezium: await offsetAfter("debezium", "comp", last),
      sluice: await offsetAfter("sluice", "comp", last),
    };
    for (const key of ["incremental_snapshot_primary_key", "incremental_snapshot_maximum_key"])
      expect(offsets.sluice[key], key).toBe(offsets.debezium[key]);

    signal("comp", "resume-c", "resume-snapshot", {});
    const all = {
      debezium: await everyRow("debezium", "comp", "composite"),
      sluice: await everyRow("sluice", "comp", "composite"),
    };
    for (const side of SIDES) await sides.dump(`incremental-keys-${side}`, all[side]);
    const byV = (side: Side) => {
      const reads = all[side].filter((e) => opOf(e) === "r");
      expect(reads.length, `${side}: each row read once`).toBe(COMPOSITE_ROWS);
      return new Map(reads.map((e) => [vOf(e)!, e]));
    };
    const reads = { debezium: byV("debezium"), sluice: byV("sluice") };
    // Each read record as Debezium's, once what differs by nature is replaced: times, the source's
    // position (each side reads at its own watermarks), versions and run ids.
    const normalized = (side: Side, e: Event) => {
      const value = withoutPrefix(e.value as Json, sideName(side, "comp"));
      normalizeTimes(value.payload, `${side} envelope`);
      normalizeTimes(value.payload.source, `${side} source`);
      const source = value.payload.source;
      expect(source.snapshot).toBe("incremental");
      source.version = source.sequence = source.lsn = source.txId = "<position>";
      const headers = { ...e.headers, "__debezium.context.runId": "<run>" };
      return {
        key: withoutPrefix(e.key, sideName(side, "comp")),
        value,
        headers: withoutPrefix(headers, sideName(side, "comp")),
      };
    };
    const mismatches = [...reads.debezium].flatMap(([v, e]) =>
      differences(normalized("sluice", reads.sluice.get(v)!), normalized("debezium", e)).map((d) => `${v} ${d}`),
    );
    expect(mismatches.slice(0, 10)).toEqual([]);
    await remove("comp");
  }, 360_000);
  /** The first chunk's last key of a composite table, as its texts joined by | (100 rows a chunk). */
  const firstChunkEnd = (table: string) =>
    sides.pg.psql(`${COMPOSITE_KEY} FROM ${table} ORDER BY ${COMPOSITE_KEY.slice(7)} OFFSET 99 LIMIT 1`);
  /** The `v`s of a composite table's rows in key order. */
  const vsInKeyOrder = (table: string) =>
    sides.pg
      .psql(`SELECT v FROM ${table} ORDER BY ${COMPOSITE_KEY.slice(7)}`)
      .trim()
      .split("\n");

  test("Sluice's task restarted in the middle of a composite key's snapshot resumes it: every row arrives", async () => {
    await create("rst", "restarted", 100, ["sluice"]);
    executePaused("rst", "restarted", ["sluice"]);
    await offsetAfter("sluice", "rst", firstChunkEnd("restarted"));
    // A pause is not kept across a restart (as Debezium's): the restarted task reads on from the offsets.
    const restarted = await sides
      .api("sluice")
      .post(`/connectors/${sideName("sluice", "rst")}/restart?includeTasks=true`);
    expect(restarted.status, JSON.stringify(restarted.body)).toBeLessThan(300);
    sides.pg.psql("UPDATE restarted SET v = v || ' updated' WHERE v IN ('v5', 'v995')");
    const all = await everyRow("sluice", "rst", "restarted");
    const reads = all.filter((e) => opOf(e) === "r");
    const runs = new Set(reads.map((e) => e.headers["__debezium.context.runId"]));
    expect(runs.size, "rows read before and after the restart").toBe(2);
    // The restarted task went on after the last row sent: no row was read twice.
    const readVs = reads.map(vOf);
    expect(new Set(readVs).size).toBe(readVs.length);
    expect(readVs.length).toBeGreaterThanOrEqual(COMPOSITE_ROWS - 2);
    await remove("rst", ["sluice"]);
  }, 300_000);

  for (const [from, to, label, table] of [
    ["debezium", "sluice", "tko", "taken_over"],
    ["sluice", "debezium", "gvb", "given_back"],
  ] as const)
    test(`${to} takes over ${from}'s offsets in the middle of a composite key's snapshot`, async () => {
      await create(label, table, 100, SIDES, { debezium: { "database.stringtype": "unspecified" } });
      executePaused(label, table, [from]);
      const taken = await offsetAfter(from, label, firstChunkEnd(table));
      // The other side's connector, stopped, is given that offset (under its own partition), then resumed.
      const connector = `/connectors/${sideName(to, label)}`;
      const stopped = await sides.api(to).put(`${connector}/stop`);
      expect(stopped.status, JSON.stringify(stopped.body)).toBeLessThan(300);
      await waitFor(`${to}'s connector stopped`, async () => {
        const body = (await sides.api(to).get(`${connector}/status`)).body as Json;
        return body.connector?.state === "STOPPED";
      });
      const patched = await sides.api(to).patch(`${connector}/offsets`, {
        offsets: [{ partition: { server: sideName(to, label) }, offset: taken }],
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      const resumed = await sides.api(to).put(`${connector}/resume`);
      expect(resumed.status, JSON.stringify(resumed.body)).toBeLessThan(300);
      // It reads every row after the last the other sent, and none before it.
      const order = vsInKeyOrder(table);
      const expected = order.slice(100);
      const readsOf = async (side: Side) =>
        (await events(topicOf(side, label, table))).filter((e) => opOf(e) === "r").map(vOf);
      const reads = await waitFor(
        `${to}'s reads of the rest of the table`,
        async () => {
          const read = await readsOf(to);
          return read.length >= expected.length ? read : undefined;
        },
        { timeoutMs: SNAPSHOT_TIMEOUT_MS, intervalMs: 1000 },
      );
      expect(reads).toEqual(expected);
      expect(await readsOf(from)).toEqual(order.slice(0, 100));
      await remove(label);
    }, 300_000);
});
