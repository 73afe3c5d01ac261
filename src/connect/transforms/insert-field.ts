// InsertField$Key / InsertField$Value: adds record metadata (topic, partition, offset, timestamp) and/or
// a static string to a Struct or a schemaless map. A field name ending in `!` makes the added field
// required, `?` (or nothing) optional; this only matters for the derived schema.
import { SettingsDefinition, type ParsedSettings, type Setting } from "../../platform/settings.ts";
import { Schema, SchemaBuilder, Struct, Timestamp } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireSinkRecord, requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapCopy, mapLike } from "./schemaless-map.ts";
import { copyFields, copySchemaBasics } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, configProblem, invalidConfig } from "./transform-settings.ts";

const OPTIONALITY = "Suffix with `!` to make this a required field, or `?` to keep it optional (the default).";
const field = (name: string, doc: string): Setting => ({ name, type: "string", importance: "medium", doc });

const DEFINITION = new SettingsDefinition([
  field("topic.field", `Field name for Kafka topic. ${OPTIONALITY}`),
  field("partition.field", `Field name for Kafka partition. ${OPTIONALITY}`),
  field("offset.field", `Field name for Kafka offset - only applicable to sink connectors. ${OPTIONALITY}`),
  field("timestamp.field", `Field name for record timestamp. ${OPTIONALITY}`),
  field("static.field", `Field name for static data field. ${OPTIONALITY}`),
  { name: "static.value", type: "string", importance: "medium", doc: "Static field value, if field name configured." },
  REPLACE_NULL_WITH_DEFAULT,
]);

const PURPOSE = "field insertion";
const OPTIONAL_TIMESTAMP_SCHEMA = Timestamp.builder().optional().build();

interface InsertionSpec {
  readonly name: string;
  readonly optional: boolean;
}

function parseSpec(spec: string | undefined): InsertionSpec | null {
  if (spec === undefined) return null;
  if (spec.endsWith("?")) return { name: spec.slice(0, -1), optional: true };
  if (spec.endsWith("!")) return { name: spec.slice(0, -1), optional: false };
  return { name: spec, optional: true };
}

export class InsertField<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private topicField: InsertionSpec | null = null;
  private partitionField: InsertionSpec | null = null;
  private offsetField: InsertionSpec | null = null;
  private timestampField: InsertionSpec | null = null;
  private staticField: InsertionSpec | null = null;
  private staticValue: string | null = null;
  private readonly schemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings, config: Record<string, string>): void {
    this.topicField = parseSpec(s.optionalString("topic.field"));
    this.partitionField = parseSpec(s.optionalString("partition.field"));
    this.offsetField = parseSpec(s.optionalString("offset.field"));
    this.timestampField = parseSpec(s.optionalString("timestamp.field"));
    this.staticField = parseSpec(s.optionalString("static.field"));
    // An explicitly empty static value is a value (Kafka only rejects a missing one).
    this.staticValue = config["static.value"] !== undefined ? s.string("static.value") : null;
    if (!this.topicField && !this.partitionField && !this.offsetField && !this.timestampField && !this.staticField)
      throw configProblem("", "No field insertion configured");
    if (this.staticField !== null && this.staticValue === null)
      throw invalidConfig("static.value", null, `No value specified for static field: ${this.staticField.name}`);
  }

  apply(record: R): R {
    const value = this.operatingValue(record);
    if (value === null) return record;
    const schema = this.operatingSchema(record);
    return schema === null ? this.applySchemaless(record, value) : this.applyWithSchema(record, value);
  }

  private applySchemaless(record: R, raw: unknown): R {
    const value = requireMap(raw, PURPOSE);
    const updated = mapCopy(value);
    if (this.topicField) updated.set(this.topicField.name, record.topic);
    if (this.partitionField && record.kafkaPartition !== null)
      updated.set(this.partitionField.name, record.kafkaPartition);
    if (this.offsetField) updated.set(this.offsetField.name, requireSinkRecord(record, PURPOSE).kafkaOffset);
    if (this.timestampField && record.timestamp !== null) updated.set(this.timestampField.name, record.timestamp);
    if (this.staticField && this.staticValue !== null) updated.set(this.staticField.name, this.staticValue);
    return this.withOperating(record, null, mapLike(updated, value));
  }

  private applyWithSchema(record: R, raw: unknown): R {
    const value = requireStruct(raw, PURPOSE);
    const schema = this.schemaCache.getOrCompute(value.schema, (s) => this.updatedSchema(s));
    const updated = copyFields(value, new Struct(schema), this.replaceNullWithDefault);
    if (this.topicField) updated.put(this.topicField.name, record.topic);
    if (this.partitionField && record.kafkaPartition !== null)
      updated.put(this.partitionField.name, record.kafkaPartition);
    if (this.offsetField) updated.put(this.offsetField.name, requireSinkRecord(record, PURPOSE).kafkaOffset);
    if (this.timestampField && record.timestamp !== null)
      updated.put(this.timestampField.name, new Date(record.timestamp));
    if (this.staticField && this.staticValue !== null) updated.put(this.staticField.name, this.staticValue);
    return this.withOperating(record, schema, updated);
  }

  private updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const f of schema.fields) builder.field(f.name, f.schema);
    const add = (spec: InsertionSpec | null, optional: Schema, required: Schema) => {
      if (spec) builder.field(spec.name, spec.optional ? optional : required);
    };
    add(this.topicField, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA);
    add(this.partitionField, Schema.OPTIONAL_INT32_SCHEMA, Schema.INT32_SCHEMA);
    add(this.offsetField, Schema.OPTIONAL_INT64_SCHEMA, Schema.INT64_SCHEMA);
    add(this.timestampField, OPTIONAL_TIMESTAMP_SCHEMA, Timestamp.SCHEMA);
    add(this.staticField, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA);
    return builder.build();
  }
}
