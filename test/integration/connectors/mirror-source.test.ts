// MirrorMaker 2's MirrorSourceConnector on a Sluice worker between two Kafka clusters: topics chosen by
// the filter are replicated record for record (keys, values, headers, timestamps, partitions) into
// `<alias>.<topic>`, remote topics get the source's partitions and allowed configs (kept in step), a
// topic created and a partition added mid-run are picked up, offset syncs are written in Kafka's format
// and point at the same record on both sides, a restarted worker resumes from its offsets, tasks.max
// spreads the partitions as Kafka does, a task whose offset the source deleted starts over at the source's
// first offset, and with a read_committed source consumer the connector runs
// exactly once (in transactions) on a worker with exactly.once.source.support=enabled.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Admin } from "@platformatic/kafka";
import type { FetchedRecord, ProduceRecord } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { catalog } from "#src/catalog.ts";
import { startConnectDistributed, type RunningConnect } from "#src/connect/runtime/server.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { decodeOffsetSync, type OffsetSync } from "#src/connectors/mirror/offset-sync.ts";
import { MirrorSourceTask } from "#src/connectors/mirror/source-task.ts";
import { connectClient } from "../../fixtures/connect.ts";
import { dumpLog, startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { scrape } from "../../fixtures/prometheus.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const TASK_THREAD = new URL("../../../src/task-thread.ts", import.meta.url).href;
const BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";
const encoder = new TextEncoder();

let source: KafkaCluster;
let target: KafkaCluster;
let sourceClient: KafkaBroker;
let targetClient: KafkaBroker;
const dir = mkdtempSync(join(tmpdir(), "sluice-mirror-"));
const workers: RunningConnect[] = [];

/** An in-process distributed worker on the target cluster (`group` names its internal topics). */
async function startWorker(group: string, extra: Record<string, string> = {}): Promise<RunningConnect> {
  const raw: Record<string, string> = {
    "bootstrap.servers": target.bootstrap,
    listeners: `http://127.0.0.1:${freePort()}`,
    "group.id": group,
    "config.storage.topic": `${group}-configs`,
    "offset.storage.topic": `${group}-offsets`,
    "status.storage.topic": `${group}-status`,
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "offset.flush.interval.ms": "500",
    "data.dir": join(dir, group),
    ...extra,
  };
  const worker = await startConnectDistributed({
    settings: workerSettings.parse(raw).values,
    workerConfig: raw,
    catalog,
    taskThreadEntry: TASK_THREAD,
  });
  workers.push(worker);
  return worker;
}

async function stopWorker(worker: RunningConnect): Promise<void> {
  await worker.stop();
  workers.splice(workers.indexOf(worker), 1);
}

/** Every record of a topic, partition by partition, as a reader at `isolation` sees them. */
async function readAll(
  client: KafkaBroker,
  topic: string,
  isolation: "read_committed" | "read_uncommitted" = "read_uncommitted",
): Promise<FetchedRecord[][]> {
  const ends = await client.endOffsets(topic);
  const out: FetchedRecord[][] = [];
  for (let partition = 0; partition < ends.length; partition++) {
    const records: FetchedRecord[] = [];
    for (let position = 0; position < ends[partition]!; ) {
      const batch = await client.fetch(topic, partition, position, { isolationLevel: isolation });
      if (batch.length === 0) break;
      records.push(...batch);
      position = batch.at(-1)!.offset + 1;
    }
    out.push(records);
  }
  return out;
}

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));
/** What must be equal on both sides: all but the topic and offset. */
const content = (r: FetchedRecord) => ({
  partition: r.partition,
  timestamp: r.timestamp,
  key: hex(r.key),
  value: hex(r.value),
  headers: r.headers.map(({ key, value }) => [key, hex(value)]),
});

