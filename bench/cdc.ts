// CDC pipeline benchmark: PostgreSQL CDC source (snapshot) → Kafka → JDBC sink into a second database
// of the same PostgreSQL server, on an in-process standalone worker and a local Kafka broker.
// 1. Throughput: rows/s from connector creation until the target holds every row, against the ceiling
//    of `COPY … TO STDOUT` piped into `COPY … FROM STDIN` between the same two databases in the same run.
// 2. Streaming latency: ~1,000 changes/s for ~20 s; each row carries the source's clock_timestamp() at
//    insert (its transaction commits right after), and the target is polled; latency = first poll that
//    sees the row − that timestamp (one machine, one clock).
// Usage: bun bench/cdc.ts [rows=1000000] [latencySeconds=20] [changesPerSecond=1000]
import { pipeline } from "node:stream/promises";
import postgres from "postgres";
import { connectClient, removeConnectDir, startTestConnect } from "../test/fixtures/connect.ts";
import { stopSharedKafka } from "../test/fixtures/kafka.ts";
import { cdcConnection, startPostgres } from "../test/fixtures/postgres.ts";
import { waitFor } from "../test/fixtures/wait.ts";

const rows = Number(process.argv[2] ?? 1_000_000);
const latencySeconds = Number(process.argv[3] ?? 20);
const changesPerSecond = Number(process.argv[4] ?? 1000);
const TICK_MS = 10;

const pg = await startPostgres();
pg.psql("CREATE DATABASE target");
pg.psql("CREATE DATABASE copy_target");
const connect = (database: string) => postgres({ host: "127.0.0.1", port: pg.port, database, username: pg.user, max: 1, onnotice: () => {} });
const source = connect("postgres");
const target = connect("target");
const copyTarget = connect("copy_target");

// ~100-byte rows: a key, an int, a text and the float8 commit-time column the latency phase uses.
const COLUMNS = "id bigint PRIMARY KEY, n int NOT NULL, payload text NOT NULL, committed_at float8 NOT NULL";
await source.unsafe(`CREATE TABLE bench (${COLUMNS})`);
await source.unsafe(`INSERT INTO bench SELECT i, i % 1000, md5(i::text) || md5((i + 1)::text), 0 FROM generate_series(1, ${rows}) i`);
await source.unsafe("VACUUM ANALYZE bench");

// The ceiling: the same rows, server to server through this process, with PostgreSQL's bulk path.
await copyTarget.unsafe(`CREATE TABLE bench (${COLUMNS})`);
// A connection of its own for COPY TO: postgres.js left the one it streamed from unusable after large copies.
const copySource = connect("postgres");
const copyStart = performance.now();
await pipeline(await copySource.unsafe("COPY bench TO STDOUT").readable(), await copyTarget.unsafe("COPY bench FROM STDIN").writable());
const copySeconds = (performance.now() - copyStart) / 1000;
await copySource.end({ timeout: 1 });
const ceiling = rows / copySeconds;
console.log(`COPY ceiling: ${rows} rows in ${copySeconds.toFixed(2)} s = ${Math.round(ceiling)} rows/s`);

const worker = await startTestConnect("kafka");
const api = connectClient(worker.url);
const prefix = `bench${Date.now()}`;
const created = await api.post("/connectors", {
  name: "source",
  config: {
    "connector.class": "PostgresCdc",
    ...cdcConnection(pg),
    "topic.prefix": prefix,
    "table.include.list": "public.bench",
    "publication.autocreate.mode": "filtered",
    transforms: "unwrap,route",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "([^.]+)\\.([^.]+)\\.([^.]+)",
    "transforms.route.replacement": "$3",
  },
});
const sink = await api.post("/connectors", {
  name: "sink",
  config: {
    "connector.class": "JdbcSink",
    topics: "bench",
    "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/target`,
    "connection.user": pg.user,
    "insert.mode": "upsert",
    "pk.mode": "record_key",
    "delete.enabled": "true",
    "auto.create": "true",
  },
});
if (created.status !== 201 || sink.status !== 201) throw new Error(`connector creation failed: ${JSON.stringify([created.body, sink.body])}`);
const pipelineStart = performance.now();
const targetCount = async () => Number((await target`SELECT count(*)::int AS c FROM bench`)[0]!.c);
await waitFor(
  `${rows} rows in the target`,
  async () => {
    try {
      return (await targetCount()) === rows || undefined;
    } catch {
      return undefined; // the sink has not created the table yet
    }
  },
  { timeoutMs: 3_600_000, intervalMs: 200 },
);
const pipelineSeconds = (performance.now() - pipelineStart) / 1000;
const throughput = rows / pipelineSeconds;
console.log(`Snapshot → Kafka → JDBC sink: ${rows} rows in ${pipelineSeconds.toFixed(2)} s = ${Math.round(throughput)} rows/s, ratio to COPY ${(throughput / ceiling).toFixed(3)}`);

// The target table was filled by the sink and never analysed: without statistics the poller's
// `id > $1 ORDER BY id` may be planned as a scan of the whole table, which would be measured as latency.
await target.unsafe("ANALYZE bench");
// Catch-up: the slot starts streaming at the snapshot's start, and logical decoding must first read all
// WAL written since — here the sink's writes into the target database of the same server. One marker
// row through the pipeline shows when streaming has caught up; steady-state latency is measured after.
const catchUpStart = performance.now();
await source.unsafe(`INSERT INTO bench VALUES (${rows + 1}, 0, 'marker', 0)`);
await waitFor("the marker row in the target", async () => (await targetCount()) === rows + 1 || undefined, { timeoutMs: 600_000, intervalMs: 20 });
console.log(`Streaming caught up with the WAL written during the snapshot after ${((performance.now() - catchUpStart) / 1000).toFixed(2)} s`);

// Streaming latency: a steady insert rate; each batch is its own transaction.
const perTick = Math.max(1, Math.round((changesPerSecond * TICK_MS) / 1000));
const total = Math.floor((latencySeconds * 1000) / TICK_MS) * perTick;
let nextId = rows + 2;
const latencies: number[] = [];
let polling = true;
const poller = (async () => {
  let seen = rows + 1;
  while (polling || seen < rows + 1 + total) {
    const fresh = await target`SELECT id, committed_at FROM bench WHERE id > ${seen} ORDER BY id`;
    const now = Date.now();
    for (const row of fresh) {
      latencies.push(now - Number(row.committed_at));
      seen = Math.max(seen, Number(row.id));
    }
    await Bun.sleep(2); // poll interval: the resolution of the measurement
  }
})();
const streamStart = performance.now();
for (let tick = 0; nextId <= rows + 1 + total; tick++) {
  const first = nextId;
  nextId += perTick;
  await source.unsafe(
    `INSERT INTO bench SELECT i, i % 1000, md5(i::text), extract(epoch FROM clock_timestamp()) * 1000 FROM generate_series(${first}, ${nextId - 1}) i`,
  );
  const due = streamStart + (tick + 1) * TICK_MS;
  await Bun.sleep(Math.max(0, due - performance.now())); // pacing of the load, not synchronisation
}
const achieved = total / ((performance.now() - streamStart) / 1000);
polling = false;
await poller;
latencies.sort((a, b) => a - b);
const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
console.log(`Streaming: ${total} changes at ${Math.round(achieved)}/s; commit → visible in target p50 ${quantile(0.5).toFixed(1)} ms, p99 ${quantile(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`);

await worker.stop();
removeConnectDir(worker);
await Promise.all([source.end(), target.end(), copyTarget.end()]);
await pg.stop();
await stopSharedKafka();
