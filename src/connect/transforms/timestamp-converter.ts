// TimestampConverter$Key / TimestampConverter$Value: converts a timestamp (the whole key/value, or
// `field`) between a formatted string, unix time (unix.precision, bigint out), and Connect's Date,
// Time and Timestamp logical types; all in UTC. The source kind comes from the schema, or without one
// from the JS value (Date → Timestamp, integer → unix, string → string).
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import {
  ConnectDate,
  DataException,
  Schema,
  SchemaBuilder,
  Struct,
  Time,
  Timestamp,
  javaClassName,
} from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { DateParseError, SimpleDateFormat } from "../../jvm/simple-date-format.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireStructOrNull } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapCopy, mapGet, mapLike } from "./schemaless-map.ts";
import { copyFields, copySchemaBasics } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, configProblem } from "./transform-settings.ts";

type TimestampType = "string" | "unix" | "Date" | "Time" | "Timestamp";
type UnixPrecision = "seconds" | "milliseconds" | "microseconds" | "nanoseconds";

const DEFINITION = new SettingsDefinition([
  {
    name: "field",
    type: "string",
    default: "",
    importance: "high",
    doc: "The field containing the timestamp, or empty if the entire value is a timestamp",
  },
  {
    name: "target.type",
    type: "string",
    required: true,
    oneOf: ["string", "unix", "Date", "Time", "Timestamp"],
    importance: "high",
    doc: "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
  },
  {
    name: "format",
    type: "string",
    default: "",
    importance: "medium",
    doc: "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when type=string or used to parse the input if the input is a string.",
  },
  {
    name: "unix.precision",
    type: "string",
    default: "milliseconds",
    oneOf: ["nanoseconds", "microseconds", "milliseconds", "seconds"],
    importance: "low",
    doc: "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or nanoseconds. Used to generate the output when type=unix or used to parse the input if the input is a Long.",
  },
  REPLACE_NULL_WITH_DEFAULT,
]);

const PURPOSE = "converting timestamp formats";
const MILLIS_PER_DAY = 86_400_000;
const OPTIONAL_DATE_SCHEMA = ConnectDate.builder().optional().build();
const OPTIONAL_TIME_SCHEMA = Time.builder().optional().build();
const OPTIONAL_TIMESTAMP_SCHEMA = Timestamp.builder().optional().build();
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function typeSchema(type: TimestampType, optional: boolean): Schema {
  switch (type) {
    case "string":
      return optional ? Schema.OPTIONAL_STRING_SCHEMA : Schema.STRING_SCHEMA;
    case "unix":
      return optional ? Schema.OPTIONAL_INT64_SCHEMA : Schema.INT64_SCHEMA;
    case "Date":
      return optional ? OPTIONAL_DATE_SCHEMA : ConnectDate.SCHEMA;
    case "Time":
      return optional ? OPTIONAL_TIME_SCHEMA : Time.SCHEMA;
    case "Timestamp":
      return optional ? OPTIONAL_TIMESTAMP_SCHEMA : Timestamp.SCHEMA;
  }
}

/** TimeUnit conversions saturate at the long range. */
function saturate(n: bigint): bigint {
  return n < LONG_MIN ? LONG_MIN : n > LONG_MAX ? LONG_MAX : n;
}

