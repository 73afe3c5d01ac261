// Headers and log descriptions of records, shared by the source and sink runtimes.
import type { RecordHeader } from "../../../broker/broker.ts";
import type { HeaderConverter } from "../../api/converter.ts";
import { javaToString } from "../../api/data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../../api/records.ts";

/**
 * A record's headers as bytes, through the task's header.converter: all of them, in order, a header
 * the converter turns into null kept with a null value (as Kafka Connect does).
 */
export function encodeHeaders(
  topic: string,
  headers: readonly ConnectHeader[],
  converter: HeaderConverter,
): RecordHeader[] | undefined {
  if (headers.length === 0) return undefined;
  return headers.map((h) => ({ key: h.key, value: converter.fromConnectHeader(topic, h.key, h.schema, h.value) }));
}

/** Header bytes as Connect headers, through the task's header.converter; a null value goes to it as null. */
export function decodeHeaders(
  topic: string,
  headers: readonly RecordHeader[],
  converter: HeaderConverter,
): ConnectHeader[] {
  return headers.map(({ key, value: bytes }) => {
    const { schema, value } = converter.toConnectHeader(topic, key, bytes);
    return { key, schema, value };
  });
}

export function describeRecord(record: ConnectRecord): string {
  return `record {topic='${record.topic}', partition=${record.kafkaPartition}, key=${javaToString(record.key, record.keySchema)}, value=${javaToString(record.value, record.valueSchema)}, timestamp=${record.timestamp}}`;
}
