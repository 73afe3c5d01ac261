// Record builders for transform tests.
import type { Schema } from "#src/connect/api/data/index.ts";
import type { ConnectHeader, SinkRecord, SourceRecord } from "#src/connect/api/records.ts";
import { sourceRecord } from "#src/connect/api/records.ts";
import type { Predicate, Transformation } from "#src/connect/api/transformation.ts";

export interface RecordParts {
  topic?: string;
  kafkaPartition?: number | null;
  keySchema?: Schema | null;
  key?: unknown;
  valueSchema?: Schema | null;
  value?: unknown;
  timestamp?: number | null;
  headers?: ConnectHeader[];
}

export function source(parts: RecordParts = {}): SourceRecord {
  return sourceRecord({ sourcePartition: { p: 1 }, sourceOffset: { o: 1 }, topic: "test", value: null, ...parts });
}

export function sink(parts: RecordParts & { kafkaOffset?: number } = {}): SinkRecord {
  const topic = parts.topic ?? "test";
  const partition = parts.kafkaPartition ?? 0;
  const offset = parts.kafkaOffset ?? 42;
  return {
    topic,
    kafkaPartition: partition,
    keySchema: parts.keySchema ?? null,
    key: parts.key ?? null,
    valueSchema: parts.valueSchema ?? null,
    value: parts.value ?? null,
    timestamp: parts.timestamp ?? null,
    headers: parts.headers ?? [],
    kafkaOffset: offset,
    timestampType: "CreateTime",
    originalTopic: topic,
    originalKafkaPartition: partition,
    originalKafkaOffset: offset,
  };
}

export function configured<T extends Transformation | Predicate>(plugin: T, config: Record<string, string>): T {
  plugin.configure(config);
  return plugin;
}
