// The pieces of Kafka's org.apache.kafka.connect.data.Values that transforms call: parseString (for
// InsertHeader's literal), the number conversions MaskField's replacement uses, and dateFormatFor.
//
// parseString subset: "" → STRING; null; true/false; integers → the narrowest of INT8..INT64; other
// numbers → FLOAT32 when finite as a float (Kafka's choice, precision loss included), else FLOAT64,
// else Decimal; ISO-8601 date (yyyy-MM-dd), time (HH:mm:ss.SSS'Z') and timestamp literals; arrays
// [..] and maps {..} of such values and "quoted strings" (element schema: the common type, integers
// widened; null when mixed). Anything else is the whole text as a STRING.
import {
  BigDecimal,
  ConnectDate,
  DataException,
  Decimal,
  Schema,
  SchemaBuilder,
  Time,
  Timestamp,
  type Type,
} from "../api/data/index.ts";
import { SimpleDateFormat } from "../../jvm/simple-date-format.ts";

export interface SchemaAndValue {
  readonly schema: Schema | null;
  readonly value: unknown;
}

const MILLIS_PER_DAY = 86_400_000;
const ISO_DATE = new SimpleDateFormat("yyyy-MM-dd");
const ISO_TIME = new SimpleDateFormat("HH:mm:ss.SSS'Z'");
const ISO_TIMESTAMP = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

/** Values.dateFormatFor: time-only for the first day, date-only at midnight, else a full timestamp. */
export function dateFormatFor(value: Date): SimpleDateFormat {
  const ms = value.getTime();
  if (ms < MILLIS_PER_DAY) return ISO_TIME;
  if (ms % MILLIS_PER_DAY === 0) return ISO_DATE;
  return ISO_TIMESTAMP;
}

/** `new BigDecimal(text)`, or null when Java would throw NumberFormatException. */
export function parseBigDecimal(text: string): BigDecimal | null {
  try {
    return BigDecimal.parse(text);
  } catch {
    return null;
  }
}

/** BigDecimal.longValue(): the integer part, wrapped to 64 bits. */
export function bigDecimalToLong(d: BigDecimal): bigint {
  const integral = d.scale >= 0 ? d.unscaled / 10n ** BigInt(d.scale) : d.unscaled * 10n ** BigInt(-d.scale);
  return BigInt.asIntN(64, integral);
}

/** BigDecimal.doubleValue() (correctly rounded through the decimal text). */
export function bigDecimalToDouble(d: BigDecimal): number {
  return Number(`${d.unscaled}e${-d.scale}`);
}

/** Values.asLong for a String: `new BigDecimal(s).longValue()`, DataException when not a number. */
export function stringAsLong(text: string): bigint {
  const d = parseBigDecimal(text);
  if (d === null) throw new DataException(`Unable to convert ${text} (class java.lang.String) to a number`);
  return bigDecimalToLong(d);
}

/** Values.asDouble for a String. */
export function stringAsDouble(text: string): number {
  const d = parseBigDecimal(text);
  if (d === null) throw new DataException(`Unable to convert ${text} (class java.lang.String) to a number`);
  return bigDecimalToDouble(d);
}

/** Values.parseString: the schema and value a literal string denotes; null for the literal `null`. */
export function parseString(text: string): SchemaAndValue | null {
  if (text === "") return { schema: Schema.STRING_SCHEMA, value: "" };
  const trimmed = text.trim();
  if (trimmed === "null") return null;
  if (trimmed === "true") return { schema: Schema.BOOLEAN_SCHEMA, value: true };
  if (trimmed === "false") return { schema: Schema.BOOLEAN_SCHEMA, value: false };
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    try {
      const parser = new EmbeddedParser(trimmed);
      const parsed = parser.value();
      if (parser.atEnd()) return parsed;
    } catch {
      // Not a well-formed array or map: Kafka falls back to the string.
    }
  }
  const scalar = parseScalar(trimmed);
  return scalar ?? { schema: Schema.STRING_SCHEMA, value: text };
}

function parseScalar(token: string): SchemaAndValue | null {
  if (token === "") return null;
  const first = token[0];
  const digit = first >= "0" && first <= "9";
  if (digit) {
    const temporal = parseTemporal(token);
    if (temporal !== null) return temporal;
  }
  if (digit || first === "+" || first === "-") {
    const d = parseBigDecimal(token);
    if (d !== null) return numberSchemaAndValue(d);
  }
  return null;
}

