// Exactly-once source tasks (KIP-618) on a distributed worker with exactly.once.source.support=enabled:
// records and their source offsets are written in Kafka transactions (as Kafka's own DumpLogSegments
// shows them in the broker's log), transactions end where transaction.boundary says, an aborted one
// is never seen by readers, and the connector settings are checked as Kafka's herder
// checks them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConnectCluster } from "../../fixtures/connect-cluster.ts";
import { dumpLog, sharedKafka } from "../../fixtures/kafka.ts";
import { waitFor } from "../../fixtures/wait.ts";

const cluster = new ConnectCluster({ settings: { "exactly.once.source.support": "enabled" } });

beforeAll(async () => {
  await cluster.setUp(1);
}, 120_000);

afterAll(async () => {
  await cluster.tearDown();
});

const decoder = new TextDecoder();

/** A topic's values as a reader at `isolation` sees them (partition 0). */
async function values(topic: string, isolation: "read_committed" | "read_uncommitted"): Promise<string[]> {
  const broker = cluster.broker!;
  const [end = 0] = await broker.endOffsets(topic);
  const out: string[] = [];
  for (let position = 0; position < end; ) {
    const records = await broker.fetch(topic, 0, position, { isolationLevel: isolation });
    if (records.length === 0) break;
    for (const r of records) out.push(r.value ? decoder.decode(r.value) : "");
    position = records.at(-1)!.offset + 1;
  }
  return out;
}

/** The DumpLogSegments output of every partition of a topic, joined. */
async function dumpTopic(topic: string): Promise<string> {
  const kafka = await sharedKafka();
  const partitions = (await cluster.broker!.endOffsets(topic)).length;
  return Array.from({ length: partitions }, (_, p) => dumpLog(kafka, topic, p, true)).join("\n");
}

