// The spec's "message broker", reduced to what the registry and the connector runtime need.
// Two implementations: kafka/ (a real cluster through kafkajs) and embedded/ (local logs for one process).

export type Bytes = Uint8Array;

export interface ProduceRecord {
  key: Bytes | null;
  /** null is a tombstone: compaction removes earlier records with the same key. */
  value: Bytes | null;
  headers?: Record<string, Bytes>;
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
  headers: Record<string, Bytes>;
}

export interface TopicSpec {
  name: string;
  partitions: number;
  replicationFactor: number;
  /** Topic-level configs by Kafka's names, e.g. { "cleanup.policy": "compact" }. */
  config?: Record<string, string>;
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
  /** Soft cap on the bytes returned; at least one record is returned when one is available. */
  maxBytes?: number;
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

  /** Committed consumer positions of a group for a topic (partition → next offset to read). */
  committedOffsets(group: string, topic: string): Promise<Map<number, number>>;
  commitOffsets(group: string, topic: string, offsets: RecordPosition[]): Promise<void>;
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

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();
