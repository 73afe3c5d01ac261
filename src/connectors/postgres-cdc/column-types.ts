// PostgreSQL column types → Connect schemas and values, by Debezium's PostgreSQL type mapping
// (PostgresValueConverter), so topics written by Sluice read the same as Debezium's: the same schema
// names and versions, the same numbers for times and durations, the same strings for zoned values.
// Input is the type's text output, as pgoutput sends it. Types Debezium does not map give no mapping:
// the column is left out of events, as Debezium leaves it out.
import { BigDecimal } from "../../jvm/big-decimal.ts";
import { javaDoubleToString, javaParseDouble, javaParseInteger } from "../../jvm/java-numbers.ts";
import {
  DataException,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  twosComplementBytes,
  SchemaBuilder,
  type Schema,
  Struct,
} from "../../connect/api/data/index.ts";
import {
  civilDate,
  parseArray,
  parseBytea,
  parseDate,
  parseInterval,
  parseTime,
  parseTimestamp,
  parseTimestampTz,
  parseTimeTz,
  type IntervalParts,
} from "./pg-text.ts";

export type DecimalHandlingMode = "precise" | "double" | "string";
export type TimePrecisionMode = "adaptive" | "adaptive_time_microseconds" | "connect";

/** Types outside pg_catalog, described from the catalog (pg_type, pg_enum) by the caller. */
export type UserType =
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "array"; readonly elementOid: number }
  /** A contrib extension's type Debezium knows by name (its OID differs per database). */
  | { readonly kind: "extension"; readonly name: ExtensionTypeName };

/** The extension types Debezium maps (TypeRegistry looks these up by name). */
export const EXTENSION_TYPES = ["citext", "ltree", "hstore"] as const;
export type ExtensionTypeName = (typeof EXTENSION_TYPES)[number];

export interface TypeMappingOptions {
  readonly decimalHandlingMode: DecimalHandlingMode;
  readonly timePrecisionMode: TimePrecisionMode;
  /** money.fraction.digits: the scale of a money column as a decimal (default 2). */
  readonly moneyFractionDigits?: number;
  /** By type OID. */
  readonly userTypes?: ReadonlyMap<number, UserType>;
  /**
   * Where Debezium would have read the value, which shows in a few edge values: "stream" (pgoutput's
   * text, the default), "snapshot" (its query, through the JDBC driver: a date ±infinity becomes the
   * driver's sentinel) or "array" (an array's element, which the JDBC driver parses streamed or not:
   * also a timestamp before 1582-10-15 is read in the Julian calendar and a timestamptz -infinity is
   * the driver's sentinel instant).
   */
  readonly readBy?: "stream" | "snapshot" | "array";
}

export interface ColumnType {
  readonly typeOid: number;
  /** atttypmod, as the Relation message carries it (-1: none). */
  readonly typeModifier: number;
  /** The Relation message does not say; the caller knows it from the catalog (attnotnull). */
  readonly optional: boolean;
  /** The column's DEFAULT as pg_get_expr prints it (what JDBC reports as COLUMN_DEF), or null. */
  readonly defaultExpression?: string | null;
}

export interface ColumnMapping {
  readonly schema: Schema;
  /** The Connect value of the column's text; throws DataException when the text cannot be one. */
  convert(text: string): unknown;
}

/** Built-in type OIDs (pg_type.dat). */
export const Oid = {
  BOOL: 16,
  BYTEA: 17,
  CHAR: 18,
  NAME: 19,
  INT8: 20,
  INT2: 21,
  INT4: 23,
  TEXT: 25,
  OID: 26,
  JSON: 114,
  XML: 142,
  FLOAT4: 700,
  FLOAT8: 701,
  BPCHAR: 1042,
  VARCHAR: 1043,
  DATE: 1082,
  TIME: 1083,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  INTERVAL: 1186,
  TIMETZ: 1266,
  NUMERIC: 1700,
  UUID: 2950,
  JSONB: 3802,
  MONEY: 790,
  INET: 869,
  CIDR: 650,
  MACADDR: 829,
  MACADDR8: 774,
  INT4RANGE: 3904,
  NUMRANGE: 3906,
  TSRANGE: 3908,
  TSTZRANGE: 3910,
  DATERANGE: 3912,
  INT8RANGE: 3926,
  BIT: 1560,
  VARBIT: 1562,
  TSVECTOR: 3614,
  POINT: 600,
} as const;

/** Array type OID → element OID, for the arrays Debezium maps. */
const ARRAY_ELEMENTS: ReadonlyMap<number, number> = new Map([
  [1000, Oid.BOOL],
  [1001, Oid.BYTEA],
  [1002, Oid.CHAR],
  [1005, Oid.INT2],
  [1007, Oid.INT4],
  [1009, Oid.TEXT],
  [1014, Oid.BPCHAR],
  [1015, Oid.VARCHAR],
  [1016, Oid.INT8],
  [1021, Oid.FLOAT4],
  [1022, Oid.FLOAT8],
  [1028, Oid.OID],
  [1115, Oid.TIMESTAMP],
  [1182, Oid.DATE],
  [1183, Oid.TIME],
  [1185, Oid.TIMESTAMPTZ],
  [1231, Oid.NUMERIC],
  [1270, Oid.TIMETZ],
  [2951, Oid.UUID],
  [199, Oid.JSON],
  [3807, Oid.JSONB],
]);

