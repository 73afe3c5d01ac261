// MirrorMaker 2 side by side: Kafka's own MM2 connectors (connect-mirror 4.1.1 in an Apache Kafka Connect 4.1.1
// distributed worker) and Sluice's (a dist/sluice distributed worker) run the same configuration between the same
// two Kafka clusters, over the same source topics: several partitions, keys, headers (duplicate, empty and null
// ones), binary values, timestamps, a compacted topic with tombstones, a topic whose first records were deleted
// (delete-records), the source's `heartbeats` topic, a topic created and a partition added mid-run, a topic
// config changed mid-run, a consumer group committing on the source, and topic ACLs (both clusters enforce ACLs:
// the source's ACLs of every kind Kafka's connector tells apart are copied to the target). The two use their own aliases (kc-src →
// kc-tgt, sl-src → sl-tgt), so their remote topics (kc-src.mm-orders, sl-src.mm-orders), offset-syncs topics
// (mm2-offset-syncs.kc-tgt.internal on the source) and checkpoints topics (kc-src.checkpoints.internal) do not
// collide; the heartbeats of both go to the target's one `heartbeats` topic, told apart by their key.
// Kafka Connect's result is checked against the source (it is the reference), then Sluice's against Kafka
// Connect's: remote topics (partitions, configs), records byte for byte, offset syncs and checkpoints decoded with
// Kafka's classes, heartbeats, the target group's synced offsets, Kafka's RemoteClusterUtils.translateOffsets
// read from each one's checkpoints, and the ACLs on the remote topics. Last, a Sluice worker killed (-9) mid-replication and restarted loses nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ConnectCluster, type Status } from "../fixtures/connect-cluster.ts";
import { connectClient } from "../fixtures/connect.ts";
import { startKafkaConnect, type KafkaConnect } from "../fixtures/kafka-connect.ts";
import {
  b64,
  kafkaMirrorClasspath,
  startMirrorClustersProbe,
  type DecodedCheckpoint,
  type DecodedOffsetSync,
  type GroupOffset,
  type MirrorClustersProbe,
  type ProbeAcl,
  type ProbeProduceRecord,
  type ProbeRecord,
} from "../fixtures/kafka-mirror.ts";
import { startKafka, type KafkaCluster } from "../fixtures/kafka.ts";
import { waitFor } from "../fixtures/wait.ts";

const BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";
const MIRROR = "org.apache.kafka.connect.mirror";
const GROUP = "mm-app";
const SIDES = {
  kc: { source: "kc-src", target: "kc-tgt" },
  sl: { source: "sl-src", target: "sl-tgt" },
} as const;
type Side = keyof typeof SIDES;
const CONNECTORS = ["mirror-source", "mirror-checkpoint", "mirror-heartbeat"] as const;

/** The replicated source topics the comparisons cover (mm-bulk is the kill test's). */
const TOPICS = ["mm-orders", "mm-compact", "mm-trimmed", "mm-late", "heartbeats"];
const TRIMMED_START = 8;
/** Topic settings the source topics carry: synced to the remote topics but for min.insync.replicas (Kafka's
 * DefaultConfigPropertyFilter leaves it out). */
const ORDERS_CONFIGS = { "retention.ms": "604800000", "max.message.bytes": "524288", "min.insync.replicas": "1" };
const COMPACT_CONFIGS = { "cleanup.policy": "compact", "min.compaction.lag.ms": "3600000" };
const LATE_CONFIGS = { "retention.ms": "3600000" };
const NOT_SYNCED = ["min.insync.replicas"];
/** Topic ACLs on the source: of each kind Kafka's connector treats apart, on replicated topics and others. */
const alice = { patternType: "LITERAL", principal: "User:alice", host: "*", permission: "ALLOW" };
const SOURCE_ACLS: ProbeAcl[] = [
  { ...alice, topic: "mm-orders", operation: "READ" },
  { ...alice, topic: "mm-orders", operation: "ALL" },
  { ...alice, topic: "mm-orders", operation: "WRITE" },
  { ...alice, topic: "mm-orders", operation: "READ", permission: "DENY" },
  { ...alice, topic: "mm-orders", operation: "DESCRIBE", principal: "User:bob", host: "10.0.0.1" },
  { ...alice, topic: "mm-orders", operation: "ALL", principal: "User:mallory", permission: "DENY" },
  { ...alice, topic: "mm-", operation: "READ", patternType: "PREFIXED" },
  { ...alice, topic: "audit", operation: "READ" },
  { ...alice, topic: "mm-nowhere", operation: "READ", principal: "User:carol" },
  { ...alice, topic: "heartbeats", operation: "READ" },
];
const aclKey = (a: ProbeAcl) =>
  JSON.stringify([a.topic, a.patternType, a.principal, a.host, a.operation, a.permission]);
