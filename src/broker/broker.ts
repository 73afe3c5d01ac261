// The spec's "message broker", reduced to what the registry and the connector runtime need.
// Two implementations: kafka/ (a real cluster through @platformatic/kafka) and embedded/ (local logs for one process).

export type Bytes = Uint8Array;

/** One record header. A record's headers are an ordered list, as in Kafka: a key may repeat, a value may be null. */
export interface RecordHeader {
  key: string;
  value: Bytes | null;
}

/** The headers of a record without any: one shared list, not one per record. */
export const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

export interface ProduceRecord {
  key: Bytes | null;
  /** null is a tombstone: compaction removes earlier records with the same key. */
  value: Bytes | null;
  headers?: readonly RecordHeader[];
  /** Target partition; default: hash of the key (murmur2, as Kafka's default partitioner), or 0 without key. */
  partition?: number;
  timestamp?: number;
}

export interface RecordPosition {
  partition: number;
  offset: number;
}

export interface FetchedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: Bytes | null;
  value: Bytes | null;
  headers: readonly RecordHeader[];
}

export interface TopicSpec {
  name: string;
  partitions: number;
  /** BROKER_DEFAULT_REPLICATION (-1): the broker's default.replication.factor. */
  replicationFactor: number;
  /** Topic-level configs by Kafka's names, e.g. { "cleanup.policy": "compact" }. */
  config?: Record<string, string>;
}

/** A replication factor that leaves the choice to the broker, as Kafka's CreateTopics does with -1 (KIP-464). */
export const BROKER_DEFAULT_REPLICATION = -1;

/**
 * The topic a broker's auto.create.topics.enable makes when a client writes to or subscribes to a
 * missing one: one partition (Kafka's num.partitions default) and the broker's replication factor.
 */
export function autoCreatedTopic(name: string): TopicSpec {
  return { name, partitions: 1, replicationFactor: BROKER_DEFAULT_REPLICATION };
}

export interface TopicDescription {
  name: string;
  partitions: number;
  replicationFactor: number;
  config: Record<string, string>;
}

export interface FetchOptions {
  /** Wait up to this long for records when none are available at `offset` (long poll). Default 0. */
  maxWaitMs?: number;
  /** Soft cap on the bytes returned per partition; at least one record is returned when one is available. */
  maxBytes?: number;
  /** Kafka: the bytes the broker waits for (up to maxWaitMs) before it answers (fetch.min.bytes; default 1). */
  minBytes?: number;
  /** Kafka: soft cap on the bytes of one answer over all partitions (fetch.max.bytes). */
  totalMaxBytes?: number;
  /**
   * Kafka: read_committed (the default, for Sluice's own readers) skips records of aborted transactions;
   * read_uncommitted returns them. Transaction markers are never returned.
   */
  isolationLevel?: "read_committed" | "read_uncommitted";
}

/** One partition to read in a fetchMany, from `offset` on. */
export interface PartitionRead {
  topic: string;
  partition: number;
  offset: number;
}

export interface Broker {
  /** "kafka" or "embedded": shown in logs and used where semantics differ (e.g. replication factor). */
  readonly kind: string;
  connect(): Promise<void>;
  close(): Promise<void>;

  /** Creates the topic; false when it already existed (its settings are left alone). */
  createTopic(spec: TopicSpec): Promise<boolean>;
  describeTopic(name: string): Promise<TopicDescription | undefined>;
  listTopics(): Promise<string[]>;

