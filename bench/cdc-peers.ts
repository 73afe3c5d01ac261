// CDC pipeline against the JVM pipeline: PostgreSQL → Kafka → upsert into a target table, once with
// Debezium's PostgreSQL source and Debezium's JDBC sink in Apache Kafka Connect 4.1.1 standalone (the JVM
// options of Kafka's connect-standalone.sh) and once with Sluice's CDC source and JDBC sink in
// `dist/sluice connect-standalone`, each worker its own process, on the same Kafka broker and the same
// PostgreSQL server, from the same `bench` table (bench/cdc-workload.ts). Both workers convert keys and
// values with JsonConverter with schemas (schemas.enable=true). Each side gets what it needs to upsert
// the same rows into the same table (`bench`, created beforehand with the source's columns, in a target
// database of its own): Debezium's sink reads Debezium's envelopes as they are; Sluice's sink reads the
// rows ExtractNewRecordState takes out of them (the table named outright: collection.name.format, table.name.format).
// Per side, in one worker process:
// 1. Source only: the snapshot into Kafka (no sink, no transform), from connector creation until the
//    topic's end offsets add up to the row count.
// 2. Pipeline: source and sink, from connector creation until the target holds every row.
// 3. Streaming latency at each rate (bench/cdc-workload.ts's measure) once a marker row came through.
// Peak RSS: the worker process's VmHWM over all three. The COPY ceiling is measured in the same run.
// Usage: bun bench/cdc-peers.ts [rows=1000000] [latencySeconds=20] [changesPerSecond=1000,10000] [timeoutSeconds=3600]
// SLUICE_BIN overrides the Sluice executable (default dist/sluice, built with `bun run build` if missing).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import {
  DEBEZIUM_JDBC_SINK_VERSION,
  DEBEZIUM_VERSION,
  debeziumClasspath,
  debeziumJdbcSinkClasspath,
} from "../test/fixtures/debezium.ts";
import { kafkaConnectClasspath } from "../test/fixtures/kafka-connect.ts";
import { startKafka } from "../test/fixtures/kafka.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../test/fixtures/postgres.ts";
import { freePort, waitFor } from "../test/fixtures/wait.ts";
import {
  BENCH_COLUMNS,
  catchUp,
  connectTo,
  copyCeiling,
  createBenchTable,
  measureLatency,
  upsertSink,
  waitForRows,
  type Check,
  type Latency,
  type Sql,
} from "./cdc-workload.ts";
import {
  checkNoFailure,
  createConnector,
  deleteConnector,
  KAFKA_CONNECT_JVM_OPTIONS,
  sluiceBinary,
  startWorkerProcess,
  type WorkerProcess,
} from "./lib/worker-process.ts";
import { standaloneWorkerProperties } from "./lib/worker-properties.ts";

const rows = Number(process.argv[2] ?? 1_000_000);
const latencySeconds = Number(process.argv[3] ?? 20);
const rates = (process.argv[4] ?? "1000,10000").split(",").map(Number);
const timeoutMs = Number(process.argv[5] ?? 3600) * 1000;
const work = mkdtempSync(join(tmpdir(), "sluice-bench-cdc-peers-"));

interface Side {
  name: string;
  command(workerFile: string): string[];
  /** Worker settings of this side only. */
  worker: Record<string, string>;
  /** The CDC source connector's class. */
  sourceClass: string;
  /** Transforms the source needs for this side's sink. */
  pipelineTransforms: Record<string, string>;
  /** The sink connector's settings for `topic` into the `bench` table of `database`. */
  sink(topic: string, database: string): Record<string, string>;
}

interface SideResult {
  name: string;
  sourceOnly: number;
  pipeline: number;
  catchUpSeconds: number;
  latencies: Latency[];
  peakRssMiB: number;
}

/** A plugin.path directory holding each classpath as a plugin of its own (links to the jars in ~/.m2). */
function pluginPath(plugins: Record<string, string>): string {
  const dir = join(work, "kafka-connect-plugins");
  for (const [name, classpath] of Object.entries(plugins)) {
    mkdirSync(join(dir, name), { recursive: true });
    for (const jar of classpath.split(":").filter(Boolean)) symlinkSync(jar, join(dir, name, basename(jar)));
  }
  return dir;
}

