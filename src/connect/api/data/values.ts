// Values.inferSchema: a schema for a schemaless value, or null when none can be inferred (empty or
// mixed lists and maps, logical values, unknown objects). In schemaless data a JS number stands for a
// Java Double and a bigint for a Long (as JsonConverter reads them), so number → FLOAT64, bigint → INT64.
import { isPlainObject } from "./java-format.ts";
import { Schema, SchemaBuilder, type Type } from "./schema.ts";
import { Struct } from "./struct.ts";

export function inferSchema(value: unknown): Schema | null {
  switch (typeof value) {
    case "string":
      return Schema.STRING_SCHEMA;
    case "boolean":
      return Schema.BOOLEAN_SCHEMA;
    case "bigint":
      return Schema.INT64_SCHEMA;
    case "number":
      return Schema.FLOAT64_SCHEMA;
    case "object":
      if (value instanceof Uint8Array) return Schema.BYTES_SCHEMA;
      if (Array.isArray(value)) return inferListSchema(value);
      if (value instanceof Map) return inferMapSchema([...value]);
      if (isPlainObject(value)) return inferMapSchema(Object.entries(value));
      if (value instanceof Struct) return value.schema;
      return null;
    default:
      return null;
  }
}

function inferListSchema(list: readonly unknown[]): Schema | null {
  if (list.length === 0) return null;
  const detector = new SchemaDetector();
  for (const element of list) if (!detector.canDetect(element)) return null;
  return SchemaBuilder.array(detector.schema()).build();
}

function inferMapSchema(entries: readonly [unknown, unknown][]): Schema | null {
  if (entries.length === 0) return null;
  const keys = new SchemaDetector();
  const values = new SchemaDetector();
  for (const [k, v] of entries) if (!keys.canDetect(k) || !values.canDetect(v)) return null;
  return SchemaBuilder.map(keys.schema(), values.schema()).build();
}

/** One type for all non-null elements; nulls make it optional. Like Kafka, only the type is kept. */
class SchemaDetector {
  private knownType: Type | null = null;
  private optional = false;

  canDetect(value: unknown): boolean {
    if (value === null || value === undefined) {
      this.optional = true;
      return true;
    }
    const schema = inferSchema(value);
    if (schema === null) return false;
    if (this.knownType === null) this.knownType = schema.type;
    else if (this.knownType !== schema.type) return false;
    return true;
  }

  /** Kafka builds SchemaBuilder.type(knownType), so nested arrays/maps lose their element schemas. */
  schema(): Schema {
    // A null type (only nulls seen) fails in the builder, as in Kafka.
    const builder = new SchemaBuilder(this.knownType as Type);
    if (this.optional) builder.optional();
    return builder.build();
  }
}
