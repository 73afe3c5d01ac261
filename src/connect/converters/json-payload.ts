// A JsonConverter payload read with the engine's JSON.parse, for the records where that gives exactly
// what the Jackson-faithful reader (json-tree.ts) and JsonConverter's conversion give: most records, at
// a fraction of the cost. JSON.parse keeps no number text, so a number must be exact as a double, and
// whatever depends on how a number was written (1 or 1.0, -0) or would be refused is left to the full
// read, which answers as before: `SLOW` says so.
import { ConnectDate, Decimal, Struct, Time, Timestamp, type Schema } from "../api/data/index.ts";
import { decodeBase64, floatOfDouble, INT32_MAX, INT32_MIN } from "./json-tree.ts";

export const SLOW = Symbol("slow");

/**
 * Number tokens of at most 15 significant digits are exact as doubles, and a non-integral one never
 * rounds to an integer; a run of 16 digits and points (maybe inside a string) sends the record the full way.
 */
const LONG_NUMBER = /\d[\d.]{15}/;
/** Jackson refuses longer object keys (StreamReadConstraints): such texts take the full read. */
const MAX_TEXT = 50_000;
/** Date, Time and Timestamp refuse a non-integral number (1.0): a point or exponent anywhere, and the full read decides. */
const NON_INTEGRAL = /[.eE]/;

/**
 * The Connect value of `text` (a whole JSON value, decoded from valid UTF-8, nested less deep than
 * Jackson's limit) under `schema`, or SLOW where only the full read can answer (including every error).
 */
export function readPayload(schema: Schema, text: string, replaceNullWithDefault: boolean): unknown {
  if (text.length > MAX_TEXT || LONG_NUMBER.test(text)) return SLOW;
  if (integralSensitive(schema) && NON_INTEGRAL.test(text)) return SLOW;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return SLOW;
  }
  try {
    return convert(schema, parsed, replaceNullWithDefault);
  } catch {
    return SLOW;
  }
}

/** Throws (caught above) where JsonConverter's conversion would answer anything but a value. */
function convert(schema: Schema, v: unknown, replaceNull: boolean): unknown {
  if (v === null || v === undefined) {
    if (schema.defaultValue !== null && replaceNull) return schema.defaultValue;
    if (schema.optional) return null;
    throw SLOW;
  }
  switch (schema.name) {
    case Decimal.LOGICAL_NAME:
      // A number needs its text (the scale it was written with).
      if (typeof v !== "string") throw SLOW;
      return Decimal.toLogical(schema, decodeBase64(v));
    case ConnectDate.LOGICAL_NAME:
      return ConnectDate.toLogical(schema, int32(v));
    case Time.LOGICAL_NAME:
      return Time.toLogical(schema, int32(v));
    case Timestamp.LOGICAL_NAME:
      return Timestamp.toLogical(schema, BigInt(integer(v)));
  }
  switch (schema.type) {
    case "BOOLEAN":
      return v === true;
    case "INT8":
      return (integer(v) << 24) >> 24;
    case "INT16":
      return (integer(v) << 16) >> 16;
    case "INT32":
      return integer(v) | 0;
    case "INT64":
      return BigInt(integer(v));
    case "FLOAT32": {
      const f = floatOfDouble(float64(v));
      if (f === undefined) throw SLOW;
      return f;
    }
    case "FLOAT64":
      return float64(v);
    case "BYTES":
      return typeof v === "string" ? decodeBase64(v) : null;
    case "STRING":
      return typeof v === "string" ? v : null;
    case "ARRAY": {
      if (!Array.isArray(v)) throw SLOW;
      const elements = schema.valueSchema!;
      return v.map((e) => convert(elements, e, replaceNull));
    }
    case "MAP":
      return map(schema, v, replaceNull);
    case "STRUCT": {
      const object = plainObject(v);
      const struct = new Struct(schema);
      for (const field of schema.fields)
        struct.put(
          field,
          convert(field.schema, Object.hasOwn(object, field.name) ? object[field.name] : undefined, replaceNull),
        );
      return struct;
    }
  }
}

function map(schema: Schema, v: unknown, replaceNull: boolean): Map<unknown, unknown> {
  const keys = schema.keySchema!;
  const values = schema.valueSchema!;
  const result = new Map<unknown, unknown>();
  if (keys.type === "STRING") {
    const object = plainObject(v);
    for (const key in object) {
      // An object's integer-like keys come first in JavaScript; Jackson keeps the text's order.
      const first = key.charCodeAt(0);
      if (first >= 0x30 && first <= 0x39) throw SLOW;
      result.set(key, convert(values, object[key], replaceNull));
    }
    return result;
  }
  if (!Array.isArray(v)) throw SLOW;
  for (const entry of v) {
    if (!Array.isArray(entry) || entry.length !== 2) throw SLOW;
    result.set(convert(keys, entry[0], replaceNull), convert(values, entry[1], replaceNull));
  }
  return result;
}

function plainObject(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw SLOW;
  return v as Record<string, unknown>;
}

/** An integral number exact as a double (Jackson's value then is this one). */
function integer(v: unknown): number {
  if (!Number.isSafeInteger(v)) throw SLOW;
  return v as number;
}

function int32(v: unknown): number {
  const n = integer(v);
  if (n < INT32_MIN || n > INT32_MAX) throw SLOW;
  return n;
}

/** Jackson's doubleValue() is the nearest double too, but reads -0 as 0: that is left to the full read. */
function float64(v: unknown): number {
  if (typeof v !== "number" || Object.is(v, -0)) throw SLOW;
  return v;
}

const SENSITIVE = new WeakMap<Schema, boolean>();

/** Whether the schema holds a Date, Time or Timestamp, whose reading depends on how a number was written. */
function integralSensitive(schema: Schema): boolean {
  let sensitive = SENSITIVE.get(schema);
  if (sensitive === undefined) {
    sensitive =
      schema.name === ConnectDate.LOGICAL_NAME ||
      schema.name === Time.LOGICAL_NAME ||
      schema.name === Timestamp.LOGICAL_NAME ||
      (schema.type === "STRUCT" && schema.fields.some((f) => integralSensitive(f.schema))) ||
      ((schema.type === "ARRAY" || schema.type === "MAP") &&
        (integralSensitive(schema.valueSchema!) || (schema.type === "MAP" && integralSensitive(schema.keySchema!))));
    SENSITIVE.set(schema, sensitive);
  }
  return sensitive;
}
