// Kafka client benchmark: how fast Sluice's Kafka path (KafkaBroker.produce) writes the records a CDC
// source task produces, against a bare @platformatic/kafka Producer (the client under it) writing the
// same records, side by side on the same broker, in alternating rounds.
// Records: a ~20-byte key, a ~300-byte JsonConverter value and, unless `noheaders`, Debezium's four
// context headers; acks=-1; batches of 1,024 awaited one after the other, as a source task sends them.
// Prints records/s of both and the ratio KafkaBroker/bare Producer. (kafkajs was measured against it
// side by side before it left: docs/benchmarks.md, "Kafka client".)
// Usage: bun bench/kafka-client.ts [records=200000] [headers|noheaders]
import { Producer } from "@platformatic/kafka";
import type { RecordHeader } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { sharedKafka, stopSharedKafka } from "../test/fixtures/kafka.ts";

const records = Number(process.argv[2] ?? 200_000);
const withHeaders = process.argv[3] !== "noheaders";
const BATCH = 1024;
const ROUNDS = 3;

const { bootstrap } = await sharedKafka();
const value = Buffer.from(
  JSON.stringify({
    schema: {
      type: "struct",
      fields: [
        { type: "int64", field: "id" },
        { type: "string", field: "payload" },
      ],
    },
    payload: { id: 1, payload: "x".repeat(200) },
  }),
);
const headers: RecordHeader[] | undefined = withHeaders
  ? [
      { key: "__debezium.context.connectorLogicalName", value: Buffer.from("bench") },
      { key: "__debezium.context.taskId", value: Buffer.from("0") },
      { key: "__debezium.context.connectorName", value: Buffer.from("postgresql") },
      { key: "__debezium.context.runId", value: Buffer.from("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b") },
    ]
  : undefined;
const bareHeaders = headers && new Map(headers.map(({ key, value }) => [Buffer.from(key), value as Buffer]));
const key = (i: number) => Buffer.from(`{"id":${i}}`);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, j) => from + j);

const broker = new KafkaBroker({ bootstrapServers: [bootstrap] });
await broker.connect();
const run = Date.now();
await broker.createTopic({ name: `sluice-${run}`, partitions: 1, replicationFactor: 1 });
await broker.createTopic({ name: `bare-${run}`, partitions: 1, replicationFactor: 1 });
const producer = new Producer({ clientId: "bench", bootstrapBrokers: [bootstrap], acks: -1 });

const sides = {
  sluice: (from: number, to: number) =>
    broker.produce(
      `sluice-${run}`,
      range(from, to).map((i) => ({ key: key(i), value, partition: 0, headers })),
    ),
  bare: (from: number, to: number) =>
    producer.send({
      messages: range(from, to).map((i) => ({
        topic: `bare-${run}`,
        key: key(i),
        value,
        partition: 0,
        headers: bareHeaders,
      })),
    }),
};

async function rate(send: (from: number, to: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < records; i += BATCH) await send(i, Math.min(records, i + BATCH));
  return records / ((performance.now() - started) / 1000);
}

for (const send of Object.values(sides)) await send(0, 100); // warm-up: connections and metadata
const ratios: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const sluice = await rate(sides.sluice);
  const bare = await rate(sides.bare);
  ratios.push(sluice / bare);
  console.log(
    `round ${round}: KafkaBroker ${Math.round(sluice)} records/s, bare @platformatic/kafka Producer ${Math.round(bare)} records/s, ratio ${(sluice / bare).toFixed(2)}`,
  );
}
console.log(
  `${records} records per side and round, ${withHeaders ? "with" : "without"} headers: median ratio KafkaBroker/bare Producer ${ratios.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!.toFixed(2)}`,
);

await producer.close();
await broker.close();
await stopSharedKafka();
