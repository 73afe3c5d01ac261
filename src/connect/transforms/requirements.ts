// Kafka's transforms' Requirements: the shape a transform needs the key or value in (a schema, a
// Struct, a map, a sink record), with Kafka's messages when it is not.
import { DataException, Struct, type Schema, javaClassName } from "../api/data/index.ts";
import type { ConnectRecord, SinkRecord } from "../api/records.ts";
import { isMapValue, type SchemalessMap } from "./schemaless-map.ts";

/** The JVM class name Kafka prints with getClass().getName() (`java.lang.String`, `null`). */
export function className(value: unknown): string {
  return value === null || value === undefined ? "null" : javaClassName(value).replace(/^class /, "");
}

export function requireSchema(schema: Schema | null, purpose: string): Schema {
  if (schema === null) throw new DataException(`Schema required for [${purpose}]`);
  return schema;
}

export function requireMap(value: unknown, purpose: string): SchemalessMap {
  if (!isMapValue(value))
    throw new DataException(
      `Only Map objects supported in absence of schema for [${purpose}], found: ${className(value)}`,
    );
  return value;
}

export function requireMapOrNull(value: unknown, purpose: string): SchemalessMap | null {
  return value === null || value === undefined ? null : requireMap(value, purpose);
}

export function requireStruct(value: unknown, purpose: string): Struct {
  if (!(value instanceof Struct))
    throw new DataException(`Only Struct objects supported for [${purpose}], found: ${className(value)}`);
  return value;
}

export function requireStructOrNull(value: unknown, purpose: string): Struct | null {
  return value === null || value === undefined ? null : requireStruct(value, purpose);
}

function isSinkRecord(record: ConnectRecord): record is SinkRecord {
  return typeof (record as Partial<SinkRecord>).kafkaOffset === "number";
}

export function requireSinkRecord(record: ConnectRecord, purpose: string): SinkRecord {
  if (!isSinkRecord(record)) {
    const found =
      "sourcePartition" in record
        ? "org.apache.kafka.connect.source.SourceRecord"
        : "org.apache.kafka.connect.connector.ConnectRecord";
    throw new DataException(`Only SinkRecord supported for [${purpose}], found: ${found}`);
  }
  return record;
}
