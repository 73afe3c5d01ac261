// Headers and log descriptions of records, shared by the source and sink runtimes.
import { decoder, encoder, type Bytes } from "../../broker/broker.ts";
import { Schema, javaToString } from "../data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../plugins/records.ts";

/**
 * Header values as Kafka's SimpleHeaderConverter writes them: bytes as they are, everything else as its
 * string form (UTF-8).
 */
export function encodeHeaders(headers: readonly ConnectHeader[]): Record<string, Bytes> | undefined {
  if (headers.length === 0) return undefined;
  const out: Record<string, Bytes> = {};
  for (const h of headers) {
    if (h.value === null || h.value === undefined) continue;
    out[h.key] = h.value instanceof Uint8Array ? h.value : encoder.encode(typeof h.value === "string" ? h.value : javaToString(h.value, h.schema));
  }
  return out;
}

/** Header bytes read back as strings (SimpleHeaderConverter's reading of plain text). */
export function decodeHeaders(headers: Record<string, Bytes>): ConnectHeader[] {
  return Object.entries(headers).map(([key, value]) => ({ key, schema: Schema.OPTIONAL_STRING_SCHEMA, value: decoder.decode(value) }));
}

export function describeRecord(record: ConnectRecord): string {
  return `record {topic='${record.topic}', partition=${record.kafkaPartition}, key=${javaToString(record.key, record.keySchema)}, value=${javaToString(record.value, record.valueSchema)}, timestamp=${record.timestamp}}`;
}
