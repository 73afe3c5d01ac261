// The internal topics of an Apache Kafka Connect 4.1.1 cluster (ConnectDistributed, Maven jars) read by
// Sluice: a Kafka Connect worker creates connectors (one paused) and runs a FileStreamSource part way;
// it stops, and a Sluice worker started on the same three topics lists the same connectors, configs,
// task configs, target states and offsets — and carries on from Kafka Connect's offsets, so every line
// of the file is in the topic exactly once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConnectCluster } from "../fixtures/connect-cluster.ts";
import { connectClient } from "../fixtures/connect.ts";
import { startKafkaConnect, type KafkaConnect } from "../fixtures/kafka-connect.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { waitFor } from "../fixtures/wait.ts";

const STRING = "org.apache.kafka.connect.storage.StringConverter";
const dir = mkdtempSync(join(tmpdir(), "sluice-kc-topics-"));
const name = `kc-${Math.random().toString(36).slice(2, 8)}`;
const topics = {
  "config.storage.topic": `${name}-configs`,
  "offset.storage.topic": `${name}-offsets`,
  "status.storage.topic": `${name}-status`,
};
let kafkaConnect: KafkaConnect | undefined;
let sluice: ConnectCluster | undefined;

beforeAll(async () => {
  const { bootstrap } = await sharedKafka();
  kafkaConnect = await startKafkaConnect({
    bootstrap,
    distributed: true,
    worker: {
      "group.id": `${name}-kafka`,
      ...topics,
      "config.storage.replication.factor": "1",
      "offset.storage.replication.factor": "1",
      "status.storage.replication.factor": "1",
      "key.converter": STRING,
      "value.converter": STRING,
    },
    timeoutMs: 180_000,
  });
}, 240_000);
afterAll(async () => {
  await kafkaConnect?.stop();
  await sluice?.tearDown();
  rmSync(dir, { recursive: true, force: true });
});

test("Sluice reads a Kafka Connect cluster's config, status and offset topics and carries on from its offsets", async () => {
  const kc = connectClient(kafkaConnect!.url);
  const file = join(dir, "input.txt");
  const lines = Array.from({ length: 200 }, (_, i) => `line-${i}`);
  writeFileSync(file, lines.slice(0, 100).join("\n") + "\n");
  const source = {
    "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
    file,
    topic: `${name}-lines`,
    "tasks.max": "1",
  };
  const idle = {
    "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
    file: join(dir, "other.txt"),
    topic: `${name}-other`,
  };
  writeFileSync(join(dir, "other.txt"), "");
  const create = (n: string, config: Record<string, string>, initial_state?: string) =>
    waitFor(
      `${n} created on Kafka Connect`,
      async () =>
        (await kc.post("/connectors", { name: n, config, ...(initial_state ? { initial_state } : {}) })).status === 201,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  await create("lines", source);
  await create("idle", idle, "PAUSED");
  await kc.waitForState("lines", "RUNNING", 1);
  // Kafka Connect commits the file position of the first 100 lines.
  const committed = await waitFor(
    "Kafka Connect's offset for the first 100 lines",
    async () => {
      const o = (await kc.get("/connectors/lines/offsets")).body as {
        offsets: { partition: Record<string, unknown>; offset: { position: number } }[];
      };
      return o.offsets[0]?.offset.position === lines.slice(0, 100).join("\n").length + 1 ? o : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  const expected = {
    connectors: ((await kc.get("/connectors")).body as string[]).sort(),
    config: (await kc.get("/connectors/lines/config")).body,
    tasks: (await kc.get("/connectors/lines/tasks")).body,
  };
  await kafkaConnect!.stop();
  kafkaConnect = undefined;

  // A Sluice worker on the same topics (its own group): same connectors, configs, task configs, offsets.
  sluice = new ConnectCluster({ settings: { ...topics, "key.converter": STRING, "value.converter": STRING } });
  await sluice.setUp(1);
  const api = sluice.client(0);
  expect(((await api.get("/connectors")).body as string[]).sort()).toEqual(expected.connectors);
  expect((await api.get("/connectors/lines/config")).body).toEqual(expected.config);
  expect((await api.get("/connectors/lines/tasks")).body).toEqual(expected.tasks);
  expect((await api.get("/connectors/lines/offsets")).body).toEqual(committed);
  await waitFor(
    "the paused connector PAUSED on Sluice",
    async () =>
      ((await api.get("/connectors/idle/status")).body as { connector?: { state: string } }).connector?.state ===
      "PAUSED",
  );

  // Sluice runs the source on from Kafka Connect's position: the next lines, none twice.
  appendFileSync(file, lines.slice(100).join("\n") + "\n");
  const records = await waitFor(
    "all 200 lines in the topic",
    async () => {
      const r = await sluice!.readTopic(`${name}-lines`);
      return r.length >= 200 ? r : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(records.map((r) => r.value)).toEqual(lines);
}, 240_000);
