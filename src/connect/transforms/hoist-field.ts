// HoistField$Key / HoistField$Value: wraps the key or value in a single-field Struct (or map).
import { SettingsDefinition } from "../../platform/settings.ts";
import { SchemaBuilder, Struct } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { operatingSchema, operatingValue, withOperating, type Side } from "./key-or-value.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapLike } from "./schemaless-map.ts";
import { parseSettings } from "./transform-settings.ts";

const DEFINITION = new SettingsDefinition([
  { name: "field", type: "string", required: true, importance: "medium", doc: "Field name for the single field that will be created in the resulting Struct or Map." },
]);

export class HoistField<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private fieldName = "";
  private readonly schemaCache = new SchemaCache();

  constructor(readonly side: Side = "value") {}

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    this.fieldName = parseSettings(DEFINITION, config).string("field");
  }

  apply(record: R): R {
    const schema = operatingSchema(record, this.side);
    const value = operatingValue(record, this.side);
    if (schema === null) return withOperating(record, this.side, null, mapLike(new Map([[this.fieldName, value]]), {}));
    const updatedSchema = this.schemaCache.getOrCompute(schema, (s) => SchemaBuilder.struct().field(this.fieldName, s).build());
    return withOperating(record, this.side, updatedSchema, new Struct(updatedSchema).put(this.fieldName, value));
  }
}