  /**
   * Appends records and resolves only once the broker acknowledged all of them (Kafka: acks=all,
   * idempotent producer; embedded: written and fsynced). Rejects with BrokerError otherwise.
   */
  produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]>;

  /** Next offset to be written, per partition (index = partition number). */
  endOffsets(topic: string): Promise<number[]>;
  /** First offset still present, per partition. */
  startOffsets(topic: string): Promise<number[]>;
  /** Records of one partition from `offset` on, in offset order. Offsets may have gaps (compaction). */
  fetch(topic: string, partition: number, offset: number, options?: FetchOptions): Promise<FetchedRecord[]>;
  /**
   * Records of several partitions in one call (Kafka: one Fetch request per partition leader), in offset
   * order within each partition. Answers as soon as any of them has records; when none has, waits up to
   * `maxWaitMs` for a record on any of them (a long poll across all). A partition that has records may
   * still be left out of one answer (its leader had not answered yet): read it again in the next call.
   */
  fetchMany(reads: PartitionRead[], options?: FetchOptions): Promise<FetchedRecord[]>;
  /**
   * Optional: starts now the fetch that a later fetchMany with the same reads and options takes over,
   * so that the next records travel while the caller works on the last ones (a Java consumer's poll
   * sends the next round of fetches before it returns). Errors surface in that fetchMany.
   */
  prefetch?(reads: PartitionRead[], options?: FetchOptions): void;

  /**
   * Opens a transactional producer with Kafka's `transactional.id`. Opening it fences every earlier
   * producer with the same id (Kafka's InitProducerId): their open transaction is aborted and their
   * further writes and commits fail with ProducerFencedError.
   */
  transactionalProducer(transactionalId: string, options?: TransactionOptions): Promise<TransactionalProducer>;
  /**
   * Fences the producers with these transactional ids without opening one (Kafka's Admin.fenceProducers):
   * their open transactions are aborted before this resolves.
   */
  fenceProducers(transactionalIds: string[]): Promise<void>;

  /** Committed consumer positions of a group for a topic (partition → next offset to read). */
  committedOffsets(group: string, topic: string): Promise<Map<number, number>>;
  commitOffsets(group: string, topic: string, offsets: RecordPosition[]): Promise<void>;

  /** Consumer groups, as Kafka's Admin.listGroups(ListGroupsOptions.forConsumerGroups()) lists them. */
  listConsumerGroups?(): Promise<string[]>;
  /** Every committed offset of a group, over all its topics. */
  groupOffsets?(group: string): Promise<GroupOffset[]>;
  /** The group's state as the coordinator names it ("Empty", "Stable", …); "Dead" for a group it does not know. */
  groupState?(group: string): Promise<string>;
  /**
   * Commits offsets of any topics for a group without joining it (Kafka's Admin.alterConsumerGroupOffsets);
   * the coordinator refuses it while the group has active members.
   */
  alterGroupOffsets?(group: string, offsets: GroupOffset[]): Promise<void>;

  /** A member of a coordinated group (Kafka's group coordinator: JoinGroup, SyncGroup, Heartbeat). */
  groupMembership(options: GroupOptions): GroupMembership;

  /** The cluster's id (Kafka's, from its metadata; the embedded broker keeps one in its data directory). */
  clusterId?(): Promise<string>;

  /** The partition count of each of these topics that exists, asked for all of them at once. */
  partitionCounts(topics: string[]): Promise<Map<string, number>>;
  /** Kafka only (MirrorMaker 2): every config entry of each topic that exists, with where its value comes from. */
  describeTopicConfigs?(topics: string[]): Promise<Map<string, TopicConfigEntry[]>>;
  /**
   * Kafka only (MirrorMaker 2): changes topics' configs entry by entry (IncrementalAlterConfigs); the
   * topics whose change the broker refused, with its reason.
   */
  alterTopicConfigs?(changes: Map<string, TopicConfigChange[]>): Promise<Map<string, string>>;
  /** Kafka only (MirrorMaker 2): grows a topic to `total` partitions; false when it already had as many. */
  createPartitions?(topic: string, total: number): Promise<boolean>;
  /**
   * Kafka only (MirrorMaker 2): every ACL binding of a topic resource, of any pattern type and principal;
   * null when the cluster has no authorizer (Kafka's SecurityDisabledException).
   */
  describeTopicAcls?(): Promise<TopicAcl[] | null>;
  /**
   * Kafka only (MirrorMaker 2): creates topic ACL bindings (one that exists already is no error); those the
   * broker refused, with its reason.
   */
  createTopicAcls?(acls: TopicAcl[]): Promise<{ acl: TopicAcl; reason: string }[]>;
}

/** Kafka's AclOperation, by its name. */
export type AclOperation =
  | "UNKNOWN"
  | "ALL"
  | "READ"
  | "WRITE"
  | "CREATE"
  | "DELETE"
  | "ALTER"
  | "DESCRIBE"
  | "CLUSTER_ACTION"
  | "DESCRIBE_CONFIGS"
  | "ALTER_CONFIGS"
  | "IDEMPOTENT_WRITE"
  | "CREATE_TOKENS"
  | "DESCRIBE_TOKENS"
  | "TWO_PHASE_COMMIT";

