// Connect records as connectors, transforms and converters see them (Kafka's ConnectRecord,
// SourceRecord, SinkRecord). Records are immutable: transforms return new ones (`newRecord`).
import type { Schema } from "./data/schema.ts";

export interface ConnectHeader {
  readonly key: string;
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** The headers of a record without any: one shared list, not one per record. */
export const NO_CONNECT_HEADERS: readonly ConnectHeader[] = Object.freeze([]);

export interface ConnectRecord {
  readonly topic: string;
  /** null: the producer's partitioner chooses (by key). */
  readonly kafkaPartition: number | null;
  readonly keySchema: Schema | null;
  readonly key: unknown;
  readonly valueSchema: Schema | null;
  readonly value: unknown;
  /** Milliseconds since the epoch, or null. */
  readonly timestamp: number | null;
  readonly headers: readonly ConnectHeader[];
}

/** Where a source record came from and how far the source has got: the offsets the runtime stores. */
export interface SourceRecord extends ConnectRecord {
  readonly sourcePartition: Readonly<Record<string, unknown>>;
  readonly sourceOffset: Readonly<Record<string, unknown>>;
}

export type TimestampType = "NoTimestampType" | "CreateTime" | "LogAppendTime";

export interface SinkRecord extends ConnectRecord {
  readonly kafkaPartition: number;
  readonly kafkaOffset: number;
  readonly timestampType: TimestampType;
  /** Before any transform changed them (Kafka 3.6+ originalTopic/originalKafkaPartition/originalKafkaOffset). */
  readonly originalTopic: string;
  readonly originalKafkaPartition: number;
  readonly originalKafkaOffset: number;
}

/** A copy of `record` with some fields replaced (Kafka's ConnectRecord.newRecord). */
export function newRecord<R extends ConnectRecord>(record: R, changes: Partial<ConnectRecord>): R {
  return { ...record, ...changes };
}

export function sourceRecord(fields: {
  sourcePartition: Record<string, unknown>;
  sourceOffset: Record<string, unknown>;
  topic: string;
  kafkaPartition?: number | null;
  keySchema?: Schema | null;
  key?: unknown;
  valueSchema?: Schema | null;
  value: unknown;
  timestamp?: number | null;
  headers?: readonly ConnectHeader[];
}): SourceRecord {
  // Field by field, not a spread over defaults: this runs once per record, and the spread was a visible
  // share of a source task's CPU. Every record gets the same fields in the same order (one object shape).
  return {
    topic: fields.topic,
    kafkaPartition: fields.kafkaPartition ?? null,
    keySchema: fields.keySchema ?? null,
    key: fields.key ?? null,
    valueSchema: fields.valueSchema ?? null,
    value: fields.value,
    timestamp: fields.timestamp ?? null,
    headers: fields.headers ?? NO_CONNECT_HEADERS,
    sourcePartition: fields.sourcePartition,
    sourceOffset: fields.sourceOffset,
  };
}
