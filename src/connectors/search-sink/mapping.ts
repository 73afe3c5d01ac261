// The explicit index mapping Confluent's sink derives from a record's value schema (its Mapping class),
// put on an index before the first write unless schema.ignore is set:
//   INT8 byte · INT16 short · INT32 integer · INT64 long · FLOAT32 float · FLOAT64 double · BOOLEAN boolean
//   STRING text, with a `keyword` sub-field (ignore_above 256) for sorting and aggregations
//   BYTES binary · Decimal double · Date, Time, Timestamp date
//   STRUCT {"properties": one entry per field}
//   ARRAY  the element's mapping (a search field holds any number of values)
//   MAP    {"properties": {"key": key mapping, "value": value mapping}}, whatever compact.map.entries says
// A schema default becomes the field's null_value (what a null is indexed as), except for text and binary
// fields, which have none: dates as epoch milliseconds, a Decimal as a double. Logical types are known by
// schema name first; any other name (e.g. Debezium's) is mapped by its type.
import { jsonString } from "../../jvm/json-text.ts";
import {
  BigDecimal,
  DataException,
  javaDoubleToString,
  javaFloatToString,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  type Schema,
  type Type,
} from "../../connect/api/data/index.ts";

/** A null_value: numbers that JSON cannot hold (NaN, ±Infinity) as text, INT64 beyond 2^53 as a bigint. */
export type NullValue = number | bigint | boolean | string;

/** One node of a mapping: a field with a type, or an object with properties. */
export interface MappingNode {
  type?: string;
  fields?: Record<string, MappingNode>;
  ignore_above?: number;
  null_value?: NullValue;
  properties?: Record<string, MappingNode>;
}

const SEARCH_TYPES: Record<Exclude<Type, "ARRAY" | "MAP" | "STRUCT">, string> = {
  INT8: "byte",
  INT16: "short",
  INT32: "integer",
  INT64: "long",
  FLOAT32: "float",
  FLOAT64: "double",
  BOOLEAN: "boolean",
  STRING: "text",
  BYTES: "binary",
};

const DATE_NAMES = new Set<string>([ConnectDate.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME]);

/** The mapping of a value schema: the body of PUT /<index>/_mapping when the schema is a struct. */
export function schemaMapping(schema: Schema): MappingNode {
  if (schema.name !== null && DATE_NAMES.has(schema.name)) {
    return field("date", schema.defaultValue === null ? null : dateMillis(schema.defaultValue));
  }
  if (schema.name === Decimal.LOGICAL_NAME) {
    return field("double", schema.defaultValue === null ? null : doubleValue(decimalNumber(schema.defaultValue)));
  }
  switch (schema.type) {
    case "ARRAY":
      return schemaMapping(schema.valueSchema!);
    case "MAP":
      return { properties: { key: schemaMapping(schema.keySchema!), value: schemaMapping(schema.valueSchema!) } };
    case "STRUCT":
      // fromEntries defines own properties, so even a field named __proto__ stays a field.
      return { properties: Object.fromEntries(schema.fields.map((f) => [f.name, schemaMapping(f.schema)])) };
    default:
      return field(
        SEARCH_TYPES[schema.type],
        schema.defaultValue === null ? null : primitiveDefault(schema.type, schema.defaultValue),
      );
  }
}

/** The mapping as JSON text (an INT64 null_value keeps all its digits). */
export function mappingJson(node: MappingNode): string {
  return jsonText(node);
}

function field(type: string, nullValue: NullValue | null): MappingNode {
  const node: MappingNode = { type };
  if (type === "text") node.fields = { keyword: { type: "keyword", ignore_above: 256 } };
  // Text and binary fields take no null_value.
  if (nullValue !== null && type !== "text" && type !== "binary") node.null_value = nullValue;
  return node;
}

function primitiveDefault(type: Type, value: unknown): NullValue | null {
  switch (type) {
    case "INT8":
    case "INT16":
    case "INT32":
    case "INT64":
      return typeof value === "bigint" ? (Number.isSafeInteger(Number(value)) ? Number(value) : value) : Number(value);
    case "FLOAT32": {
      // The float's shortest decimal form (1.1, not 1.100000023841858), as Java writes a float.
      const text = javaFloatToString(Number(value));
      return Number.isFinite(Number(value)) ? Number(text) : text;
    }
    case "FLOAT64":
      return doubleValue(Number(value));
    case "BOOLEAN":
      return Boolean(value);
    default:
      return null;
  }
}

function doubleValue(value: number): NullValue {
  return Number.isFinite(value) ? value : javaDoubleToString(value);
}

function dateMillis(value: unknown): number {
  if (!(value instanceof Date)) throw new DataException(`Invalid default for a date field: ${String(value)}`);
  return value.getTime();
}

function decimalNumber(value: unknown): number {
  if (!(value instanceof BigDecimal)) throw new DataException(`Invalid default for a Decimal field: ${String(value)}`);
  return value.toNumber();
}

function jsonText(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return jsonString(value);
  if (typeof value === "object" && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${jsonString(k)}:${jsonText(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
