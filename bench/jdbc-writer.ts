// JDBC sink writer benchmark: the same records upserted into PostgreSQL through COPY (a stage and one
// INSERT … ON CONFLICT per put) and through multi-row statements, at several put sizes, runs alternating
// A B A B, each into a fresh table. Records have the CDC benchmark's row shape (bigint key, int, 64-char
// text, float8) and `extraColumns` more of 16-character text. Measures the writer alone: no Kafka, no
// converter.
// Usage: bun bench/jdbc-writer.ts [rowsPerRun=60000] [putSizes=170,500,3000] [rounds=2] [insert.mode=upsert] [extraColumns=0]
import { SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import { NO_CONNECT_HEADERS, type SinkRecord } from "#src/connect/api/records.ts";
import { openDatabase } from "#src/connectors/jdbc-sink/database.ts";
import { parseJdbcSinkConfig } from "#src/connectors/jdbc-sink/settings.ts";
import { JdbcWriter } from "#src/connectors/jdbc-sink/writer.ts";
import { startPostgres } from "../test/fixtures/postgres.ts";

const rowsPerRun = Number(process.argv[2] ?? 60_000);
const putSizes = (process.argv[3] ?? "170,500,3000").split(",").map(Number);
const rounds = Number(process.argv[4] ?? 2);
const insertMode = process.argv[5] ?? "upsert";
const extraColumns = Number(process.argv[6] ?? 0);
const extras = Array.from({ length: extraColumns }, (_, i) => `extra_${i + 1}`);

const keySchema = SchemaBuilder.struct().field("id", SchemaBuilder.int64().build()).build();
const valueBuilder = SchemaBuilder.struct()
  .field("id", SchemaBuilder.int64().build())
  .field("n", SchemaBuilder.int32().build())
  .field("payload", SchemaBuilder.string().build())
  .field("committed_at", SchemaBuilder.float64().build());
for (const name of extras) valueBuilder.field(name, SchemaBuilder.string().build());
const valueSchema = valueBuilder.build();

function value(i: number): Struct {
  const struct = new Struct(valueSchema)
    .put("id", i)
    .put("n", i % 1000)
    .put("payload", Bun.hash(String(i)).toString(16).padEnd(64, "f"))
    .put("committed_at", i / 7);
  for (const name of extras) struct.put(name, `${name}:${i}`.padEnd(16, "-"));
  return struct;
}

function records(topic: string): SinkRecord[] {
  return Array.from({ length: rowsPerRun }, (_, i) => ({
    topic,
    kafkaPartition: 0,
    kafkaOffset: i,
    originalTopic: topic,
    originalKafkaPartition: 0,
    originalKafkaOffset: i,
    keySchema,
    key: new Struct(keySchema).put("id", i),
    valueSchema,
    value: value(i),
    timestamp: 0,
    timestampType: "CreateTime",
    headers: NO_CONNECT_HEADERS,
  }));
}

const pg = await startPostgres();
const config = parseJdbcSinkConfig({
  "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/postgres`,
  "connection.user": pg.user,
  "insert.mode": insertMode,
  "pk.mode": "record_key",
  "auto.create": "true",
});
const db = openDatabase(config.target, { user: config.user, password: config.password }, config.timeZone);
const sides = {
  copy: new JdbcWriter(config, db, { copy: "always" }),
  statements: new JdbcWriter(config, db, { copy: "never" }),
};

let run = 0;
async function measure(side: keyof typeof sides, putSize: number): Promise<number> {
  const all = records(`bench_${side}_${run++}`);
  await sides[side].write(all.slice(0, 1)); // the table created outside the measure
  const start = performance.now();
  for (let i = 1; i < all.length; i += putSize) await sides[side].write(all.slice(i, i + putSize));
  return (all.length - 1) / ((performance.now() - start) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`insert.mode=${insertMode}, ${rowsPerRun} rows per run, ${valueSchema.fields.length} columns`);
console.log(`| Put size | COPY rows/s | Statements rows/s | COPY / statements |`);
console.log(`|---|---|---|---|`);
for (const putSize of putSizes) {
  const copy: number[] = [];
  const statements: number[] = [];
  for (let r = 0; r < rounds; r++) {
    copy.push(await measure("copy", putSize));
    statements.push(await measure("statements", putSize));
  }
  const fmt = (xs: number[]) => xs.map((x) => Math.round(x).toLocaleString("en")).join(" / ");
  console.log(
    `| ${putSize} | ${fmt(copy)} | ${fmt(statements)} | **${(median(copy) / median(statements)).toFixed(2)}** |`,
  );
}
await db.close();
await pg.stop();
