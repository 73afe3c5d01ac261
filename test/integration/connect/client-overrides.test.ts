// Kafka client settings of a connect worker (`producer.*`, `consumer.*`) and a connector's overrides
// (KIP-458: `producer.override.*`, `consumer.override.*`) on a real Kafka broker: the batches Sluice writes
// carry the codec asked for, as Kafka's own DumpLogSegments reads them from the broker's log; the worker's
// connector.client.config.override.policy refuses overrides with Kafka Connect 4.1.1's messages; sink
// tasks start a group with no committed offsets as auto.offset.reset says.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "bun";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encoder } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { kafkaClasspath, sharedKafka } from "../../fixtures/kafka.ts";
import { waitFor } from "../../fixtures/wait.ts";

const run = `${Date.now()}`;

/** The codec of each record batch in a partition's log, as Kafka's DumpLogSegments prints it. */
function codecsOf(topic: string, logDir: string): string[] {
  const dir = join(logDir, `${topic}-0`);
  const segments = readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .map((f) => join(dir, f));
  const dump = spawnSync(["java", "-cp", kafkaClasspath(), "kafka.tools.DumpLogSegments", "--files", ...segments]);
  const out = dump.stdout.toString();
  if (dump.exitCode !== 0) throw new Error(`DumpLogSegments failed: ${dump.stderr.toString()}`);
  return [...out.matchAll(/compresscodec: (\w+)/g)].map((m) => m[1]!.toLowerCase());
}

describe("compression on Kafka", () => {
  let connect: TestConnect;
  let logDir: string;

  beforeAll(async () => {
    const kafka = await sharedKafka();
    if (!kafka.logDir) throw new Error("this test reads the broker's log: it needs a broker the fixture started");
    logDir = kafka.logDir;
    connect = await startTestConnect("kafka", { "producer.compression.type": "lz4" });
  });
  afterAll(async () => {
    await connect?.stop();
    removeConnectDir(connect);
  });

  test("the worker's producer.compression.type, and each connector's producer.override.compression.type", async () => {
    const api = connectClient(connect.url);
    const codecs = { worker: undefined, gzip: "gzip", snappy: "snappy", zstd: "zstd", none: "none" } as const;
    const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: i, text: "compress me ".repeat(8) }));
    for (const [name, codec] of Object.entries(codecs)) {
      const file = join(connect.dir, `${name}.txt`);
      writeFileSync(file, `${lines.join("\n")}\n`);
      const created = await api.post("/connectors", {
        name: `compress-${name}`,
        config: {
          "connector.class": "FileStreamSource",
          file,
          topic: `compress-${name}-${run}`,
          ...(codec ? { "producer.override.compression.type": codec } : {}),
        },
      });
      expect(created.status).toBe(201);
    }
    for (const [name, codec] of Object.entries(codecs)) {
      const topic = `compress-${name}-${run}`;
      await waitFor(`200 records in ${topic}`, async () => {
        const ends = await connect.connect.broker.endOffsets(topic).catch(() => []);
        return ends[0] === lines.length;
      });
      const found = codecsOf(topic, logDir);
      expect(found.length).toBeGreaterThan(0);
      expect(new Set(found)).toEqual(new Set([codec ?? "lz4"]));
    }
  }, 120_000);
});

