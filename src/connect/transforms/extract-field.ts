// ExtractField$Key / ExtractField$Value: replaces the key or value with one of its fields (a nested one
// with field.syntax.version=V2). Null passes through; without a schema the value must be a map.
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { DataException } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { FIELD_SYNTAX_VERSION, SingleFieldPath, type FieldSyntaxVersion } from "./field-path.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMapOrNull, requireStructOrNull } from "./requirements.ts";
import { REPLACE_NULL_WITH_DEFAULT } from "./transform-settings.ts";

const DEFINITION = new SettingsDefinition([
  { name: "field", type: "string", required: true, importance: "medium", doc: "Field name to extract." },
  REPLACE_NULL_WITH_DEFAULT,
  FIELD_SYNTAX_VERSION,
]);

const PURPOSE = "field extraction";

export class ExtractField<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private path = new SingleFieldPath("", "V1");

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.path = new SingleFieldPath(
      s.string("field"),
      s.string("field.syntax.version").toUpperCase() as FieldSyntaxVersion,
    );
  }

  apply(record: R): R {
    const schema = this.operatingSchema(record);
    const raw = this.operatingValue(record);
    if (schema === null) {
      const value = requireMapOrNull(raw, PURPOSE);
      return this.withOperating(record, null, value === null ? null : this.path.valueFromMap(value));
    }
    const value = requireStructOrNull(raw, PURPOSE);
    const field = this.path.fieldFrom(schema);
    // Kafka throws IllegalArgumentException here; the message is the same.
    if (field === null) throw new DataException(`Unknown field: ${this.path.text}`);
    return this.withOperating(
      record,
      field.schema,
      value === null ? null : this.path.valueFromStruct(value, this.replaceNullWithDefault),
    );
  }
}