/**
 * The Connect schema and converter of a column, or null when Debezium does not map its type. The
 * schema carries the column's default value where Debezium can tell it (columnDefault).
 */
export function columnMapping(
  column: ColumnType,
  options: TypeMappingOptions,
  /** Added after the type's own, as a Debezium column rule adds them (column-rules.ts). */
  parameters?: ReadonlyMap<string, string>,
): ColumnMapping | null {
  const mapping = typeMapping(column.typeOid, column.typeModifier, options);
  if (mapping === null) return null;
  const build = (defaultValue?: unknown) => {
    const typed = parameters === undefined ? mapping.builder() : mapping.builder().parameters(parameters);
    const builder = column.optional ? typed.optional() : typed;
    return (defaultValue === undefined ? builder : builder.defaultValue(defaultValue)).build();
  };
  const plainSchema = build();
  const defaultValue = columnDefault(column, options, (text) => mapping.convert(text, plainSchema));
  const schema = defaultValue === undefined ? plainSchema : build(defaultValue);
  return { schema, convert: (text) => mapping.convert(text, schema) };
}

// --- default values ------------------------------------------------------------------------------

/**
 * What Debezium's PostgresDefaultValueConverter reads from a column's DEFAULT, by type: the text to
 * convert when the default is a function call (now(), nextval(...) of a serial, gen_random_uuid(), ...)
 * or CURRENT_DATE and the like, and whether the expression is trimmed first. Types without an entry
 * (bytea, arrays, timetz, ...) get no default.
 */
const DEFAULT_KINDS: ReadonlyMap<
  number,
  { readonly generated: string; readonly trim: boolean; readonly java?: (text: string) => string | null }
> = new Map([
  [Oid.BOOL, { generated: "false", trim: true, java: (t) => (t.toLowerCase() === "true" ? "t" : "f") }],
  [Oid.BPCHAR, { generated: "", trim: false }],
  [Oid.VARCHAR, { generated: "", trim: false }],
  [Oid.TEXT, { generated: "", trim: false }],
  [Oid.XML, { generated: "", trim: false }],
  [Oid.JSON, { generated: "{}", trim: false }],
  [Oid.JSONB, { generated: "{}", trim: false }],
  [
    Oid.NUMERIC,
    {
      generated: "0.0",
      trim: true,
      java: (t) => (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? t.replace(/^\+/, "") : null),
    },
  ],
  [Oid.FLOAT4, { generated: "0.0", trim: true, java: javaFloatText }],
  [Oid.FLOAT8, { generated: "0.0", trim: true, java: javaFloatText }],
  [Oid.INT2, { generated: "0", trim: true, java: javaIntegerText }],
  [Oid.INT4, { generated: "0", trim: true, java: javaIntegerText }],
  [Oid.INT8, { generated: "0", trim: true, java: javaIntegerText }],
  [
    Oid.UUID,
    {
      generated: "00000000-0000-0000-0000-000000000000",
      trim: true,
      java: (t) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t) ? t.toLowerCase() : null),
    },
  ],
  [Oid.DATE, { generated: "1970-01-01", trim: true }],
  [Oid.TIME, { generated: "00:00:00", trim: true }],
  [Oid.TIMESTAMP, { generated: "1970-01-01 00:00:00", trim: true }],
  // The JVM's zone, in which the JDBC driver reads a time without offset: UTC where Debezium runs.
  [Oid.TIMESTAMPTZ, { generated: "1970-01-01 00:00:00+00", trim: true }],
  // The driver's PGInterval("epoch") is a zero interval.
  [Oid.INTERVAL, { generated: "00:00:00", trim: true }],
]);

/** The default as Long.parseLong reads it (PostgreSQL has range-checked it for the column's type); null where Java throws. */
function javaIntegerText(text: string): string | null {
  try {
    javaParseInteger(text, 64);
    return text.replace(/^\+/, "");
  } catch {
    return null;
  }
}

/** Float.parseFloat / Double.parseDouble of the default, as text parseFloat64 reads back to the same double; null where Java throws. */
function javaFloatText(text: string): string | null {
  try {
    return javaDoubleToString(javaParseDouble(text));
  } catch {
    return null;
  }
}

