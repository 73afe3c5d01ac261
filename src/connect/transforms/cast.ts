// Cast$Key / Cast$Value: casts top-level fields (`spec=age:int32,price:float64`) or the whole value
// (`spec=int64`) between int8..int64, float32/64, boolean and string; bytes (and Decimal) only to
// string (bytes as base64). Numbers narrow as Java's Number.xxxValue() does: integers wrap, floats
// saturate, NaN becomes 0. Strings parse as Java's Integer.parseInt / Double.parseDouble /
// Boolean.parseBoolean. Int64 results are bigint.
import { JavaNumberFormatError, javaParseDouble, javaParseInteger } from "../../jvm/java-numbers.ts";
import { javaSplit } from "../../jvm/java-strings.ts";
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import {
  BigDecimal,
  ConnectDate,
  DataException,
  SchemaBuilder,
  Struct,
  Time,
  Timestamp,
  type Schema,
  type Type,
  javaClassName,
  javaToString,
} from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapCopy, mapGet, mapLike } from "./schemaless-map.ts";
import { copyFields, copySchemaBasics } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, configProblem, invalidConfig } from "./transform-settings.ts";
import { connectTypeOf } from "./value-type.ts";
import { bigDecimalToDouble, bigDecimalToLong, dateFormatFor } from "./values.ts";

const ALL_TYPES: readonly Type[] = [
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "FLOAT32",
  "FLOAT64",
  "BOOLEAN",
  "STRING",
  "BYTES",
  "ARRAY",
  "MAP",
  "STRUCT",
];
const INPUT_TYPES: readonly Type[] = [
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "FLOAT32",
  "FLOAT64",
  "BOOLEAN",
  "STRING",
  "BYTES",
];
const OUTPUT_TYPES: readonly Type[] = ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING"];

/** Field name → target type; a null key is the whole-value cast. */
export type CastSpec = Map<string | null, Type>;

function parseCastSpec(mappings: readonly string[]): CastSpec {
  if (mappings.length === 0) throw configProblem("spec", "Must specify at least one field to cast.");
  const casts: CastSpec = new Map();
  let wholeValue = false;
  const typeOf = (text: string): Type => {
    const type = text.trim().toUpperCase() as Type;
    if (!ALL_TYPES.includes(type)) throw configProblem("spec", `Invalid type found in casting spec: ${text.trim()}`);
    if (!OUTPUT_TYPES.includes(type))
      throw configProblem(
        "spec",
        `Cast transformation does not support casting to ${type}; supported types are [${OUTPUT_TYPES.join(", ")}]`,
      );
    return type;
  };
  for (const mapping of mappings) {
    const parts = javaSplit(mapping, ":");
    // Kafka's message names `renames` here (it reuses ReplaceField's wording).
    if (parts.length > 2) throw invalidConfig("renames", mappings, `Invalid rename mapping: ${mapping}`);
    if (parts.length <= 1) {
      casts.set(null, typeOf(parts[0] ?? ""));
      wholeValue = true;
    } else casts.set(parts[0].trim(), typeOf(parts[1]));
  }
  if (wholeValue && mappings.length > 1)
    throw configProblem(
      "spec",
      "Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec",
    );
  return casts;
}

const DEFINITION = new SettingsDefinition([
  {
    name: "spec",
    type: "list",
    required: true,
    importance: "high",
    doc: "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, float32, float64, boolean, and string. Note that binary fields can only be cast to string.",
    validate: (value) => {
      parseCastSpec(Array.isArray(value) ? value : []);
      return undefined;
    },
  },
  REPLACE_NULL_WITH_DEFAULT,
]);

const PURPOSE = "cast types";

export class Cast<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private casts: CastSpec = new Map();
  private wholeValueCastType: Type | null = null;
  private readonly schemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.casts = parseCastSpec(s.list("spec"));
    this.wholeValueCastType = this.casts.get(null) ?? null;
  }

  apply(record: R): R {
    const value = this.operatingValue(record);
    if (value === null) return record;
    const schema = this.operatingSchema(record);
    return schema === null ? this.applySchemaless(record, value) : this.applyWithSchema(record, schema, value);
  }

  private applySchemaless(record: R, raw: unknown): R {
    if (this.wholeValueCastType !== null)
      return this.withOperating(record, null, castValueToType(null, raw, this.wholeValueCastType));
    const value = requireMap(raw, PURPOSE);
    const updated = mapCopy(value);
    for (const [name, type] of this.casts)
      if (name !== null) updated.set(name, castValueToType(null, mapGet(value, name), type));
    return this.withOperating(record, null, mapLike(updated, value));
  }

  private applyWithSchema(record: R, schema: Schema, raw: unknown): R {
    const updatedSchema = this.schemaCache.getOrCompute(schema, (s) => this.updatedSchema(s));
    if (this.wholeValueCastType !== null)
      return this.withOperating(record, updatedSchema, castValueToType(schema, raw, this.wholeValueCastType));
    const value = requireStruct(raw, PURPOSE);
    const updated = copyFields(value, new Struct(updatedSchema), this.replaceNullWithDefault, (f, original) => {
      const target = this.casts.get(f.name);
      return target === undefined ? original : castValueToType(f.schema, original, target);
    });
    return this.withOperating(record, updatedSchema, updated);
  }

  private updatedSchema(schema: Schema): Schema {
    let builder: SchemaBuilder;
    if (this.wholeValueCastType !== null) {
      // As in Kafka, the whole-value cast keeps the original's name, version, doc and parameters.
      builder = copySchemaBasics(schema, new SchemaBuilder(this.wholeValueCastType));
    } else {
      builder = copySchemaBasics(schema, SchemaBuilder.struct());
      for (const f of schema.fields) {
        const target = this.casts.get(f.name);
        if (target === undefined) {
          builder.field(f.name, f.schema);
          continue;
        }
        const fieldBuilder = new SchemaBuilder(target);
        if (f.schema.optional) fieldBuilder.optional();
        if (f.schema.defaultValue !== null)
          fieldBuilder.defaultValue(castValueToType(f.schema, f.schema.defaultValue, target));
        builder.field(f.name, fieldBuilder.build());
      }
    }
    if (schema.optional) builder.optional();
    if (schema.defaultValue !== null) builder.defaultValue(castValueToType(schema, schema.defaultValue, builder.type));
    return builder.build();
  }
}

