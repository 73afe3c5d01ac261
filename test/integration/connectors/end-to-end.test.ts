// The three built-in connectors together, as a user would deploy them: PostgreSQL CDC (Debezium
// events flattened by ExtractNewRecordState and routed to the bare table name by RegexRouter) on
// Kafka with Avro through the registry, then JDBC sinks into MariaDB and a second PostgreSQL database
// and the Elasticsearch sink into OpenSearch. Inserts, updates and deletes must leave every target equal
// to the source, column by column, and still so after the worker process (dist/sluice) is killed with
// SIGKILL (no graceful flush) and started again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import postgres from "postgres";
import { connectClient } from "../../fixtures/connect.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { startMariaDb, type MariaDbServer } from "../../fixtures/mariadb.ts";
import { sharedOpenSearch, type OpenSearchNode } from "../../fixtures/opensearch.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { type SluiceProcess, startSluice } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const TABLE = "everything";
const CONNECTORS = ["source", "sink-postgres", "sink-mariadb", "sink-search"];

/** One canonical text per value (null stays null), so that the same value reads the same from any side. */
type Canon = (value: unknown) => string | null;

const text: Canon = (v) => (v === null || v === undefined ? null : String(v));
const nullable =
  (f: (v: unknown) => string): Canon =>
  (v) =>
    v === null || v === undefined ? null : f(v);
const integer = nullable((v) => BigInt(v as string | number).toString());
// numeric(12,3) values stay far below 2^53 / 1000, so a double holds them exactly to three places.
const decimal = nullable((v) => Number(v).toFixed(3));
const float4 = nullable((v) => String(Math.fround(Number(v))));
const float8 = nullable((v) => String(Number(v)));
const bool = nullable((v) => String(v === true || v === "true" || v === "1" || v === 1));
const sortedJson = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortedJson)
    : v !== null && typeof v === "object"
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, x]) => [k, sortedJson(x)]),
        )
      : v;
const json = nullable((v) => JSON.stringify(sortedJson(typeof v === "string" ? JSON.parse(v) : v)));
/** Milliseconds of a "YYYY-MM-DD[ T]HH:MM:SS[.fff]" wall-clock text taken as UTC, or of epoch millis. */
const millis = nullable((v) => String(typeof v === "number" ? v : Date.parse(`${String(v).replace(" ", "T")}Z`)));
/** A date's text, or (in documents, as JsonConverter writes a Connect Date) days since the epoch. */
const dateText = nullable((v) =>
  typeof v === "number" ? new Date(v * 86_400_000).toISOString().slice(0, 10) : String(v),
);
const timeMillis = nullable((v) => String(typeof v === "number" ? v : Date.parse(`1970-01-01T${String(v)}Z`)));
/** An ISO-8601 UTC instant with up to microseconds, as microseconds since the epoch. */
const isoMicros = nullable((v) => {
  const [, seconds, fraction = ""] = /^(.*?:\d\d)(?:\.(\d+))?Z$/.exec(String(v))!;
  return (BigInt(Date.parse(`${seconds}Z`)) * 1000n + BigInt(fraction.padEnd(6, "0").slice(0, 6))).toString();
});
const base64Hex = nullable((v) => Buffer.from(String(v), "base64").toString("hex"));

interface Column {
  name: string;
  type: string;
  /** Source and target PostgreSQL select it as text (default `<name>::text`). */
  pg?: string;
  /** MariaDB selects it as text (default CAST AS CHAR); absent when the JDBC sinks do not write it. */
  maria?: string;
  jdbc: boolean;
  /** Canonical form of the database's text. */
  canon: Canon;
  /** Canonical form of the document's field; defaults to canon. */
  doc?: Canon;
}