describe("connector.client.config.override.policy", () => {
  const workers: TestConnect[] = [];
  afterAll(async () => {
    for (const w of workers) {
      await w.stop();
      removeConnectDir(w);
    }
  });
  const worker = async (policy?: string) => {
    const w = await startTestConnect("kafka", policy ? { "connector.client.config.override.policy": policy } : {});
    workers.push(w);
    return connectClient(w.url);
  };
  const source = (name: string, overrides: Record<string, string>) => ({
    "connector.class": "FileStreamSource",
    name,
    file: "/dev/null",
    topic: `policy-${run}`,
    ...overrides,
  });

  test("None refuses every override, Principal all but the SASL identity, with Kafka's messages", async () => {
    const none = await worker("None");
    const overrides = { "producer.override.compression.type": "zstd", "producer.override.sasl.mechanism": "PLAIN" };
    const created = await none.post("/connectors", { name: "refused", config: source("refused", overrides) });
    expect(created.status).toBe(400);
    expect((created.body as { message: string }).message).toBe(
      [
        "Connector configuration is invalid and contains the following 2 error(s):",
        "The 'None' policy does not allow 'compression.type' to be overridden in the connector configuration.",
        "The 'None' policy does not allow 'sasl.mechanism' to be overridden in the connector configuration.",
        "You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`",
      ].join("\n"),
    );
    const validated = await none.put("/connector-plugins/FileStreamSource/config/validate", source("v", overrides));
    const configs = (validated.body as { configs: { value: { name: string; errors: string[] } }[] }).configs;
    expect(configs.find((c) => c.value.name === "producer.override.compression.type")?.value.errors).toEqual([
      "The 'None' policy does not allow 'compression.type' to be overridden in the connector configuration.",
    ]);
    // Without overrides a connector is as welcome as ever.
    expect((await none.post("/connectors", { name: "plain", config: source("plain", {}) })).status).toBe(201);

    const principal = await worker(
      "org.apache.kafka.connect.connector.policy.PrincipalConnectorClientConfigOverridePolicy",
    );
    const byPrincipal = await principal.post("/connectors", { name: "p", config: source("p", overrides) });
    expect(byPrincipal.status).toBe(400);
    expect((byPrincipal.body as { message: string }).message).toContain(
      "contains the following 1 error(s):\nThe 'Principal' policy does not allow 'compression.type' to be overridden in the connector configuration.",
    );
  }, 120_000);

  test("All (the default) takes any override, and refuses a value Kafka's client would with its message", async () => {
    const all = await worker();
    const bad = await all.post("/connectors", {
      name: "bad",
      config: source("bad", { "producer.override.compression.type": "brotli" }),
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toContain(
      "Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd",
    );
    const good = await all.post("/connectors", {
      name: "good",
      config: source("good", { "producer.override.compression.type": "zstd", "producer.override.linger.ms": "20" }),
    });
    expect(good.status).toBe(201);
  }, 120_000);

  test("a worker with a policy Kafka does not have does not start", async () => {
    await expect(startTestConnect("kafka", { "connector.client.config.override.policy": "Some" })).rejects.toThrow(
      "connector.client.config.override.policy",
    );
  });
});

describe("sink consumer settings", () => {
  let connect: TestConnect;
  beforeAll(async () => {
    connect = await startTestConnect("kafka");
  });
  afterAll(async () => {
    await connect?.stop();
    removeConnectDir(connect);
  });

  test("auto.offset.reset: latest starts a new group at the end; none fails the task as Kafka's consumer does", async () => {
    const api = connectClient(connect.url);
    const topic = `reset-${run}`;
    const broker = connect.connect.broker;
    await broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    await broker.produce(
      topic,
      [1, 2, 3].map((i) => ({ key: null, value: encoder.encode(`old-${i}`) })),
    );
    const file = join(connect.dir, "latest.txt");
    const sink = (name: string, reset: string, out: string) =>
      api.post("/connectors", {
        name,
        config: {
          "connector.class": "FileStreamSink",
          topics: topic,
          file: out,
          "value.converter": "org.apache.kafka.connect.storage.StringConverter",
          "consumer.override.auto.offset.reset": reset,
        },
      });
    expect((await sink("latest", "latest", file)).status).toBe(201);
    await api.waitForState("latest", "RUNNING", 1);
    // The task takes its position once running: new records are written until one arrives.
    let sent = 0;
    await waitFor(
      "a new record in the sink's file",
      async () => {
        await broker.produce(topic, [{ key: null, value: encoder.encode(`new-${sent++}`) }]);
        return existsSync(file) && readFileSync(file, "utf8").includes("new-");
      },
      { intervalMs: 200 },
    );
    expect(readFileSync(file, "utf8")).not.toContain("old-");

    expect((await sink("none", "none", join(connect.dir, "none.txt"))).status).toBe(201);
    const failed = await waitFor("the none task failed", async () => {
      const status = (await api.get("/connectors/none/status")).body as { tasks?: { state: string; trace?: string }[] };
      return status.tasks?.[0]?.state === "FAILED" ? status.tasks[0] : undefined;
    });
    expect(failed.trace).toContain(
      `NoOffsetForPartitionException: Undefined offset with no reset policy for partitions: [${topic}-0]`,
    );
  }, 120_000);
});
