// How the JVM prints Connect values: Double.toString / Float.toString (what Jackson writes for float
// and double JSON numbers), toString() of values (StringConverter, Struct.toString) and the Java class
// names that Kafka's error messages mention. Matching these keeps our bytes and messages Kafka's.
import { javaDoubleToString, javaFloatToString } from "../../../jvm/java-numbers.ts";
import { BigDecimal } from "../../../jvm/big-decimal.ts";
import type { Schema } from "./schema.ts";
import { isStruct } from "./struct-brand.ts";

export { javaDoubleToString, javaFloatToString };

/** The Java class Kafka would name for an equivalent JVM value, as in "Invalid Java object ...: class java.lang.String". */
export function javaClassName(value: unknown): string {
  switch (typeof value) {
    case "string":
      return "class java.lang.String";
    case "boolean":
      return "class java.lang.Boolean";
    case "number":
      if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) return "class java.lang.Integer";
      return Number.isSafeInteger(value) ? "class java.lang.Long" : "class java.lang.Double";
    case "bigint":
      return BigInt.asIntN(64, value) === value ? "class java.lang.Long" : "class java.math.BigInteger";
    case "undefined":
      return "null";
    case "object":
      if (value === null) return "null";
      if (value instanceof Uint8Array) return "class [B";
      if (Array.isArray(value)) return "class java.util.ArrayList";
      if (value instanceof Map || isPlainObject(value)) return "class java.util.HashMap";
      if (isStruct(value)) return "class org.apache.kafka.connect.data.Struct";
      if (value instanceof BigDecimal) return "class java.math.BigDecimal";
      if (value instanceof Date) return "class java.util.Date";
      return `class ${value.constructor?.name ?? "Object"}`;
    default:
      return `class ${typeof value}`;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Java's toString() of a Connect value. The schema, when known, tells float32/float64 numbers apart
 * from integers (Java prints 5.0 for a Double 5); without one an integral number prints as an integer.
 * Byte arrays print as Arrays.toString would.
 */
export function javaToString(value: unknown, schema?: Schema | null): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      if (schema?.type === "FLOAT32") return javaFloatToString(value);
      if (schema?.type === "FLOAT64" || !Number.isSafeInteger(value)) return javaDoubleToString(value);
      return String(value);
    case "object": {
      if (value instanceof Uint8Array) return "[" + Array.from(value, (b) => (b << 24) >> 24).join(", ") + "]";
      if (Array.isArray(value)) {
        const element = schema?.type === "ARRAY" ? schema.valueSchema : null;
        return "[" + value.map((v) => javaToString(v, element)).join(", ") + "]";
      }
      if (value instanceof Map || isPlainObject(value)) {
        const keySchema = schema?.type === "MAP" ? schema.keySchema : null;
        const valueSchema = schema?.type === "MAP" ? schema.valueSchema : null;
        const entries = value instanceof Map ? [...value] : Object.entries(value);
        return (
          "{" +
          entries.map(([k, v]) => `${javaToString(k, keySchema)}=${javaToString(v, valueSchema)}`).join(", ") +
          "}"
        );
      }
      if (value instanceof Date) return javaDateToString(value);
      return String(value);
    }
    default:
      return String(value);
  }
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** java.util.Date.toString() of a JVM running in UTC: `Thu Jan 01 00:00:00 UTC 1970`. */
function javaDateToString(d: Date): string {
  if (Number.isNaN(d.getTime())) return "Invalid Date";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/**
 * Kafka's Values.convertToString (what SimpleHeaderConverter writes for a header): strings and numbers
 * as they print, bytes in base64, and lists, maps and structs in a JSON-like form whose strings (and
 * base64 bytes) are quoted and escaped: `{"id":10}`, `[1,2]`, `{"k":"v"}`. Dates in UTC ISO-8601: a
 * time of day below one day's millis, a date at midnight, else a timestamp.
 */
export function valuesToString(value: unknown, schema?: Schema | null): string {
  return appendValue(value, schema ?? null, false);
}

function appendValue(value: unknown, schema: Schema | null, embedded: boolean): string {
  if (value === null || value === undefined) return "null";
  const quoted = (text: string) => (embedded ? `"${text}"` : text);
  switch (typeof value) {
    case "string":
      return embedded ? `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"` : value;
    case "number":
    case "bigint":
    case "boolean":
      return javaToString(value, schema);
  }
  if (value instanceof Uint8Array) return quoted(Buffer.from(value).toString("base64"));
  if (Array.isArray(value)) {
    const element = schema?.type === "ARRAY" ? schema.valueSchema : null;
    return `[${value.map((v) => appendValue(v, element, true)).join(",")}]`;
  }
  if (isStruct(value))
    return `{${value.schema.fields.map((f) => `${appendValue(f.name, null, true)}:${appendValue(value.get(f.name), f.schema, true)}`).join(",")}}`;
  if (value instanceof Map || isPlainObject(value)) {
    const keySchema = schema?.type === "MAP" ? schema.keySchema : null;
    const valueSchema = schema?.type === "MAP" ? schema.valueSchema : null;
    const entries = value instanceof Map ? [...value] : Object.entries(value);
    return `{${entries.map(([k, v]) => `${appendValue(k, keySchema, true)}:${appendValue(v, valueSchema, true)}`).join(",")}}`;
  }
  if (value instanceof Date) {
    const iso = value.toISOString();
    const ms = value.getTime();
    if (ms < 86_400_000) return `${iso.slice(11, 23)}Z`;
    return ms % 86_400_000 === 0 ? iso.slice(0, 10) : `${iso.slice(0, 23)}Z`;
  }
  return javaToString(value, schema);
}