// time.precision.mode=connect turns DATE/TIME/TIMESTAMP into Connect's logical types (real date and
// time columns in the targets, but milliseconds), so time and timestamp columns are declared (3).
const COLUMNS: Column[] = [
  { name: "c_int2", type: "int2", jdbc: true, canon: integer },
  { name: "c_int4", type: "int4", jdbc: true, canon: integer },
  { name: "c_int8", type: "int8", jdbc: true, canon: integer },
  { name: "c_numeric", type: "numeric(12,3)", jdbc: true, canon: decimal },
  { name: "c_float4", type: "float4", jdbc: true, canon: float4 },
  { name: "c_float8", type: "float8", jdbc: true, canon: float8 },
  { name: "c_bool", type: "bool", jdbc: true, canon: bool },
  { name: "c_text", type: "text", jdbc: true, canon: text },
  { name: "c_varchar", type: "varchar(40)", jdbc: true, canon: text },
  {
    name: "c_bytea",
    type: "bytea",
    pg: "encode(c_bytea, 'hex')",
    maria: "LOWER(HEX(c_bytea))",
    jdbc: true,
    canon: text,
    doc: base64Hex,
  },
  { name: "c_date", type: "date", jdbc: true, canon: dateText },
  { name: "c_time", type: "time(3)", jdbc: true, canon: timeMillis },
  { name: "c_ts", type: "timestamp(3)", jdbc: true, canon: millis },
  // ZonedTimestamp is a string: the targets hold Debezium's UTC text; the source is rendered the same way.
  { name: "c_tstz", type: "timestamptz", jdbc: true, canon: isoMicros },
  { name: "c_json", type: "json", jdbc: true, canon: json },
  { name: "c_jsonb", type: "jsonb", jdbc: true, canon: json },
  { name: "c_uuid", type: "uuid", jdbc: true, canon: text },
  { name: "c_enum", type: "mood", jdbc: true, canon: text },
  // Arrays go to OpenSearch only: the JDBC sink (like Confluent's) has no column type for an ARRAY field
  // in either database, so both JDBC sinks leave them out with fields.whitelist.
  { name: "c_ints", type: "int[]", pg: "array_to_json(c_ints)::text", jdbc: false, canon: json },
  { name: "c_texts", type: "text[]", pg: "array_to_json(c_texts)::text", jdbc: false, canon: json },
];
const JDBC_COLUMNS = COLUMNS.filter((c) => c.jdbc);

