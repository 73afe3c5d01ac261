// Kafka client settings of a connect worker (`producer.*`, `consumer.*`) and a connector's overrides
// (KIP-458: `producer.override.*`, `consumer.override.*`) on a real Kafka broker: the batches Sluice writes
// carry the codec asked for, as Kafka's own DumpLogSegments reads them from the broker's log; the worker's
// connector.client.config.override.policy refuses overrides with Kafka Connect 4.1.1's messages; sink
// tasks start a group with no committed offsets as auto.offset.reset says.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "bun";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encoder } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { batchCodecs, sharedKafka } from "../../fixtures/kafka.ts";
import { interopPython } from "../../fixtures/python.ts";
import { waitFor } from "../../fixtures/wait.ts";

const run = `${Date.now()}`;

describe("compression on Kafka", () => {
  let connect: TestConnect;

  beforeAll(async () => {
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
      const found = batchCodecs(await sharedKafka(), topic);
      expect(found.length).toBeGreaterThan(0);
      expect(new Set(found)).toEqual(new Set([codec ?? "lz4"]));
    }
  }, 120_000);
});

describe("delivery.timeout.ms", () => {
  let connect: TestConnect;
  beforeAll(async () => {
    // Topics are not created: a write to a missing one is refused as retriable until it times out.
    connect = await startTestConnect("kafka", { "topic.creation.enable": "false" });
  });
  afterAll(async () => {
    await connect?.stop();
    removeConnectDir(connect);
  });

  test("a write the broker keeps refusing fails the source task once delivery.timeout.ms has passed", async () => {
    const api = connectClient(connect.url);
    const file = join(connect.dir, "undeliverable.txt");
    writeFileSync(file, "one\ntwo\n");
    const created = await api.post("/connectors", {
      name: "undeliverable",
      config: {
        "connector.class": "FileStreamSource",
        file,
        topic: `missing-${run}`,
        "producer.override.delivery.timeout.ms": "3000",
        "producer.override.request.timeout.ms": "1000",
      },
    });
    expect(created.status).toBe(201);
    const failed = await waitFor("the task failed", async () => {
      const status = (await api.get("/connectors/undeliverable/status")).body as {
        tasks?: { state: string; trace?: string }[];
      };
      return status.tasks?.[0]?.state === "FAILED" ? status.tasks[0] : undefined;
    });
    expect(failed.trace).toContain("Unrecoverable exception from producer send callback");
    expect(failed.trace).toContain("TimeoutException: Expiring 2 record(s)");
  }, 60_000);
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
    // Without overrides a connector is as welcome as ever; so are overrides of clients it does not have in
    // Kafka Connect (a source's consumer; a sink's producer without a dead letter queue), as Kafka judges.
    expect((await none.post("/connectors", { name: "plain", config: source("plain", {}) })).status).toBe(201);
    const unused = source("unused", { "consumer.override.max.poll.records": "5" });
    expect((await none.post("/connectors", { name: "unused", config: unused })).status).toBe(201);
    const sink = {
      "connector.class": "FileStreamSink",
      name: "sink",
      topics: `policy-${run}`,
      file: "/dev/null",
      "producer.override.compression.type": "zstd",
    };
    expect((await none.put("/connector-plugins/FileStreamSink/config/validate", sink)).body).toMatchObject({
      error_count: 0,
    });
    const withDlq = { ...sink, "errors.tolerance": "all", "errors.deadletterqueue.topic.name": `dlq-${run}` };
    expect((await none.put("/connector-plugins/FileStreamSink/config/validate", withDlq)).body).toMatchObject({
      error_count: 1,
    });

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

  test("a worker client setting Kafka's client would refuse stops the worker at start, with Kafka's message", async () => {
    await expect(startTestConnect("kafka", { "producer.compression.type": "brotli" })).rejects.toThrow(
      "Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd",
    );
    await expect(startTestConnect("kafka", { "consumer.enable.auto.commit": "true" })).rejects.toThrow(
      "enable.auto.commit is not supported by Sluice",
    );
  });

  test("a worker with a policy Kafka does not have does not start", async () => {
    await expect(startTestConnect("kafka", { "connector.client.config.override.policy": "Some" })).rejects.toThrow(
      "connector.client.config.override.policy",
    );
  });
});

