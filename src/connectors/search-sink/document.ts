// A record value as the JSON document Confluent's DataConverter writes. With its schema (schema.ignore
// false) logical types become what a search index can sort on: a Decimal becomes a number (a double),
// Date/Time/Timestamp stay the integers the JSON converter writes (days since the epoch, milliseconds
// of the day, milliseconds since the epoch), and a map without string keys becomes an array of
// {"key":…,"value":…} documents. Without a schema, or with schema.ignore, the JSON converter's own
// schemaless output is used as it is.
import { JsonConverter, primitiveJson } from "../../connect/converters/json.ts";
import { jsonString } from "../../jvm/json-text.ts";
import {
  BigDecimal,
  DataException,
  isPlainObject,
  javaClassName,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  mapEntries,
  type Schema,
  Struct,
} from "../../connect/api/data/index.ts";

const plainJson = new JsonConverter();
plainJson.configure({ "schemas.enable": "false" });
const textDecoder = new TextDecoder();

export interface DocumentOptions {
  /** schema.ignore: write the value as the JSON converter does, schema and all. */
  ignoreSchema: boolean;
  /** compact.map.entries: string-keyed maps as objects. */
  compactMapEntries: boolean;
}

/** The JSON text of a non-null record value. Throws DataException when the value does not fit its schema. */
export function documentJson(topic: string, schema: Schema | null, value: unknown, options: DocumentOptions): string {
  if (schema === null || options.ignoreSchema) return converterJson(topic, schema, value);
  return toJson(schema, value, options.compactMapEntries);
}

function converterJson(topic: string, schema: Schema | null, value: unknown): string {
  const bytes = plainJson.fromConnectData(topic, schema, value);
  return bytes === null ? "null" : textDecoder.decode(bytes);
}

function toJson(schema: Schema, value: unknown, compact: boolean): string {
  if (value === null || value === undefined) {
    if (schema.defaultValue !== null) return toJson(schema, schema.defaultValue, compact);
    if (schema.optional) return "null";
    throw new DataException("null value for field that is required and has no default value");
  }
  switch (schema.name) {
    case Decimal.LOGICAL_NAME:
      if (!(value instanceof BigDecimal))
        throw new DataException(`Invalid type for Decimal, expected BigDecimal but was ${javaClassName(value)}`);
      return primitiveJson("FLOAT64", value.toNumber())!;
    case ConnectDate.LOGICAL_NAME:
      return String(ConnectDate.fromLogical(schema, asDate(value, "Date")));
    case Time.LOGICAL_NAME:
      return String(Time.fromLogical(schema, asDate(value, "Time")));
    case Timestamp.LOGICAL_NAME:
      return String(Timestamp.fromLogical(schema, asDate(value, "Timestamp")));
  }
  const invalid = () => new DataException(`Invalid type for ${schema.type}: ${javaClassName(value)}`);
  switch (schema.type) {
    case "ARRAY":
      if (!Array.isArray(value)) throw invalid();
      return `[${value.map((e: unknown) => toJson(schema.valueSchema!, e, compact)).join(",")}]`;
    case "MAP": {
      if (!(value instanceof Map) && !isPlainObject(value)) throw invalid();
      const keySchema = schema.keySchema!;
      const valueSchema = schema.valueSchema!;
      const entries = [...mapEntries(value)];
      if (compact && keySchema.type === "STRING") {
        // A JSON object keeps one value per key: the last, at the first key's place.
        const fields = new Map<string, string>();
        for (const [k, v] of entries) fields.set(String(k), toJson(valueSchema, v, compact));
        return `{${[...fields].map(([k, v]) => `${jsonString(k)}:${v}`).join(",")}}`;
      }
      return `[${entries.map(([k, v]) => `{"key":${toJson(keySchema, k, compact)},"value":${toJson(valueSchema, v, compact)}}`).join(",")}]`;
    }
    case "STRUCT":
      if (!(value instanceof Struct)) throw invalid();
      return `{${schema.fields.map((f) => `${jsonString(f.name)}:${toJson(f.schema, value.getWithoutDefault(f.name), compact)}`).join(",")}}`;
    default: {
      const json = primitiveJson(schema.type, value);
      if (json === undefined) throw invalid();
      return json;
    }
  }
}

function asDate(value: unknown, what: string): Date {
  if (!(value instanceof Date))
    throw new DataException(`Invalid type for ${what}, expected Date but was ${javaClassName(value)}`);
  return value;
}