/** Waits until the remote topic holds as many records per partition as the source topic, then compares them. */
async function expectReplicated(topic: string, remote: string, timeoutMs = 60000): Promise<FetchedRecord[][]> {
  const upstream = await readAll(sourceClient, topic);
  const downstream = await waitFor(
    `${remote} to hold ${topic}'s records`,
    async () => {
      if (!(await targetClient.listTopics()).includes(remote)) return undefined;
      const records = await readAll(targetClient, remote);
      return records.length === upstream.length && records.every((p, i) => p.length >= upstream[i]!.length)
        ? records
        : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
  expect(downstream.map((p) => p.map(content))).toEqual(upstream.map((p) => p.map(content)));
  return downstream;
}

/** Timestamps of the test's records: recent, so that no retention.ms below deletes them. */
const EPOCH = Date.now() - 600_000;

/**
 * Headers of the test's i-th record, as Kafka allows them: several, one empty, one null, a key repeated
 * (apart from the others).
 */
const headersOf = (i: number) => [
  { key: "trace", value: encoder.encode(`t-${i}`) },
  { key: "bin", value: new Uint8Array([1, 2, 3, i & 0xff]) },
  { key: "empty", value: new Uint8Array() },
  { key: "gone", value: null },
  { key: "trace", value: encoder.encode(`again-${i}`) },
];

/** Records with keys, several headers, explicit timestamps, and a tombstone, spread over partitions. */
function records(prefix: string, count: number, partitions: number): ProduceRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: i % partitions,
    key: i % 7 === 3 ? null : encoder.encode(`${prefix}-key-${i}`),
    value: i % 11 === 5 ? null : new Uint8Array([0, 255, i & 0xff, ...encoder.encode(`${prefix}-${i}`)]),
    headers: headersOf(i),
    timestamp: EPOCH + i * 10,
  }));
}

const mirrorConfig = (extra: Record<string, string> = {}) => ({
  "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
  "source.cluster.alias": "primary",
  "target.cluster.alias": "backup",
  "source.cluster.bootstrap.servers": source.bootstrap,
  "target.cluster.bootstrap.servers": target.bootstrap,
  "key.converter": BYTES,
  "value.converter": BYTES,
  "header.converter": BYTES,
  "replication.factor": "1",
  "offset-syncs.topic.replication.factor": "1",
  "refresh.topics.interval.seconds": "1",
  "sync.topic.configs.interval.seconds": "1",
  // sync.topic.acls.enabled at its default: these clusters have no authorizer, which is logged, not fatal.
  ...extra,
});

beforeAll(async () => {
  [source, target] = await Promise.all([startKafka(), startKafka()]);
  sourceClient = new KafkaBroker({ bootstrapServers: [source.bootstrap], clientId: "mirror-test-source" });
  targetClient = new KafkaBroker({ bootstrapServers: [target.bootstrap], clientId: "mirror-test-target" });
  await Promise.all([sourceClient.connect(), targetClient.connect()]);
}, 240_000);