const FUNCTION_DEFAULT = /^[(]?[A-Za-z0-9_.]+\((?:.+(?:, ?.+)*)?\)/;
const CURRENT_DATE_TIMES = new Set([
  "current_timestamp",
  "current_time",
  "current_date",
  "localtime",
  "localtimestamp",
]);
const QUOTED_LITERAL = /'([^']*(?:''[^']*)*)'/;

/** The default's text as Debezium extracts it: a placeholder for a generated value, a quoted literal's content, or the bare expression. */
function defaultText(expression: string, generated: string): string | null {
  if (FUNCTION_DEFAULT.test(expression) || CURRENT_DATE_TIMES.has(expression.toLowerCase())) return generated;
  if (!expression.includes("'")) return expression.startsWith("NULL::") ? null : expression;
  const literal = QUOTED_LITERAL.exec(expression);
  return literal ? literal[1]!.replaceAll("''", "'") : null;
}

/** An enum's default is only a literal cast to its type: `'ok'::mood` (quotes not unescaped, as Debezium). */
function enumDefaultText(expression: string): string | null {
  const cast = expression.lastIndexOf("::");
  if (cast < 0) return null;
  const literal = expression.slice(0, cast);
  return literal.length >= 2 && literal.startsWith("'") && literal.endsWith("'") ? literal.slice(1, -1) : null;
}

/**
 * The Connect value of a column's DEFAULT, as Debezium puts it in the schema, or undefined for none: a
 * NULL default, an expression it does not evaluate (`1 + 2`), a type it has no parser for, a value the
 * column's converter refuses, or a struct (VariableScaleDecimal: Kafka cannot hold a struct default).
 */
function columnDefault(column: ColumnType, options: TypeMappingOptions, convert: (text: string) => unknown): unknown {
  const expression = column.defaultExpression;
  if (expression === null || expression === undefined) return undefined;
  let text: string | null;
  const kind = DEFAULT_KINDS.get(column.typeOid);
  if (kind !== undefined) {
    text = defaultText(kind.trim ? expression.trim() : expression, kind.generated);
    if (text !== null && kind.java) text = kind.java(text);
  } else if (options.userTypes?.get(column.typeOid)?.kind === "enum") {
    text = enumDefaultText(expression);
  } else {
    return undefined;
  }
  if (text === null) return undefined;
  try {
    const value = convert(text);
    return value === null || value instanceof Struct ? undefined : value;
  } catch {
    return undefined;
  }
}

interface TypeMapping {
  /** A fresh builder each call, so callers can still make it optional. */
  builder(): SchemaBuilder;
  /** `schema` is the built one: struct values must be made with the exact schema of their field. */
  convert(text: string, schema: Schema): unknown;
}

function typeMapping(oid: number, typeModifier: number, options: TypeMappingOptions): TypeMapping | null {
  const scalar = scalarMapping(oid, typeModifier, options);
  if (scalar !== null) return scalar;
  const userType = options.userTypes?.get(oid);
  if (userType?.kind === "enum") return enumMapping(userType.values);
  if (userType?.kind === "extension") return extensionMapping(userType.name);
  const elementOid = ARRAY_ELEMENTS.get(oid) ?? (userType?.kind === "array" ? userType.elementOid : undefined);
  if (elementOid === undefined) return null;
  const elementType = options.userTypes?.get(elementOid);
  // Debezium's only array of user types is of enums, and (unlike its others) with required elements.
  if (elementType?.kind === "enum") return arrayMapping(enumMapping(elementType.values), false);
  if (!ARRAY_ELEMENTS.has(oid)) return null;
  // Debezium has the JDBC driver parse arrays, streamed or not.
  const element = scalarMapping(elementOid, typeModifier, { ...options, readBy: "array" });
  return element === null ? null : arrayMapping(element, true);
}

function arrayMapping(element: TypeMapping, optionalElements: boolean): TypeMapping {
  const elementSchema = () => (optionalElements ? element.builder().optional() : element.builder()).build();
  return {
    builder: () => SchemaBuilder.array(elementSchema()),
    convert: (text, schema) => {
      const elementSchema = schema.valueSchema as Schema;
      return parseArray(text).map((item) => (item === null ? null : element.convert(item, elementSchema)));
    },
  };
}

function plain(builder: () => SchemaBuilder, convert: (text: string, schema: Schema) => unknown): TypeMapping {
  return { builder, convert };
}

/** A Debezium semantic type: a named primitive schema, version 1. */
function named(builder: () => SchemaBuilder, name: string): () => SchemaBuilder {
  return () => builder().name(name).version(1);
}

const identity = (text: string) => text;

function scalarMapping(oid: number, typeModifier: number, options: TypeMappingOptions): TypeMapping | null {
  switch (oid) {
    case Oid.BOOL:
      return plain(SchemaBuilder.bool, parseBool);
    case Oid.INT2:
      return plain(SchemaBuilder.int16, (t) => parseInteger(t, 16));
    case Oid.INT4:
      return plain(SchemaBuilder.int32, (t) => parseInteger(t, 32));
    case Oid.INT8:
    case Oid.OID:
      return plain(SchemaBuilder.int64, (t) => BigInt(parseInteger(t, 64)));
    case Oid.FLOAT4:
      return plain(SchemaBuilder.float32, parseFloat64);
    case Oid.FLOAT8:
      return plain(SchemaBuilder.float64, parseFloat64);
    case Oid.CHAR:
    case Oid.NAME:
    case Oid.TEXT:
    case Oid.BPCHAR:
    case Oid.VARCHAR:
      return plain(SchemaBuilder.string, identity);
    case Oid.BYTEA:
      return plain(SchemaBuilder.bytes, parseBytea);
    case Oid.JSON:
    case Oid.JSONB:
      return plain(named(SchemaBuilder.string, "io.debezium.data.Json"), identity);
    case Oid.XML:
      return plain(named(SchemaBuilder.string, "io.debezium.data.Xml"), identity);
    case Oid.UUID:
      return plain(named(SchemaBuilder.string, "io.debezium.data.Uuid"), identity);
    // Debezium passes these through as their text output, in plain strings.
    case Oid.INET:
    case Oid.CIDR:
    case Oid.MACADDR:
    case Oid.MACADDR8:
    case Oid.INT4RANGE:
    case Oid.INT8RANGE:
    case Oid.NUMRANGE:
    case Oid.TSRANGE:
    case Oid.TSTZRANGE:
    case Oid.DATERANGE:
      return plain(SchemaBuilder.string, identity);
    case Oid.TSVECTOR:
      return plain(named(SchemaBuilder.string, "io.debezium.data.Tsvector"), identity);
    case Oid.BIT:
    case Oid.VARBIT:
      return bitsMapping(oid === Oid.BIT && typeModifier < 0 ? 1 : typeModifier < 0 ? UNKNOWN_LENGTH : typeModifier);
    case Oid.POINT:
      return plain(pointBuilder, parsePoint);
    case Oid.MONEY:
      return moneyMapping(options.decimalHandlingMode, options.moneyFractionDigits ?? 2);
    case Oid.NUMERIC:
      return numericMapping(typeModifier, options.decimalHandlingMode);
    case Oid.DATE:
      return dateMapping(
        options.timePrecisionMode,
        (options.readBy ?? "stream") === "stream" ? DATE_INFINITY_DAYS : JDBC_DATE_INFINITY_DAYS,
      );
    case Oid.TIME:
      return timeMapping(timePrecision(typeModifier), options.timePrecisionMode);
    case Oid.TIMESTAMP:
      return timestampMapping(timePrecision(typeModifier), options.timePrecisionMode, options.readBy === "array");
    case Oid.TIMESTAMPTZ:
      return plain(named(SchemaBuilder.string, "io.debezium.time.ZonedTimestamp"), (t) =>
        options.readBy === "array" && t === "-infinity"
          ? JDBC_NEGATIVE_INFINITY_ZONED + fraction(timePrecision(typeModifier)) + "Z"
          : zonedTimestamp(t, timePrecision(typeModifier)),
      );
    case Oid.TIMETZ:
      return plain(named(SchemaBuilder.string, "io.debezium.time.ZonedTime"), zonedTime);
    case Oid.INTERVAL:
      return plain(named(SchemaBuilder.int64, "io.debezium.time.MicroDuration"), (t) =>
        microDuration(parseInterval(t)),
      );
    default:
      return null;
  }
}

function enumMapping(values: readonly string[]): TypeMapping {
  return plain(
    () => SchemaBuilder.string().name("io.debezium.data.Enum").version(1).parameter("allowed", values.join(",")),
    identity,
  );
}

function extensionMapping(name: ExtensionTypeName): TypeMapping {
  switch (name) {
    case "citext":
      return plain(SchemaBuilder.string, identity);
    case "ltree":
      return plain(named(SchemaBuilder.string, "io.debezium.data.Ltree"), identity);
    // hstore.handling.mode json, the only one Sluice takes.
    case "hstore":
      return plain(named(SchemaBuilder.string, "io.debezium.data.Json"), (t) => hstoreJson(parseHstore(t)));
  }
}

/** hstore's text output (`"k"=>"v", "n"=>NULL`, quotes and backslashes escaped) as its pairs, in order. */
export function parseHstore(text: string): [string, string | null][] {
  const pairs: [string, string | null][] = [];
  const quoted = /\s*"((?:[^"\\]|\\.)*)"/y;
  let at = 0;
  const read = (): string | null => {
    quoted.lastIndex = at;
    const m = quoted.exec(text);
    if (m === null) return null;
    at = quoted.lastIndex;
    return m[1]!.replace(/\\(.)/g, "$1");
  };
  while (at < text.length) {
    const key = read();
    if (key === null || !text.startsWith("=>", at))
      throw new DataException(`Not a PostgreSQL hstore: ${JSON.stringify(text)}`);
    at += 2;
    let value: string | null;
    if (text.startsWith("NULL", at)) {
      value = null;
      at += 4;
    } else {
      value = read();
      if (value === null) throw new DataException(`Not a PostgreSQL hstore: ${JSON.stringify(text)}`);
    }
    pairs.push([key, value]);
    if (text.startsWith(", ", at)) at += 2;
    else if (at < text.length) throw new DataException(`Not a PostgreSQL hstore: ${JSON.stringify(text)}`);
  }
  return pairs;
}

