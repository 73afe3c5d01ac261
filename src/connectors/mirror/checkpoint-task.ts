// org.apache.kafka.connect.mirror.MirrorCheckpointTask: every emit.checkpoints.interval.seconds, reads
// the committed offsets of its groups on the source, translates them through the offset syncs
// (offset-sync-store.ts) and writes a checkpoint for each partition whose translation moved (or whose
// source group rewound). With sync.group.offsets.enabled, every sync.group.offsets.interval.seconds it
// also commits the checkpointed offsets to the same group on the target, when that group has no active
// members and its offset there is behind, as Kafka's task does. At start it reads back the checkpoints it
// wrote before (so a restart does not move a group backwards) and the offset-syncs topic to its end;
// it keeps following the offset syncs after that.
import type { Broker, FetchedRecord, GroupOffset } from "../../broker/broker.ts";
import { SourceTask } from "../../connect/api/connector.ts";
import { Schema } from "../../connect/api/data/index.ts";
import { sourceRecord, type SourceRecord } from "../../connect/api/records.ts";
import { logger } from "../../platform/log.ts";
import { VERSION } from "../../platform/version.ts";
import { decodeCheckpoint, encodeCheckpoint, type Checkpoint } from "./checkpoint.ts";
import { CheckpointConfig, TASK_CONSUMER_GROUPS } from "./checkpoint-config.ts";
import type { TopicFilter } from "./filters.ts";
import { waitUnlessStopped } from "./internal-topics.ts";
import { decodeOffsetSync } from "./offset-sync.ts";
import { OffsetSyncStore } from "./offset-sync-store.ts";
import type { ReplicationPolicy } from "./replication-policy.ts";

const log = logger("mirror-checkpoint");

