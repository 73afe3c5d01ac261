// The Broker for a single process without Kafka: append-only, checksummed, fsynced logs in a local data
// directory. No replication and no consensus: the data is as safe as the disk it is on.
//
// <dataDir>/.lock                          pid of the owning process
// <dataDir>/topics/<topic>/meta.json       partitions, replication factor (as asked), config
// <dataDir>/topics/<topic>/<partition>.log frames, see record-frame.ts
// <dataDir>/groups/<group>.json            committed positions
// <dataDir>/transactions/<n>.commit        a committed transaction not yet in all its logs (transactions.ts)
// <dataDir>/cluster.id                     this data directory's cluster id, as Kafka's meta.properties keeps one
//
// Retention (retention.ms / retention.bytes) is not implemented: topics with cleanup.policy=delete just
// grow. Compacted topics are compacted as in Kafka (latest record per key, offsets kept).
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Logger, logger as namedLogger } from "../../platform/log.ts";
import { nextTurn } from "../../platform/event-loop.ts";
import {
  autoCreatedTopic,
  type Broker,
  BROKER_DEFAULT_REPLICATION,
  BrokerError,
  type FetchedRecord,
  type FetchOptions,
  type GroupMembership,
  type GroupOptions,
  type PartitionRead,
  type ProduceRecord,
  type RecordPosition,
  type TopicDescription,
  type TopicSpec,
  type TransactionalProducer,
  type TransactionOptions,
} from "../broker.ts";
import { kafkaPartition } from "../partitioner.ts";
import type { CompactionResult } from "./compaction.ts";
import { DataDirLock } from "./data-dir-lock.ts";
import { fsyncDir, isAtomicWriteLeftover, writeFileAtomic } from "../../platform/files.ts";
import { EmbeddedGroupCoordinator } from "./group-coordinator.ts";
import { GroupOffsets } from "./group-offsets.ts";
import { Mutex } from "./mutex.ts";
import { type AppendRecord, type CompactionSettings, PartitionLog } from "./partition-log.ts";
import { META_FILE, readTopicMeta, topicDirName, validateTopicName, writeTopicMeta } from "./topic-meta.ts";
import { EmbeddedTransactions, type PlacedRecords } from "./transactions.ts";

export interface EmbeddedBrokerOptions {
  dataDir: string;
  logger?: Logger;
  /** Producing to a missing topic creates it with one partition, like Kafka's auto.create.topics.enable. Default true. */
  autoCreateTopics?: boolean;
  /** A compacted partition is compacted automatically only once its log has at least this many bytes. Default 1 MiB. */
  compactionMinBytes?: number;
}

const DEFAULT_DELETE_RETENTION_MS = 86_400_000;
const DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5;
const DEFAULT_MAX_FETCH_BYTES = 1024 * 1024;

interface Topic {
  description: TopicDescription;
  partitions: PartitionLog[];
  /** Null-key records of one produce call go to one partition, rotating per call (Kafka's sticky partitioner). */
  nextStickyPartition: number;
}

type State = "new" | "connecting" | "open" | "closing" | "closed";

export class EmbeddedBroker implements Broker {
  readonly kind = "embedded";
  private readonly log: Logger;
  private readonly topicsDir: string;
  private readonly autoCreateTopics: boolean;
  private readonly compactionMinBytes: number;
  private state: State = "new";
  private connecting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private lock: DataDirLock | undefined;
  private readonly topics = new Map<string, Topic>();
  private readonly groups: GroupOffsets;
  private readonly coordinator = new EmbeddedGroupCoordinator();
  /** Topic creation (explicit or automatic) is serialised so two creators cannot both create. */
  private readonly creation = new Mutex();
  private readonly transactions: EmbeddedTransactions;

  constructor(private readonly options: EmbeddedBrokerOptions) {
    this.log = options.logger ?? namedLogger("embedded-broker");
    this.topicsDir = join(options.dataDir, "topics");
    this.groups = new GroupOffsets(join(options.dataDir, "groups"));
    this.autoCreateTopics = options.autoCreateTopics ?? true;
    this.compactionMinBytes = options.compactionMinBytes ?? 1024 * 1024;
    this.transactions = new EmbeddedTransactions(join(options.dataDir, "transactions"), {
      place: (topic, records) => this.place(topic, records),
      partition: (topic, partition) => this.topics.get(topic)?.partitions[partition],
      log: this.log,
    });
  }