afterAll(async () => {
  for (const w of [...workers]) await w.stop().catch(() => undefined);
  await Promise.all([sourceClient?.close(), targetClient?.close()]);
  await Promise.all([source?.stop(), target?.stop()]);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe("MirrorSourceConnector between two Kafka clusters", () => {
  test("clusters without an authorizer have no ACLs to describe: ACL sync (on by default) skips them", async () => {
    expect(await sourceClient.describeTopicAcls()).toBeNull();
  });

  test("replicates, follows new topics and partitions, syncs configs and offsets, resumes after a restart", async () => {
    await sourceClient.createTopic({
      name: "orders",
      partitions: 3,
      replicationFactor: 1,
      config: { "retention.ms": "604800000", "max.message.bytes": "200000", "min.insync.replicas": "1" },
    });
    await sourceClient.createTopic({ name: "payments", partitions: 2, replicationFactor: 1 });
    await sourceClient.createTopic({ name: "internal-audit", partitions: 1, replicationFactor: 1 });
    await sourceClient.produce("orders", records("o", 60, 3));
    await sourceClient.produce("payments", records("p", 30, 2));
    await sourceClient.produce("internal-audit", records("a", 5, 1));

    let worker = await startWorker("mirror-a");
    const api = connectClient(worker.urls[0]!);
    const created = await api.put(
      "/connectors/mm2/config",
      mirrorConfig({ topics: "orders,payments,late-.*", "tasks.max": "2", "offset.lag.max": "10" }),
    );
    expect(created.status).toBe(201);
    await api.waitForState("mm2", "RUNNING", 2);

    // Records byte for byte, in each partition's order; topics outside the filter stay home.
    const replicated = await expectReplicated("orders", "primary.orders");
    // Headers one to one: in order, the repeated key twice, the null value null.
    expect(replicated[1]![0]!.headers.map(({ key, value }) => [key, hex(value)])).toEqual(
      headersOf(1).map(({ key, value }) => [key, hex(value)]),
    );
    await expectReplicated("payments", "primary.payments");
    expect(await targetClient.listTopics()).not.toContain("primary.internal-audit");

    // Kafka's MirrorSourceMetrics per remote partition on the worker's /metrics.
    await waitFor(
      "record-count of primary.orders-0",
      async () =>
        (await scrape(worker.urls[0]!)).find(
          (m) =>
            m.name === "kafka_connect_mirror_source_record_count" &&
            m.labels.topic === "primary.orders" &&
            m.labels.partition === "0" &&
            m.labels.source === "primary" &&
            m.labels.target === "backup",
        )?.value === 20,
      { timeoutMs: 30000, intervalMs: 250 },
    );

    // Remote topics: the source's partitions and allowed configs; excluded ones left to the target.
    const remoteOrders = (await targetClient.describeTopic("primary.orders"))!;
    expect(remoteOrders.partitions).toBe(3);
    expect(remoteOrders.config["retention.ms"]).toBe("604800000");
    expect(remoteOrders.config["max.message.bytes"]).toBe("200000");
    const ownConfigs = (await targetClient.describeTopicConfigs(["primary.orders"])).get("primary.orders")!;
    expect(ownConfigs.find((c) => c.name === "min.insync.replicas")?.source).not.toBe("topic");

    // Tasks: Kafka's round robin over the partitions (topics by name, partitions in order).
    const tasks = (await api.get("/connectors/mm2/tasks")).body as { config: Record<string, string> }[];
    expect(tasks.map((t) => t.config["task.assigned.partitions"])).toEqual([
      "orders-0,orders-2,payments-1",
      "orders-1,payments-0",
    ]);

    // A config changed on the source reaches the remote topic at the next sync.
    expect(
      await sourceClient.alterTopicConfigs(
        new Map([["orders", [{ name: "retention.ms", op: "set", value: "172800000" }]]]),
      ),
    ).toEqual(new Map());
    await waitFor(
      "retention.ms synced",
      async () => (await targetClient.describeTopic("primary.orders"))?.config["retention.ms"] === "172800000",
      { timeoutMs: 30000, intervalMs: 250 },
    );

    // A topic created mid-run and a partition added mid-run are found at the next refresh.
    await sourceClient.createTopic({ name: "late-1", partitions: 2, replicationFactor: 1 });
    await sourceClient.produce("late-1", records("l", 10, 2));
    expect(await sourceClient.createPartitions("orders", 4)).toBe(true);
    await sourceClient.produce("orders", [
      { partition: 3, key: encoder.encode("new"), value: encoder.encode("in p3"), timestamp: EPOCH + 5000 },
    ]);
    await expectReplicated("late-1", "primary.late-1");
    await expectReplicated("orders", "primary.orders");
    expect((await targetClient.describeTopic("primary.orders"))!.partitions).toBe(4);

    // Offset syncs on the source cluster, in Kafka's format: each names a record and its copy.
    const syncs = (await readAll(sourceClient, "mm2-offset-syncs.backup.internal")).flat();
    const decoded = syncs.map((r) => decodeOffsetSync(r.key, r.value));
    expect(new Set(decoded.map((s) => `${s.topic}-${s.partition}`))).toEqual(
      new Set(["orders-0", "orders-1", "orders-2", "orders-3", "payments-0", "payments-1", "late-1-0", "late-1-1"]),
    );
    const upstreamOf = new Map<string, FetchedRecord[][]>();
    for (const t of ["orders", "payments", "late-1"]) upstreamOf.set(t, await readAll(sourceClient, t));
    const downstreamOf = new Map<string, FetchedRecord[][]>();
    for (const t of ["orders", "payments", "late-1"]) downstreamOf.set(t, await readAll(targetClient, `primary.${t}`));
    const at = (records: FetchedRecord[], offset: number) => records.find((r) => r.offset === offset);
    for (const s of decoded as OffsetSync[]) {
      const up = at(upstreamOf.get(s.topic)![s.partition]!, s.upstreamOffset);
      const down = at(downstreamOf.get(s.topic)![s.partition]!, s.downstreamOffset);
      expect(up && content(up)).toEqual(down && content(down));
    }
    // offset.lag.max=10: a partition of 20 records has syncs well before its end too.
    expect(decoded.filter((s) => s.topic === "orders" && s.partition === 0).length).toBeGreaterThan(1);

    // Offsets in Kafka's shape, once flushed.
    await waitFor(
      "payments-1's offset committed",
      async () => {
        const { offsets } = (await api.get("/connectors/mm2/offsets")).body as {
          offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> }[];
        };
        return offsets.some(
          (o) =>
            JSON.stringify(o) ===
            JSON.stringify({
              partition: { cluster: "primary", partition: 1, topic: "payments" },
              offset: { offset: 14 },
            }),
        );
      },
      { timeoutMs: 30000, intervalMs: 250 },
    );

    // A restart resumes from the committed offsets: what was written meanwhile arrives, nothing twice.
    await stopWorker(worker);
    await sourceClient.produce("payments", records("p2", 20, 2));
    await sourceClient.produce("orders", records("o2", 8, 4));
    worker = await startWorker("mirror-a");
    await connectClient(worker.urls[0]!).waitForState("mm2", "RUNNING", 2);
    await expectReplicated("payments", "primary.payments");
    await expectReplicated("orders", "primary.orders");

    // Records deleted on the source past a stopped task's offset (delete-records, retention): the task
    // starts over at the source's first offset, as Kafka's consumer resets with auto.offset.reset=earliest.
    await stopWorker(worker);
    const before = (await readAll(targetClient, "primary.late-1"))[0]!.map(content);
    const [, end] = (await sourceClient.produce("late-1", records("l2", 10, 1))).map((p) => p.offset).slice(-2);
    const admin = new Admin({ clientId: "mirror-test-admin", bootstrapBrokers: [source.bootstrap] });
    await admin.deleteRecords({
      topics: [{ name: "late-1", partitions: [{ partition: 0, offset: BigInt(end! - 3) }] }],
    });
    await admin.close();
    const [start] = await sourceClient.startOffsets("late-1");
    const kept = [];
    for (let position = start!; position <= end!; ) {
      const batch = await sourceClient.fetch("late-1", 0, position);
      kept.push(...batch.map(content));
      position = batch.at(-1)!.offset + 1;
    }
    expect(kept).toHaveLength(4);
    worker = await startWorker("mirror-a");
    await connectClient(worker.urls[0]!).waitForState("mm2", "RUNNING", 2);
    const after = await waitFor(
      "late-1's remaining records on the target",
      async () => {
        const [p0 = []] = await readAll(targetClient, "primary.late-1");
        return p0.length >= before.length + kept.length ? p0.map(content) : undefined;
      },
      { timeoutMs: 60000, intervalMs: 250 },
    );
    expect(after).toEqual([...before, ...kept]);
    expect((await connectClient(worker.urls[0]!).delete("/connectors/mm2")).status).toBe(204);
    await stopWorker(worker);
  }, 300_000);

  test("exactly once with a read_committed source consumer: no aborted record, target written in transactions", async () => {
    await sourceClient.createTopic({ name: "ledger", partitions: 1, replicationFactor: 1 });
    // A transactional producer sends at the commit, or once half a megabyte is queued: the aborted
    // transaction's records are large, so that they reach the log before the abort.
    const txn = await sourceClient.transactionalProducer("ledger-writer");
    const first = txn.produce("ledger", records("committed-1", 5, 1));
    await txn.commit();
    await first;
    await txn.produce(
      "ledger",
      Array.from({ length: 4 }, (_, i) => ({
        key: encoder.encode(`aborted-${i}`),
        value: new Uint8Array(200_000).fill(i),
        timestamp: EPOCH,
      })),
    );
    await txn.abort();
    const last = txn.produce("ledger", records("committed-2", 3, 1));
    await txn.commit();
    await last;
    await txn.close();
    expect((await readAll(sourceClient, "ledger", "read_uncommitted"))[0]).toHaveLength(12);

    const worker = await startWorker("mirror-eos", { "exactly.once.source.support": "enabled" });
    const api = connectClient(worker.urls[0]!);
    const config = mirrorConfig({
      "source.cluster.alias": "eos",
      topics: "ledger",
      "exactly.once.support": "required",
      "offset-syncs.topic.location": "target",
    });
    // Without read_committed the connector cannot promise exactly once, as Kafka's says.
    const refused = await api.put("/connectors/mm2-eos/config", config);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("read_committed");
    const created = await api.put("/connectors/mm2-eos/config", {
      ...config,
      "source.consumer.isolation.level": "read_committed",
    });
    expect(created.status).toBe(201);
    await api.waitForState("mm2-eos", "RUNNING", 1);

    const committed = (await readAll(sourceClient, "ledger", "read_committed"))[0]!;
    expect(committed).toHaveLength(8);
    const remote = await waitFor(
      "the committed ledger records on the target",
      async () => {
        if (!(await targetClient.listTopics()).includes("eos.ledger")) return undefined;
        const [p0 = []] = await readAll(targetClient, "eos.ledger", "read_committed");
        return p0.length >= 8 ? p0 : undefined;
      },
      { timeoutMs: 60000, intervalMs: 250 },
    );
    expect(remote.map(content)).toEqual(committed.map(content));
    // Nothing of the aborted transaction, not even for a read_uncommitted reader.
    expect((await readAll(targetClient, "eos.ledger", "read_uncommitted"))[0]!.map(content)).toEqual(
      committed.map(content),
    );
    // Kafka's own reading of the target's log: transactional batches ended by COMMIT markers.
    const dump = dumpLog(target, "eos.ledger", 0, true);
    expect(dump).toContain("isTransactional: true");
    expect(dump).toContain("endTxnMarker: COMMIT");
    expect(dump).not.toContain("isTransactional: false");
    // offset-syncs.topic.location=target: the syncs are on the target, named after the source alias. The
    // first record after the aborted transaction (a gap upstream) is synced at once, to its copy.
    const syncs = await waitFor(
      "the offset syncs on the target",
      async () => {
        if (!(await targetClient.listTopics()).includes("mm2-offset-syncs.eos.internal")) return undefined;
        const [p0 = []] = await readAll(targetClient, "mm2-offset-syncs.eos.internal");
        const decoded = p0.map((r) => decodeOffsetSync(r.key, r.value));
        return decoded.some((s) => s.upstreamOffset === committed[5]!.offset) ? decoded : undefined;
      },
      { timeoutMs: 30000, intervalMs: 250 },
    );
    expect(await sourceClient.listTopics()).not.toContain("mm2-offset-syncs.eos.internal");
    const gapSync = syncs.find((s) => s.upstreamOffset === committed[5]!.offset)!;
    expect(gapSync.topic).toBe("ledger");
    expect(content(remote.find((r) => r.offset === gapSync.downstreamOffset)!)).toEqual(content(committed[5]!));
    expect((await api.delete("/connectors/mm2-eos")).status).toBe(204);
    await stopWorker(worker);
  }, 240_000);
  test("a task's poll answers at most the source consumer's max.poll.records of a fetch, in order", async () => {
    const topic = "polled-in-parts";
    await sourceClient.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    const count = 1200;
    await sourceClient.produce(
      topic,
      Array.from({ length: count }, (_, i) => ({ key: null, value: encoder.encode(String(i)) })),
    );
    const pollAll = async (props: Record<string, string>) => {
      const task = new MirrorSourceTask();
      task.initialize({ configs: {}, offsetStorageReader: { offset: () => null } });
      await task.start({ ...mirrorConfig(props), "task.assigned.partitions": `${topic}-0` });
      try {
        const sizes: number[] = [];
        const values: string[] = [];
        while (values.length < count) {
          const polled = (await task.poll()) ?? [];
          sizes.push(polled.length);
          for (const r of polled) values.push(new TextDecoder().decode(r.value as Uint8Array));
        }
        expect(values).toEqual(Array.from({ length: count }, (_, i) => String(i)));
        return sizes.filter((n) => n > 0);
      } finally {
        await task.stop();
      }
    };
    // Kafka's default, 500; then a source consumer setting of the connector.
    const byDefault = await pollAll({ "emit.offset-syncs.enabled": "false" });
    expect(Math.max(...byDefault)).toBe(500);
    const small = await pollAll({ "emit.offset-syncs.enabled": "false", "source.consumer.max.poll.records": "100" });
    expect(Math.max(...small)).toBe(100);
  });
});
