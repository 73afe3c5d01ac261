// JSON as Confluent's JSON Schema provider sees it: Jackson's `readTree` with the registry's
// ObjectMapper (floats kept as exact BigDecimals, NaN/Infinity tokens allowed, nothing read after
// the root value) and Jackson's compact writer. Byte-exact canonical strings depend on these
// rules, which differ from JSON.parse/JSON.stringify: "1.50" stays 1.50, "1e5" prints as 1E+5,
// integer-looking keys keep their position, a duplicate key keeps its first position.
import { BigDecimal } from "../../jvm/big-decimal.ts";
import { jsonTreeEquals, readJsonTree, writeJsonTree, type JsonTree } from "../../jvm/json-text.ts";

/** An integral (Jackson Int/Long/BigIntegerNode) or decimal (DecimalNode, exact BigDecimal) number. */
export class JNumber {
  private constructor(
    readonly integral: boolean,
    /** Unscaled value; for integers the value itself. */
    readonly unscaled: bigint,
    /** BigDecimal scale (digits after the point; negative for E+ exponents). 0 for integers. */
    readonly scale: number,
  ) {}

  static integer(v: bigint): JNumber {
    return new JNumber(true, v, 0);
  }

  static decimal(unscaled: bigint, scale: number): JNumber {
    return new JNumber(false, unscaled, scale);
  }

  /** Java's BigDecimal.toString for decimals, plain digits for integers. */
  toString(): string {
    return this.integral ? this.unscaled.toString() : new BigDecimal(this.unscaled, this.scale).toString();
  }

  /** Java's Number.doubleValue(). */
  toNumber(): number {
    return Number(this.toString());
  }

  /** Java's equals on the boxed values org.json produces: same kind, and for decimals the same scale. */
  javaEquals(other: JNumber): boolean {
    return this.integral === other.integral && this.unscaled === other.unscaled && this.scale === other.scale;
  }

  /** BigDecimal.compareTo: numeric comparison regardless of kind and scale. */
  compare(other: JNumber): number {
    return new BigDecimal(this.unscaled, this.scale).compareTo(new BigDecimal(other.unscaled, other.scale));
  }

  /** BigDecimal remainder is zero: `this` is an exact multiple of `divisor` (non-zero). */
  isMultipleOf(divisor: JNumber): boolean {
    const s = Math.max(this.scale, divisor.scale, 0);
    const a = this.unscaled * 10n ** BigInt(s - this.scale);
    const b = divisor.unscaled * 10n ** BigInt(s - divisor.scale);
    return b !== 0n && a % b === 0n;
  }

  get isZero(): boolean {
    return this.unscaled === 0n;
  }
}

/** Objects are Maps so that key order is exactly the source order (JS objects hoist integer keys). */
export type JValue = JsonTree<JNumber>;
export type JObject = Map<string, JValue>;

export function isJObject(v: JValue | undefined): v is JObject {
  return v instanceof Map;
}

function jNumber(text: string, integral: boolean): JNumber {
  if (integral) return JNumber.integer(BigInt(text));
  const d = BigDecimal.parse(text);
  return JNumber.decimal(d.unscaled, d.scale);
}

/**
 * Jackson's `ObjectMapper.readTree`: the first JSON value of `text`, anything after it ignored
 * (FAIL_ON_TRAILING_TOKENS is off). Returns undefined when the text holds no value at all.
 * NaN/Infinity tokens become the strings Jackson writes for them.
 */
export function readTree(text: string): JValue | undefined {
  return readJsonTree(text, jNumber, { nonNumericNumbers: true });
}

/** Jackson's compact serialization (ObjectMapper.writeValueAsString of the tree). */
export function writeJson(v: JValue): string {
  return writeJsonTree(v, String, "string");
}

/** Plain JavaScript value (for ajv): objects as null-prototype-safe records, numbers as doubles. */
export function toPlain(v: JValue): unknown {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (v instanceof JNumber) return v.toNumber();
  if (Array.isArray(v)) return v.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const [k, val] of v) {
    Object.defineProperty(out, k, { value: toPlain(val), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Structural equality with Java's equals on the values org.json produces (Integer ≠ BigDecimal). */
export function javaJsonEquals(a: JValue, b: JValue): boolean {
  return jsonTreeEquals(a, b, (x, y) => x.javaEquals(y));
}

/** A string that values javaJsonEquals calls equal share (objects and arrays share one, coarse). */
export function javaEqualityKey(v: JValue): string {
  if (v instanceof JNumber) return `n${v.integral}:${v.unscaled}:${v.scale}`;
  if (typeof v === "string") return `s${v}`;
  if (v === null || typeof v === "boolean") return String(v);
  return Array.isArray(v) ? "[" : "{";
}

/** The tree of a plain JavaScript JSON value (numbers with a fraction become decimals). */
export function fromPlain(v: unknown): JValue {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") {
    const tree = readTree(String(v));
    return tree instanceof JNumber ? tree : String(v);
  }
  if (Array.isArray(v)) return v.map(fromPlain);
  if (typeof v === "object")
    return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromPlain(x)]));
  return null;
}