/** The ACLs on a side's remote topics, with its alias left out, in a fixed order. */
async function remoteAcls(side: Side): Promise<ProbeAcl[]> {
  return (await probe!.acls(target!.bootstrap))
    .filter((a) => a.topic.startsWith(`${SIDES[side].source}.`))
    .map((a) => ({ ...a, topic: unaliased(side, a.topic) }))
    .sort((x, y) => aclKey(x).localeCompare(aclKey(y)));
}

/**
 * The records' timestamps start here: recent, so that no topic's retention (mm-late's hour, mm-orders' days)
 * deletes them while the test runs (the brokers check retention every five minutes; fixed dates in the past
 * were deleted by the first check on a slow run).
 */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 10 * 60_000;

let source: KafkaCluster | undefined;
let target: KafkaCluster | undefined;
let probe: MirrorClustersProbe | undefined;
let kafkaConnect: KafkaConnect | undefined;
let sluice: ConnectCluster | undefined;
/** Why Sluice's connectors could not be created (checked by Sluice's test, so Kafka Connect's still runs). */
const sluiceErrors: string[] = [];

const remote = (side: Side, topic: string) => `${SIDES[side].source}.${topic}`;
const offsetSyncsTopic = (side: Side) => `mm2-offset-syncs.${SIDES[side].target}.internal`;
const checkpointsTopic = (side: Side) => `${SIDES[side].source}.checkpoints.internal`;
/** A remote topic's name without its side's alias, to compare the two sides. */
const unaliased = (side: Side, topic: string) =>
  topic.startsWith(`${SIDES[side].source}.`) ? topic.slice(SIDES[side].source.length + 1) : topic;

function mirrorConfigs(side: Side): Record<(typeof CONNECTORS)[number], Record<string, string>> {
  const common = {
    "source.cluster.alias": SIDES[side].source,
    "target.cluster.alias": SIDES[side].target,
    "source.cluster.bootstrap.servers": source!.bootstrap,
    "target.cluster.bootstrap.servers": target!.bootstrap,
    "key.converter": BYTES,
    "value.converter": BYTES,
    "header.converter": BYTES,
    topics: "mm-.*",
    groups: "mm-app.*",
    "replication.factor": "1",
    "offset-syncs.topic.replication.factor": "1",
    "checkpoints.topic.replication.factor": "1",
    "heartbeats.topic.replication.factor": "1",
  };
  return {
    "mirror-source": {
      ...common,
      "connector.class": `${MIRROR}.MirrorSourceConnector`,
      "tasks.max": "2",
      "refresh.topics.interval.seconds": "1",
      "sync.topic.configs.interval.seconds": "1",
      "sync.topic.acls.interval.seconds": "1",
    },
    "mirror-checkpoint": {
      ...common,
      "connector.class": `${MIRROR}.MirrorCheckpointConnector`,
      "tasks.max": "1",
      "refresh.groups.interval.seconds": "1",
      "emit.checkpoints.interval.seconds": "1",
      "sync.group.offsets.enabled": "true",
      "sync.group.offsets.interval.seconds": "1",
    },
    "mirror-heartbeat": {
      ...common,
      "connector.class": `${MIRROR}.MirrorHeartbeatConnector`,
      "tasks.max": "1",
      "emit.heartbeats.interval.seconds": "1",
    },
  };
}

/** Orders n from..from+count-1 over `partitions`: keys (some null), binary values, headers, timestamps. */
function orders(from: number, count: number, partitions: number): ProbeProduceRecord[] {
  return Array.from({ length: count }, (_, j) => {
    const n = from + j;
    const value = Buffer.concat([Buffer.from(`order ${n} `), Buffer.from([0, 255, n % 256, 128])]);
    return {
      partition: n % partitions,
      key: n % 7 === 3 ? null : b64(`order-${n}`),
      value: value.toString("base64"),
      headers:
        n % 2 === 0
          ? [
              ["trace", b64(`t-${n}`)],
              ["dup", b64("a")],
              ["dup", b64("b")],
            ]
          : [
              ["empty", b64("")],
              ["nil", null],
            ],
      timestamp: T0 + n * 1000,
    };
  });
}

/** What a record is, without where it is. */
const content = (r: ProbeRecord) => ({
  key: r.key,
  value: r.value,
  headers: r.headers,
  timestamp: r.timestamp,
  timestampType: r.timestampType,
});