export function castValueToType(schema: Schema | null, value: unknown, target: Type): unknown {
  if (value === null || value === undefined) return null;
  const inputType = schema === null ? connectTypeOf(value) : schema.type;
  if (inputType === null)
    throw new DataException(
      `Cast transformation was passed a value of type ${javaClassName(value)} which is not supported by Connect's data API`,
    );
  if (!INPUT_TYPES.includes(inputType))
    throw new DataException(
      `Cast transformation does not support casting from ${inputType}; supported types are [${INPUT_TYPES.join(", ")}]`,
    );
  let v: unknown = value;
  // Date/Time/Timestamp become their integer encodings unless the target is a string.
  if (schema !== null && schema.name !== null && target !== "STRING") v = encodeLogical(schema, v);
  const floating = inputType === "FLOAT32" || inputType === "FLOAT64";
  try {
    switch (target) {
      case "INT8":
        return Number(typeof v === "string" ? javaParseInteger(v, 8) : BigInt.asIntN(8, toJavaInt(v, floating, 32)));
      case "INT16":
        return Number(typeof v === "string" ? javaParseInteger(v, 16) : BigInt.asIntN(16, toJavaInt(v, floating, 32)));
      case "INT32":
        return Number(toJavaInt(v, floating, 32));
      case "INT64":
        return toJavaInt(v, floating, 64);
      case "FLOAT32":
        return Math.fround(toDouble(v));
      case "FLOAT64":
        return toDouble(v);
      case "BOOLEAN":
        if (typeof v === "boolean") return v;
        if (typeof v === "string") return v.toLowerCase() === "true";
        return toJavaInt(v, floating, 64) !== 0n;
      case "STRING":
        return castToString(v, schema);
      default:
        throw new DataException(`${target} is not supported in the Cast transformation.`);
    }
  } catch (e) {
    if (e instanceof JavaNumberFormatError)
      throw new DataException(`Value (${javaToString(value, schema)}) was out of range for requested data type`, {
        cause: e,
      });
    throw e;
  }
}

function encodeLogical(schema: Schema, value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  switch (schema.name) {
    case ConnectDate.LOGICAL_NAME:
      return ConnectDate.fromLogical(schema, value);
    case Time.LOGICAL_NAME:
      return Time.fromLogical(schema, value);
    case Timestamp.LOGICAL_NAME:
      return Timestamp.fromLogical(schema, value);
  }
  return value;
}

const INT_LIMITS = { 32: [-(2n ** 31n), 2n ** 31n - 1n], 64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

/**
 * Number.intValue()/longValue() (width 32/64) of a value, as a bigint. Callers narrow further for
 * byte/short the way Java's (byte)/(short) casts do.
 */
function toJavaInt(v: unknown, floating: boolean, width: 32 | 64): bigint {
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "string") return javaParseInteger(v, width);
  if (typeof v === "bigint") return BigInt.asIntN(width, v);
  if (v instanceof BigDecimal) return BigInt.asIntN(width, bigDecimalToLong(v));
  if (typeof v === "number") {
    if (floating) {
      // double → int/long saturates, NaN is 0.
      if (Number.isNaN(v)) return 0n;
      const [min, max] = INT_LIMITS[width];
      if (v <= Number(min)) return min;
      if (v >= Number(max)) return max;
      return BigInt(Math.trunc(v));
    }
    return BigInt.asIntN(width, BigInt(v));
  }
  throw new DataException(`Unexpected type in Cast transformation: ${javaClassName(v)}`);
}

function toDouble(v: unknown): number {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof BigDecimal) return bigDecimalToDouble(v);
  if (typeof v === "string") return javaParseDouble(v);
  throw new DataException(`Unexpected type in Cast transformation: ${javaClassName(v)}`);
}

function castToString(v: unknown, schema: Schema | null): string {
  if (v instanceof Date) return dateFormatFor(v).format(v);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
  if (v instanceof BigDecimal) return v.toString();
  return javaToString(v, schema);
}
