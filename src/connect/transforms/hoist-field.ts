// HoistField$Key / HoistField$Value: wraps the key or value in a single-field Struct (or map).
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { SchemaBuilder, Struct } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapLike } from "./schemaless-map.ts";

const DEFINITION = new SettingsDefinition([
  {
    name: "field",
    type: "string",
    required: true,
    importance: "medium",
    doc: "Field name for the single field that will be created in the resulting Struct or Map.",
  },
]);

export class HoistField<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private fieldName = "";
  private readonly schemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.fieldName = s.string("field");
  }

  apply(record: R): R {
    const schema = this.operatingSchema(record);
    const value = this.operatingValue(record);
    if (schema === null) return this.withOperating(record, null, mapLike(new Map([[this.fieldName, value]]), {}));
    const updatedSchema = this.schemaCache.getOrCompute(schema, (s) =>
      SchemaBuilder.struct().field(this.fieldName, s).build(),
    );
    return this.withOperating(record, updatedSchema, new Struct(updatedSchema).put(this.fieldName, value));
  }
}