/** A sink plugin that appends the size of each put() batch to its file, one line each. */
const BATCH_SIZE_SINK = `export default (sdk) => {
  class BatchSizeTask extends sdk.SinkTask {
    version() { return "1"; }
    start(props) { this.file = props.file; }
    put(records) { if (records.length > 0) require("node:fs").appendFileSync(this.file, records.length + "\\n"); }
    stop() {}
  }
  class BatchSizeSink extends sdk.SinkConnector {
    static className = "test.BatchSizeSink";
    version() { return "1"; }
    start(props) { this.props = props; }
    taskClass() { return BatchSizeTask; }
    taskConfigs() { return [this.props]; }
    stop() {}
    config() {
      return new sdk.SettingsDefinition([{ name: "file", type: "string", required: true, importance: "high", doc: "out" }]);
    }
  }
  return [BatchSizeSink];
};
`;

/**
 * Committed and aborted transactions from Kafka's own C client (confluent-kafka): committed-1..3, then
 * aborted-1..3 (aborted), then committed-4.
 */
function writeTransactions(bootstrap: string, topic: string): void {
  const script = `
import sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": "tx-" + sys.argv[2]})
p.init_transactions()
for batch, commit in ((["committed-1", "committed-2", "committed-3"], True), (["aborted-1", "aborted-2", "aborted-3"], False), (["committed-4"], True)):
    p.begin_transaction()
    for v in batch:
        p.produce(sys.argv[2], value=v.encode())
    p.flush()
    p.commit_transaction() if commit else p.abort_transaction()
`;
  const result = spawnSync([interopPython(), "-c", script, bootstrap, topic]);
  if (result.exitCode !== 0) throw new Error(`transactional producer failed: ${result.stderr.toString()}`);
}

describe("sink consumer settings", () => {
  let connect: TestConnect;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-connect-"));
    mkdirSync(join(dir, "plugins"), { recursive: true });
    writeFileSync(join(dir, "plugins", "batch-size-sink.js"), BATCH_SIZE_SINK);
    connect = await startTestConnect("kafka", {}, dir);
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

  test("max.poll.records bounds what one put() gets", async () => {
    const api = connectClient(connect.url);
    const topic = `poll-${run}`;
    const broker = connect.connect.broker;
    await broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    const values = Array.from({ length: 50 }, (_, i) => ({ key: null, value: encoder.encode(`v${i}`) }));
    await broker.produce(topic, values);
    const file = join(connect.dir, "batches.txt");
    const created = await api.post("/connectors", {
      name: "batches",
      config: {
        "connector.class": "test.BatchSizeSink",
        topics: topic,
        file,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "consumer.override.max.poll.records": "7",
      },
    });
    expect(created.status).toBe(201);
    const sizes = await waitFor("50 records put", () => {
      if (!existsSync(file)) return undefined;
      const sizes = readFileSync(file, "utf8").trim().split("\n").map(Number);
      return sizes.reduce((a, b) => a + b, 0) === 50 ? sizes : undefined;
    });
    expect(Math.max(...sizes)).toBe(7);
  }, 120_000);

  test("isolation.level=read_committed skips aborted transactions; no sink sees a transaction marker", async () => {
    const api = connectClient(connect.url);
    const topic = `tx-${run}`;
    await connect.connect.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    writeTransactions((await sharedKafka()).bootstrap, topic);
    const sink = (name: string, overrides: Record<string, string>) =>
      api.post("/connectors", {
        name,
        config: {
          "connector.class": "FileStreamSink",
          topics: topic,
          file: join(connect.dir, `${name}.txt`),
          "value.converter": "org.apache.kafka.connect.storage.StringConverter",
          ...overrides,
        },
      });
    expect((await sink("committed", { "consumer.override.isolation.level": "read_committed" })).status).toBe(201);
    expect((await sink("uncommitted", {})).status).toBe(201);
    const lines = (name: string, count: number) =>
      waitFor(`${count} lines from ${name}`, () => {
        const file = join(connect.dir, `${name}.txt`);
        const got = existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [];
        return got.length >= count ? got : undefined;
      });
    expect(await lines("committed", 4)).toEqual(["committed-1", "committed-2", "committed-3", "committed-4"]);
    // Kafka's consumer default: aborted records are read too, the markers between them never.
    expect(await lines("uncommitted", 7)).toEqual([
      "committed-1",
      "committed-2",
      "committed-3",
      "aborted-1",
      "aborted-2",
      "aborted-3",
      "committed-4",
    ]);
  }, 120_000);
});
