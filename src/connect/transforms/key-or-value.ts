// The half of a record a $Key/$Value transform works on (Kafka's `$Key` / `$Value` inner classes).
import type { Schema } from "../api/data/index.ts";
import { newRecord, type ConnectHeader, type ConnectRecord } from "../api/records.ts";

/** Which part of the record a transform operates on (Kafka's `$Key` / `$Value` inner classes). */
export type Side = "key" | "value";

export function operatingSchema(record: ConnectRecord, side: Side): Schema | null {
  return side === "key" ? record.keySchema : record.valueSchema;
}

export function operatingValue(record: ConnectRecord, side: Side): unknown {
  return (side === "key" ? record.key : record.value) ?? null;
}

/** A copy of `record` whose key or value (and its schema) is replaced; everything else is kept. */
export function withOperating<R extends ConnectRecord>(record: R, side: Side, schema: Schema | null, value: unknown, headers?: readonly ConnectHeader[]): R {
  const changes: Partial<ConnectRecord> = side === "key" ? { keySchema: schema, key: value } : { valueSchema: schema, value };
  return newRecord(record, headers === undefined ? changes : { ...changes, headers });
}
