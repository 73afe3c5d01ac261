// Which columns a record becomes (Confluent's FieldsMetadata): the primary key columns chosen by
// pk.mode/pk.fields, then the value fields (filtered by fields.whitelist), and each record's values for
// them. Messages follow Confluent's so users can search them.
import { isPrimitive, SchemaBuilder, Struct, type Schema } from "../../connect/api/data/index.ts";
import { ConnectException } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import type { SinkField } from "./dialects.ts";
import { KAFKA_PK_NAMES, type PkMode } from "./settings.ts";

export interface FieldsConfig {
  pkMode: PkMode;
  pkFields: readonly string[];
  fieldsWhitelist: readonly string[];
}

/** The columns of records with one key/value schema pair. */
export interface RecordLayout {
  readonly keyFields: readonly SinkField[];
  readonly nonKeyFields: readonly SinkField[];
}

const KAFKA_SCHEMAS = [SchemaBuilder.string().build(), SchemaBuilder.int32().build(), SchemaBuilder.int64().build()];

function pk(name: string, schema: Schema): SinkField {
  return { name, schema, isPrimaryKey: true };
}

function requirePrimitive(name: string, schema: Schema): void {
  if (!isPrimitive(schema.type))
    throw new ConnectException(
      `Unsupported source data type: ${schema.type} (field '${name}'); only primitive and logical types can be written to a column`,
    );
}

function structFields(
  schema: Schema,
  chosen: readonly string[],
  table: string,
  pkMode: PkMode,
  what: string,
): SinkField[] {
  if (chosen.length === 0) return schema.fields.map((f) => pk(f.name, f.schema));
  return chosen.map((name) => {
    const field = schema.field(name);
    if (field === null)
      throw new ConnectException(
        `PK mode for table '${table}' is ${pkMode.toUpperCase()} with configured PK fields ${chosen.join(",")}, but ${what} schema does not contain field: ${name}`,
      );
    return pk(name, field.schema);
  });
}

function keyFieldsOf(
  config: FieldsConfig,
  table: string,
  keySchema: Schema | null,
  valueSchema: Schema | null,
): SinkField[] {
  switch (config.pkMode) {
    case "none":
      return [];
    case "kafka": {
      const names = config.pkFields.length === 0 ? KAFKA_PK_NAMES : config.pkFields;
      return names.map((name, i) => pk(name, KAFKA_SCHEMAS[i]!));
    }
    case "record_key": {
      if (keySchema === null)
        throw new ConnectException(`PK mode for table '${table}' is RECORD_KEY, but record key schema is missing`);
      if (keySchema.type === "STRUCT")
        return structFields(keySchema, config.pkFields, table, config.pkMode, "record key");
      if (!isPrimitive(keySchema.type))
        throw new ConnectException(`Key schema must be primitive type or Struct, but is of type: ${keySchema.type}`);
      if (config.pkFields.length !== 1)
        throw new ConnectException(
          `Need exactly one PK column defined since the key schema for records is a primitive type, defined columns are: ${config.pkFields.join(",")}`,
        );
      return [pk(config.pkFields[0]!, keySchema)];
    }
    case "record_value":
      if (valueSchema === null)
        throw new ConnectException(`PK mode for table '${table}' is RECORD_VALUE, but record value schema is missing`);
      return structFields(valueSchema, config.pkFields, table, config.pkMode, "record value");
  }
}

/** The layout for a key/value schema pair; `valueSchema` null for tombstones (key columns only). */
export function recordLayout(
  config: FieldsConfig,
  table: string,
  keySchema: Schema | null,
  valueSchema: Schema | null,
): RecordLayout {
  if (valueSchema !== null && valueSchema.type !== "STRUCT")
    throw new ConnectException("Value schema must be of type Struct");
  const keyFields = keyFieldsOf(config, table, keySchema, valueSchema);
  const keyNames = new Set(keyFields.map((f) => f.name));
  const whitelist = new Set(config.fieldsWhitelist);
  const nonKeyFields = (valueSchema?.fields ?? [])
    .filter((f) => !keyNames.has(f.name) && (whitelist.size === 0 || whitelist.has(f.name)))
    .map((f): SinkField => ({ name: f.name, schema: f.schema, isPrimaryKey: false }));
  for (const f of [...keyFields, ...nonKeyFields]) requirePrimitive(f.name, f.schema);
  return { keyFields, nonKeyFields };
}

/** The record's values for the key columns, in layout order. */
export function keyValues(config: FieldsConfig, layout: RecordLayout, record: SinkRecord): unknown[] {
  switch (config.pkMode) {
    case "none":
      return [];
    case "kafka":
      return [record.topic, record.kafkaPartition, BigInt(record.kafkaOffset)];
    case "record_key":
      if (record.key === null || record.key === undefined)
        throw new ConnectException(
          `Record key is null at topic '${record.topic}' partition ${record.kafkaPartition} offset ${record.kafkaOffset}, but pk.mode is record_key`,
        );
      return record.key instanceof Struct
        ? layout.keyFields.map((f) => (record.key as Struct).get(f.name))
        : [record.key];
    case "record_value":
      return layout.keyFields.map((f) => (record.value as Struct).get(f.name));
  }
}

/** The record's values for the non-key columns, in layout order (defaults replace nulls, as Confluent). */
export function nonKeyValues(layout: RecordLayout, record: SinkRecord): unknown[] {
  const value = record.value as Struct;
  return layout.nonKeyFields.map((f) => value.get(f.name));
}
