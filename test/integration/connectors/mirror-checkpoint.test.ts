// MirrorHeartbeatConnector and MirrorCheckpointConnector on a Sluice worker between two Kafka clusters:
// the worker's Kafka is the target, as MM2 on Kafka Connect runs. The offset syncs are written by the test
// with the offset-sync encoder (as MirrorSourceConnector writes them), a consumer group commits on the
// source, and the test checks the heartbeats, the checkpoints (decoded, and read by Kafka's own
// RemoteClusterUtils.translateOffsets), and the group offsets committed on the target.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Broker } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { decodeCheckpoint, type Checkpoint } from "#src/connectors/mirror/checkpoint.ts";
import { decodeHeartbeat } from "#src/connectors/mirror/heartbeat.ts";
import { encodeOffsetSync } from "#src/connectors/mirror/offset-sync.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { runMirrorFormatsProbe } from "../../fixtures/mirror-formats-probe.ts";
import { waitFor } from "../../fixtures/wait.ts";

let source: KafkaCluster;
let target: KafkaCluster;
let sourceClient: Broker;
let targetClient: Broker;
let connect: TestConnect | undefined;

const SYNCS = "mm2-offset-syncs.target.internal";
const BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";

beforeAll(async () => {
  [source, target] = await Promise.all([startKafka(), startKafka()]);
  sourceClient = new KafkaBroker({ bootstrapServers: [source.bootstrap] });
  targetClient = new KafkaBroker({ bootstrapServers: [target.bootstrap] });
  await Promise.all([sourceClient.connect(), targetClient.connect()]);
  // The worker's own Kafka is the target (its records go there); "embedded" only keeps the fixture from
  // starting the shared broker.
  connect = await startTestConnect("embedded", { "bootstrap.servers": target.bootstrap });
}, 300_000);

afterAll(async () => {
  await connect?.stop();
  removeConnectDir(connect);
  await Promise.allSettled([sourceClient?.close(), targetClient?.close()]);
  await Promise.allSettled([source?.stop(), target?.stop()]);
}, 120_000);

async function readAll(client: Broker, topic: string) {
  const end = (await client.endOffsets(topic))[0] ?? 0;
  const out = [];
  for (let offset = 0; offset < end; ) {
    const records = await client.fetch(topic, 0, offset, { maxWaitMs: 500 });
    out.push(...records);
    offset = records.length > 0 ? records[records.length - 1]!.offset + 1 : offset;
  }
  return out;
}

/** The newest checkpoint per group/topic/partition in the target's checkpoints topic. */
async function latestCheckpoints(): Promise<Map<string, Checkpoint>> {
  const latest = new Map<string, Checkpoint>();
  for (const r of await readAll(targetClient, "source.checkpoints.internal")) {
    const c = decodeCheckpoint(r.key, r.value);
    latest.set(`${c.group}/${c.topic}/${c.partition}`, c);
  }
  return latest;
}

async function writeSync(topic: string, partition: number, upstreamOffset: number, downstreamOffset: number) {
  const { key, value } = encodeOffsetSync({ topic, partition, upstreamOffset, downstreamOffset });
  await sourceClient.produce(SYNCS, [{ key, value, partition: 0 }]);
}

const common = {
  "source.cluster.alias": "source",
  "target.cluster.alias": "target",
  "key.converter": BYTES,
  "value.converter": BYTES,
};

function checkpointConfig(): Record<string, string> {
  return {
    "connector.class": "MirrorCheckpointConnector",
    ...common,
    "source.cluster.bootstrap.servers": source.bootstrap,
    "target.cluster.bootstrap.servers": target.bootstrap,
    "tasks.max": "2",
    "emit.checkpoints.interval.seconds": "1",
    "refresh.groups.interval.seconds": "1",
    "sync.group.offsets.enabled": "true",
    "sync.group.offsets.interval.seconds": "1",
    "checkpoints.topic.replication.factor": "1",
  };
}

