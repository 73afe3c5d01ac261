// Headers and log descriptions of records, shared by the source and sink runtimes.
import { decoder, encoder, type Bytes } from "../../broker/broker.ts";
import { Schema, javaToString, valuesToString } from "../data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../plugins/records.ts";

/**
 * Header values as Kafka's SimpleHeaderConverter writes them: the UTF-8 of Values.convertToString (a
 * struct as `{"id":10}`, bytes in base64, ...).
 */
export function encodeHeaders(headers: readonly ConnectHeader[]): Record<string, Bytes> | undefined {
  if (headers.length === 0) return undefined;
  const out: Record<string, Bytes> = {};
  for (const h of headers) {
    if (h.value === null || h.value === undefined) continue;
    out[h.key] = encoder.encode(valuesToString(h.value, h.schema));
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
