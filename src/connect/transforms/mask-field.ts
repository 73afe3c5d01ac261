// MaskField$Key / MaskField$Value: replaces the listed fields with the "empty" value of their type
// (0, false, "", epoch, empty list/map), or with `replacement` converted to the field's numeric or
// string type. Without a schema the JS value decides: an integer number is treated as Java's
// Integer/Long, any other number as Double (a schemaless 1.0 is indistinguishable from 1).
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { BigDecimal, DataException, Decimal, Struct, type Schema, javaClassName } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireStruct } from "./requirements.ts";
import { mapCopy, mapGet, mapLike } from "./schemaless-map.ts";
import { copyFields } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, nonEmptyList, nonEmptyString } from "./transform-settings.ts";
import { connectTypeOf } from "./value-type.ts";
import { parseBigDecimal, stringAsDouble, stringAsLong } from "./values.ts";

const DEFINITION = new SettingsDefinition([
  {
    name: "fields",
    type: "list",
    required: true,
    importance: "high",
    doc: "Names of fields to mask.",
    validate: nonEmptyList,
  },
  {
    name: "replacement",
    type: "string",
    importance: "low",
    doc: "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string values only).",
    validate: nonEmptyString,
  },
  REPLACE_NULL_WITH_DEFAULT,
]);

const PURPOSE = "mask fields";

/** The Java class a value stands for, which is what Kafka's masking tables are keyed by. */
type JavaKind =
  | "Boolean"
  | "Byte"
  | "Short"
  | "Integer"
  | "Long"
  | "Float"
  | "Double"
  | "BigDecimal"
  | "Date"
  | "String"
  | "List"
  | "Map"
  | "other";

function kindOf(value: unknown, schema: Schema | null): JavaKind {
  if (schema === null ? value instanceof BigDecimal : schema.name === Decimal.LOGICAL_NAME) return "BigDecimal";
  if (value instanceof Date) return "Date";
  switch (schema === null ? connectTypeOf(value) : schema.type) {
    case "BOOLEAN":
      return "Boolean";
    case "INT8":
      return "Byte";
    case "INT16":
      return "Short";
    case "INT32":
      return "Integer";
    case "INT64":
      return "Long";
    case "FLOAT32":
      return "Float";
    case "FLOAT64":
      return "Double";
    case "STRING":
      return "String";
    case "ARRAY":
      return "List";
    case "MAP":
      return "Map";
    default:
      return "other";
  }
}

export class MaskField<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private maskedFields: ReadonlySet<string> = new Set();
  private replacement: string | null = null;

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.maskedFields = new Set(s.list("fields"));
    this.replacement = s.optionalString("replacement") ?? null;
  }

  apply(record: R): R {
    // Kafka does not let null values through here: a tombstone fails requireMap.
    return this.operatingSchema(record) === null ? this.applySchemaless(record) : this.applyWithSchema(record);
  }

  private applySchemaless(record: R): R {
    const value = requireMap(this.operatingValue(record), PURPOSE);
    const updated = mapCopy(value);
    // As in Kafka, a listed field that is absent is added with a null value.
    for (const name of this.maskedFields) updated.set(name, this.masked(mapGet(value, name), null));
    return this.withOperating(record, null, mapLike(updated, value));
  }

  private applyWithSchema(record: R): R {
    const value = requireStruct(this.operatingValue(record), PURPOSE);
    const updated = copyFields(value, new Struct(value.schema), this.replaceNullWithDefault, (f, original) =>
      this.maskedFields.has(f.name) ? this.masked(original, f.schema) : original,
    );
    return this.withOperating(record, this.operatingSchema(record), updated);
  }

  private masked(value: unknown, schema: Schema | null): unknown {
    if (value === null || value === undefined) return null;
    const kind = kindOf(value, schema);
    return this.replacement === null ? emptyValue(value, kind) : replacementValue(value, kind, this.replacement);
  }
}

function emptyValue(value: unknown, kind: JavaKind): unknown {
  switch (kind) {
    case "Boolean":
      return false;
    case "Byte":
    case "Short":
    case "Integer":
    case "Float":
    case "Double":
      return 0;
    case "Long":
      return typeof value === "bigint" ? 0n : 0;
    case "BigDecimal":
      return new BigDecimal(0n, 0);
    case "Date":
      return new Date(0);
    case "String":
      return "";
    case "List":
      return [];
    case "Map":
      return value instanceof Map ? new Map() : {};
    default:
      throw new DataException(`Cannot mask value of type: ${javaClassName(value)}`);
  }
}

function replacementValue(value: unknown, kind: JavaKind, replacement: string): unknown {
  switch (kind) {
    case "Byte":
      return Number(BigInt.asIntN(8, stringAsLong(replacement)));
    case "Short":
      return Number(BigInt.asIntN(16, stringAsLong(replacement)));
    case "Integer":
      return Number(BigInt.asIntN(32, stringAsLong(replacement)));
    case "Long": {
      const n = stringAsLong(replacement);
      return typeof value === "bigint" || !Number.isSafeInteger(Number(n)) ? n : Number(n);
    }
    case "Float":
      return Math.fround(stringAsDouble(replacement));
    case "Double":
      return stringAsDouble(replacement);
    case "String":
      return replacement;
    case "BigDecimal": {
      const d = parseBigDecimal(replacement);
      if (d === null) throw new DataException(`Unable to convert ${replacement} (class java.lang.String) to number`);
      return d;
    }
    default:
      throw new DataException(`Cannot mask value of type ${javaClassName(value)} with custom replacement.`);
  }
}