export class TimestampConverter<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private field = "";
  private targetType: TimestampType = "Timestamp";
  private format: SimpleDateFormat | null = null;
  private unixPrecision: UnixPrecision = "milliseconds";
  private readonly schemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.field = s.string("field");
    this.targetType = s.string("target.type") as TimestampType;
    this.unixPrecision = s.string("unix.precision") as UnixPrecision;
    const pattern = s.string("format");
    if (this.targetType === "string" && pattern.trim() === "")
      throw configProblem(
        "format",
        "TimestampConverter requires format option to be specified when using string timestamps",
      );
    this.format = null;
    if (pattern.trim() !== "") {
      try {
        this.format = new SimpleDateFormat(pattern);
      } catch (e) {
        throw configProblem(
          "format",
          `TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: ${pattern} (${(e as Error).message})`,
        );
      }
    }
  }

  apply(record: R): R {
    const schema = this.operatingSchema(record);
    return schema === null ? this.applySchemaless(record) : this.applyWithSchema(record, schema);
  }

  private applyWithSchema(record: R, schema: Schema): R {
    const value = this.operatingValue(record);
    if (this.field === "")
      return this.withOperating(
        record,
        typeSchema(this.targetType, schema.optional),
        this.convert(value, typeFromSchema(schema)),
      );
    const struct = requireStructOrNull(value, PURPOSE);
    const updatedSchema = this.schemaCache.getOrCompute(schema, (s) => this.updatedSchema(s));
    return this.withOperating(
      record,
      updatedSchema,
      struct === null ? null : this.convertStruct(struct, updatedSchema),
    );
  }

  private updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const f of schema.fields)
      builder.field(f.name, f.name === this.field ? typeSchema(this.targetType, f.schema.optional) : f.schema);
    if (schema.optional) builder.optional();
    // Kafka also converts a struct-level default value; a Struct default cannot be attached to a
    // schema that is still being built here, so that (rare) default is dropped.
    return builder.build();
  }

  private convertStruct(value: Struct, schema: Schema): Struct {
    return copyFields(value, new Struct(schema), this.replaceNullWithDefault, (f, v) =>
      f.name === this.field ? this.convert(v, typeFromSchema(f.schema)) : v,
    );
  }

  private applySchemaless(record: R): R {
    const raw = this.operatingValue(record);
    if (raw === null || this.field === "") return this.withOperating(record, null, this.convert(raw, null));
    const value = requireMap(raw, PURPOSE);
    const updated = mapCopy(value);
    updated.set(this.field, this.convert(mapGet(value, this.field), null));
    return this.withOperating(record, null, mapLike(updated, value));
  }

  private convert(timestamp: unknown, sourceType: TimestampType | null): unknown {
    if (timestamp === null || timestamp === undefined) return null;
    const raw = this.toRaw(sourceType ?? inferType(timestamp), timestamp);
    return this.toType(raw);
  }

  private toRaw(type: TimestampType, value: unknown): Date {
    switch (type) {
      case "string": {
        if (typeof value !== "string")
          throw new DataException(`Expected string timestamp to be a String, but found ${javaClassName(value)}`);
        const format = this.format as SimpleDateFormat;
        try {
          return format.parse(value);
        } catch (e) {
          if (e instanceof DateParseError)
            throw new DataException(
              `Could not parse timestamp: value (${value}) does not match pattern (${format.toPattern()})`,
              { cause: e },
            );
          throw e;
        }
      }
      case "unix": {
        if (typeof value !== "bigint" && !(typeof value === "number" && Number.isSafeInteger(value)))
          throw new DataException(`Expected Unix timestamp to be a Long, but found ${javaClassName(value)}`);
        const n = BigInt(value);
        // TimeUnit conversions to millis: multiply (saturating) or divide (truncating).
        const millis =
          this.unixPrecision === "seconds"
            ? saturate(n * 1000n)
            : this.unixPrecision === "microseconds"
              ? n / 1000n
              : this.unixPrecision === "nanoseconds"
                ? n / 1_000_000n
                : n;
        return Timestamp.toLogical(Timestamp.SCHEMA, millis);
      }
      default:
        if (!(value instanceof Date))
          throw new DataException(`Expected ${type} to be a java.util.Date, but found ${javaClassName(value)}`);
        return value;
    }
  }

  private toType(date: Date): unknown {
    const ms = date.getTime();
    switch (this.targetType) {
      case "string":
        return (this.format as SimpleDateFormat).format(date);
      case "unix": {
        const millis = BigInt(ms);
        if (this.unixPrecision === "seconds") return millis / 1000n;
        if (this.unixPrecision === "microseconds") return saturate(millis * 1000n);
        if (this.unixPrecision === "nanoseconds") return saturate(millis * 1_000_000n);
        return millis;
      }
      case "Date":
        return new Date(ms - mod(ms, MILLIS_PER_DAY));
      case "Time":
        return new Date(mod(ms, MILLIS_PER_DAY));
      case "Timestamp":
        return date;
    }
  }
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

function typeFromSchema(schema: Schema): TimestampType {
  if (schema.name === Timestamp.LOGICAL_NAME) return "Timestamp";
  if (schema.name === ConnectDate.LOGICAL_NAME) return "Date";
  if (schema.name === Time.LOGICAL_NAME) return "Time";
  if (schema.type === "STRING") return "string";
  if (schema.type === "INT64") return "unix";
  throw new DataException(`Schema ${schema} does not correspond to a known timestamp type format`);
}

function inferType(value: unknown): TimestampType {
  if (value instanceof Date) return "Timestamp";
  if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) return "unix";
  if (typeof value === "string") return "string";
  throw new DataException(`TimestampConverter does not support ${javaClassName(value)} objects as timestamps`);
}