/** Java's String.hashCode (UTF-16 code units). */
function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The pairs as Debezium writes an hstore in JSON: the JDBC driver reads it into a java.util.HashMap, whose
 * order Jackson keeps: by bucket (the spread hash masked by the table's size, 16 doubled while more than
 * three quarters full), then in insertion order.
 */
function hstoreJson(pairs: readonly [string, string | null][]): string {
  let capacity = 16;
  while (pairs.length > capacity * 0.75) capacity *= 2;
  const bucket = (key: string) => {
    const h = javaStringHash(key);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  const ordered = pairs.map((pair, index) => ({ pair, index, bucket: bucket(pair[0]) }));
  ordered.sort((a, b) => a.bucket - b.bucket || a.index - b.index);
  return `{${ordered.map(({ pair: [k, v] }) => `${JSON.stringify(k)}:${v === null ? "null" : JSON.stringify(v)}`).join(",")}}`;
}

function parseBool(text: string): boolean {
  if (text === "t") return true;
  if (text === "f") return false;
  throw new DataException(`Not a PostgreSQL boolean: ${JSON.stringify(text)}`);
}

const INTEGER = /^-?\d+$/;

function parseInteger(text: string, bits: 16 | 32): number;
function parseInteger(text: string, bits: 64): string;
function parseInteger(text: string, bits: 16 | 32 | 64): number | string {
  if (!INTEGER.test(text)) throw new DataException(`Not a PostgreSQL int${bits / 8}: ${JSON.stringify(text)}`);
  if (bits === 64) return text;
  const value = Number(text);
  if (value < -(2 ** (bits - 1)) || value >= 2 ** (bits - 1))
    throw new DataException(`Out of range for int${bits / 8}: ${text}`);
  return value;
}

/** float4/float8 text, including NaN and ±Infinity (which Number() reads as written). */
function parseFloat64(text: string): number {
  const value = Number(text);
  if (Number.isNaN(value) && text !== "NaN") throw new DataException(`Not a PostgreSQL float: ${JSON.stringify(text)}`);
  return value;
}

// --- numeric -------------------------------------------------------------------------------------

const NUMERIC_SPECIALS: Record<string, { double: number; string: string }> = {
  NaN: { double: NaN, string: "NAN" },
  Infinity: { double: Infinity, string: "POSITIVE_INFINITY" },
  "-Infinity": { double: -Infinity, string: "NEGATIVE_INFINITY" },
};

/** numeric(p,s) from atttypmod, or null for an unconstrained numeric (-1). Scale may be negative since PostgreSQL 15. */
function numericPrecisionScale(typeModifier: number): { precision: number; scale: number } | null {
  if (typeModifier < 4) return null;
  const packed = typeModifier - 4;
  return { precision: (packed >> 16) & 0xffff, scale: ((packed & 0x7ff) ^ 1024) - 1024 };
}

function numericMapping(typeModifier: number, mode: DecimalHandlingMode): TypeMapping {
  const declared = numericPrecisionScale(typeModifier);
  const decimal = (text: string): BigDecimal | (typeof NUMERIC_SPECIALS)[string] => {
    const special = NUMERIC_SPECIALS[text];
    if (special) return special;
    const value = parseDecimal(text);
    return declared === null ? value : value.setScale(declared.scale);
  };
  switch (mode) {
    case "double":
      return plain(SchemaBuilder.float64, (t) => {
        const v = decimal(t);
        return v instanceof BigDecimal ? v.toNumber() : v.double;
      });
    case "string":
      return plain(SchemaBuilder.string, (t) => {
        const v = decimal(t);
        return v instanceof BigDecimal ? v.toPlainString() : v.string;
      });
    case "precise": {
      const precise = (t: string): BigDecimal => {
        const v = decimal(t);
        if (v instanceof BigDecimal) return v;
        throw new DataException(
          `Got a special value (${t}) for a numeric column but decimal.handling.mode 'precise' cannot hold it; set it to 'string' or 'double'`,
        );
      };
      if (declared === null)
        return plain(variableScaleDecimalBuilder, (t, schema) => variableScaleDecimal(precise(t), schema));
      const { precision, scale } = declared;
      return plain(() => Decimal.builder(scale).parameter("connect.decimal.precision", String(precision)), precise);
    }
  }
}

function parseDecimal(text: string): BigDecimal {
  try {
    return BigDecimal.parse(text);
  } catch {
    throw new DataException(`Not a PostgreSQL numeric: ${JSON.stringify(text)}`);
  }
}

function variableScaleDecimalBuilder(): SchemaBuilder {
  return SchemaBuilder.struct()
    .name("io.debezium.data.VariableScaleDecimal")
    .version(1)
    .doc("Variable scaled decimal")
    .field("scale", SchemaBuilder.int32())
    .field("value", SchemaBuilder.bytes());
}

/** Debezium strips trailing zeros (never below scale 0) before splitting into scale and unscaled bytes. */
function variableScaleDecimal(value: BigDecimal, schema: Schema): Struct {
  let { unscaled, scale } = value;
  while (scale > 0 && unscaled !== 0n && unscaled % 10n === 0n) {
    unscaled /= 10n;
    scale--;
  }
  if (unscaled === 0n) scale = 0;
  if (scale < 0) {
    unscaled *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return new Struct(schema).put("scale", scale).put("value", twosComplementBytes(unscaled));
}

// --- bit strings and points ----------------------------------------------------------------------

/**
 * bit(1) is a boolean; longer bit strings io.debezium.data.Bits: the bits as a number in as few bytes as
 * it takes, little-endian, as Java's BitSet.toByteArray (all zeros: no bytes at all), as Debezium 3.7 emits them.
 */
function bitsMapping(length: number): TypeMapping {
  if (length === 1) return plain(SchemaBuilder.bool, (t) => parseBits(t) === 1n);
  return plain(
    () => SchemaBuilder.bytes().name("io.debezium.data.Bits").version(1).parameter("length", String(length)),
    (t) => {
      let value = parseBits(t);
      const bytes: number[] = [];
      while (value > 0n) {
        bytes.push(Number(value & 0xffn));
        value >>= 8n;
      }
      return Uint8Array.from(bytes);
    },
  );
}

function parseBits(text: string): bigint {
  if (!/^[01]*$/.test(text)) throw new DataException(`Not a PostgreSQL bit string: ${JSON.stringify(text)}`);
  return text === "" ? 0n : BigInt(`0b${text}`);
}

function pointBuilder(): SchemaBuilder {
  return SchemaBuilder.struct()
    .name("io.debezium.data.geometry.Point")
    .version(1)
    .doc("Geometry (POINT)")
    .field("x", SchemaBuilder.float64().build())
    .field("y", SchemaBuilder.float64().build())
    .field("wkb", SchemaBuilder.bytes().optional().build())
    .field("srid", SchemaBuilder.int32().optional().build());
}

/** A point "(x,y)" as Debezium's Point: its coordinates and their WKB (little-endian), no SRID. */
function parsePoint(text: string, schema: Schema): Struct {
  const m = /^\(([^,()]+),([^,()]+)\)$/.exec(text);
  if (m === null) throw new DataException(`Not a PostgreSQL point: ${JSON.stringify(text)}`);
  const [x, y] = [parseFloat64(m[1]!), parseFloat64(m[2]!)];
  const wkb = new DataView(new ArrayBuffer(21));
  wkb.setUint8(0, 1);
  wkb.setUint32(1, 1, true);
  wkb.setFloat64(5, x, true);
  wkb.setFloat64(13, y, true);
  return new Struct(schema).put("x", x).put("y", y).put("wkb", new Uint8Array(wkb.buffer));
}

// --- money ---------------------------------------------------------------------------------------

const MONEY = /^-?[^\d(-]?[\d,]*\.?\d*$/;

/**
 * money's text output ("$1,234.56", "-$0.50" under lc_monetary C) as the exact amount, without the
 * currency symbol and group separators, as Debezium reads it streamed or snapshotted.
 */
export function parseMoney(text: string): BigDecimal {
  if (!MONEY.test(text)) throw new DataException(`Not a PostgreSQL money: ${JSON.stringify(text)}`);
  const negative = text.startsWith("-");
  const digits = (negative ? text.slice(1) : text).replace(/^[^\d.]/, "").replaceAll(",", "");
  const value = parseDecimal(digits);
  return negative ? value.negate() : value;
}

/** Debezium's money: a Decimal of money.fraction.digits (rounded half up), a double, or the amount's text. */
function moneyMapping(mode: DecimalHandlingMode, fractionDigits: number): TypeMapping {
  const amount = (t: string) => parseMoney(t).setScale(fractionDigits, "HALF_UP");
  switch (mode) {
    case "double":
      return plain(SchemaBuilder.float64, (t) => amount(t).toNumber());
    case "string":
      return plain(SchemaBuilder.string, (t) => amount(t).toString());
    case "precise":
      return plain(() => Decimal.builder(fractionDigits), amount);
  }
}

// --- dates and times -----------------------------------------------------------------------------

const MICROS_PER_MILLI = 1000n;
const MILLIS_PER_DAY = 86_400_000;

/** Fractional digits of time/timestamp(p); -1 (no p) means 6, as the JDBC driver reports it. */
function timePrecision(typeModifier: number): number {
  return typeModifier < 0 ? 6 : typeModifier;
}

/**
 * What Debezium 3.7 emits for a timestamp ±infinity: Long.MAX_VALUE / MIN_VALUE as microseconds, and
 * the JDBC driver's sentinels (PGStatement.DATE_POSITIVE/NEGATIVE_INFINITY) as milliseconds.
 */
const TIMESTAMP_INFINITY_MICROS = {
  infinity: 9_223_372_036_854_775_807n,
  "-infinity": -9_223_372_036_854_775_808n,
} as const;
const TIMESTAMP_INFINITY_MILLIS = {
  infinity: 9_223_372_036_825_200_000n,
  "-infinity": -9_223_372_036_832_400_000n,
} as const;
/**
 * A date ±infinity as Debezium 3.7 emits it, in days: streamed, the epoch day of its LocalDate stand-ins
 * +5877611-06-21 and -5877611-06-22; read through JDBC, the driver's sentinel java.sql.Date
 * turned into a LocalDate (in the JVM's zone, UTC) whose epoch day is cut to an int.
 */
const DATE_INFINITY_DAYS = { infinity: 2_146_033_979, "-infinity": -2_147_472_691 } as const;
const JDBC_DATE_INFINITY_DAYS = { infinity: -622_191_234, "-infinity": -625_821_272 } as const;

function noJsDate(text: string): never {
  throw new DataException(`${text} has no value in time.precision.mode 'connect' (it needs a JS Date); use 'adaptive'`);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function dateMapping(
  mode: TimePrecisionMode,
  infinityDays: { readonly infinity: number; readonly "-infinity": number },
): TypeMapping {
  if (mode === "connect")
    return plain(ConnectDate.builder, (t) => {
      const days = parseDate(t);
      return typeof days === "string" ? noJsDate(t) : new Date(days * MILLIS_PER_DAY);
    });
  return plain(named(SchemaBuilder.int32, "io.debezium.time.Date"), (t) => {
    const days = parseDate(t);
    return typeof days === "string" ? infinityDays[days] : days;
  });
}

function timeMapping(precision: number, mode: TimePrecisionMode): TypeMapping {
  if (mode === "connect") return plain(Time.builder, (t) => new Date(Number(parseTime(t) / MICROS_PER_MILLI)));
  if (mode === "adaptive" && precision <= 3)
    return plain(named(SchemaBuilder.int32, "io.debezium.time.Time"), (t) => Number(parseTime(t) / MICROS_PER_MILLI));
  return plain(named(SchemaBuilder.int64, "io.debezium.time.MicroTime"), parseTime);
}

/** What an array's timestamptz -infinity reads as: the JDBC driver's sentinel instant, printed in its odd year (fraction and Z added). */
const JDBC_NEGATIVE_INFINITY_ZONED = "+292269055-12-02T23:00:00";

function fraction(digits: number): string {
  return digits > 0 ? `.${"0".repeat(digits)}` : "";
}

/** The Gregorian calendar's first day, 1582-10-15, in days since the epoch: java.sql.Timestamp reads earlier dates as Julian ones. */
const GREGORIAN_CUTOVER_DAY = -141_427;

/** µs of a wall-clock time read the way java.sql.Timestamp reads it: before the cutover, its date is a Julian calendar date. */
function julianBeforeCutover(micros: bigint): bigint {
  const day = floorDiv(micros, 86_400_000_000n);
  if (day >= GREGORIAN_CUTOVER_DAY) return micros;
  const { year, month, day: dayOfMonth } = civilDate(Number(day));
  return micros + BigInt(julianEpochDay(year, month, dayOfMonth) - Number(day)) * 86_400_000_000n;
}

/** Days since 1970-01-01 of a date in the Julian calendar (astronomical year numbering). */
function julianEpochDay(year: number, month: number, day: number): number {
  const a = Math.floor((14 - month) / 12);
  const y = year + 4800 - a;
  const m = month + 12 * a - 3;
  return day + Math.floor((153 * m + 2) / 5) + 365 * y + Math.floor(y / 4) - 32083 - 2_440_588;
}

/** `julian`: an array's element, which Debezium has the JDBC driver read (julianBeforeCutover). */
function timestampMapping(precision: number, mode: TimePrecisionMode, julian: boolean): TypeMapping {
  const parse = (t: string) => {
    const value = parseTimestamp(t);
    return julian && typeof value !== "string" ? julianBeforeCutover(value) : value;
  };
  if (mode === "connect")
    return plain(Timestamp.builder, (t) => {
      const value = parse(t);
      return typeof value === "string" ? noJsDate(t) : new Date(Number(floorDiv(value, MICROS_PER_MILLI)));
    });
  if (precision <= 3)
    return plain(named(SchemaBuilder.int64, "io.debezium.time.Timestamp"), (t) => {
      const value = parse(t);
      return typeof value === "string" ? TIMESTAMP_INFINITY_MILLIS[value] : floorDiv(value, MICROS_PER_MILLI);
    });
  return plain(named(SchemaBuilder.int64, "io.debezium.time.MicroTimestamp"), (t) => {
    const value = parse(t);
    return typeof value === "string" ? TIMESTAMP_INFINITY_MICROS[value] : value;
  });
}

/**
 * io.debezium.time.ZonedTimestamp: the instant in UTC, ISO-8601 as java.time prints it ("+" before
 * years past 9999), with exactly `precision` fractional digits (Debezium's column scale), or as few
 * as needed for timestamptz(0). ±infinity stay "infinity" / "-infinity".
 */
function zonedTimestamp(text: string, precision: number): string {
  const micros = parseTimestampTz(text);
  if (typeof micros === "string") return micros;
  const days = floorDiv(micros, 86_400_000_000n);
  const { year, month, day } = civilDate(Number(days));
  const date = `${isoYear(year)}-${pad2(month)}-${pad2(day)}`;
  return `${date}T${isoTime(micros - days * 86_400_000_000n, precision)}Z`;
}

/** io.debezium.time.ZonedTime: the time moved to UTC, with as few fractional digits as needed. */
function zonedTime(text: string): string {
  const { micros, offsetSeconds } = parseTimeTz(text);
  const day = 86_400_000_000n;
  const utc = micros - BigInt(offsetSeconds) * 1_000_000n;
  // PostgreSQL's 24:00:00 survives at offset zero (Debezium keeps "24:00:00Z"); anything else wraps.
  if (utc === day) return "24:00:00Z";
  return `${isoTime(((utc % day) + day) % day, 0)}Z`;
}

/** java.time's ISO_LOCAL_DATE year: at least 4 digits, "+" past 9999, "-" before year 0. */
function isoYear(year: number): string {
  if (year > 9999) return `+${year}`;
  return year < 0 ? `-${String(-year).padStart(4, "0")}` : String(year).padStart(4, "0");
}

function pad2(n: number | bigint): string {
  return String(n).padStart(2, "0");
}

/** HH:mm:ss plus a fraction of exactly `digits` digits (1-9), or with trailing zeros dropped (0). */
function isoTime(microsOfDay: bigint, digits: number): string {
  const seconds = microsOfDay / 1_000_000n;
  const fraction = String(microsOfDay % 1_000_000n).padStart(6, "0");
  const clock = `${pad2(seconds / 3600n)}:${pad2((seconds / 60n) % 60n)}:${pad2(seconds % 60n)}`;
  if (digits > 0) return `${clock}.${fraction.padEnd(9, "0").slice(0, digits)}`;
  const trimmed = fraction.replace(/0+$/, "");
  return trimmed === "" ? clock : `${clock}.${trimmed}`;
}

/** Debezium's MicroDuration: months count as 365.25 / 12 days; the same double arithmetic as the JVM's, truncated. */
function microDuration(p: IntervalParts): bigint {
  const days = (p.years * 12 + p.months) * (365.25 / 12.0) + p.days;
  const seconds = ((days * 24 + p.hours) * 60 + p.minutes) * 60 + p.seconds;
  return BigInt(Math.trunc(seconds * 1e6));
}

// --- the source type, as Debezium's column rules read it -------------------------------------------

/** PostgreSQL's names of the built-in types, for a column the catalog has not named. */
const TYPE_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(Oid).map(([name, oid]) => [oid as number, name.toLowerCase()]),
);

/** The JDBC driver's length of a type it cannot bound (text, bytea, json, ...). */
const UNKNOWN_LENGTH = 2147483647;

export interface SourceColumnType {
  /** The driver's name: pg_type.typname, or serial/bigserial/smallserial for a column a sequence fills. */
  readonly typeName: string;
  /** The driver's COLUMN_SIZE (pgjdbc's precision, else display size). */
  readonly length: number;
  /** The driver's DECIMAL_DIGITS; null where it reports none. */
  readonly scale: number | null;
  /** Of a JDBC character type (CHAR, VARCHAR): the only ones Debezium masks and hashes. */
  readonly isCharacter: boolean;
}

/**
 * A column's type as Debezium knows it from the JDBC driver's metadata (snapshot) or a Relation
 * message (stream), which agree but for an unconstrained numeric: its name, length and scale, as
 * pgjdbc's TypeInfoCache computes them.
 */
export function sourceColumnType(
  column: ColumnType & { readonly typeName?: string },
  userTypes?: ReadonlyMap<number, UserType>,
  readBy: TypeMappingOptions["readBy"] = "stream",
): SourceColumnType {
  const { typeOid: oid, typeModifier: typmod } = column;
  let typeName = column.typeName ?? TYPE_NAMES.get(oid) ?? String(oid);
  const serial = { int2: "smallserial", int4: "serial", int8: "bigserial" }[typeName];
  if (serial && column.defaultExpression?.includes("nextval(")) typeName = serial;
  const precision = jdbcPrecision(oid, typmod);
  // The snapshot's metadata (the driver's getColumns) has an unconstrained numeric without size or digits.
  const unsized = readBy === "snapshot" && oid === Oid.NUMERIC && typmod === -1;
  return {
    typeName,
    length: unsized ? 0 : precision === 0 ? jdbcDisplaySize(oid, typmod) : precision,
    scale: unsized ? null : jdbcScale(oid, typmod),
    isCharacter:
      oid === Oid.TEXT ||
      oid === Oid.VARCHAR ||
      oid === Oid.BPCHAR ||
      oid === Oid.CHAR ||
      oid === Oid.NAME ||
      userTypes?.get(oid)?.kind === "enum",
  };
}

function jdbcPrecision(oid: number, typmod: number): number {
  switch (oid) {
    case Oid.INT2:
      return 5;
    case Oid.INT4:
    case Oid.OID:
      return 10;
    case Oid.INT8:
      return 19;
    case Oid.FLOAT4:
      return 8;
    case Oid.FLOAT8:
      return 17;
    case Oid.NUMERIC:
      return typmod === -1 ? 0 : ((typmod - 4) >> 16) & 0xffff;
    case Oid.CHAR:
    case Oid.BOOL:
      return 1;
    case Oid.BPCHAR:
    case Oid.VARCHAR:
      return typmod === -1 ? UNKNOWN_LENGTH : typmod - 4;
    case Oid.DATE:
    case Oid.TIME:
    case Oid.TIMETZ:
    case Oid.INTERVAL:
    case Oid.TIMESTAMP:
    case Oid.TIMESTAMPTZ:
      return jdbcDisplaySize(oid, typmod);
    default:
      return UNKNOWN_LENGTH;
  }
}

function jdbcDisplaySize(oid: number, typmod: number): number {
  // Fractional digits and their point; pgjdbc counts two digits for a precision of 1.
  const seconds = typmod === -1 ? 7 : typmod === 0 ? 0 : typmod === 1 ? 3 : typmod + 1;
  switch (oid) {
    case Oid.DATE:
      return 13;
    case Oid.TIME:
      return 8 + seconds;
    case Oid.TIMETZ:
      return 8 + seconds + 6;
    case Oid.TIMESTAMP:
      return 13 + 1 + 8 + seconds;
    case Oid.TIMESTAMPTZ:
      return 13 + 1 + 8 + seconds + 6;
    case Oid.INTERVAL:
      return 49;
    case Oid.NUMERIC: {
      if (typmod === -1) return 131089;
      const precision = ((typmod - 4) >> 16) & 0xffff;
      return 1 + precision + ((typmod - 4) & 0xffff ? 1 : 0);
    }
    default:
      return UNKNOWN_LENGTH;
  }
}

function jdbcScale(oid: number, typmod: number): number {
  switch (oid) {
    case Oid.FLOAT4:
      return 8;
    case Oid.FLOAT8:
      return 17;
    case Oid.NUMERIC:
      return typmod === -1 ? 0 : (typmod - 4) & 0xffff;
    case Oid.TIME:
    case Oid.TIMETZ:
    case Oid.TIMESTAMP:
    case Oid.TIMESTAMPTZ:
      return typmod === -1 ? 6 : typmod;
    case Oid.INTERVAL:
      return typmod === -1 ? 6 : typmod & 0xffff;
    default:
      return 0;
  }
}
