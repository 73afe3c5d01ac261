// A JSON tree read the way Kafka's JsonDeserializer (Jackson) reads it: numbers keep their text, so
// int64 and decimals lose nothing; leading zeros are allowed; duplicate keys keep the last value at the
// first position; anything after the first complete value is ignored; Jackson's read limits apply.
// The accessors below answer as Jackson's JsonNode does (intValue() of a string is 0, and so on),
// because JsonConverter's results depend on those answers.
import { BigDecimal } from "../../jvm/big-decimal.ts";
import { JsonSyntaxError, readJsonText, type JsonShape } from "../../jvm/json-text.ts";

export class JsonNumber {
  constructor(
    readonly text: string,
    /** No fraction and no exponent: Jackson's int/long/BigInteger nodes. */
    readonly integral: boolean,
  ) {}
}

export class JsonObject {
  constructor(
    readonly fields: Map<string, JsonNode>,
    /** Where the object starts and ends in the text it was read from. */
    readonly start: number,
    readonly end: number,
  ) {}
}

/** `undefined` stands for Jackson's MissingNode (absent field, empty input). */
export type JsonNode = null | boolean | string | JsonNumber | JsonNode[] | JsonObject;

const JSON_NODES: JsonShape<JsonNode> = {
  number: (text, integral) => new JsonNumber(text, integral),
  object: (fields, start, end) => new JsonObject(fields, start, end),
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the first JSON value of `bytes` (UTF-8); undefined when there is none (only white space).
 * `whole`: anything but white space after that value is refused too.
 */
export function readJson(bytes: Uint8Array, whole = false): { node: JsonNode | undefined; text: string } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new JsonSyntaxError("Invalid UTF-8");
  }
  return { node: readJsonString(text, whole), text };
}

/** readJson of text already decoded. */
export function readJsonString(text: string, whole = false): JsonNode | undefined {
  return readJsonText(text, JSON_NODES, whole ? WHOLE : FIRST);
}

const FIRST = { leadingZeros: true };
const WHOLE = { leadingZeros: true, trailing: () => new JsonSyntaxError("Trailing content") };

// ---- JsonNode accessors, with Jackson's answers ----