const SOURCE_SELECT = (columns: Column[]) =>
  `SELECT id::text, ${columns
    .map((c) =>
      c.name === "c_tstz"
        ? `to_char(c_tstz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
        : (c.pg ?? `${c.name}::text`),
    )
    .join(", ")} FROM ${TABLE} ORDER BY ${TABLE}.id`;
const TARGET_PG_SELECT = `SELECT id::text, ${JDBC_COLUMNS.map((c) => (c.name === "c_tstz" ? "c_tstz" : (c.pg ?? `${c.name}::text`))).join(", ")} FROM ${TABLE} ORDER BY ${TABLE}.id`;
const MARIA_SELECT = `SELECT CAST(id AS CHAR), ${JDBC_COLUMNS.map((c) => c.maria ?? `CAST(${c.name} AS CHAR)`).join(", ")} FROM ${TABLE} ORDER BY ${TABLE}.id`;

type Row = (string | null)[];
const canonical = (columns: Column[], rows: unknown[][], pick: (c: Column) => Canon = (c) => c.canon): Row[] =>
  rows.map(([id, ...values]) => [String(id), ...columns.map((c, i) => pick(c)(values[i]))]);

/** A row of values for every column, varied by n; every fourth row is all NULLs. */
function rowLiteral(n: number): string {
  if (n % 4 === 3) return `(${n}${", NULL".repeat(COLUMNS.length)})`;
  const moods = ["sad", "ok", "happy"];
  return `(${n}, ${(n % 300) - 150}, ${n * 1000 - 7}, ${4_000_000_000_000 + n}, ${n}.${String(n % 1000).padStart(3, "0")}, ${(n % 7) + 0.25}, ${n * 1.5 + 0.123456}, ${n % 2 === 0},
    'row ${n} é ✓ "quoted" ''single'' tab\there', 'v${n}', '\\x${Buffer.from(`bytes ${n}`).toString("hex")}00ff',
    DATE '2024-01-01' + ${n}, TIME '07:08:09.123' + interval '${n} seconds', TIMESTAMP '2024-05-06 07:08:09.123' + interval '${n} minutes',
    TIMESTAMPTZ '2024-05-06 07:08:09.123456+02' + interval '${n} hours', '{"n": ${n}, "b": [1, "x"], "a": null}', '{"nested": {"k": "v${n}"}, "n": ${n}}',
    '${"a0eebc99-9c0b-4ef8-bb6d-6bb9bd38".concat(String(n).padStart(4, "0"))}', '${moods[n % 3]}', ARRAY[${n}, ${-n}, 0], ARRAY['t${n}', 'with,comma', NULL])`;
}

describe("PostgreSQL → Kafka (Avro) → MariaDB, PostgreSQL and OpenSearch", () => {
  let pg: PostgresServer;
  let maria: MariaDbServer;
  let search: OpenSearchNode;
  let place: RegistryPlace;
  let registry: TestRegistry;
  let source: postgres.Sql;
  let target: postgres.Sql;
  let mariaClient: mysql.Connection;
  let worker: SluiceProcess | undefined;
  let workerUrl = "";
  const dir = mkdtempSync(join(tmpdir(), "sluice-e2e-"));
  const run = Date.now();
  const index = TABLE; // the sink names the index after the routed topic

  const connectorFiles = (): string[] => {
    const avro = (kind: "key" | "value") => ({
      [`${kind}.converter`]: "io.confluent.connect.avro.AvroConverter",
      [`${kind}.converter.schema.registry.url`]: registry.url,
    });
    const converters = { ...avro("key"), ...avro("value") };
    const jdbc = (url: string, user: string) => ({
      "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
      topics: TABLE,
      "connection.url": url,
      "connection.user": user,
      "insert.mode": "upsert",
      "pk.mode": "record_key",
      "delete.enabled": "true",
      "auto.create": "true",
      "fields.whitelist": JDBC_COLUMNS.map((c) => c.name).join(","),
      ...converters,
    });
    const connectors: Record<string, Record<string, string>> = {
      source: {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": String(pg.port),
        // A password-checked (SCRAM) role whose password comes from a file through the config provider.
        "database.user": "cdc",
        "database.password": `\${file:${join(dir, "secrets.properties")}:pg.password}`,
        "database.dbname": "postgres",
        "topic.prefix": `e2e${run}`,
        "table.include.list": `public.${TABLE}`,
        "slot.name": "sluice_e2e",
        "publication.autocreate.mode": "filtered",
        "time.precision.mode": "connect",
        transforms: "unwrap,route",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "transforms.unwrap.delete.tombstone.handling.mode": "tombstone",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "([^.]+)\\.([^.]+)\\.([^.]+)",
        "transforms.route.replacement": "$3",
        ...converters,
      },
      "sink-postgres": jdbc(`jdbc:postgresql://127.0.0.1:${pg.port}/target`, pg.user),
      "sink-mariadb": jdbc(`jdbc:mariadb://127.0.0.1:${maria.port}/${maria.database}`, maria.user),
      "sink-search": {
        "connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
        topics: TABLE,
        "connection.url": search.url,
        "key.ignore": "false",
        "behavior.on.null.values": "delete",
        // The document id is the key; the CDC key is a struct {id}, so its one field becomes the key.
        transforms: "id",
        "transforms.id.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
        "transforms.id.field": "id",
        ...converters,
      },
    };
    return Object.entries(connectors).map(([name, config]) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ name, config }));
      return file;
    });
  };

  /** dist/sluice as its own process, so that a crash is a real SIGKILL and not an in-process stop. */
  async function startWorker(): Promise<void> {
    workerUrl = `http://127.0.0.1:${freePort()}`;
    const properties = {
      "bootstrap.servers": (await sharedKafka()).bootstrap,
      listeners: workerUrl,
      "data.dir": join(dir, "data"),
      "offset.storage.file.filename": join(dir, "connect.offsets"),
      "offset.flush.interval.ms": "500",
      "plugin.path": join(dir, "plugins"),
      "config.providers": "file",
      "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    };
    const file = join(dir, "worker.properties");
    writeFileSync(
      file,
      Object.entries(properties)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n") + "\n",
    );
    worker = await startSluice(["connect-standalone", file, ...connectorFiles()], {
      cwd: dir,
      readyUrl: `${workerUrl}/connectors`,
      env: { SLUICE_LOG_LEVEL: "info" },
      log: "worker.log",
      timeoutMs: 60_000,
    });
    const api = connectClient(workerUrl);
    for (const name of CONNECTORS) await api.waitForState(name, "RUNNING", 1);
  }

  async function killWorker(): Promise<void> {
    worker?.proc.kill("SIGKILL");
    await worker?.proc.exited;
    worker = undefined;
  }

  async function documents(): Promise<Row[]> {
    await fetch(`${search.url}/${index}/_refresh`, { method: "POST" });
    const r = await fetch(`${search.url}/${index}/_search?size=10000`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sort: [{ _id: "asc" }] }),
    });
    if (r.status === 404) return [];
    const hits = ((await r.json()) as { hits: { hits: { _id: string; _source: Record<string, unknown> }[] } }).hits
      .hits;
    return hits
      .map((h) => [h._id, ...COLUMNS.map((c) => (c.doc ?? c.canon)(h._source[c.name]))])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
  }

  /** Waits until MariaDB, the target PostgreSQL and OpenSearch each equal the source; then asserts it. */
  async function expectTargetsEqualSource(): Promise<void> {
    const expected = async (columns: Column[]) =>
      canonical(columns, await source.unsafe(SOURCE_SELECT(columns)).values());
    const sides = {
      postgres: async () => canonical(JDBC_COLUMNS, await target.unsafe(TARGET_PG_SELECT).values()),
      mariadb: async () =>
        canonical(JDBC_COLUMNS, (await mariaClient.query({ sql: MARIA_SELECT, rowsAsArray: true }))[0] as unknown[][]),
      opensearch: documents,
    };
    for (const [name, actual] of Object.entries(sides)) {
      const columns = name === "opensearch" ? COLUMNS : JDBC_COLUMNS;
      let last: Row[] = [];
      await waitFor(
        `${name} to equal the source`,
        async () => {
          last = await actual();
          return Bun.deepEquals(last, await expected(columns)) || undefined;
        },
        { timeoutMs: 90_000, intervalMs: 250 },
      ).catch(() => undefined);
      // A failed task explains a mismatch better than the rows do.
      const failed = await Promise.all(
        CONNECTORS.map(
          async (c) => (await connectClient(workerUrl).get(`/connectors/${c}/status`)).body?.tasks?.[0]?.trace,
        ),
      );
      expect({ name, rows: last, failed: failed.filter(Boolean) }).toEqual({
        name,
        rows: await expected(columns),
        failed: [],
      });
    }
  }

  beforeAll(async () => {
    [pg, maria, search, place] = await Promise.all([
      startPostgres(),
      startMariaDb(),
      sharedOpenSearch(),
      registryPlace("kafka"),
    ]);
    registry = await startTestRegistry(place);
    pg.psql("CREATE DATABASE target");
    pg.psql("CREATE ROLE cdc LOGIN SUPERUSER PASSWORD 'cdc-secret'");
    // Before initdb's trust lines (the first match wins): cdc must prove its password.
    const hba = join(pg.socketDir, "data", "pg_hba.conf");
    writeFileSync(hba, `host all cdc 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`);
    pg.psql("SELECT pg_reload_conf()");
    writeFileSync(join(dir, "secrets.properties"), "pg.password=cdc-secret\n");
    pg.psql("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
    pg.psql(`CREATE TABLE ${TABLE} (id int PRIMARY KEY, ${COLUMNS.map((c) => `${c.name} ${c.type}`).join(", ")})`);
    // Without option files the server's compiled-in default is latin1; the rows hold characters beyond it.
    maria.query(`ALTER DATABASE ${maria.database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await fetch(`${search.url}/${index}`, { method: "DELETE" });
    source = postgres({ host: "127.0.0.1", port: pg.port, database: "postgres", username: pg.user, max: 1 });
    target = postgres({ host: "127.0.0.1", port: pg.port, database: "target", username: pg.user, max: 1 });
    mariaClient = await mysql.createConnection({
      host: "127.0.0.1",
      port: maria.port,
      user: maria.user,
      database: maria.database,
    });
    await source.unsafe(
      `INSERT INTO ${TABLE} VALUES ${Array.from({ length: 40 }, (_, i) => rowLiteral(i)).join(", ")}`,
    );
  }, 240_000);
  afterAll(async () => {
    await killWorker();
    await Promise.all([source?.end(), target?.end(), mariaClient?.end()]);
    await registry?.stop();
    if (place) removePlace(place);
    await Promise.all([pg?.stop(), maria?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test("the snapshot, then inserts, updates and deletes reach every target", async () => {
    await startWorker();
    await expectTargetsEqualSource();
    await source.unsafe(
      `INSERT INTO ${TABLE} VALUES ${Array.from({ length: 20 }, (_, i) => rowLiteral(100 + i)).join(", ")}`,
    );
    await source.unsafe(
      `UPDATE ${TABLE} SET c_text = c_text || ' updated', c_numeric = -c_numeric, c_jsonb = '{"updated": true}', c_ints = ARRAY[]::int[] WHERE id % 5 = 0`,
    );
    await source.unsafe(`UPDATE ${TABLE} SET c_int8 = NULL, c_bytea = '\\x', c_text = '' WHERE id % 7 = 1`);
    await source.unsafe(`DELETE FROM ${TABLE} WHERE id % 6 = 2`);
    await source.unsafe(`INSERT INTO ${TABLE} VALUES ${rowLiteral(2)}`); // a deleted key comes back
    await expectTargetsEqualSource();
    // 60 rows, 10 of them deleted (id % 6 = 2), one of those inserted again: the deletes did happen.
    expect(Number((await source`SELECT count(*) FROM everything`)[0]!.count)).toBe(51);
  }, 240_000);

  test("after the worker is killed with SIGKILL mid-stream and started again, the targets still equal the source", async () => {
    await source.unsafe(
      `INSERT INTO ${TABLE} VALUES ${Array.from({ length: 30 }, (_, i) => rowLiteral(200 + i)).join(", ")}`,
    );
    await source.unsafe(`UPDATE ${TABLE} SET c_varchar = 'before crash' WHERE id % 3 = 0`);
    // Killed while streaming: once an offset past the snapshot is committed. Killed before that, the
    // source snapshots again at restart (as Debezium does), and a snapshot carries no deletes.
    await waitFor("a streaming offset committed", async () => {
      const offsets = (await connectClient(workerUrl).get("/connectors/source/offsets")).body as {
        offsets?: { offset: Record<string, unknown> }[];
      };
      return offsets.offsets?.some((o) => o.offset.lsn !== undefined && o.offset.snapshot === undefined) || undefined;
    });
    await killWorker();
    await source.unsafe(`DELETE FROM ${TABLE} WHERE id % 4 = 1`);
    await source.unsafe(
      `UPDATE ${TABLE} SET c_float8 = c_float8 * 2, c_enum = 'sad', c_tstz = c_tstz + interval '1 microsecond' WHERE id % 3 = 0`,
    );
    await source.unsafe(
      `INSERT INTO ${TABLE} VALUES ${Array.from({ length: 10 }, (_, i) => rowLiteral(300 + i)).join(", ")}`,
    );
    await startWorker();
    await expectTargetsEqualSource();
  }, 240_000);
});
