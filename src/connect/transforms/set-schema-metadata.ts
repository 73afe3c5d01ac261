// SetSchemaMetadata$Key / SetSchemaMetadata$Value: replaces the schema's name and/or version. A Struct
// value is rebuilt against the renamed schema (a Struct must carry the schema it is described by).
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { Struct, copySchema, type Schema } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireSchema } from "./requirements.ts";
import { structFromFields } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, configProblem } from "./transform-settings.ts";

const DEFINITION = new SettingsDefinition([
  { name: "schema.name", type: "string", importance: "high", doc: "Schema name to set." },
  { name: "schema.version", type: "int", importance: "high", doc: "Schema version to set." },
  REPLACE_NULL_WITH_DEFAULT,
]);

export class SetSchemaMetadata<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private schemaName: string | null = null;
  private schemaVersion: number | null = null;

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings, config: Record<string, string>): void {
    this.schemaName = s.optionalString("schema.name") ?? null;
    this.schemaVersion =
      config["schema.version"] !== undefined && config["schema.version"].trim() !== "" ? s.int("schema.version") : null;
    if (this.schemaName === null && this.schemaVersion === null)
      throw configProblem("schema.name", "Neither schema name nor version configured");
  }

  apply(record: R): R {
    const value = this.operatingValue(record);
    const schema = this.operatingSchema(record);
    if (value === null && schema === null) return record;
    const original = requireSchema(schema, "updating schema metadata");
    const updated = copySchema(original, {
      name: this.schemaName ?? original.name,
      version: this.schemaVersion ?? original.version,
    });
    return this.withOperating(record, updated, this.updateSchemaIn(value, updated));
  }

  private updateSchemaIn(value: unknown, schema: Schema): unknown {
    return value instanceof Struct ? structFromFields(schema, value, this.replaceNullWithDefault) : value;
  }
}