  connect(): Promise<void> {
    if (this.state === "open") return Promise.resolve();
    if (this.state === "closing" || this.state === "closed") {
      return Promise.reject(new BrokerError("embedded broker is closed", false));
    }
    this.connecting ??= this.open();
    return this.connecting;
  }

  private async open(): Promise<void> {
    this.state = "connecting";
    try {
      await mkdir(this.topicsDir, { recursive: true });
      await mkdir(join(this.options.dataDir, "groups"), { recursive: true });
      await mkdir(join(this.options.dataDir, "transactions"), { recursive: true });
      await fsyncDir(this.options.dataDir);
      this.lock = await DataDirLock.acquire(this.options.dataDir, this.log);
    } catch (err) {
      this.state = "new";
      this.connecting = undefined;
      throw toBrokerError(err, `cannot use data directory ${this.options.dataDir} (setting data.dir, flag --data-dir)`);
    }
    try {
      for (const entry of await readdir(this.topicsDir, { withFileTypes: true })) {
        if (entry.isDirectory()) await this.loadTopic(entry.name);
      }
      await this.transactions.recover();
    } catch (err) {
      await Promise.all([...this.topics.values()].flatMap((t) => t.partitions.map((p) => p.close())));
      this.topics.clear();
      await this.lock.release();
      this.lock = undefined;
      this.state = "new";
      this.connecting = undefined;
      throw toBrokerError(err, `cannot load topics from ${this.topicsDir} and complete their transactions`);
    }
    this.state = "open";
    this.log.info({ dataDir: this.options.dataDir, topics: this.topics.size }, "embedded broker open");
  }

  /** Made on first use, in Kafka's form (a random UUID, 22 characters of base64url), and kept. */
  clusterId(): Promise<string> {
    this.clusterIdRead ??= this.readClusterId();
    return this.clusterIdRead;
  }

  private clusterIdRead: Promise<string> | undefined;

  private async readClusterId(): Promise<string> {
    await this.connect();
    const path = join(this.options.dataDir, "cluster.id");
    const file = Bun.file(path);
    if (await file.exists()) return (await file.text()).trim();
    const id = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
    await writeFileAtomic(path, id);
    return id;
  }

  private async loadTopic(dirName: string): Promise<void> {
    const dir = join(this.topicsDir, dirName);
    const meta = await readTopicMeta(dir);
    if (meta === undefined) {
      // Created up to its (empty) partition files, never described (or stopped while meta.json was being
      // written), so never written to: finish undoing it. Anything else in it (data, bytes kept from a
      // torn or damaged log) is not ours to delete.
      const files = await readdir(dir);
      const sizes = await Promise.all(files.map(async (f) => (await stat(join(dir, f))).size));
      const undone = (f: string, size: number) =>
        (/^\d+\.log$/.test(f) && size === 0) || isAtomicWriteLeftover(f, META_FILE);
      if (files.some((f, i) => !undone(f, sizes[i]!))) {
        throw new BrokerError(
          `topic directory ${dir} has data but no meta.json; restore meta.json or move it away`,
          false,
        );
      }
      this.log.warn({ dir }, "removing a topic directory left by an interrupted topic creation");
      await rm(dir, { recursive: true, force: true });
      return;
    }
    const partitions: PartitionLog[] = [];
    try {
      for (let p = 0; p < meta.partitions; p++) partitions.push(await this.openPartition(dir, meta, p));
    } catch (err) {
      await Promise.all(partitions.map((p) => p.close()));
      throw err;
    }
    this.topics.set(meta.name, { description: meta, partitions, nextStickyPartition: 0 });
  }

  private openPartition(dir: string, meta: TopicDescription, partition: number): Promise<PartitionLog> {
    return PartitionLog.open({
      dir,
      partition,
      compaction: this.compactionSettings(meta.config),
      log: this.log,
    });
  }

