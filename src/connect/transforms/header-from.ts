// HeaderFrom$Key / HeaderFrom$Value: copies (or moves) fields of the key/value into headers; `fields`
// and `headers` are parallel lists. A moved field is removed from the Struct's schema or the map.
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { DataException, SchemaBuilder, type Schema } from "../api/data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapCopy, mapGet, mapLike } from "./schemaless-map.ts";
import { copySchemaBasics, fieldValue, structFromFields } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, configProblem, nonEmptyList } from "./transform-settings.ts";

const DEFINITION = new SettingsDefinition([
  {
    name: "fields",
    type: "list",
    required: true,
    importance: "high",
    doc: "Field names in the record whose values are to be copied or moved to headers.",
    validate: nonEmptyList,
  },
  {
    name: "headers",
    type: "list",
    required: true,
    importance: "high",
    doc: "Header names, in the same order as the field names listed in the fields configuration property.",
    validate: nonEmptyList,
  },
  {
    name: "operation",
    type: "string",
    required: true,
    oneOf: ["move", "copy"],
    importance: "high",
    doc: "Either `move` if the fields are to be moved to the headers (removed from the key/value), or `copy` if the fields are to be copied to the headers (retained in the key/value).",
  },
  REPLACE_NULL_WITH_DEFAULT,
]);

export class HeaderFrom<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private fields: readonly string[] = [];
  private headers: readonly string[] = [];
  private operation: "move" | "copy" = "copy";
  private readonly moveSchemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.fields = s.list("fields");
    this.headers = s.list("headers");
    if (this.fields.length !== this.headers.length)
      throw configProblem("headers", "'fields' config must have the same number of elements as 'headers' config.");
    this.operation = s.string("operation") as "move" | "copy";
  }

  apply(record: R): R {
    const schema = this.operatingSchema(record);
    const value = this.operatingValue(record);
    return schema === null ? this.applySchemaless(record, value) : this.applyWithSchema(record, value, schema);
  }

  private applyWithSchema(record: R, raw: unknown, schema: Schema): R {
    const value = requireStruct(raw, `header ${this.operation}`);
    let updatedSchema = schema;
    let updatedValue = value;
    if (this.operation === "move") {
      updatedSchema = this.moveSchemaCache.getOrCompute(schema, (s) => this.moveSchema(s));
      updatedValue = structFromFields(updatedSchema, value, this.replaceNullWithDefault, (f) => f.name);
    }
    const headers: ConnectHeader[] = [...record.headers];
    this.fields.forEach((name, i) => {
      const field = schema.field(name);
      // Kafka fails with a NullPointerException for a field the schema lacks.
      if (field === null) throw new DataException(`${name} is not a valid field name`);
      headers.push({
        key: this.headers[i],
        schema: field.schema,
        value: value.schema.field(name) !== null ? fieldValue(value, name, this.replaceNullWithDefault) : null,
      });
    });
    return this.withOperating(record, updatedSchema, updatedValue, headers);
  }

  private moveSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const f of schema.fields) if (!this.fields.includes(f.name)) builder.field(f.name, f.schema);
    return builder.build();
  }

  private applySchemaless(record: R, raw: unknown): R {
    const value = requireMap(raw, `header ${this.operation}`);
    const updated = mapCopy(value);
    const headers: ConnectHeader[] = [...record.headers];
    this.fields.forEach((name, i) => {
      if (this.operation === "move") updated.delete(name);
      headers.push({ key: this.headers[i], schema: null, value: mapGet(value, name) });
    });
    return this.withOperating(record, null, mapLike(updated, value), headers);
  }
}
