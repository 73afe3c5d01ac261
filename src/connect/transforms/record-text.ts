// How Kafka's ConnectRecord.toString() reads, for error messages that embed a record.
import { javaToString } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";

export function recordToString(record: ConnectRecord): string {
  const headers = record.headers
    .map((h) => `ConnectHeader(key=${h.key}, value=${javaToString(h.value, h.schema)}, schema=${h.schema ?? "null"})`)
    .join(", ");
  const body =
    `ConnectRecord{topic='${record.topic}', kafkaPartition=${record.kafkaPartition ?? "null"}, ` +
    `key=${javaToString(record.key, record.keySchema)}, keySchema=${record.keySchema ?? "null"}, ` +
    `value=${javaToString(record.value, record.valueSchema)}, valueSchema=${record.valueSchema ?? "null"}, ` +
    `timestamp=${record.timestamp ?? "null"}, headers=ConnectHeaders(headers=${headers})}`;
  if ("sourcePartition" in record) {
    const r = record as ConnectRecord & { sourcePartition: unknown; sourceOffset: unknown };
    return `SourceRecord{sourcePartition=${javaToString(r.sourcePartition)}, sourceOffset=${javaToString(r.sourceOffset)}} ${body}`;
  }
  if ("kafkaOffset" in record) {
    const r = record as ConnectRecord & {
      kafkaOffset: number;
      timestampType: string;
      originalTopic: string;
      originalKafkaPartition: number;
      originalKafkaOffset: number;
    };
    return `SinkRecord{kafkaOffset=${r.kafkaOffset}, timestampType=${r.timestampType}, originalTopic=${r.originalTopic}, originalKafkaPartition=${r.originalKafkaPartition}, originalKafkaOffset=${r.originalKafkaOffset}} ${body}`;
  }
  return body;
}