/** JsonNodeType names, as in JsonConverter's messages. */
export function nodeType(node: JsonNode | undefined): string {
  if (node === undefined) return "MISSING";
  if (node === null) return "NULL";
  switch (typeof node) {
    case "boolean":
      return "BOOLEAN";
    case "string":
      return "STRING";
  }
  if (node instanceof JsonNumber) return "NUMBER";
  return Array.isArray(node) ? "ARRAY" : "OBJECT";
}

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** isInt(): an integral number that fits an int (Jackson's IntNode). */
export function isInt(node: JsonNode | undefined): boolean {
  if (!(node instanceof JsonNumber) || !node.integral) return false;
  const value = integralValue(node);
  return value >= INT32_MIN && value <= INT32_MAX;
}

export function isIntegral(node: JsonNode | undefined): node is JsonNumber {
  return node instanceof JsonNumber && node.integral;
}

function integralValue(node: JsonNumber): number | bigint {
  // Up to 15 digits a double is exact; beyond, BigInt.
  return node.text.length <= 15 ? Number(node.text) : BigInt(node.text);
}

/** The integer part of a number (Java's BigDecimal.toBigInteger), only its low `bits` bits matter. */
function truncated(node: JsonNumber, bits: 32 | 64): bigint {
  if (node.integral) return BigInt(node.text);
  const d = BigDecimal.parse(node.text);
  // 10^64 is a multiple of 2^64: beyond that the low bits are all zero.
  if (d.scale < -bits) return 0n;
  if (d.scale <= 0) return d.unscaled * 10n ** BigInt(-d.scale);
  return d.scale > 1100 ? 0n : d.unscaled / 10n ** BigInt(d.scale);
}

/** intValue(): Java's narrowing of the number to int; 0 for anything not a number. */
export function intValue(node: JsonNode | undefined): number {
  if (!(node instanceof JsonNumber)) return 0;
  if (node.integral && node.text.length <= 15) return Number(node.text) | 0;
  return Number(BigInt.asIntN(32, truncated(node, 32)));
}

/** longValue(): Java's narrowing to long; 0 for anything not a number. */
export function longValue(node: JsonNode | undefined): bigint {
  if (!(node instanceof JsonNumber)) return 0n;
  return BigInt.asIntN(64, truncated(node, 64));
}

/** doubleValue(): nearest double; 0 for anything not a number (so "NaN" text reads as 0.0). */
export function doubleValue(node: JsonNode | undefined): number {
  if (!(node instanceof JsonNumber)) return 0;
  const d = Number(node.text);
  // BigDecimal has no negative zero: -0.0 reads as 0.0, a tiny negative as -0.0.
  if (d === 0 && !/[1-9]/.test(node.text.split(/[eE]/)[0] ?? "")) return 0;
  return d;
}

/** floatValue(): the float nearest to the number's exact value (not to its double). */
export function floatValue(node: JsonNode | undefined): number {
  const d = doubleValue(node);
  const rounded = floatOfDouble(d);
  if (rounded !== undefined) return rounded;
  // A tie: the exact text decides (anything but a number read as 0, which is no tie).
  const f = Math.fround(d);
  const other = nextFloatToward(f, d);
  const exact = exactCompare((node as JsonNumber).text, d);
  if (exact === 0) return f;
  return exact > 0 ? Math.max(f, other) : Math.min(f, other);
}

/**
 * The float nearest to a number read as the double `d`, or undefined when only its text can tell: rounding
 * twice (text → double → float) errs only when the double lands exactly between two floats.
 */
export function floatOfDouble(d: number): number | undefined {
  const f = Math.fround(d);
  if (f === d || !Number.isFinite(f)) return f;
  return (f + nextFloatToward(f, d)) / 2 === d ? undefined : f;
}

const FLOAT_BITS = new DataView(new ArrayBuffer(4));

function nextFloatToward(f: number, target: number): number {
  FLOAT_BITS.setFloat32(0, f);
  const bits = FLOAT_BITS.getInt32(0);
  // Moving away from zero increments the magnitude bits, toward zero decrements them.
  const away = target > f === f >= 0;
  FLOAT_BITS.setInt32(0, f === 0 ? (target > 0 ? 1 : 0x80000001) : away ? bits + 1 : bits - 1);
  return FLOAT_BITS.getFloat32(0);
}

/** Sign of (decimal text − d), exactly. */
function exactCompare(text: string, d: number): number {
  const dec = BigDecimal.parse(text);
  // d = mantissa × 2^exp exactly.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, d);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  if (biased !== 0) mantissa |= 1n << 52n;
  if (d < 0) mantissa = -mantissa;
  const exp = (biased === 0 ? 1 : biased) - 1075;
  // Compare unscaled × 10^-scale with mantissa × 2^exp, both scaled to integers.
  let left = dec.unscaled * (exp < 0 ? 1n << BigInt(-exp) : 1n);
  let right = mantissa * (exp > 0 ? 1n << BigInt(exp) : 1n);
  if (dec.scale > 0) right *= 10n ** BigInt(dec.scale);
  else left *= 10n ** BigInt(-dec.scale);
  return left === right ? 0 : left > right ? 1 : -1;
}

/** decimalValue(): exact, with the scale the text has (integers get scale 0). */
export function decimalValue(node: JsonNumber): BigDecimal {
  return node.integral ? new BigDecimal(BigInt(node.text), 0) : BigDecimal.parse(node.text);
}

export function booleanValue(node: JsonNode | undefined): boolean {
  return node === true;
}

export function textValue(node: JsonNode | undefined): string | null {
  return typeof node === "string" ? node : null;
}

/** binaryValue(): a string decoded as base64 (throws on bad base64); null for anything else. */
export function binaryValue(node: JsonNode | undefined): Uint8Array | null {
  return typeof node === "string" ? decodeBase64(node) : null;
}

const BASE64_VALUES = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

/**
 * Jackson's base64 reading (MIME-NO-LINEFEEDS): standard alphabet, padding required, white space
 * allowed only between 4-character groups.
 */
export function decodeBase64(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let n = 0;
  let i = 0;
  const sextet = (position: number): number => {
    const c = text.charCodeAt(position);
    const v = c < 128 ? (BASE64_VALUES[c] ?? -1) : -1;
    if (v < 0)
      throw new SyntaxError(`Illegal character '${text[position] ?? ""}' (code 0x${c.toString(16)}) in base64 content`);
    return v;
  };
  const requireMore = (position: number) => {
    if (position >= text.length)
      throw new SyntaxError(
        "Unexpected end of base64-encoded String: base64 variant 'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the end",
      );
  };
  for (;;) {
    while (i < text.length && text.charCodeAt(i) <= 0x20) i++;
    if (i >= text.length) break;
    const a = sextet(i++);
    requireMore(i);
    const b = sextet(i++);
    requireMore(i);
    if (text[i] === "=") {
      requireMore(i + 1);
      if (text[i + 1] !== "=")
        throw new SyntaxError(
          `Unexpected character '${text[i + 1]}' in base64 content: expected padding character '='`,
        );
      out[n++] = ((a << 2) | (b >> 4)) & 0xff;
      i += 2;
      continue;
    }
    const c = sextet(i++);
    requireMore(i);
    if (text[i] === "=") {
      out[n++] = ((a << 2) | (b >> 4)) & 0xff;
      out[n++] = ((b << 4) | (c >> 2)) & 0xff;
      i++;
      continue;
    }
    const d = sextet(i++);
    out[n++] = ((a << 2) | (b >> 4)) & 0xff;
    out[n++] = ((b << 4) | (c >> 2)) & 0xff;
    out[n++] = ((c << 6) | d) & 0xff;
  }
  return out.slice(0, n);
}

/** Values of an ARRAY node as Jackson iterates them: array items, an object's values, else none. */
export function elementsOf(node: JsonNode): JsonNode[] {
  if (Array.isArray(node)) return node;
  if (node instanceof JsonObject) return [...node.fields.values()];
  return [];
}