/** The records of each partition, in order. */
function byPartition(records: ProbeRecord[]): Map<number, ProbeRecord[]> {
  const out = new Map<number, ProbeRecord[]>();
  for (const r of records) out.set(r.partition, [...(out.get(r.partition) ?? []), r]);
  return out;
}

/** Each partition's records as the source has them and as the side's remote topic has them. */
async function recordsOf(side: Side, topic: string) {
  const [upstream, downstream] = await Promise.all([
    probe!.read(source!.bootstrap, topic),
    probe!.read(target!.bootstrap, remote(side, topic)),
  ]);
  return { upstream, downstream };
}

/** Waits until the side's remote topic has the source topic's partitions and records (count per partition). */
function replicated(side: Side, topic: string, timeoutMs = 60_000) {
  return waitFor(
    `${remote(side, topic)} to hold ${topic}'s records`,
    async () => {
      const { upstream, downstream } = await recordsOf(side, topic);
      const [up, down] = [byPartition(upstream), byPartition(downstream)];
      const partitions = (await probe!.describe(source!.bootstrap, [topic]))[topic]!.partitions;
      const remotePartitions = (await probe!.describe(target!.bootstrap, [remote(side, topic)]))[remote(side, topic)]!
        .partitions;
      if (remotePartitions !== partitions || upstream.length === 0) return undefined;
      for (const [p, records] of up) if (down.get(p)?.length !== records.length) return undefined;
      return { upstream, downstream };
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** The group offsets the test commits on the source: end offsets of some partitions, start offsets of others. */
async function groupCommits(): Promise<GroupOffset[]> {
  const ends = async (topic: string) => {
    const records = byPartition(await probe!.read(source!.bootstrap, topic));
    return [...records].map(([partition, rs]) => ({ topic, partition, offset: rs.at(-1)!.offset + 1 }));
  };
  return [
    ...(await ends("mm-orders")).map((o) => ({ ...o, metadata: `orders-${o.partition}` })),
    { topic: "mm-trimmed", partition: 0, offset: TRIMMED_START, metadata: "" },
    { topic: "mm-late", partition: 0, offset: 0, metadata: "from the start" },
    ...(await ends("mm-late")).filter((o) => o.partition === 1).map((o) => ({ ...o, metadata: "" })),
  ];
}

/** The downstream offset each committed upstream offset translates to exactly (its record's place downstream). */
async function expectedDownstream(side: Side, commits: GroupOffset[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const topic of new Set(commits.map((c) => c.topic))) {
    const { upstream, downstream } = await recordsOf(side, topic);
    const [up, down] = [byPartition(upstream), byPartition(downstream)];
    for (const c of commits.filter((c) => c.topic === topic)) {
      const ups = up.get(c.partition)!;
      const at = ups.findIndex((r) => r.offset === c.offset);
      // (an end offset: one past the last record downstream)
      out.set(
        `${topic}/${c.partition}`,
        at >= 0 ? down.get(c.partition)![at]!.offset : down.get(c.partition)!.at(-1)!.offset + 1,
      );
    }
  }
  return out;
}

/** The newest checkpoint of each group and partition, with the topic's alias left out. */
function latestCheckpoints(side: Side, checkpoints: DecodedCheckpoint[]) {
  const latest = new Map<string, Omit<DecodedCheckpoint, "offset" | "timestamp">>();
  for (const c of checkpoints) {
    const { offset: _o, timestamp: _t, ...rest } = c;
    latest.set(`${c.group}/${c.topic}/${c.topicPartition}`, { ...rest, topic: unaliased(side, c.topic) });
  }
  return [...latest.values()].sort((a, b) =>
    `${a.topic}/${a.topicPartition}`.localeCompare(`${b.topic}/${b.topicPartition}`),
  );
}

/** The offset syncs that do not hold: the record at the upstream offset is not the one at the downstream offset
 * (told by key, value and timestamp; the records' comparisons cover their headers). */
async function wrongOffsetSyncs(side: Side, syncs: DecodedOffsetSync[]): Promise<DecodedOffsetSync[]> {
  const wrong: DecodedOffsetSync[] = [];
  for (const topic of new Set(syncs.map((s) => s.topic))) {
    const { upstream, downstream } = await recordsOf(side, topic);
    const at = (records: ProbeRecord[], partition: number, offset: number) =>
      records.find((r) => r.partition === partition && r.offset === offset);
    for (const s of syncs.filter((s) => s.topic === topic)) {
      const up = at(upstream, s.topicPartition, s.upstreamOffset);
      const down = at(downstream, s.topicPartition, s.downstreamOffset);
      if (!up || !down || up.key !== down.key || up.value !== down.value || up.timestamp !== down.timestamp)
        wrong.push(s);
    }
  }
  return wrong;
}

/** The newest offset sync of each topic partition. */
function latestOffsetSyncs(syncs: DecodedOffsetSync[]) {
  const latest = new Map<
    string,
    { topic: string; partition: number; upstreamOffset: number; downstreamOffset: number }
  >();
  for (const s of syncs)
    latest.set(`${s.topic}/${s.topicPartition}`, {
      topic: s.topic,
      partition: s.topicPartition,
      upstreamOffset: s.upstreamOffset,
      downstreamOffset: s.downstreamOffset,
    });
  return [...latest.values()].sort((a, b) => `${a.topic}/${a.partition}`.localeCompare(`${b.topic}/${b.partition}`));
}

/** The offsets of `side`'s remote topics in a list of group offsets, with the alias left out. */
const sideOffsets = (side: Side, offsets: GroupOffset[]) =>
  offsets
    .filter((o) => o.topic.startsWith(`${SIDES[side].source}.`))
    .map((o) => ({ ...o, topic: unaliased(side, o.topic) }));

/** What a side ends with once the mid-run changes and the group's commits are replicated. */
async function mirroredState(side: Side) {
  const remotes = TOPICS.map((t) => remote(side, t));
  // First the internal topics (describing one that is not there fails): Kafka's MirrorClient reading a
  // checkpoints topic that is not there yet would have the broker create it, with a default config.
  const internals = await Promise.all([
    probe!.describe(source!.bootstrap, [offsetSyncsTopic(side)]),
    probe!.describe(target!.bootstrap, [checkpointsTopic(side)]),
  ]);
  const [described, checkpoints, syncs, translated, targetGroup] = await Promise.all([
    probe!.describe(target!.bootstrap, remotes),
    probe!.checkpoints(target!.bootstrap, checkpointsTopic(side)),
    probe!.offsetSyncs(source!.bootstrap, offsetSyncsTopic(side)),
    probe!.translateOffsets(target!.bootstrap, SIDES[side].source, GROUP),
    probe!.groupOffsets(target!.bootstrap, GROUP),
  ]);
  return {
    topics: Object.fromEntries(TOPICS.map((t) => [t, described[remote(side, t)]])),
    checkpoints: latestCheckpoints(side, checkpoints),
    checkpointRecords: checkpoints,
    offsetSyncs: latestOffsetSyncs(syncs),
    offsetSyncRecords: syncs,
    translated: sideOffsets(side, translated),
    targetGroup: sideOffsets(side, targetGroup),
    internalTopics: {
      offsetSyncs: internals[0][offsetSyncsTopic(side)],
      checkpoints: internals[1][checkpointsTopic(side)],
    },
  };
}

/** Waits until the side's checkpoints, translated offsets and target group offsets are the exact ones. */
function checkpointed(side: Side, expected: GroupOffset[], timeoutMs = 90_000) {
  const want = expected.map(({ topic, partition, offset }) => ({ topic, partition, offset }));
  return waitFor(
    `${SIDES[side].source}'s checkpoints and synced offsets of ${GROUP}`,
    async () => {
      const state = await mirroredState(side);
      const got = (offsets: GroupOffset[]) =>
        offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset }));
      const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
      return same(got(state.translated), want) && same(got(state.targetGroup), want) ? state : undefined;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

async function createConnectors(side: Side, url: string): Promise<void> {
  const api = connectClient(url);
  for (const [name, config] of Object.entries(mirrorConfigs(side))) {
    // (a distributed worker answers 409 while it joins its group)
    const created = await waitFor(
      `${name} created on ${side}`,
      async () => {
        const r = await api.put(`/connectors/${name}/config`, config);
        if (r.status === 409) return undefined;
        return r;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    if (created.status >= 300) throw new Error(`${name}: ${created.status} ${JSON.stringify(created.body)}`);
  }
}

async function seedSource(): Promise<void> {
  const a = source!.bootstrap;
  await probe!.createTopic(a, "mm-orders", 3, ORDERS_CONFIGS);
  await probe!.createTopic(a, "mm-compact", 2, COMPACT_CONFIGS);
  await probe!.createTopic(a, "mm-trimmed", 1);
  await probe!.createTopic(a, "mm-bulk", 2);
  await probe!.createTopic(a, "heartbeats", 1, { "cleanup.policy": "compact" });
  await probe!.produce(a, "mm-orders", orders(0, 60, 3));
  // Keys updated and deleted (tombstones): the compacted topic is replicated record for record.
  await probe!.produce(
    a,
    "mm-compact",
    Array.from({ length: 30 }, (_, n) => ({
      partition: n % 2,
      key: b64(`k${n % 6}`),
      value: n % 5 === 4 ? null : b64(`v${n}`),
      timestamp: T0 + n,
    })),
  );
  // The first records deleted before anything reads them: the remote topic starts at the log start offset.
  await probe!.produce(
    a,
    "mm-trimmed",
    Array.from({ length: 20 }, (_, n) => ({ key: b64(`t${n}`), value: b64(`trimmed ${n}`), timestamp: T0 + n })),
  );
  await probe!.deleteRecords(a, "mm-trimmed", 0, TRIMMED_START);
  await probe!.writeHeartbeat(a, "origin", "src", T0);
  await probe!.createAcls(a, SOURCE_ACLS);
}

beforeAll(async () => {
  // (the probe's JVM compiles it while the brokers start)
  probe = startMirrorClustersProbe();
  [source, target] = await Promise.all([startKafka({ authorizer: true }), startKafka({ authorizer: true })]);
  const workerTopics = {
    "group.id": "connect-kc",
    "config.storage.topic": "connect-kc-configs",
    "offset.storage.topic": "connect-kc-offsets",
    "status.storage.topic": "connect-kc-status",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
  };
  sluice = new ConnectCluster({
    bootstrap: target.bootstrap,
    settings: { "key.converter": BYTES, "value.converter": BYTES },
  });
  // (Kafka Connect's JVM is spawned first; the source is seeded and dist/sluice built while it starts)
  [kafkaConnect] = await Promise.all([
    startKafkaConnect({
      bootstrap: target.bootstrap,
      distributed: true,
      extraClasspath: kafkaMirrorClasspath(),
      worker: { ...workerTopics, "key.converter": BYTES, "value.converter": BYTES, "header.converter": BYTES },
      jvmOptions: ["-XX:TieredStopAtLevel=1"],
      timeoutMs: 180_000,
    }),
    seedSource(),
    sluice.setUp(1),
  ]);
}, 300_000);

afterAll(async () => {
  await kafkaConnect?.stop();
  await sluice?.tearDown();
  await probe?.close();
  await Promise.all([source?.stop(), target?.stop()]);
});

let commits: GroupOffset[] = [];
let reference: Awaited<ReturnType<typeof mirroredState>> | undefined;
let referenceAcls: ProbeAcl[] | undefined;

test("Kafka Connect's MirrorMaker 2 replicates topics, configs, offsets and heartbeats (the reference)", async () => {
  const [a, b] = [source!.bootstrap, target!.bootstrap];
  await createConnectors("kc", kafkaConnect!.url);
  await createConnectors("sl", sluice!.workers[0]!.url).catch((err: Error) => sluiceErrors.push(err.message));
  for (const topic of ["mm-orders", "mm-compact", "mm-trimmed", "heartbeats"]) await replicated("kc", topic);

  // Mid-run: a new topic, a partition added, a topic config changed.
  await probe!.createTopic(a, "mm-late", 2, LATE_CONFIGS);
  await probe!.produce(
    a,
    "mm-late",
    Array.from({ length: 10 }, (_, n) => ({ partition: n % 2, key: b64(`late-${n}`), value: b64(`late ${n}`) })),
  );
  await probe!.createPartitions(a, "mm-orders", 4);
  await probe!.produce(a, "mm-orders", orders(60, 20, 4));
  await probe!.alterConfigs(a, "mm-orders", { "retention.ms": "172800000" });
  const ordersCopy = await replicated("kc", "mm-orders");
  await replicated("kc", "mm-late");

  // Records: byte for byte the source's, partition for partition (the trimmed topic from its log start).
  for (const topic of TOPICS) {
    const { upstream, downstream } = await recordsOf("kc", topic);
    const [up, down] = [byPartition(upstream), byPartition(downstream)];
    expect([...down.keys()]).toEqual([...up.keys()]);
    for (const [p, records] of up) expect(down.get(p)!.map(content)).toEqual(records.map(content));
  }
  expect(byPartition(ordersCopy.downstream).size).toBe(4);
  expect((await probe!.read(b, remote("kc", "mm-trimmed")))[0]!.offset).toBe(0);
  expect((await probe!.read(a, "mm-trimmed"))[0]!.offset).toBe(TRIMMED_START);

  // Topic configs: the source's (the mid-run change included), without the ones Kafka does not sync.
  const sourceTopics = await probe!.describe(a, TOPICS);
  await waitFor(
    "the changed retention.ms on Kafka Connect's remote topic",
    async () =>
      (await probe!.describe(b, [remote("kc", "mm-orders")]))[remote("kc", "mm-orders")]!.configs["retention.ms"] ===
      "172800000",
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  const remoteTopics = await probe!.describe(
    b,
    TOPICS.map((t) => remote("kc", t)),
  );
  for (const topic of TOPICS) {
    const expected = Object.fromEntries(
      Object.entries(sourceTopics[topic]!.configs).filter(([name]) => !NOT_SYNCED.includes(name)),
    );
    expect({ topic, ...remoteTopics[remote("kc", topic)] }).toEqual({
      topic,
      partitions: sourceTopics[topic]!.partitions,
      configs: expected,
    });
  }

  // The group commits on the source; a group outside `groups` commits too and is not checkpointed.
  commits = await groupCommits();
  await probe!.commit(a, GROUP, commits);
  await probe!.commit(a, "other-app", [{ topic: "mm-orders", partition: 0, offset: 1 }]);
  const downstream = await expectedDownstream("kc", commits);
  const expected = commits
    .map((c) => ({ ...c, offset: downstream.get(`${c.topic}/${c.partition}`)! }))
    .sort((x, y) => `${x.topic}/${x.partition}`.localeCompare(`${y.topic}/${y.partition}`));
  reference = await checkpointed("kc", expected);

  // Checkpoints (decoded by Kafka's Checkpoint): upstream offset and metadata as committed, downstream translated.
  expect(reference.checkpoints).toEqual(
    commits
      .map((c) => ({
        partition: 0,
        group: GROUP,
        topic: c.topic,
        topicPartition: c.partition,
        upstreamOffset: c.offset!,
        downstreamOffset: downstream.get(`${c.topic}/${c.partition}`)!,
        metadata: c.metadata!,
      }))
      .sort((x, y) => `${x.topic}/${x.topicPartition}`.localeCompare(`${y.topic}/${y.topicPartition}`)),
  );
  // Offset syncs (decoded by Kafka's OffsetSync): every one true, and the newest one of each partition its last record.
  expect(await wrongOffsetSyncs("kc", reference.offsetSyncRecords)).toEqual([]);
  const lastRecords: ReturnType<typeof latestOffsetSyncs> = [];
  for (const topic of TOPICS) {
    const { upstream, downstream: down } = await recordsOf("kc", topic);
    for (const [p, records] of byPartition(upstream))
      lastRecords.push({
        topic,
        partition: p,
        upstreamOffset: records.at(-1)!.offset,
        downstreamOffset: byPartition(down).get(p)!.at(-1)!.offset,
      });
  }
  lastRecords.sort((x, y) => `${x.topic}/${x.partition}`.localeCompare(`${y.topic}/${y.partition}`));
  // (a sync that is not due yet goes out at the task's next offset commit)
  const syncs = await waitFor(
    "Kafka Connect's offset syncs of each partition's last record",
    async () => {
      const latest = latestOffsetSyncs(await probe!.offsetSyncs(a, offsetSyncsTopic("kc")));
      return JSON.stringify(latest) === JSON.stringify(lastRecords) ? latest : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch(async () => latestOffsetSyncs(await probe!.offsetSyncs(a, offsetSyncsTopic("kc"))));
  expect(syncs).toEqual(lastRecords);
  reference.offsetSyncs = syncs;
  expect(reference.internalTopics.offsetSyncs).toEqual({ partitions: 1, configs: { "cleanup.policy": "compact" } });
  expect(reference.internalTopics.checkpoints).toEqual({ partitions: 1, configs: { "cleanup.policy": "compact" } });

  // Heartbeats (decoded by Kafka's Heartbeat) in the target's `heartbeats`; RemoteClusterUtils sees the flow.
  const beats = await waitFor("two heartbeats from kc-src", async () => {
    const hs = (await probe!.heartbeats(b)).filter((h) => h.sourceClusterAlias === "kc-src");
    return hs.length >= 2 ? hs : undefined;
  });
  expect(beats.every((h) => h.targetClusterAlias === "kc-tgt" && h.partition === 0)).toBe(true);
  expect(beats.every((h) => Math.abs(h.heartbeat - h.timestamp) < 60_000)).toBe(true);
  const clusters = await probe!.clusters(b, "kc-src");
  expect(clusters.upstreamClusters).toContain("kc-src");
  expect(clusters.checkpointTopics).toContain(checkpointsTopic("kc"));
  expect(clusters.replicationHops).toBe(1);

  // Topic ACLs: LITERAL ones of replicated topics (the heartbeats topic and one not created included), ALLOW
  // WRITE left out, ALLOW ALL as READ (once with the READ), DENY ones as they are.
  const on = (topic: string, over: Partial<ProbeAcl> = {}): ProbeAcl => ({
    ...alice,
    topic,
    operation: "READ",
    ...over,
  });
  const expectedAcls = [
    on("mm-orders"),
    on("mm-orders", { permission: "DENY" }),
    on("mm-orders", { operation: "DESCRIBE", principal: "User:bob", host: "10.0.0.1" }),
    on("mm-orders", { operation: "ALL", principal: "User:mallory", permission: "DENY" }),
    on("mm-nowhere", { principal: "User:carol" }),
    on("heartbeats"),
  ].sort((x, y) => aclKey(x).localeCompare(aclKey(y)));
  referenceAcls = await waitFor(
    "Kafka Connect's topic ACLs on the target",
    async () => {
      const acls = await remoteAcls("kc");
      return Bun.deepEquals(acls, expectedAcls) ? acls : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch(async () => remoteAcls("kc"));
  expect(referenceAcls).toEqual(expectedAcls);
}, 300_000);

test("Sluice's MirrorMaker 2 connectors give what Kafka Connect's give", async () => {
  expect(sluiceErrors).toEqual([]);
  expect(reference).toBeDefined();
  const b = target!.bootstrap;
  for (const topic of TOPICS) await replicated("sl", topic);
  // Every comparison runs and each difference is listed, so one run shows all of them.
  const differences: string[] = [];
  const compare = (what: string, sluiceHas: unknown, kafkaConnectHas: unknown) => {
    if (!Bun.deepEquals(sluiceHas, kafkaConnectHas))
      differences.push(
        `${what}: Kafka Connect ${JSON.stringify(kafkaConnectHas)}, Sluice ${JSON.stringify(sluiceHas)}`,
      );
  };

  // Records, byte for byte the same as Kafka Connect's copies, partition for partition, headers included as
  // Kafka has them (in order, repeated keys and null values kept).
  for (const topic of TOPICS) {
    const [kc, sl] = await Promise.all([probe!.read(b, remote("kc", topic)), probe!.read(b, remote("sl", topic))]);
    compare(`${topic}: record count`, sl.length, kc.length);
    const differing = kc.filter((r, i) => !Bun.deepEquals(sl[i], r));
    for (const r of differing.slice(0, 3)) {
      const other = sl[kc.indexOf(r)];
      compare(`${topic}: record ${r.partition}/${r.offset}`, other, r);
    }
    if (differing.length > 3) differences.push(`${topic}: ${differing.length - 3} more records differ`);
  }
  await waitFor(
    "the changed retention.ms on Sluice's remote topic",
    async () =>
      (await probe!.describe(b, [remote("sl", "mm-orders")]))[remote("sl", "mm-orders")]!.configs["retention.ms"] ===
      "172800000",
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch((err: Error) => differences.push(err.message));
  const downstream = await expectedDownstream("sl", commits);
  const expected = commits
    .map((c) => ({ ...c, offset: downstream.get(`${c.topic}/${c.partition}`)! }))
    .sort((x, y) => `${x.topic}/${x.partition}`.localeCompare(`${y.topic}/${y.partition}`));
  const state = await checkpointed("sl", expected).catch(async (err: Error) => {
    differences.push(err.message);
    return mirroredState("sl");
  });
  const ref = reference!;
  compare("remote topics (partitions, configs)", state.topics, ref.topics);
  compare("newest checkpoints", state.checkpoints, ref.checkpoints);
  compare("RemoteClusterUtils.translateOffsets", state.translated, ref.translated);
  compare("target group offsets", state.targetGroup, ref.targetGroup);
  compare("internal topics", state.internalTopics, ref.internalTopics);
  compare("offset syncs that do not hold", await wrongOffsetSyncs("sl", state.offsetSyncRecords), []);
  const syncs = await waitFor(
    "Sluice's newest offset syncs to be Kafka Connect's",
    async () => {
      const latest = latestOffsetSyncs(await probe!.offsetSyncs(source!.bootstrap, offsetSyncsTopic("sl")));
      return Bun.deepEquals(latest, ref.offsetSyncs) ? latest : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch(async () => latestOffsetSyncs(await probe!.offsetSyncs(source!.bootstrap, offsetSyncsTopic("sl"))));
  compare("newest offset syncs", syncs, ref.offsetSyncs);

  const beats = await waitFor("two heartbeats from sl-src", async () => {
    const hs = (await probe!.heartbeats(b)).filter((h) => h.sourceClusterAlias === "sl-src");
    return hs.length >= 2 ? hs : undefined;
  }).catch((err: Error) => (differences.push(err.message), []));
  compare(
    "heartbeats not from sl-src to sl-tgt on partition 0",
    beats.filter((h) => h.targetClusterAlias !== "sl-tgt" || h.partition !== 0),
    [],
  );
  compare(
    "heartbeats whose record timestamp is not theirs",
    beats.filter((h) => Math.abs(h.heartbeat - h.timestamp) >= 60_000),
    [],
  );
  const clusters = await probe!.clusters(b, "sl-src");
  compare("RemoteClusterUtils.upstreamClusters", clusters.upstreamClusters, ["kc-src", "sl-src"]);
  compare("RemoteClusterUtils.checkpointTopics", clusters.checkpointTopics, [
    checkpointsTopic("kc"),
    checkpointsTopic("sl"),
  ]);
  compare("RemoteClusterUtils.replicationHops", clusters.replicationHops, 1);
  const acls = await waitFor(
    "Sluice's topic ACLs to be Kafka Connect's",
    async () => {
      const got = await remoteAcls("sl");
      return Bun.deepEquals(got, referenceAcls) ? got : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch(async () => remoteAcls("sl"));
  compare("topic ACLs on the remote topics", acls, referenceAcls);
  expect(differences).toEqual([]);
}, 300_000);

test("a Sluice worker killed (-9) mid-replication loses nothing: its restart carries on, in order", async () => {
  expect(sluiceErrors).toEqual([]);
  const [a, b] = [source!.bootstrap, target!.bootstrap];
  const topic = "mm-bulk";
  let produced = 0;
  let producing = true;
  const batch = async () => {
    const records = Array.from({ length: 250 }, (_, j) => ({
      partition: (produced + j) % 2,
      key: b64(`bulk-${produced + j}`),
      value: Buffer.alloc(200, produced + j).toString("base64"),
      headers: [["n", b64(String(produced + j))]] as [string, string | null][],
    }));
    produced += records.length;
    await probe!.produce(a, topic, records);
  };
  const producer = (async () => {
    while (producing) await batch();
  })();
  const remoteBulk = remote("sl", topic);
  const count = async () =>
    (await sluice!.broker!.listTopics()).includes(remoteBulk)
      ? (await sluice!.broker!.endOffsets(remoteBulk)).reduce((sum, n) => sum + n, 0)
      : 0;
  try {
    await waitFor("Sluice replicating mm-bulk", async () => (await count()) >= 1000, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    await sluice!.kill(0, "SIGKILL");
    const atKill = produced;
    await waitFor("more records produced while the worker is down", () => produced >= atKill + 1000, {
      timeoutMs: 60_000,
    });
    await sluice!.start(0);
    await waitFor(
      "mirror-source RUNNING again",
      async () => {
        const s = (await sluice!.client(0).get("/connectors/mirror-source/status")).body as Status | undefined;
        return s?.connector.state === "RUNNING" && s.tasks.length > 0 && s.tasks.every((t) => t.state === "RUNNING");
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    await waitFor("more records produced after the restart", () => produced >= atKill + 2000, { timeoutMs: 60_000 });
  } finally {
    producing = false;
    await producer;
  }
  const upstream = await probe!.read(a, topic);
  expect(upstream.length).toBe(produced);
  const downstream = await waitFor(
    `all ${produced} records in ${remoteBulk}`,
    async () => {
      if ((await count()) < produced) return undefined;
      const records = await probe!.read(b, remoteBulk);
      return new Set(records.map((r) => r.key)).size >= produced ? records : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  // At least once: a record may come twice (sent again after the crash), but each partition, first copies
  // only, is the source's partition in its order.
  const down = byPartition(downstream);
  for (const [p, records] of byPartition(upstream)) {
    const seen = new Set<string>();
    const firsts = down.get(p)!.filter((r) => !seen.has(r.key!) && seen.add(r.key!));
    expect(firsts.map(content)).toEqual(records.map(content));
  }
  // Its offset syncs still hold after the restart.
  const syncs = (await probe!.offsetSyncs(a, offsetSyncsTopic("sl"))).filter((s) => s.topic === topic);
  expect(syncs.length).toBeGreaterThan(0);
  expect(await wrongOffsetSyncs("sl", syncs)).toEqual([]);
}, 300_000);
