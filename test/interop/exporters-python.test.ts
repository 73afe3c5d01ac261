// Schema ids survive an exporter: Python's confluent-kafka serializes Avro records on one Kafka cluster
// through the source registry; the records' bytes are copied as they are to a second cluster (as
// MirrorMaker would), and Python's deserializer there decodes them through the destination registry,
// which the exporter filled (contextType NONE: same ids).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKafka, type KafkaCluster } from "../fixtures/kafka.ts";
import { pythonSerde } from "../fixtures/python.ts";
import { client, startTestRegistry, type TestRegistry } from "../fixtures/registry.ts";
import { waitFor } from "../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-exporter-python-"));
const schema = {
  type: "record",
  name: "Order",
  fields: [
    { name: "id", type: "long" },
    { name: "customer", type: "string" },
  ],
};
const values = [
  { id: 1, customer: "ada" },
  { id: 2, customer: "bob" },
];
const clusters: KafkaCluster[] = [];
let source: TestRegistry;
let destination: TestRegistry;

beforeAll(async () => {
  writeFileSync(join(dir, "order.avsc"), JSON.stringify(schema));
  clusters.push(await startKafka(), await startKafka());
  const place = (c: KafkaCluster) => ({ kind: "kafka" as const, bootstrap: c.bootstrap, topic: "_schemas" });
  source = await startTestRegistry(place(clusters[0]!), { "exporter.poll.interval.ms": "100" });
  destination = await startTestRegistry(place(clusters[1]!));
}, 300_000);

afterAll(async () => {
  await source?.stop();
  await destination?.stop();
  for (const c of clusters) await c.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

test("Python decodes on the destination cluster, through the destination registry, what it wrote on the source", async () => {
  // Another schema first, so that the exported id is not 1 by chance.
  await client(source.url).register("other-value", JSON.stringify({ type: "record", name: "X", fields: [] }));
  const topic = "orders";
  const [produced] = (await pythonSerde(
    [
      "produce",
      "--format",
      "avro",
      "--bootstrap",
      clusters[0]!.bootstrap,
      "--registry",
      source.url,
      "--topic",
      topic,
      "--schema",
      join(dir, "order.avsc"),
    ],
    values.map((v) => JSON.stringify(v)).join("\n"),
  )) as { ids: number[] }[];
  expect(produced!.ids[0]).toBeGreaterThan(1);

  const created = await client(source.url).post("/exporters", {
    name: "to-b",
    contextType: "NONE",
    config: { "schema.registry.url": destination.url },
  });
  expect(created.body).toEqual({ name: "to-b" });
  await waitFor("orders-value exported", async () => {
    const v = await client(destination.url).get("/subjects/orders-value/versions/1");
    return v.status === 200 && v.body.id === produced!.ids[0];
  });

  // The records' bytes, copied as they are to the other cluster.
  const records = await waitFor("the records on the source cluster", async () => {
    const r = await source.registry.broker.fetch(topic, 0, 0);
    return r.length >= values.length && r;
  });
  await destination.registry.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1, config: {} });
  await destination.registry.broker.produce(
    topic,
    records.map((r) => ({ key: r.key, value: r.value, partition: 0 })),
  );

  const decoded = (await pythonSerde([
    "consume",
    "--format",
    "avro",
    "--bootstrap",
    clusters[1]!.bootstrap,
    "--registry",
    destination.url,
    "--topic",
    topic,
    "--count",
    String(values.length),
  ])) as { id: number; value: unknown }[];
  expect(decoded).toEqual(values.map((value) => ({ id: produced!.ids[0], value })));
}, 300_000);
