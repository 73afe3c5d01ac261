// Kafka Connect's logical types: a named primitive schema plus the conversion between the logical value
// and the primitive one that converters write. Values: Decimal ↔ BigDecimal, Date/Time/Timestamp ↔ Date.
import { BigDecimal } from "../../../jvm/big-decimal.ts";
import { javaParseInteger } from "../../../jvm/java-numbers.ts";
import { DataException } from "./errors.ts";
import { SchemaBuilder, type Schema } from "./schema.ts";

const MILLIS_PER_DAY = 24 * 60 * 60 * 1000;

/** org.apache.kafka.connect.data.Decimal: BYTES holding the big-endian two's-complement unscaled value. */
export const Decimal = {
  LOGICAL_NAME: "org.apache.kafka.connect.data.Decimal",
  SCALE_FIELD: "scale",

  builder(scale: number): SchemaBuilder {
    return SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).parameter(Decimal.SCALE_FIELD, String(scale)).version(1);
  },

  schema(scale: number): Schema {
    return Decimal.builder(scale).build();
  },

  /** The unscaled value's bytes, as BigInteger.toByteArray(); the value's scale must be the schema's. */
  fromLogical(schema: Schema, value: BigDecimal): Uint8Array {
    const schemaScale = decimalScale(schema);
    if (value.scale !== schemaScale)
      throw new DataException(
        `Decimal value has mismatching scale for given Decimal schema. Schema has scale ${schemaScale}, value has scale ${value.scale}.`,
      );
    return twosComplementBytes(value.unscaled);
  },

  toLogical(schema: Schema, value: Uint8Array): BigDecimal {
    return new BigDecimal(fromTwosComplement(value), decimalScale(schema));
  },

  /** The schema's `scale` parameter. */
  scale(schema: Schema): number {
    return decimalScale(schema);
  },
} as const;

function decimalScale(schema: Schema): number {
  const text = schema.parameters?.get(Decimal.SCALE_FIELD);
  if (text === undefined) throw new DataException("Invalid Decimal schema: scale parameter not found.");
  try {
    return Number(javaParseInteger(text, 32));
  } catch {
    throw new DataException("Invalid scale parameter found in Decimal schema: ");
  }
}

/** Minimal big-endian two's complement, exactly as java.math.BigInteger.toByteArray(). */
export function twosComplementBytes(value: bigint): Uint8Array {
  let length = 1;
  // Smallest length whose signed range holds the value.
  while (BigInt.asIntN(length * 8, value) !== value) length++;
  const bytes = new Uint8Array(length);
  let rest = BigInt.asUintN(length * 8, value);
  for (let i = length - 1; i >= 0; i--) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** new BigInteger(bytes): big-endian two's complement; empty input is an error, as in Java. */
export function fromTwosComplement(bytes: Uint8Array): bigint {
  if (bytes.length === 0) throw new DataException("Zero length BigInteger");
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return BigInt.asIntN(bytes.length * 8, BigInt("0x" + hex));
}

function checkName(schema: Schema, logicalName: string, what: string): void {
  if (schema.name !== logicalName)
    throw new DataException(`Requested conversion of ${what} object but the schema does not match.`);
}

function millis(value: Date): number {
  const ms = value.getTime();
  if (Number.isNaN(ms)) throw new DataException("Invalid Date: the instant is not a number");
  return ms;
}

/**
 * org.apache.kafka.connect.data.Date: INT32 days since the epoch; the value is a Date at UTC midnight.
 * (Named ConnectDate so it does not shadow the JS Date it converts to.)
 */
export const ConnectDate = {
  LOGICAL_NAME: "org.apache.kafka.connect.data.Date",

  builder(): SchemaBuilder {
    return SchemaBuilder.int32().name(ConnectDate.LOGICAL_NAME).version(1);
  },

  get SCHEMA(): Schema {
    return DATE_SCHEMA;
  },

  fromLogical(schema: Schema, value: Date): number {
    checkName(schema, ConnectDate.LOGICAL_NAME, "Date");
    const ms = millis(value);
    if (ms % MILLIS_PER_DAY !== 0)
      throw new DataException("Kafka Connect Date type should not have any time fields set to non-zero values.");
    return ms / MILLIS_PER_DAY;
  },

  toLogical(schema: Schema, days: number): Date {
    checkName(schema, ConnectDate.LOGICAL_NAME, "Date");
    return new Date(days * MILLIS_PER_DAY);
  },
} as const;

/** org.apache.kafka.connect.data.Time: INT32 milliseconds since midnight; the value is a Date on 1970-01-01 UTC. */
export const Time = {
  LOGICAL_NAME: "org.apache.kafka.connect.data.Time",

  builder(): SchemaBuilder {
    return SchemaBuilder.int32().name(Time.LOGICAL_NAME).version(1);
  },

  get SCHEMA(): Schema {
    return TIME_SCHEMA;
  },

  fromLogical(schema: Schema, value: Date): number {
    checkName(schema, Time.LOGICAL_NAME, "Time");
    const ms = millis(value);
    // Kafka admits exactly 86400000 too.
    if (ms < 0 || ms > MILLIS_PER_DAY)
      throw new DataException("Kafka Connect Time type should not have any date fields set to non-zero values.");
    return ms;
  },

  toLogical(schema: Schema, ms: number): Date {
    // Kafka's message says "Date" here.
    checkName(schema, Time.LOGICAL_NAME, "Date");
    if (ms < 0 || ms > MILLIS_PER_DAY)
      throw new DataException("Time values must use number of milliseconds greater than 0 and less than 86400000");
    return new Date(ms);
  },
} as const;

/** org.apache.kafka.connect.data.Timestamp: INT64 milliseconds since the epoch. */
export const Timestamp = {
  LOGICAL_NAME: "org.apache.kafka.connect.data.Timestamp",

  builder(): SchemaBuilder {
    return SchemaBuilder.int64().name(Timestamp.LOGICAL_NAME).version(1);
  },

  get SCHEMA(): Schema {
    return TIMESTAMP_SCHEMA;
  },

  fromLogical(schema: Schema, value: Date): bigint {
    checkName(schema, Timestamp.LOGICAL_NAME, "Timestamp");
    return BigInt(millis(value));
  },

  /** A JS Date holds ±8.64e15 ms; beyond that (which Java's Date could hold) this fails. */
  toLogical(schema: Schema, ms: number | bigint): Date {
    checkName(schema, Timestamp.LOGICAL_NAME, "Timestamp");
    const date = new Date(Number(ms));
    if (Number.isNaN(date.getTime())) throw new DataException(`Timestamp ${ms} is outside the range of a JS Date`);
    return date;
  },
} as const;

const DATE_SCHEMA = ConnectDate.builder().build();
const TIME_SCHEMA = Time.builder().build();
const TIMESTAMP_SCHEMA = Timestamp.builder().build();

/** Names of the logical types above. */
export const LOGICAL_NAMES: ReadonlySet<string> = new Set([
  Decimal.LOGICAL_NAME,
  ConnectDate.LOGICAL_NAME,
  Time.LOGICAL_NAME,
  Timestamp.LOGICAL_NAME,
]);