function parseTemporal(token: string): SchemaAndValue | null {
  const candidates: [number, SimpleDateFormat, Schema, RegExp][] = [
    [13, ISO_TIME, Time.SCHEMA, /^\d{2}:\d{2}:\d{2}\.\d{3}Z$/],
    [24, ISO_TIMESTAMP, Timestamp.SCHEMA, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/],
    [10, ISO_DATE, ConnectDate.SCHEMA, /^\d{4}-\d{2}-\d{2}$/],
  ];
  for (const [length, format, schema, shape] of candidates) {
    if (token.length === length && shape.test(token)) return { schema, value: format.parse(token) };
  }
  return null;
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function numberSchemaAndValue(d: BigDecimal): SchemaAndValue {
  const integral = d.scale <= 0 || d.unscaled % 10n ** BigInt(d.scale) === 0n;
  if (integral) {
    const exact = d.scale >= 0 ? d.unscaled / 10n ** BigInt(d.scale) : d.unscaled * 10n ** BigInt(-d.scale);
    if (exact >= LONG_MIN && exact <= LONG_MAX) {
      if (exact >= -128n && exact <= 127n) return { schema: Schema.INT8_SCHEMA, value: Number(exact) };
      if (exact >= -32768n && exact <= 32767n) return { schema: Schema.INT16_SCHEMA, value: Number(exact) };
      if (exact >= -2147483648n && exact <= 2147483647n) return { schema: Schema.INT32_SCHEMA, value: Number(exact) };
      return { schema: Schema.INT64_SCHEMA, value: exact };
    }
  }
  const asDouble = bigDecimalToDouble(d);
  const asFloat = Math.fround(asDouble);
  if (Number.isFinite(asFloat) && d.scale !== 0) return { schema: Schema.FLOAT32_SCHEMA, value: asFloat };
  if (Number.isFinite(asDouble) && d.scale !== 0) return { schema: Schema.FLOAT64_SCHEMA, value: asDouble };
  return { schema: Decimal.schema(d.scale), value: d };
}

/** Arrays, maps and quoted strings inside them. */
class EmbeddedParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.text.length;
  }

  value(): SchemaAndValue | null {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === "[") return this.array();
    if (c === "{") return this.map();
    if (c === '"') return this.quoted();
    const start = this.pos;
    while (this.pos < this.text.length && !",:]}".includes(this.text[this.pos])) {
      if (this.text[this.pos] === "\\") this.pos++;
      this.pos++;
    }
    const token = this.text.slice(start, this.pos).trim().replace(/\\(.)/g, "$1");
    if (token === "null") return null;
    if (token === "true") return { schema: Schema.BOOLEAN_SCHEMA, value: true };
    if (token === "false") return { schema: Schema.BOOLEAN_SCHEMA, value: false };
    const scalar = parseScalar(token);
    if (scalar === null) throw new DataException("Failed to parse embedded value");
    return scalar;
  }

  private quoted(): SchemaAndValue {
    this.pos++;
    let out = "";
    while (this.pos < this.text.length && this.text[this.pos] !== '"') {
      if (this.text[this.pos] === "\\") this.pos++;
      out += this.text[this.pos++] ?? "";
    }
    if (this.text[this.pos] !== '"') throw new DataException("Unterminated quoted string");
    this.pos++;
    return parseTemporal(out) ?? { schema: Schema.STRING_SCHEMA, value: out };
  }

  private array(): SchemaAndValue {
    this.pos++;
    const values: unknown[] = [];
    const schemas: (Schema | null)[] = [];
    this.skipSpace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return { schema: null, value: values };
    }
    for (;;) {
      const element = this.value();
      values.push(element?.value ?? null);
      schemas.push(element?.schema ?? null);
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === "]") break;
      if (c !== ",") throw new DataException("Array elements missing ',' delimiter");
    }
    const common = commonSchema(schemas);
    return {
      schema: common === null ? null : SchemaBuilder.array(common).build(),
      value: common === null ? values : values.map((v) => widen(v, common)),
    };
  }

  private map(): SchemaAndValue {
    this.pos++;
    const entries = new Map<unknown, unknown>();
    const keySchemas: (Schema | null)[] = [];
    const valueSchemas: (Schema | null)[] = [];
    this.skipSpace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return { schema: null, value: entries };
    }
    for (;;) {
      const key = this.value();
      if (key === null || key.value === null) throw new DataException("Map entry may not have a null key");
      this.skipSpace();
      if (this.text[this.pos++] !== ":") throw new DataException("Map entry is missing ':'");
      const value = this.value();
      entries.set(key.value, value?.value ?? null);
      keySchemas.push(key.schema);
      valueSchemas.push(value?.schema ?? null);
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === "}") break;
      if (c !== ",") throw new DataException("Map entries missing ',' delimiter");
    }
    const keySchema = commonSchema(keySchemas);
    const valueSchema = commonSchema(valueSchemas);
    if (keySchema === null || valueSchema === null) return { schema: null, value: entries };
    const aligned = new Map<unknown, unknown>();
    for (const [k, v] of entries) aligned.set(widen(k, keySchema), widen(v, valueSchema));
    return { schema: SchemaBuilder.map(keySchema, valueSchema).build(), value: aligned };
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }
}

const INTEGER_ORDER: readonly Type[] = ["INT8", "INT16", "INT32", "INT64"];

/** The one schema all non-null elements share; integer widths widen; anything else mixed gives null. */
function commonSchema(schemas: readonly (Schema | null)[]): Schema | null {
  let common: Schema | null = null;
  for (const s of schemas) {
    if (s === null) continue;
    if (common === null || common.equals(s)) {
      common = s;
      continue;
    }
    const a = INTEGER_ORDER.indexOf(common.type);
    const b = INTEGER_ORDER.indexOf(s.type);
    if (a >= 0 && b >= 0 && common.name === null && s.name === null) common = a >= b ? common : s;
    else if ((common.type === "FLOAT32" || common.type === "FLOAT64") && (s.type === "FLOAT32" || s.type === "FLOAT64"))
      common = Schema.FLOAT64_SCHEMA;
    else return null;
  }
  return common;
}

function widen(value: unknown, schema: Schema): unknown {
  if (schema.type === "INT64" && typeof value === "number") return BigInt(value);
  return value;
}