async function dropSlot(source: Sql, slot: string, check: Check): Promise<void> {
  // The slot stays active until the deleted connector's task has closed its replication connection.
  await waitFor(
    `slot ${slot} dropped`,
    async () => {
      await check();
      const [row] = await source`SELECT active FROM pg_replication_slots WHERE slot_name = ${slot}`;
      if (!row) return true;
      if (!row.active) await source`SELECT pg_drop_replication_slot(${slot})`;
      return undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

async function runSide(
  side: Side,
  pg: PostgresServer,
  source: Sql,
  bootstrap: string,
  admin: KafkaBroker,
): Promise<SideResult> {
  const dir = join(work, side.name);
  mkdirSync(dir, { recursive: true });
  const port = freePort();
  const workerFile = join(dir, "worker.properties");
  await Bun.write(
    workerFile,
    standaloneWorkerProperties(
      { bootstrap, port, dir, converter: "org.apache.kafka.connect.json.JsonConverter" },
      { "key.converter.schemas.enable": "true", "value.converter.schemas.enable": "true", ...side.worker },
    ),
  );
  const database = `target_${side.name.replace(/-/g, "_")}`;
  pg.psql(`CREATE DATABASE ${database}`);
  const target = connectTo(pg, database);
  await target.unsafe(`CREATE TABLE bench (${BENCH_COLUMNS})`);
  const worker: WorkerProcess = await startWorkerProcess(side.name, side.command(workerFile), {
    cwd: dir,
    port,
    logFile: join(dir, "worker.log"),
    timeoutMs: 120_000,
  });
  const deadline = Date.now() + timeoutMs;
  // Cheap checks every poll; the connectors' states at most once a second.
  let statusAt = 0;
  const check = async () => {
    worker.check(deadline);
    if (performance.now() - statusAt < 1000) return;
    statusAt = performance.now();
    await checkNoFailure(worker.url);
  };
  const slug = side.name.replace(/-/g, "_");
  const sourceConfig = (name: string) => ({
    "connector.class": side.sourceClass,
    ...cdcConnection(pg),
    "topic.prefix": `${name}${Date.now()}`,
    "table.include.list": "public.bench",
    "plugin.name": "pgoutput",
    "slot.name": name,
    "publication.name": `${name}_pub`,
    "publication.autocreate.mode": "filtered",
  });
  try {
    // 1. Source only.
    const only = sourceConfig(`${slug}_only`);
    const onlyTopic = `${only["topic.prefix"]}.public.bench`;
    let start = performance.now();
    await createConnector(worker.url, "source-only", only);
    await waitFor(
      `${rows} records on ${onlyTopic}`,
      async () => {
        await check();
        const ends = await admin.endOffsets(onlyTopic).catch(() => [0]);
        return ends.reduce((a, b) => a + b, 0) >= rows || undefined;
      },
      { timeoutMs, intervalMs: 100 },
    );
    const sourceOnly = rows / ((performance.now() - start) / 1000);
    console.log(`${side.name}: source only (snapshot → Kafka) ${Math.round(sourceOnly)} rows/s`);
    await deleteConnector(worker.url, "source-only");
    await dropSlot(source, only["slot.name"], check);

    // 2. Pipeline.
    const pipelineSource = { ...sourceConfig(slug), ...side.pipelineTransforms };
    const topic = `${pipelineSource["topic.prefix"]}.public.bench`;
    start = performance.now();
    await createConnector(worker.url, "source", pipelineSource);
    await createConnector(worker.url, "sink", side.sink(topic, database));
    await waitForRows(target, rows, check);
    const pipeline = rows / ((performance.now() - start) / 1000);
    console.log(`${side.name}: snapshot → Kafka → JDBC sink ${Math.round(pipeline)} rows/s`);

    // 3. Streaming latency.
    const catchUpSeconds = await catchUp(source, target, rows, check);
    console.log(
      `${side.name}: streaming caught up with the WAL written during the snapshot after ${catchUpSeconds.toFixed(2)} s`,
    );
    const latencies: Latency[] = [];
    let lastId = rows + 1;
    for (const rate of rates) {
      const latency = await measureLatency(source, target, lastId, rate, latencySeconds, check);
      lastId += latency.changes;
      console.log(
        `${side.name}: ${latency.changes} changes at ${Math.round(latency.achieved)}/s, delivered at ${Math.round(latency.delivered)}/s: p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`,
      );
      latencies.push(latency);
    }
    return { name: side.name, sourceOnly, pipeline, catchUpSeconds, latencies, peakRssMiB: worker.rss.peakMiB() };
  } finally {
    await worker.stop();
    await target.end();
    // The next side starts from the same table, without this side's slot holding WAL back.
    await dropSlot(source, slug, () => {}).catch(() => {});
    await source.unsafe(`DELETE FROM bench WHERE id > ${rows}`);
    await source.unsafe("VACUUM ANALYZE bench");
  }
}

const pg = await startPostgres();
const kafka = await startKafka();
const admin = new KafkaBroker({ bootstrapServers: kafka.bootstrap.split(",") });
const source = connectTo(pg, "postgres");
try {
  await admin.connect();
  await createBenchTable(source, rows);
  const ceiling = await copyCeiling(pg, rows);
  const sluice = sluiceBinary();
  const plugins = pluginPath({
    "debezium-postgres": debeziumClasspath(),
    "debezium-jdbc-sink": debeziumJdbcSinkClasspath(),
  });
  const kafkaConnect: Side = {
    name: "kafka-connect",
    command: (workerFile) => [
      "java",
      ...KAFKA_CONNECT_JVM_OPTIONS,
      "-cp",
      kafkaConnectClasspath(),
      "org.apache.kafka.connect.cli.ConnectStandalone",
      workerFile,
    ],
    // Each Debezium connector as an isolated plugin, as Debezium ships them.
    worker: { "plugin.path": plugins },
    sourceClass: "io.debezium.connector.postgresql.PostgresConnector",
    pipelineTransforms: {},
    sink: (topic, database) => ({
      "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
      topics: topic,
      "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/${database}`,
      "connection.username": pg.user,
      "insert.mode": "upsert",
      "primary.key.mode": "record_key",
      "delete.enabled": "true",
      "schema.evolution": "basic",
      "collection.name.format": "bench",
    }),
  };
  const sluiceSide: Side = {
    name: "sluice",
    command: (workerFile) => [sluice, "connect-standalone", workerFile],
    worker: { "data.dir": join(work, "sluice", "data") },
    sourceClass: "io.debezium.connector.postgresql.PostgresConnector",
    pipelineTransforms: {
      transforms: "unwrap",
      "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    },
    sink: (topic, database) => ({
      "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
      ...upsertSink(pg, topic, database),
      "table.name.format": "bench",
    }),
  };
  console.log(
    `${rows} rows; Debezium ${DEBEZIUM_VERSION} source, Debezium JDBC sink ${DEBEZIUM_JDBC_SINK_VERSION}; broker ${kafka.bootstrap}`,
  );
  const jvm = await runSide(kafkaConnect, pg, source, kafka.bootstrap, admin);
  const ours = await runSide(sluiceSide, pg, source, kafka.bootstrap, admin);

  const fmt = (n: number) => Math.round(n).toLocaleString("en-US").replace(/,/g, " ");
  const latencyHeads = rates.map((r) => `p50 / p99 at ${fmt(r)}/s (delivered/s)`);
  console.log(`\n| Worker | Source only | Pipeline | Pipeline / COPY | ${latencyHeads.join(" | ")} | Peak RSS |`);
  console.log(`|---|---|---|---|${rates.map(() => "---|").join("")}---|`);
  for (const r of [jvm, ours]) {
    const lat = r.latencies.map((l) => `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} ms (${fmt(l.delivered)})`);
    console.log(
      `| ${r.name} | ${fmt(r.sourceOnly)} rows/s | ${fmt(r.pipeline)} rows/s | ${(r.pipeline / ceiling).toFixed(3)} | ${lat.join(" | ")} | ${fmt(r.peakRssMiB)} MiB |`,
    );
  }
  console.log(`\nCOPY ceiling: ${fmt(ceiling)} rows/s`);
  console.log(`pipeline rows/s ratio (Sluice / JVM): ${(ours.pipeline / jvm.pipeline).toFixed(2)} (target ≥ 3)`);
  console.log(`peak RSS ratio (Sluice / JVM): ${(ours.peakRssMiB / jvm.peakRssMiB).toFixed(2)} (target ≤ 0.25)`);
  console.log(`pipeline / COPY (Sluice): ${(ours.pipeline / ceiling).toFixed(3)} (target ≥ 0.3)`);
  console.log(`source-only ratio (Sluice / Debezium): ${(ours.sourceOnly / jvm.sourceOnly).toFixed(2)} (target ≥ 2.5)`);
  rates.forEach((rate, i) => {
    const [s, j] = [ours.latencies[i]!, jvm.latencies[i]!];
    console.log(
      `p99 latency at ${fmt(rate)}/s: Sluice ${s.p99.toFixed(1)} ms, JVM ${j.p99.toFixed(1)} ms (${s.p99 <= j.p99 ? "meets" : "misses"} Sluice ≤ JVM)`,
    );
  });
} finally {
  await source.end();
  await admin.close();
  await kafka.stop();
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}