/** An ACL binding of a topic resource (Kafka's AclBinding with a TOPIC ResourcePattern), Kafka's names for its enums. */
export interface TopicAcl {
  /** The resource name: a topic, a prefix (PREFIXED), or `*` (LITERAL: every topic). */
  topic: string;
  patternType: "LITERAL" | "PREFIXED" | "UNKNOWN";
  /** `User:alice`. */
  principal: string;
  /** `*` for any host. */
  host: string;
  operation: AclOperation;
  permission: "ALLOW" | "DENY" | "UNKNOWN";
}

/** A consumer group's committed position in one partition. */
export interface GroupOffset {
  topic: string;
  partition: number;
  /** The next offset to read. */
  offset: number;
  /** The commit's metadata ("" without). */
  metadata: string;
}

/** A topic config as Kafka's DescribeConfigs describes it. */
export interface TopicConfigEntry {
  name: string;
  value: string | null;
  /** Kafka's ConfigSource: the topic's own value, a broker's (dynamic, dynamic default, static), or Kafka's default. */
  source: "topic" | "dynamic-broker" | "dynamic-default-broker" | "static-broker" | "default" | "other";
  readOnly: boolean;
  sensitive: boolean;
}

/** One entry of an IncrementalAlterConfigs: set a value, or delete the topic's own (back to the default). */
export type TopicConfigChange = { name: string; op: "set"; value: string } | { name: string; op: "delete" };

export interface TransactionOptions {
  /** Kafka's transaction.timeout.ms: the coordinator aborts a transaction left open longer (default 60000). */
  transactionTimeoutMs?: number;
}

/**
 * Writes that become visible together or not at all (Kafka's transactions). A transaction begins with
 * the first produce after open, commit or abort. Readers at read_committed see its records once it
 * committed, and never those of an aborted one.
 */
export interface TransactionalProducer {
  readonly transactionalId: string;
  /** Appends in the open transaction; the positions are the records' offsets once it commits. */
  produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]>;
  /** Makes everything produced since the transaction began visible, atomically. A no-op with nothing produced. */
  commit(): Promise<void>;
  /** Discards everything produced since the transaction began. */
  abort(): Promise<void>;
  close(): Promise<void>;
}

export interface GroupOptions {
  groupId: string;
  /** Kafka's protocol type: "connect" for Connect workers, "sr" for schema registries. */
  protocolType: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
}

export interface GroupMemberMetadata {
  memberId: string;
  metadata: Bytes;
}

export interface JoinResult {
  generation: number;
  memberId: string;
  leaderId: string;
  protocol: string;
  /** Every member with its metadata: only the leader is told. */
  members: GroupMemberMetadata[];
}

/**
 * One member's calls to the group coordinator. Calls reject with GroupError when the group moved on
 * (a rebalance began, this member was removed), and with BrokerError when the coordinator is unreachable.
 */
export interface GroupMembership {
  memberId: string;
  /** Joins (or rejoins) the group; resolves when the coordinator has formed the new generation. */
  join(protocols: { name: string; metadata: Bytes }[]): Promise<JoinResult>;
  /** Sends the leader's assignments (empty for followers); resolves with this member's assignment. */
  sync(generation: number, assignments: Map<string, Bytes>): Promise<Bytes>;
  heartbeat(generation: number): Promise<void>;
  /** Leaves the group so that the others rebalance at once, without waiting for the session to expire. */
  leave(): Promise<void>;
}

/** The coordinator refused a group call; `rejoin` = a rebalance is under way, `reset` = this member is unknown. */
export class GroupError extends Error {
  constructor(
    message: string,
    readonly kind: "rejoin" | "reset",
  ) {
    super(message);
    this.name = "GroupError";
  }
}

/** The broker could not do what was asked (unreachable, timed out, refused). */
export class BrokerError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "BrokerError";
  }
}

/**
 * A newer producer with the same transactional id took over (Kafka's ProducerFencedException): this one
 * must stop writing. Never retriable.
 */
export class ProducerFencedError extends BrokerError {
  constructor(
    readonly transactionalId: string,
    message: string,
    cause?: unknown,
  ) {
    super(message, false, cause);
    this.name = "ProducerFencedError";
  }
}

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();