describe("MM2 heartbeats and checkpoints between two Kafka clusters", () => {
  test("heartbeats, checkpoints Kafka's RemoteClusterUtils reads, and synced target group offsets", async () => {
    const cluster = {
      "source.cluster.bootstrap.servers": source.bootstrap,
      "target.cluster.bootstrap.servers": target.bootstrap,
    };
    // The source: a topic, a group that committed on it, one the default group filter excludes, and the
    // offset syncs MirrorSourceConnector would have written.
    await sourceClient.createTopic({ name: "orders", partitions: 2, replicationFactor: 1 });
    await sourceClient.createTopic({
      name: SYNCS,
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    // The remote topic MirrorSourceConnector would have made (Kafka refuses commits to a missing topic).
    await targetClient.createTopic({ name: "source.orders", partitions: 2, replicationFactor: 1 });
    await sourceClient.alterGroupOffsets!("app", [
      { topic: "orders", partition: 0, offset: 7, metadata: "app-0" },
      { topic: "orders", partition: 1, offset: 3, metadata: "" },
    ]);
    await sourceClient.commitOffsets("console-consumer-1", "orders", [{ partition: 0, offset: 7 }]);
    await writeSync("orders", 0, 5, 105);
    await writeSync("orders", 1, 3, 203);

    const api = connectClient(connect!.url);
    const heartbeat = await api.put("/connectors/mm2-heartbeat/config", {
      "connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
      ...common,
      ...cluster,
      "emit.heartbeats.interval.seconds": "1",
      "heartbeats.topic.replication.factor": "1",
    });
    expect(heartbeat.status).toBe(201);
    const checkpoint = await api.put("/connectors/mm2-checkpoint/config", checkpointConfig());
    expect(checkpoint.status).toBe(201);
    await api.waitForState("mm2-heartbeat", "RUNNING", 1);
    // One group to checkpoint: one task, whatever tasks.max says.
    await api.waitForState("mm2-checkpoint", "RUNNING", 1);

    // Heartbeats: Kafka's record, in a compacted single-partition topic.
    const heartbeats = await waitFor(
      "two heartbeats on the target",
      async () => {
        const records = (await targetClient.listTopics()).includes("heartbeats")
          ? await readAll(targetClient, "heartbeats")
          : [];
        return records.length >= 2 && records;
      },
      { timeoutMs: 60000 },
    );
    const beat = decodeHeartbeat(heartbeats[0]!.key, heartbeats[0]!.value);
    expect(beat).toMatchObject({ sourceClusterAlias: "source", targetClusterAlias: "target" });
    expect(Math.abs(beat.timestamp - heartbeats[0]!.timestamp)).toBeLessThan(1000);
    const heartbeatsTopic = await targetClient.describeTopic("heartbeats");
    expect(heartbeatsTopic).toMatchObject({ partitions: 1, config: { "cleanup.policy": "compact" } });
    expect((await targetClient.describeTopic("source.checkpoints.internal"))?.config["cleanup.policy"]).toBe("compact");

    // Checkpoints: the group's offsets translated (exactly at a sync, else one past it), under the
    // target's topic name; none for the excluded group.
    const first = await waitFor(
      "checkpoints of both partitions",
      async () => {
        const latest = await latestCheckpoints().catch(() => new Map<string, Checkpoint>());
        return latest.size >= 2 && latest;
      },
      { timeoutMs: 60000 },
    );
    expect(first.get("app/source.orders/0")).toEqual({
      group: "app",
      topic: "source.orders",
      partition: 0,
      upstreamOffset: 7,
      downstreamOffset: 106,
      metadata: "app-0",
    });
    expect(first.get("app/source.orders/1")).toMatchObject({ upstreamOffset: 3, downstreamOffset: 203 });
    expect([...first.keys()].some((k) => k.startsWith("console-consumer"))).toBe(false);

    // The group's offsets on the target, committed while it has no members there.
    await waitFor(
      "the target group's offsets synced",
      async () => {
        const offsets = await targetClient.committedOffsets("app", "source.orders");
        return offsets.get(0) === 106 && offsets.get(1) === 203;
      },
      { timeoutMs: 60000 },
    );

    // With the source commit's metadata, as Kafka's task commits the checkpoint's.
    expect((await targetClient.groupOffsets!("app")).find((o) => o.partition === 0)?.metadata).toBe("app-0");

    // Kafka's own client reads Sluice's checkpoints.
    expect(runMirrorFormatsProbe([["translate-offsets", target.bootstrap, "source", "app"]])).toEqual([
      "source.orders\t0\t106",
      "source.orders\t1\t203",
    ]);

    // The source group moves on and a newer sync arrives: a new checkpoint, and the idle target group
    // follows; a target offset ahead of the checkpoint is left alone.
    await targetClient.commitOffsets("app", "source.orders", [{ partition: 1, offset: 250 }]);
    await writeSync("orders", 0, 8, 108);
    await sourceClient.commitOffsets("app", "orders", [
      { partition: 0, offset: 9 },
      { partition: 1, offset: 3 },
    ]);
    await waitFor(
      "the newer checkpoint",
      async () => (await latestCheckpoints()).get("app/source.orders/0")?.downstreamOffset === 109,
      { timeoutMs: 60000 },
    );
    await waitFor(
      "the target group following",
      async () => (await targetClient.committedOffsets("app", "source.orders")).get(0) === 109,
      { timeoutMs: 60000 },
    );
    expect((await targetClient.committedOffsets("app", "source.orders")).get(1)).toBe(250);

    // A group that appears later is found by the refresh and checkpointed too.
    await sourceClient.commitOffsets("late", "orders", [{ partition: 1, offset: 3 }]);
    await waitFor(
      "the new group's checkpoint",
      async () => (await latestCheckpoints()).get("late/source.orders/1")?.downstreamOffset === 203,
      { timeoutMs: 60000 },
    );
    await api.waitForState("mm2-checkpoint", "RUNNING", 2);
  }, 300_000);

  test("with MirrorSourceConnector writing the offset syncs: a group's position carried across exactly", async () => {
    const cluster = {
      "source.cluster.bootstrap.servers": source.bootstrap,
      "target.cluster.bootstrap.servers": target.bootstrap,
    };
    await sourceClient.createTopic({ name: "events", partitions: 1, replicationFactor: 1 });
    await sourceClient.produce(
      "events",
      Array.from({ length: 20 }, (_, i) => ({ key: null, value: new TextEncoder().encode(`e${i}`), partition: 0 })),
    );
    await sourceClient.commitOffsets("reader", "events", [{ partition: 0, offset: 20 }]);
    const api = connectClient(connect!.url);
    const created = await api.put("/connectors/mm2-source/config", {
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      ...common,
      ...cluster,
      "header.converter": BYTES,
      topics: "events",
      // A sync for every record: the checkpoint translates exactly.
      "offset.lag.max": "0",
      "replication.factor": "1",
      "offset-syncs.topic.replication.factor": "1",
    });
    expect(created.status).toBe(201);
    await waitFor(
      "the records replicated",
      async () =>
        (await targetClient.listTopics()).includes("source.events") &&
        (await targetClient.endOffsets("source.events"))[0] === 20,
      { timeoutMs: 90000 },
    );
    // The checkpoint connector of the first test (still running) finds the group and checkpoints it.
    const checkpoint = await waitFor(
      "the group's checkpoint",
      async () => {
        const c = (await latestCheckpoints()).get("reader/source.events/0");
        return c?.downstreamOffset === 20 && c;
      },
      { timeoutMs: 90000 },
    );
    expect(checkpoint).toMatchObject({ upstreamOffset: 20, downstreamOffset: 20 });
    await waitFor(
      "the target group at the same position",
      async () => (await targetClient.committedOffsets("reader", "source.events")).get(0) === 20,
      { timeoutMs: 60000 },
    );
    expect(runMirrorFormatsProbe([["translate-offsets", target.bootstrap, "source", "reader"]])).toEqual([
      "source.events\t0\t20",
    ]);
  }, 300_000);
  test("new tasks read their checkpoints back: nothing unchanged is written again", async () => {
    const api = connectClient(connect!.url);
    const before = (await targetClient.endOffsets("source.checkpoints.internal"))[0] ?? 0;
    // A connector made anew: its tasks start from nothing but the checkpoints topic.
    expect((await api.delete("/connectors/mm2-checkpoint")).status).toBe(204);
    expect((await api.put("/connectors/mm2-checkpoint/config", checkpointConfig())).status).toBe(201);
    await api.waitForState("mm2-checkpoint", "RUNNING", 2);
    await writeSync("orders", 0, 10, 110);
    await sourceClient.commitOffsets("app", "orders", [{ partition: 0, offset: 11 }]);
    const after = await waitFor(
      "the checkpoint of the new position",
      async () => {
        const records = (await readAll(targetClient, "source.checkpoints.internal")).filter((r) => r.offset >= before);
        const decoded = records.map((r) => decodeCheckpoint(r.key, r.value));
        return decoded.some((c) => c.group === "app" && c.partition === 0 && c.downstreamOffset === 111) && decoded;
      },
      { timeoutMs: 60000 },
    );
    // Only what moved: without the read-back every partition would be checkpointed again.
    expect(after.map((c) => `${c.group}/${c.topic}/${c.partition}:${c.downstreamOffset}`)).toEqual([
      "app/source.orders/0:111",
    ]);
  }, 300_000);
  test("offset-syncs.topic.location=target: the syncs read from the target cluster", async () => {
    const api = connectClient(connect!.url);
    await sourceClient.createTopic({ name: "clicks", partitions: 1, replicationFactor: 1 });
    await sourceClient.produce(
      "clicks",
      Array.from({ length: 5 }, (_, i) => ({ key: null, value: new TextEncoder().encode(`c${i}`), partition: 0 })),
    );
    await sourceClient.commitOffsets("clicker", "clicks", [{ partition: 0, offset: 5 }]);
    const onTarget = { "offset-syncs.topic.location": "target" };
    const created = await api.put("/connectors/mm2-source-t/config", {
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      ...common,
      "source.cluster.bootstrap.servers": source.bootstrap,
      "target.cluster.bootstrap.servers": target.bootstrap,
      "header.converter": BYTES,
      topics: "clicks",
      "offset.lag.max": "0",
      "replication.factor": "1",
      "offset-syncs.topic.replication.factor": "1",
      ...onTarget,
    });
    expect(created.status).toBe(201);
    const checkpoint = await api.put("/connectors/mm2-checkpoint-t/config", {
      ...checkpointConfig(),
      groups: "clicker",
      ...onTarget,
    });
    expect(checkpoint.status).toBe(201);
    await waitFor(
      "the syncs on the target",
      async () =>
        (await targetClient.listTopics()).includes("mm2-offset-syncs.source.internal") &&
        ((await targetClient.endOffsets("mm2-offset-syncs.source.internal"))[0] ?? 0) > 0,
      { timeoutMs: 90000 },
    );
    await waitFor(
      "the group's checkpoint",
      async () => (await latestCheckpoints()).get("clicker/source.clicks/0")?.downstreamOffset === 5,
      { timeoutMs: 90000 },
    );
  }, 300_000);
});
