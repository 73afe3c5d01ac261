// CDC pipeline benchmark: PostgreSQL CDC source (snapshot) → Kafka → JDBC sink into a second database
// of the same PostgreSQL server, on an in-process standalone worker and a local Kafka broker.
// 1. Throughput: rows/s from connector creation until the target holds every row, against the ceiling
//    of `COPY … TO STDOUT` piped into `COPY … FROM STDIN` between the same two databases in the same run:
//    the source alone (snapshot → Kafka), the sink alone (that topic → a database of its own), and the
//    pipeline (source → Kafka → sink).
// 2. Streaming latency: ~1,000 changes/s for ~20 s; each row carries the source's clock_timestamp() at
//    insert (its transaction commits right after), and the target is polled; latency = first poll that
//    sees the row − that timestamp (one machine, one clock).
// Keys and values go through JsonConverter with schemas (the worker's default), or with `avro`, through
// AvroConverter and a schema registry on the same broker (each connector's converter settings).
// bench/cdc-peers.ts runs the same workload against Debezium and its JDBC sink in Kafka Connect.
// Usage: bun bench/cdc.ts [rows=1000000] [latencySeconds=20] [changesPerSecond=1000] [json|avro]
import { connectClient, removeConnectDir, startTestConnect } from "../test/fixtures/connect.ts";
import { sharedKafka, stopSharedKafka } from "../test/fixtures/kafka.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { cdcConnection, startPostgres } from "../test/fixtures/postgres.ts";
import { registryPlace, startTestRegistry } from "../test/fixtures/registry.ts";
import {
  catchUp,
  connectTo,
  copyCeiling,
  createBenchTable,
  measureLatency,
  upsertSink,
  waitForRows,
} from "./cdc-workload.ts";

const rows = Number(process.argv[2] ?? 1_000_000);
const latencySeconds = Number(process.argv[3] ?? 20);
const changesPerSecond = Number(process.argv[4] ?? 1000);
const format = process.argv[5] ?? "json";
if (format !== "json" && format !== "avro") throw new Error(`converter: json or avro, not ${format}`);

const pg = await startPostgres();
pg.psql("CREATE DATABASE target");
const source = connectTo(pg, "postgres");
const target = connectTo(pg, "target");
await createBenchTable(source, rows);
const ceiling = await copyCeiling(pg, rows);

const worker = await startTestConnect("kafka");
const registry = format === "avro" ? await startTestRegistry(await registryPlace("kafka")) : null;
/** Each connector's converters: the worker's JsonConverter, or AvroConverter through the registry. */
const converters: Record<string, string> = registry
  ? Object.fromEntries(
      ["key", "value"].flatMap((side) => [
        [`${side}.converter`, "io.confluent.connect.avro.AvroConverter"],
        [`${side}.converter.schema.registry.url`, registry.url],
      ]),
    )
  : {};
console.log(`Converters: ${registry ? "AvroConverter through the registry" : "JsonConverter with schemas"}`);
const api = connectClient(worker.url);
const prefix = `bench${Date.now()}`;

// 1. The source alone: the snapshot into Kafka, with its own slot and topics, until they hold every row.
const kafka = new KafkaBroker({ bootstrapServers: [(await sharedKafka()).bootstrap], clientId: "cdc-bench" });
await kafka.connect();
const alone = await api.post("/connectors", {
  name: "source-alone",
  config: {
    "connector.class": "PostgresCdc",
    ...converters,
    ...cdcConnection(pg),
    "topic.prefix": `${prefix}alone`,
    "slot.name": "bench_alone",
    "publication.name": "bench_alone",
    "slot.drop.on.stop": "true",
    "table.include.list": "public.bench",
    "publication.autocreate.mode": "filtered",
  },
});
if (alone.status !== 201) throw new Error(`connector creation failed: ${JSON.stringify(alone.body)}`);
const aloneStart = performance.now();
const aloneTopic = `${prefix}alone.public.bench`;
for (;;) {
  const ends = (await kafka.listTopics()).includes(aloneTopic) ? await kafka.endOffsets(aloneTopic) : [];
  if (ends.reduce((a, b) => a + b, 0) >= rows) break;
  await Bun.sleep(20); // poll interval of the measurement
}
const aloneSeconds = (performance.now() - aloneStart) / 1000;
console.log(
  `Snapshot → Kafka (source alone): ${rows} rows in ${aloneSeconds.toFixed(2)} s = ${Math.round(rows / aloneSeconds)} rows/s`,
);
await api.delete("/connectors/source-alone");
await kafka.close();

// 2. The sink alone: the topic the source filled, unwrapped, upserted into a database of its own.
pg.psql("CREATE DATABASE sinkalone");
const sinkAloneTarget = connectTo(pg, "sinkalone");
const sinkAlone = await api.post("/connectors", {
  name: "sink-alone",
  config: {
    "connector.class": "JdbcSink",
    ...converters,
    ...upsertSink(pg, aloneTopic, "sinkalone"),
    "table.name.format": "bench",
    transforms: "unwrap",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
  },
});
if (sinkAlone.status !== 201) throw new Error(`connector creation failed: ${JSON.stringify(sinkAlone.body)}`);
const sinkAloneStart = performance.now();
await waitForRows(sinkAloneTarget, rows);
const sinkAloneSeconds = (performance.now() - sinkAloneStart) / 1000;
console.log(
  `Kafka → JDBC sink (sink alone): ${rows} rows in ${sinkAloneSeconds.toFixed(2)} s = ${Math.round(rows / sinkAloneSeconds)} rows/s, ratio to COPY ${(rows / sinkAloneSeconds / ceiling).toFixed(3)}`,
);
await api.delete("/connectors/sink-alone");
await sinkAloneTarget.end();

// 3. The pipeline.
const created = await api.post("/connectors", {
  name: "source",
  config: {
    "connector.class": "PostgresCdc",
    ...converters,
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
    ...converters,
    ...upsertSink(pg, "bench", "target"),
  },
});
if (created.status !== 201 || sink.status !== 201)
  throw new Error(`connector creation failed: ${JSON.stringify([created.body, sink.body])}`);
const pipelineStart = performance.now();
await waitForRows(target, rows);
const pipelineSeconds = (performance.now() - pipelineStart) / 1000;
const throughput = rows / pipelineSeconds;
console.log(
  `Snapshot → Kafka → JDBC sink: ${rows} rows in ${pipelineSeconds.toFixed(2)} s = ${Math.round(throughput)} rows/s, ratio to COPY ${(throughput / ceiling).toFixed(3)}`,
);

const catchUpSeconds = await catchUp(source, target, rows);
console.log(`Streaming caught up with the WAL written during the snapshot after ${catchUpSeconds.toFixed(2)} s`);
const latency = await measureLatency(source, target, rows + 1, changesPerSecond, latencySeconds);
console.log(
  `Streaming: ${latency.changes} changes at ${Math.round(latency.achieved)}/s (delivered at ${Math.round(latency.delivered)}/s); commit → visible in target p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`,
);

await worker.stop();
await registry?.stop();
removeConnectDir(worker);
await Promise.all([source.end(), target.end()]);
await pg.stop();
await stopSharedKafka();