  private compactionSettings(config: Record<string, string>): CompactionSettings | undefined {
    const policy = (config["cleanup.policy"] ?? "delete").split(",").map((s) => s.trim());
    if (!policy.includes("compact")) return undefined;
    const number = (name: string, fallback: number): number => {
      const value = Number(config[name]);
      return config[name] !== undefined && Number.isFinite(value) ? value : fallback;
    };
    return {
      deleteRetentionMs: number("delete.retention.ms", DEFAULT_DELETE_RETENTION_MS),
      minCleanableDirtyRatio: number("min.cleanable.dirty.ratio", DEFAULT_MIN_CLEANABLE_DIRTY_RATIO),
      minBytes: this.compactionMinBytes,
    };
  }

  close(): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.connecting) await this.connecting.catch(() => undefined);
    this.state = "closing";
    const errors: unknown[] = [];
    const settle = async (work: Promise<unknown>): Promise<void> => {
      await work.catch((err: unknown) => errors.push(err));
    };
    // First: an open transaction holds back the appends after it in its partitions.
    await settle(this.transactions.closeAll());
    await Promise.all([...this.topics.values()].flatMap((t) => t.partitions.map((p) => settle(p.close()))));
    await settle(this.groups.flush());
    if (this.lock) await settle(this.lock.release());
    this.lock = undefined;
    this.state = "closed";
    if (errors.length > 0) throw toBrokerError(errors[0], "embedded broker did not close cleanly");
  }

  private ensureOpen(): void {
    if (this.state === "open") return;
    if (this.state === "closing" || this.state === "closed") throw new BrokerError("embedded broker is closed", false);
    throw new BrokerError("embedded broker is not connected (call connect() first)", false);
  }

  async createTopic(spec: TopicSpec): Promise<boolean> {
    this.ensureOpen();
    validateTopicName(spec.name);
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
      throw new BrokerError(`invalid partition count ${spec.partitions} for topic ${spec.name}`, false);
    }
    if (!Number.isInteger(spec.replicationFactor)) {
      throw new BrokerError(`invalid replication factor ${spec.replicationFactor} for topic ${spec.name}`, false);
    }
    const config: Record<string, string> = { ...spec.config };
    for (const [name, value] of Object.entries(config)) {
      if (typeof value !== "string")
        throw new BrokerError(`config ${name} of topic ${spec.name} must be a string`, false);
    }
    return this.creation.run(async () => {
      this.ensureOpen();
      if (this.topics.has(spec.name)) return false;
      const description: TopicDescription = {
        name: spec.name,
        partitions: spec.partitions,
        // One process's local log: the "broker's default" is a single copy.
        replicationFactor: spec.replicationFactor === BROKER_DEFAULT_REPLICATION ? 1 : spec.replicationFactor,
        config,
      };
      const dir = join(this.topicsDir, topicDirName(spec.name));
      const partitions: PartitionLog[] = [];
      try {
        await mkdir(dir, { recursive: true });
        for (let p = 0; p < spec.partitions; p++) partitions.push(await this.openPartition(dir, description, p));
        // meta.json last: its presence says the topic is complete.
        await writeTopicMeta(dir, description);
        await fsyncDir(this.topicsDir);
      } catch (err) {
        await Promise.all(partitions.map((p) => p.close()));
        throw toBrokerError(err, `cannot create topic ${spec.name}`);
      }
      this.topics.set(spec.name, { description, partitions, nextStickyPartition: 0 });
      this.log.info({ topic: spec.name, partitions: spec.partitions, config }, "created topic");
      return true;
    });
  }

  async listTopics(): Promise<string[]> {
    this.ensureOpen();
    return [...this.topics.keys()];
  }

  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    this.ensureOpen();
    const out = new Map<string, number>();
    for (const name of topics) {
      const topic = this.topics.get(name);
      if (topic) out.set(name, topic.description.partitions);
    }
    return out;
  }

  async describeTopic(name: string): Promise<TopicDescription | undefined> {
    this.ensureOpen();
    const topic = this.topics.get(name);
    if (!topic) return undefined;
    const d = topic.description;
    return { name: d.name, partitions: d.partitions, replicationFactor: d.replicationFactor, config: { ...d.config } };
  }

  async produce(topicName: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    const placed = await this.place(topicName, records);
    const positions: RecordPosition[] = new Array(records.length);
    await Promise.all(
      placed.map(async ({ partition, log, indexes, records: group }) => {
        let offsets: number[];
        try {
          offsets = await log.append(group);
        } catch (err) {
          throw toBrokerError(err, `produce to ${topicName}-${partition} failed`);
        }
        indexes.forEach((index, i) => {
          positions[index] = { partition, offset: offsets[i] };
        });
      }),
    );
    return positions;
  }

  /** Routes a produce call's records to their partitions, validating all of them first (creating the topic if allowed). */
  private async place(topicName: string, records: ProduceRecord[]): Promise<PlacedRecords[]> {
    this.ensureOpen();
    let topic = this.topics.get(topicName);
    if (!topic) {
      if (!this.autoCreateTopics) throw new BrokerError(`unknown topic ${topicName}`, false);
      await this.createTopic(autoCreatedTopic(topicName));
      topic = this.requireTopic(topicName);
    }
    if (records.length === 0) return [];

    // Route and validate everything before appending anything, so a bad record fails the whole call.
    const count = topic.description.partitions;
    const compacted = topic.partitions[0].compacted;
    const sticky = topic.nextStickyPartition % count;
    const byPartition = new Map<number, { indexes: number[]; records: AppendRecord[] }>();
    const now = Date.now();
    records.forEach((r, i) => {
      let partition: number;
      if (r.partition !== undefined) {
        if (!Number.isInteger(r.partition) || r.partition < 0 || r.partition >= count) {
          throw new BrokerError(
            `partition ${r.partition} does not exist in topic ${topicName} (${count} partitions)`,
            false,
          );
        }
        partition = r.partition;
      } else if (r.key !== null) partition = kafkaPartition(r.key, count);
      else partition = sticky;
      if (r.timestamp !== undefined && !Number.isFinite(r.timestamp)) {
        throw new BrokerError(`invalid timestamp ${r.timestamp} for a record to ${topicName}`, false);
      }
      if (compacted && r.key === null) {
        throw new BrokerError(`compacted topic ${topicName} cannot accept a record without a key`, false);
      }
      let group = byPartition.get(partition);
      if (!group) byPartition.set(partition, (group = { indexes: [], records: [] }));
      group.indexes.push(i);
      group.records.push({
        key: r.key,
        value: r.value,
        headers: r.headers ?? [],
        timestamp: r.timestamp === undefined ? now : Math.trunc(r.timestamp),
      });
    });
    if (records.some((r) => r.partition === undefined && r.key === null)) topic.nextStickyPartition = sticky + 1;
    const partitions = topic.partitions;
    return [...byPartition].map(([partition, group]) => ({
      topic: topicName,
      partition,
      log: partitions[partition],
      ...group,
    }));
  }

  async endOffsets(topic: string): Promise<number[]> {
    this.ensureOpen();
    return this.requireTopic(topic).partitions.map((p) => p.highWatermark);
  }

  /** Always 0: nothing is ever deleted from the front (no retention), compaction only leaves gaps. */
  async startOffsets(topic: string): Promise<number[]> {
    this.ensureOpen();
    return this.requireTopic(topic).partitions.map(() => 0);
  }

  fetch(topic: string, partition: number, offset: number, options: FetchOptions = {}): Promise<FetchedRecord[]> {
    return this.fetchMany([{ topic, partition, offset }], options);
  }

  async fetchMany(reads: PartitionRead[], options: FetchOptions = {}): Promise<FetchedRecord[]> {
    this.ensureOpen();
    const logs = reads.map(({ topic, partition, offset }) => {
      const log = this.requirePartition(topic, partition);
      if (!Number.isInteger(offset) || offset < 0 || offset > log.highWatermark) {
        throw new BrokerError(
          `offset ${offset} out of range for ${topic}-${partition} (0..${log.highWatermark})`,
          false,
        );
      }
      return log;
    });
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_FETCH_BYTES;
    const maxWaitMs = options.maxWaitMs ?? 0;
    const readAll = async (): Promise<FetchedRecord[]> =>
      (
        await Promise.all(reads.map((r, i) => this.readPartition(logs[i]!, r.topic, r.partition, r.offset, maxBytes)))
      ).flat();
    let found = await readAll();
    if (found.length === 0 && maxWaitMs > 0 && reads.length > 0) {
      // The first partition to get a record ends the wait; the others' waits are withdrawn.
      const woken = new AbortController();
      await Promise.race(reads.map((r, i) => logs[i]!.waitForRecords(r.offset, maxWaitMs, woken.signal)));
      woken.abort();
      if (this.state === "open") found = await readAll();
    } else if (found.length === 0) {
      // An empty answer involves no I/O; without a macrotask turn a consumer polling with maxWaitMs 0
      // would spin on microtasks and starve the producers it is waiting for.
      await nextTurn();
    }
    return found;
  }

  private async readPartition(
    log: PartitionLog,
    topic: string,
    partition: number,
    offset: number,
    maxBytes: number,
  ): Promise<FetchedRecord[]> {
    try {
      const records = await log.read(offset, maxBytes);
      return records.map((r) => ({ topic, partition, ...r }));
    } catch (err) {
      throw toBrokerError(err, `fetch from ${topic}-${partition} failed`);
    }
  }

  async transactionalProducer(
    transactionalId: string,
    options: TransactionOptions = {},
  ): Promise<TransactionalProducer> {
    this.ensureOpen();
    return this.transactions.open(transactionalId, options);
  }

  async fenceProducers(transactionalIds: string[]): Promise<void> {
    this.ensureOpen();
    await this.transactions.fence(transactionalIds);
  }

  groupMembership(options: GroupOptions): GroupMembership {
    return this.coordinator.membership(options);
  }

  async committedOffsets(group: string, topic: string): Promise<Map<number, number>> {
    this.ensureOpen();
    try {
      return await this.groups.committed(group, topic);
    } catch (err) {
      throw toBrokerError(err, `cannot read committed offsets of group ${group}`);
    }
  }

  async commitOffsets(group: string, topic: string, offsets: RecordPosition[]): Promise<void> {
    this.ensureOpen();
    for (const { partition, offset } of offsets) {
      if (!Number.isInteger(partition) || partition < 0 || !Number.isInteger(offset) || offset < 0) {
        throw new BrokerError(`invalid position ${partition}@${offset} for group ${group}`, false);
      }
    }
    try {
      await this.groups.commit(group, topic, offsets);
    } catch (err) {
      throw toBrokerError(err, `cannot commit offsets of group ${group}`);
    }
  }

  /**
   * Compacts every partition of a compacted topic now, whatever its dirty ratio (for tests and tools).
   * `now` moves the tombstone horizon (delete.retention.ms is measured back from it). No-op for other topics.
   */
  async compact(topic: string, options: { now?: number } = {}): Promise<CompactionResult[]> {
    this.ensureOpen();
    const partitions = this.requireTopic(topic).partitions;
    try {
      return await Promise.all(partitions.map((p) => p.compact(options.now ?? Date.now())));
    } catch (err) {
      throw toBrokerError(err, `compaction of ${topic} failed`);
    }
  }

  private requireTopic(name: string): Topic {
    const topic = this.topics.get(name);
    if (!topic) throw new BrokerError(`unknown topic ${name}`, false);
    return topic;
  }

  private requirePartition(topic: string, partition: number): PartitionLog {
    const log = this.requireTopic(topic).partitions[partition];
    if (!Number.isInteger(partition) || !log) throw new BrokerError(`unknown partition ${topic}-${partition}`, false);
    return log;
  }
}

function toBrokerError(err: unknown, context: string): BrokerError {
  if (err instanceof BrokerError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new BrokerError(`${context}: ${detail}`, false, err);
}