/** How long one read of the offset-syncs topic waits for new syncs. */
const SYNC_READ_WAIT_MS = 500;
/** How long a failed read of a topic waits before the next try. */
const RETRY_MS = 1000;

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** The last checkpoint of each partition, per group (Kafka's CheckpointStore). */
export type CheckpointsByGroup = Map<string, Map<string, Checkpoint>>;

/**
 * Whether a new checkpoint is worth writing after `last` (Kafka's checkpointIsMoreRecent): the first for
 * its partition, an upstream rewind (the source group was reset), or a downstream offset that moved on.
 * A checkpoint that would move the target backwards without a rewind upstream is not written.
 */
export function checkpointIsMoreRecent(checkpoint: Checkpoint, last: Checkpoint | undefined): boolean {
  if (!last) return true;
  if (checkpoint.upstreamOffset < last.upstreamOffset) return true;
  return checkpoint.downstreamOffset > last.downstreamOffset;
}

/**
 * The target offsets to commit per group (Kafka's syncGroupOffset): every checkpoint of a group that is
 * not idle on the target (it has members, or does not exist there: its commit fails or creates it), and
 * for an idle group those partitions whose offset on the target is missing or behind the checkpoint.
 */
export function offsetsToSync(
  checkpoints: CheckpointsByGroup,
  idleGroupOffsets: ReadonlyMap<string, readonly GroupOffset[]>,
): Map<string, GroupOffset[]> {
  const out = new Map<string, GroupOffset[]>();
  for (const [group, byPartition] of checkpoints) {
    const converted = [...byPartition.values()].map((c) => ({
      topic: c.topic,
      partition: c.partition,
      offset: c.downstreamOffset,
      metadata: c.metadata,
    }));
    const target = idleGroupOffsets.get(group);
    if (!target) {
      if (converted.length > 0) out.set(group, converted);
      continue;
    }
    const current = new Map(target.map((o) => [tpKey(o.topic, o.partition), o.offset]));
    const behind = converted.filter((c) => {
      const offset = current.get(tpKey(c.topic, c.partition));
      return offset === undefined || offset < c.offset;
    });
    if (behind.length > 0) out.set(group, behind);
  }
  return out;
}

/**
 * The target's name of a source topic (Kafka's renameTopicPartition): a topic that came from the target
 * in the first place goes back to its own name (`us-west.orders` → `orders`); others get the source's
 * prefix (`orders` → `us-east.orders`).
 */
export function downstreamTopic(policy: ReplicationPolicy, sourceAlias: string, targetAlias: string, topic: string) {
  return policy.topicSource(topic) === targetAlias
    ? policy.originalTopic(topic)
    : policy.formatRemoteTopic(sourceAlias, topic);
}

export class MirrorCheckpointTask extends SourceTask {
  static readonly className = "org.apache.kafka.connect.mirror.MirrorCheckpointTask";
  private config!: CheckpointConfig;
  private groups: string[] = [];
  private topicFilter!: TopicFilter;
  private checkpointsTopic = "";
  private intervalMs = 60000;
  private nextEmit = 0;
  private source?: Broker;
  private target?: Broker;
  private readonly syncs = new OffsetSyncStore();
  private checkpoints: CheckpointsByGroup = new Map();
  private initialized = false;
  private stopped = false;
  private starting?: Promise<void>;
  private following?: Promise<void>;
  private syncTimer?: ReturnType<typeof setInterval>;
  private syncing = false;

  version(): string {
    return VERSION;
  }

  start(props: Record<string, string>): void {
    const config = new CheckpointConfig(props);
    this.config = config;
    this.groups = (props[TASK_CONSUMER_GROUPS] ?? "")
      .split(",")
      .map((g) => g.trim())
      .filter(Boolean);
    this.topicFilter = config.topicFilter();
    this.checkpointsTopic = config.checkpointsTopic();
    this.intervalMs = Math.max(0, config.intervalMs("emit.checkpoints"));
    this.nextEmit = Date.now() + this.intervalMs; // Kafka's task waits one interval before the first
    this.stopped = false;
    // As Kafka's: the stores load in the background, so that a slow cluster does not hold up start().
    this.starting = this.startStores().catch((err: unknown) => {
      log.error({ err: (err as Error).message }, "could not start the checkpoint task's stores");
    });
    log.info(
      { groups: this.groups },
      `checkpointing ${this.groups.length} consumer groups ${config.sourceClusterAlias}->${config.targetClusterAlias}: ${this.groups.join(", ")}.`,
    );
  }

  private async startStores(): Promise<void> {
    const config = this.config;
    this.source = await config.connectClient("source", ["consumer", "admin"], "checkpoint-source");
    this.target = await config.connectClient("target", ["consumer", "admin"], "checkpoint-target");
    if (this.stopped) return;
    const loaded = await this.loadCheckpoints(this.target);
    // Checkpoints that could not be read back: only the newest sync of each partition is kept while
    // catching up, so no checkpoint goes behind one written before (Kafka's initializationMustReadToEnd).
    this.syncs.starting(!loaded);
    const syncsClient = config.offsetSyncsLocation() === "source" ? this.source : this.target;
    const position = await this.readOffsetSyncsToEnd(syncsClient);
    if (this.stopped) return;
    this.syncs.markReadToEnd();
    this.initialized = true;
    this.following = this.followOffsetSyncs(syncsClient, position);
    const syncMs = config.intervalMs("sync.group.offsets");
    if (syncMs >= 0) {
      // Kafka refreshes the target's idle groups at once and every interval, and syncs one interval later.
      this.syncTimer = setInterval(() => void this.syncGroupOffsets(), Math.max(syncMs, 100));
    }
  }

  /** The checkpoints of this task's groups already in the topic; false when they could not be read. */
  private async loadCheckpoints(target: Broker): Promise<boolean> {
    const topic = this.checkpointsTopic;
    try {
      const end = (await target.endOffsets(topic))[0] ?? 0;
      let offset = (await target.startOffsets(topic))[0] ?? 0;
      const mine = new Set(this.groups);
      while (offset < end && !this.stopped) {
        const records = await target.fetch(topic, 0, offset, { maxWaitMs: SYNC_READ_WAIT_MS });
        // Nothing readable left below the end (transaction markers, aborted records): read to the end.
        if (records.length === 0) break;
        for (const record of records) {
          offset = record.offset + 1;
          if (record.offset >= end) break;
          try {
            const checkpoint = decodeCheckpoint(record.key, record.value);
            if (mine.has(checkpoint.group)) this.remember(checkpoint);
          } catch (err) {
            log.warn({ offset: record.offset, err: (err as Error).message }, "Ignored invalid checkpoint record");
          }
        }
      }
      return true;
    } catch (err) {
      this.checkpoints.clear();
      log.info(
        { topic, err: (err as Error).message },
        `Exception encountered loading checkpoints topic ${topic} - this may degrade offset translation as only checkpoints for offsets which were mirrored after the task started will be emitted`,
      );
      return false;
    }
  }

  /** Reads the offset-syncs topic up to its end at start; answers the next offset to read. */
  private async readOffsetSyncsToEnd(client: Broker): Promise<number> {
    const topic = this.config.offsetSyncsTopic();
    let end: number;
    let offset: number;
    try {
      end = (await client.endOffsets(topic))[0] ?? 0;
      offset = (await client.startOffsets(topic))[0] ?? 0;
    } catch (err) {
      // Not there yet (MirrorSourceConnector creates it): nothing to read up to.
      log.debug({ topic, err: (err as Error).message }, "offset-syncs topic not readable yet");
      return 0;
    }
    while (offset < end && !this.stopped) {
      const records = await client.fetch(topic, 0, offset, { maxWaitMs: SYNC_READ_WAIT_MS });
      if (records.length === 0) return end; // nothing readable left below the end
      offset = this.takeSyncs(records, offset);
    }
    return offset;
  }

  /** Follows the offset-syncs topic from `offset` until the task stops. */
  private async followOffsetSyncs(client: Broker, offset: number): Promise<void> {
    const topic = this.config.offsetSyncsTopic();
    while (!this.stopped) {
      try {
        const records = await client.fetch(topic, 0, offset, { maxWaitMs: SYNC_READ_WAIT_MS });
        offset = this.takeSyncs(records, offset);
      } catch (err) {
        if (this.stopped) return;
        log.debug({ topic, err: (err as Error).message }, "could not read the offset syncs; trying again");
        await waitUnlessStopped(RETRY_MS, () => this.stopped);
      }
    }
  }

  private takeSyncs(records: FetchedRecord[], offset: number): number {
    let next = offset;
    for (const record of records) {
      next = record.offset + 1;
      try {
        const sync = decodeOffsetSync(record.key, record.value);
        this.syncs.add(sync.topic, sync.partition, sync);
      } catch (err) {
        log.warn({ offset: record.offset, err: (err as Error).message }, "Ignored invalid offset sync record");
      }
    }
    return next;
  }

  private remember(checkpoint: Checkpoint): void {
    let byPartition = this.checkpoints.get(checkpoint.group);
    if (!byPartition) this.checkpoints.set(checkpoint.group, (byPartition = new Map()));
    byPartition.set(tpKey(checkpoint.topic, checkpoint.partition), checkpoint);
  }

  async poll(): Promise<SourceRecord[] | null> {
    await waitUnlessStopped(Math.min(this.nextEmit - Date.now(), 250), () => this.stopped);
    if (this.stopped || Date.now() < this.nextEmit) return null;
    this.nextEmit = Date.now() + this.intervalMs;
    if (!this.initialized || !this.source) return null;
    const records: SourceRecord[] = [];
    try {
      for (const group of this.groups) records.push(...(await this.recordsForGroup(this.source, group)));
    } catch (err) {
      log.warn({ err: (err as Error).message }, "Failure polling consumer state for checkpoints.");
      return null;
    }
    return records.length > 0 ? records : null;
  }

  private async recordsForGroup(source: Broker, group: string): Promise<SourceRecord[]> {
    const timestamp = Date.now();
    let offsets: GroupOffset[];
    try {
      offsets = await source.groupOffsets!(group);
    } catch (err) {
      log.error(
        { group, err: (err as Error).message },
        `Error querying offsets for consumer group ${group} on cluster ${this.config.sourceClusterAlias}.`,
      );
      return [];
    }
    const fresh: Checkpoint[] = [];
    const { policy, sourceClusterAlias, targetClusterAlias } = this.config;
    for (const o of offsets) {
      if (!this.topicFilter.shouldReplicateTopic(o.topic)) continue;
      const downstreamOffset = this.syncs.translateDownstream(o.topic, o.partition, o.offset);
      if (downstreamOffset === undefined || downstreamOffset < 0) continue;
      const checkpoint: Checkpoint = {
        group,
        topic: downstreamTopic(policy, sourceClusterAlias, targetClusterAlias, o.topic),
        partition: o.partition,
        upstreamOffset: o.offset,
        downstreamOffset,
        metadata: o.metadata,
      };
      const last = this.checkpoints.get(group)?.get(tpKey(checkpoint.topic, checkpoint.partition));
      if (checkpointIsMoreRecent(checkpoint, last)) fresh.push(checkpoint);
    }
    for (const checkpoint of fresh) this.remember(checkpoint);
    return fresh.map((checkpoint) => {
      const { key, value } = encodeCheckpoint(checkpoint);
      return sourceRecord({
        sourcePartition: { group, topic: checkpoint.topic, partition: checkpoint.partition },
        sourceOffset: { offset: 0 },
        topic: this.checkpointsTopic,
        kafkaPartition: 0,
        keySchema: Schema.BYTES_SCHEMA,
        key,
        valueSchema: Schema.BYTES_SCHEMA,
        value,
        timestamp,
      });
    });
  }

  /** One round of sync.group.offsets: the target's idle groups' offsets, then the commits. */
  private async syncGroupOffsets(): Promise<void> {
    const target = this.target;
    if (this.syncing || this.stopped || !target?.groupState || !target.groupOffsets || !target.alterGroupOffsets)
      return;
    this.syncing = true;
    try {
      const idle = new Map<string, GroupOffset[]>();
      for (const group of this.groups) {
        try {
          const state = (await target.groupState(group)).toLowerCase();
          if (state === "empty") idle.set(group, await target.groupOffsets(group));
          else if (state === "dead") {
            // Unknown to the classic DescribeGroups: no group at all, or a consumer-protocol (KIP-848)
            // group, which Kafka's describeConsumerGroups would see. One with offsets is only moved
            // forward, as an idle one (with members, its commit is refused either way).
            const offsets = await target.groupOffsets(group);
            if (offsets.length > 0) idle.set(group, offsets);
          }
        } catch (err) {
          log.error(
            { group, err: (err as Error).message },
            `Error querying for consumer group ${group} on cluster ${this.config.targetClusterAlias}.`,
          );
        }
      }
      for (const [group, offsets] of offsetsToSync(this.checkpoints, idle)) {
        if (this.stopped) return;
        try {
          await target.alterGroupOffsets(group, offsets);
          log.debug({ group, partitions: offsets.length }, "synced consumer group offsets to the target");
        } catch (err) {
          const message = (err as Error).message;
          if (/UNKNOWN_MEMBER_ID|member/i.test(message))
            log.warn(
              { group },
              `Unable to sync offsets for consumer group ${group}. This is likely caused by consumers currently using this group in the target cluster.`,
            );
          else log.error({ group, err: message }, `Unable to sync offsets for consumer group ${group}.`);
        }
      }
    } finally {
      this.syncing = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.syncTimer);
    await this.starting;
    await this.following;
    await Promise.allSettled([this.source?.close(), this.target?.close()]);
    this.source = this.target = undefined;
  }
}
