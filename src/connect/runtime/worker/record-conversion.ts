// Headers and log descriptions of records, shared by the source and sink runtimes.
import type { Bytes } from "../../../broker/broker.ts";
import type { HeaderConverter } from "../../api/converter.ts";
import { javaToString } from "../../api/data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../../api/records.ts";

/**
 * A record's headers as bytes, through the task's header.converter. A header the converter turns
 * into null is left out: the broker keeps no null header values.
 */
export function encodeHeaders(
  topic: string,
  headers: readonly ConnectHeader[],
  converter: HeaderConverter,
): Record<string, Bytes> | undefined {
  if (headers.length === 0) return undefined;
  const out: Record<string, Bytes> = {};
  for (const h of headers) {
    const bytes = converter.fromConnectHeader(topic, h.key, h.schema, h.value);
    if (bytes !== null) out[h.key] = bytes;
  }
  return out;
}

/** Header bytes as Connect headers, through the task's header.converter. */
export function decodeHeaders(
  topic: string,
  headers: Record<string, Bytes>,
  converter: HeaderConverter,
): ConnectHeader[] {
  return Object.entries(headers).map(([key, bytes]) => {
    const { schema, value } = converter.toConnectHeader(topic, key, bytes);
    return { key, schema, value };
  });
}

export function describeRecord(record: ConnectRecord): string {
  return `record {topic='${record.topic}', partition=${record.kafkaPartition}, key=${javaToString(record.key, record.keySchema)}, value=${javaToString(record.value, record.valueSchema)}, timestamp=${record.timestamp}}`;
}