describe("exactly-once source tasks on Kafka", () => {
  test("FileStream source with exactly.once.support=required: records and offsets in committed transactions", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line-${i}`);
    const file = join(cluster.dir, "eos-in.txt");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const topic = `eos-file-${cluster.group}`;
    const created = await cluster.client(0).put("/connectors/eos-file/config", {
      "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
      "tasks.max": "1",
      file,
      topic,
      "exactly.once.support": "required",
    });
    expect(created.status).toBe(201);
    await cluster.waitRunning("eos-file", 1);
    await waitFor("every line committed", async () => (await values(topic, "read_committed")).length >= 3000, {
      timeoutMs: 60000,
    });
    expect(await values(topic, "read_committed")).toEqual(lines);

    // Kafka's own reading of the logs: transactional batches ended by COMMIT markers, in the records'
    // topic and in the offsets topic alike (the offsets travel in the records' transactions).
    const records = await dumpTopic(topic);
    expect(records).toContain("isTransactional: true");
    expect(records).toContain("endTxnMarker: COMMIT");
    expect(records).not.toContain("isTransactional: false");
    const offsets = await dumpTopic(`${cluster.group}-offsets`);
    expect(offsets).toContain("isTransactional: true");
    expect(offsets).toContain("endTxnMarker: COMMIT");

    // The task's transactions in the worker's metrics (Kafka's transaction-size).
    const metrics = await (await fetch(`${cluster.workers[0]!.url}/metrics`)).text();
    const count = metrics.match(
      /sluice_connect_source_transaction_size_records_count\{connector="eos-file",task="0"\} (\d+)/,
    );
    expect(Number(count?.[1])).toBeGreaterThan(0);
    // The offsets REST API reads what the transactions committed.
    const stored = (await cluster.client(0).get("/connectors/eos-file/offsets")).body as {
      offsets: { offset: { position: number } }[];
    };
    expect(stored.offsets[0]?.offset.position).toBeGreaterThan(0);
    expect((await cluster.client(0).delete("/connectors/eos-file")).status).toBe(204);
  }, 120_000);

  test("transaction.boundary=connector: the connector's commits and aborts end the transactions", async () => {
    const topic = `eos-connector-${cluster.group}`;
    await cluster.createTopic(topic, 1);
    const created = await cluster.client(0).put("/connectors/eos-boundary/config", {
      "connector.class": "test.TransactionalSourceConnector",
      topic,
      count: "100",
      "abort.block": "3",
      "transaction.boundary": "connector",
      "exactly.once.support": "required",
    });
    expect(created.status).toBe(201);
    const expected = Array.from({ length: 100 }, (_, i) => String(i)).filter((n) => Number(n) < 30 || Number(n) >= 40);
    await waitFor("the committed numbers", async () => (await values(topic, "read_committed")).length >= 90, {
      timeoutMs: 60000,
    });
    expect(await values(topic, "read_committed")).toEqual(expected);
    // The aborted block was dropped before it was sent (a transaction's records travel at its commit):
    // not even a read_uncommitted reader sees it.
    expect(await values(topic, "read_uncommitted")).toEqual(expected);
    expect(await dumpTopic(topic)).toContain("endTxnMarker: COMMIT");
    expect((await cluster.client(0).delete("/connectors/eos-boundary")).status).toBe(204);
  }, 120_000);

  test("fewer tasks: the leader fences the earlier tasks' producers before the new ones start", async () => {
    const topic = `eos-seq-${cluster.group}`;
    const config = { "connector.class": "SequenceSource", topic, "sequence.max": "50" };
    expect((await cluster.client(0).put("/connectors/eos-seq/config", { ...config, "tasks.max": "3" })).status).toBe(
      201,
    );
    await cluster.waitRunning("eos-seq", 3);
    const taskCount = async () => {
      const values = (await cluster.readTopic(`${cluster.group}-configs`))
        .filter((r) => r.key === "tasks-fencing-eos-seq")
        .map((r) => JSON.parse(r.value) as { "task-count": number });
      return values.at(-1)?.["task-count"];
    };
    expect(await taskCount()).toBe(3);
    expect((await cluster.client(0).put("/connectors/eos-seq/config", { ...config, "tasks.max": "2" })).status).toBe(
      200,
    );
    await cluster.waitRunning("eos-seq", 2);
    await waitFor("the new task count recorded", async () => (await taskCount()) === 2);
    expect(cluster.entries(0).some((e) => e.msg === "fenced the producers of 3 earlier tasks of eos-seq")).toBe(true);
    expect((await cluster.client(0).delete("/connectors/eos-seq")).status).toBe(204);
  }, 120_000);

  test("offsets.storage.topic: the connector's offsets go to its own topic in its transactions, copied to the worker's", async () => {
    const topic = `eos-own-${cluster.group}`;
    const offsetsTopic = `eos-own-offsets-${cluster.group}`;
    const created = await cluster.client(0).put("/connectors/eos-own/config", {
      "connector.class": "SequenceSource",
      topic,
      "sequence.max": "20",
      "offsets.storage.topic": offsetsTopic,
    });
    expect(created.status).toBe(201);
    await waitFor("the numbers", async () => (await values(topic, "read_committed")).length >= 20, {
      timeoutMs: 60000,
    });
    const keysIn = async (offsets: string) =>
      (await cluster.readTopic(offsets)).filter((r) => r.key.startsWith('["eos-own"')).map((r) => r.value);
    await waitFor("the offsets in both topics", async () => {
      const own = await keysIn(offsetsTopic);
      const worker = await keysIn(`${cluster.group}-offsets`);
      return own.length > 0 && worker.length > 0;
    });
    expect(await dumpTopic(offsetsTopic)).toContain("endTxnMarker: COMMIT");
    const view = (await cluster.client(0).get("/connectors/eos-own/offsets")).body as { offsets: unknown[] };
    expect(view.offsets.length).toBeGreaterThan(0);
    expect((await cluster.client(0).delete("/connectors/eos-own")).status).toBe(204);
  }, 120_000);

  test("settings are checked as Kafka's distributed herder checks them", async () => {
    const validate = async (config: Record<string, string>) => {
      const answer = await cluster
        .client(0)
        .put(`/connector-plugins/${config["connector.class"]}/config/validate`, { name: "v", ...config });
      const infos = answer.body as { configs: { value: { name: string; errors: string[] } }[] };
      return Object.fromEntries(
        infos.configs.filter((c) => c.value.errors.length > 0).map((c) => [c.value.name, c.value.errors]),
      );
    };
    // A connector that does not say whether it supports exactly-once delivery.
    expect(
      await validate({
        "connector.class": "test.FixtureSourceConnector",
        topic: "t",
        "exactly.once.support": "required",
      }),
    ).toEqual({
      "exactly.once.support": [
        'The connector does not implement the API required for preflight validation of exactly-once source support. Please consult the documentation for the connector to determine whether it supports exactly-once semantics, and then consider reconfiguring the connector to use the value "requested" for this property (which will disable this preflight check and allow the connector to be created).',
      ],
    });
    // FileStream supports exactly-once delivery, but cannot define transaction boundaries.
    expect(
      await validate({
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        topic: "t",
        file: "/tmp/x",
        "exactly.once.support": "required",
        "transaction.boundary": "connector",
      }),
    ).toEqual({
      "transaction.boundary": [
        "The connector does not support connector-defined transaction boundaries with the given configuration. Please reconfigure it to use a different transaction boundary definition.",
      ],
    });
    const refused = await cluster.client(0).put("/connectors/eos-refused/config", {
      "connector.class": "test.FixtureSourceConnector",
      topic: "t",
      "exactly.once.support": "required",
    });
    expect(refused.status).toBe(400);
  });
});
