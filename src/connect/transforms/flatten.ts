// Flatten$Key / Flatten$Value: nested Structs (or maps, without a schema) become top-level fields
// named by joining the path with `delimiter`. Arrays are kept as they are; a MAP field in a schema'd
// value is an error, as in Kafka. Nested fields turn optional when a parent is optional, and take
// their default from the parent's default struct when they have none of their own.
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { DataException, SchemaBuilder, Struct, type Schema, javaClassName } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireStructOrNull } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { isMapValue, mapLike, type SchemalessMap } from "./schemaless-map.ts";
import { copySchemaBasics } from "./struct-copy.ts";

const DEFINITION = new SettingsDefinition([
  {
    name: "delimiter",
    type: "string",
    default: ".",
    importance: "medium",
    doc: "Delimiter to insert between field names from the input record when generating field names for the output record",
  },
]);

const PURPOSE = "flattening";

export class Flatten<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private delimiter = ".";
  private readonly schemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    // Trimmed, as Kafka's ConfigDef trims string settings.
    this.delimiter = s.string("delimiter");
  }

  apply(record: R): R {
    const value = this.operatingValue(record);
    if (value === null) return record;
    return this.operatingSchema(record) === null
      ? this.applySchemaless(record, value)
      : this.applyWithSchema(record, value);
  }

  private name(prefix: string, field: string): string {
    return prefix === "" ? field : prefix + this.delimiter + field;
  }

  private applySchemaless(record: R, raw: unknown): R {
    const value = requireMap(raw, PURPOSE);
    const out = new Map<unknown, unknown>();
    this.flattenMap(value, "", out);
    return this.withOperating(record, null, mapLike(out, value));
  }

  private flattenMap(map: SchemalessMap, prefix: string, out: Map<unknown, unknown>): void {
    for (const [k, v] of map instanceof Map ? map : Object.entries(map)) {
      const name = this.name(prefix, String(k));
      if (v === null || v === undefined) {
        out.set(name, null);
        continue;
      }
      if (isMapValue(v)) {
        this.flattenMap(v, name, out);
        continue;
      }
      if (v instanceof Struct)
        throw new DataException(
          `Flatten transformation does not support ${javaClassName(v)} for record without schemas (for field ${name}).`,
        );
      const supported =
        typeof v === "string" ||
        typeof v === "number" ||
        typeof v === "bigint" ||
        typeof v === "boolean" ||
        v instanceof Uint8Array ||
        Array.isArray(v);
      if (!supported)
        throw new DataException(
          `Flatten transformation was passed a value of type ${javaClassName(v)} which is not supported by Connect's data API`,
        );
      out.set(name, v);
    }
  }

  private applyWithSchema(record: R, raw: unknown): R {
    const value = requireStructOrNull(raw, PURPOSE);
    const schema = this.operatingSchema(record) as Schema;
    const updatedSchema = this.schemaCache.getOrCompute(schema, (s) => {
      const builder = copySchemaBasics(s, SchemaBuilder.struct());
      this.buildSchema(s, "", builder, s.optional, s.defaultValue instanceof Struct ? s.defaultValue : null);
      return builder.build();
    });
    if (value === null) return this.withOperating(record, updatedSchema, null);
    const updated = new Struct(updatedSchema);
    this.buildValue(value, "", updated);
    return this.withOperating(record, updatedSchema, updated);
  }

  private buildSchema(
    schema: Schema,
    prefix: string,
    out: SchemaBuilder,
    optional: boolean,
    parentDefault: Struct | null,
  ): void {
    for (const f of schema.fields) {
      const name = this.name(prefix, f.name);
      const fieldOptional = optional || f.schema.optional;
      const fieldDefault =
        f.schema.defaultValue !== null ? f.schema.defaultValue : parentDefault !== null ? parentDefault.get(f) : null;
      switch (f.schema.type) {
        case "STRUCT":
          this.buildSchema(f.schema, name, out, fieldOptional, fieldDefault instanceof Struct ? fieldDefault : null);
          break;
        case "MAP":
          throw new DataException(
            `Flatten transformation does not support ${f.schema.type} for record with schemas (for field ${name}).`,
          );
        default: {
          const builder = copySchemaBasics(f.schema);
          if (fieldOptional) builder.optional();
          if (fieldDefault !== null) builder.defaultValue(fieldDefault);
          out.field(name, builder.build());
        }
      }
    }
  }

  private buildValue(struct: Struct | null, prefix: string, out: Struct): void {
    if (struct === null) return;
    for (const f of struct.schema.fields) {
      const name = this.name(prefix, f.name);
      if (f.schema.type === "STRUCT") this.buildValue(struct.getStruct(f.name), name, out);
      else out.put(name, struct.get(f));
    }
  }
}
