// ValueToKey: the new key is a Struct (or map, without a schema) of the listed value fields.
import { SettingsDefinition } from "../../platform/settings.ts";
import { DataException, SchemaBuilder, Struct, type Schema } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { requireMap, requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapGet, mapLike } from "./schemaless-map.ts";
import { fieldValue } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, nonEmptyList, parseSettings } from "./transform-settings.ts";

const DEFINITION = new SettingsDefinition([
  {
    name: "fields",
    type: "list",
    required: true,
    importance: "high",
    doc: "Field names on the record value to extract as the record key.",
    validate: nonEmptyList,
  },
  REPLACE_NULL_WITH_DEFAULT,
]);

const PURPOSE = "copying fields from value to key";

export class ValueToKey<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private fields: readonly string[] = [];
  private replaceNullWithDefault = true;
  private readonly schemaCache = new SchemaCache();

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(DEFINITION, config);
    this.fields = s.list("fields");
    this.replaceNullWithDefault = s.boolean("replace.null.with.default");
  }

  apply(record: R): R {
    if (record.valueSchema === null) {
      const value = requireMap(record.value ?? null, PURPOSE);
      const key = new Map<unknown, unknown>(this.fields.map((f) => [f, mapGet(value, f)]));
      return newRecord(record, { keySchema: null, key: mapLike(key, {}) });
    }
    const value = requireStruct(record.value, PURPOSE);
    const keySchema = this.schemaCache.getOrCompute(value.schema, (s) => this.keySchema(s));
    const key = new Struct(keySchema);
    for (const f of this.fields) key.put(f, fieldValue(value, f, this.replaceNullWithDefault));
    return newRecord(record, { keySchema, key, valueSchema: value.schema, value });
  }

  private keySchema(valueSchema: Schema): Schema {
    const builder = SchemaBuilder.struct();
    for (const name of this.fields) {
      const f = valueSchema.field(name);
      if (f === null) throw new DataException(`Field does not exist: ${name}`);
      builder.field(name, f.schema);
    }
    return builder.build();
  }
}
