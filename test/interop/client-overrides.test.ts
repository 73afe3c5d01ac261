// Client overrides (KIP-458) side by side with Apache Kafka Connect 4.1.1 (standalone, Maven jars), on
// the same Kafka broker: under connector.client.config.override.policy=None both refuse a connector's
// overrides with the same answer; under All a producer.override.compression.type=zstd makes both write
// zstd batches (read back by Kafka's DumpLogSegments).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../fixtures/connect.ts";
import { startKafkaConnect, type KafkaConnect } from "../fixtures/kafka-connect.ts";
import { batchCodecs, sharedKafka } from "../fixtures/kafka.ts";
import { waitFor } from "../fixtures/wait.ts";

const run = `${Date.now()}`;
const dir = mkdtempSync(join(tmpdir(), "client-overrides-interop-"));

interface Both {
  sluice: TestConnect;
  kafka: KafkaConnect;
}

async function startBoth(worker: Record<string, string>): Promise<Both> {
  const bootstrap = (await sharedKafka()).bootstrap;
  const [sluice, kafka] = await Promise.all([
    startTestConnect("kafka", worker),
    startKafkaConnect({ bootstrap, worker, dir: mkdtempSync(join(dir, "kafka-")) }),
  ]);
  return { sluice, kafka };
}

async function stopBoth(both: Both | undefined): Promise<void> {
  if (!both) return;
  await Promise.all([both.sluice.stop(), both.kafka.stop()]);
  removeConnectDir(both.sluice);
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("policy None", () => {
  let both: Both;
  beforeAll(async () => {
    both = await startBoth({ "connector.client.config.override.policy": "None" });
  }, 180_000);
  afterAll(() => stopBoth(both));

  test("both refuse a connector's overrides with the same answer", async () => {
    const config = (side: string) => ({
      "connector.class": "FileStreamSource",
      name: `${side}-refused`,
      file: join(dir, "none.txt"),
      topic: `${side}-none-${run}`,
      "producer.override.compression.type": "zstd",
      "producer.override.sasl.mechanism": "PLAIN",
    });
    const [sluice, kafka] = await Promise.all([
      connectClient(both.sluice.url).post("/connectors", { name: "sluice-refused", config: config("sluice") }),
      connectClient(both.kafka.url).post("/connectors", { name: "kafka-refused", config: config("kafka") }),
    ]);
    expect(kafka.status).toBe(400);
    expect(sluice.status).toBe(kafka.status);
    expect(sluice.body).toEqual(kafka.body);
  }, 60_000);
});

describe("policy All (the default)", () => {
  let both: Both;
  beforeAll(async () => {
    both = await startBoth({});
  }, 180_000);
  afterAll(() => stopBoth(both));

  test("producer.override.compression.type=zstd: both write zstd batches", async () => {
    const file = join(dir, "lines.txt");
    writeFileSync(file, `${Array.from({ length: 100 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n")}\n`);
    const topics = { sluice: `sluice-zstd-${run}`, kafka: `kafka-zstd-${run}` };
    for (const [side, url] of [
      ["sluice", both.sluice.url],
      ["kafka", both.kafka.url],
    ] as const) {
      const created = await connectClient(url).post("/connectors", {
        name: `${side}-zstd`,
        config: {
          "connector.class": "FileStreamSource",
          file,
          topic: topics[side],
          "producer.override.compression.type": "zstd",
        },
      });
      expect(created.status).toBe(201);
    }
    const broker = both.sluice.connect.broker;
    for (const topic of Object.values(topics)) {
      await waitFor(
        `100 records in ${topic}`,
        async () => ((await broker.endOffsets(topic).catch(() => []))[0] ?? 0) >= 100,
        { timeoutMs: 60_000 },
      );
      expect(new Set(batchCodecs(await sharedKafka(), topic))).toEqual(new Set(["zstd"]));
    }
  }, 120_000);
});
