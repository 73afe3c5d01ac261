// JSON as Confluent's JSON Schema provider sees it: Jackson's `readTree` with the registry's
// ObjectMapper (floats kept as exact BigDecimals, NaN/Infinity tokens allowed, nothing read after
// the root value) and Jackson's compact writer. Byte-exact canonical strings depend on these
// rules, which differ from JSON.parse/JSON.stringify: "1.50" stays 1.50, "1e5" prints as 1E+5,
// integer-looking keys keep their position, a duplicate key keeps its first position.
import { quoteJson } from "../avro/canonical.ts";

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
    if (this.integral) return this.unscaled.toString();
    const negative = this.unscaled < 0n;
    const coeff = (negative ? -this.unscaled : this.unscaled).toString();
    const sign = negative ? "-" : "";
    if (this.scale === 0) return sign + coeff;
    const adjusted = -this.scale + (coeff.length - 1);
    if (this.scale > 0 && adjusted >= -6) {
      if (coeff.length > this.scale) {
        const point = coeff.length - this.scale;
        return sign + coeff.slice(0, point) + "." + coeff.slice(point);
      }
      return sign + "0." + "0".repeat(this.scale - coeff.length) + coeff;
    }
    const mantissa = coeff.length > 1 ? coeff[0] + "." + coeff.slice(1) : coeff;
    return sign + mantissa + "E" + (adjusted >= 0 ? "+" : "") + adjusted;
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
    const s = Math.max(this.scale, other.scale);
    const a = this.unscaled * 10n ** BigInt(s - this.scale);
    const b = other.unscaled * 10n ** BigInt(s - other.scale);
    return a < b ? -1 : a > b ? 1 : 0;
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
export type JObject = Map<string, JValue>;
export type JValue = null | boolean | string | JNumber | JValue[] | JObject;

export function isJObject(v: JValue | undefined): v is JObject {
  return v instanceof Map;
}

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

const MAX_DEPTH = 1000; // Jackson's default StreamReadConstraints nesting limit
const MAX_NUMBER_LENGTH = 1000; // ... and number length limit

/**
 * Jackson's `ObjectMapper.readTree`: the first JSON value of `text`, anything after it ignored
 * (FAIL_ON_TRAILING_TOKENS is off). Returns undefined when the text holds no value at all.
 * NaN/Infinity tokens become the strings Jackson writes for them.
 */
export function readTree(text: string): JValue | undefined {
  const r = new Reader(text);
  r.skipBlank();
  if (r.atEnd()) return undefined;
  return r.readValue(0);
}

class Reader {
  pos = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.pos >= this.s.length;
  }

  private fail(what: string): never {
    const before = this.s.slice(0, this.pos);
    const line = before.split("\n").length;
    const column = this.pos - before.lastIndexOf("\n");
    if (this.pos >= this.s.length) what = "Unexpected end-of-input";
    throw new JsonSyntaxError(`${what} at line ${line}, column ${column}`);
  }

  skipBlank(): void {
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.pos++;
    }
  }

  readValue(depth: number): JValue {
    if (depth > MAX_DEPTH) this.fail(`Document nesting depth exceeds the maximum allowed (${MAX_DEPTH})`);
    this.skipBlank();
    const c = this.s[this.pos];
    switch (c) {
      case "{":
        return this.readObject(depth);
      case "[":
        return this.readArray(depth);
      case '"':
        return this.readString();
      case "t":
        return this.readWord("true", true);
      case "f":
        return this.readWord("false", false);
      case "n":
        return this.readWord("null", null);
      case "N":
        return this.readWord("NaN", "NaN");
      case "I":
        return this.readWord("Infinity", "Infinity");
      case "+":
        return this.readWord("+Infinity", "Infinity");
      default:
        if (c === "-" && this.s.startsWith("-Infinity", this.pos)) return this.readWord("-Infinity", "-Infinity");
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.readNumber();
        if (c === undefined) this.fail("Unexpected end-of-input");
        this.fail(`Unexpected character ('${c}' (code ${c.charCodeAt(0)}))`);
    }
  }

  private readWord<T extends JValue>(word: string, value: T): T {
    if (this.s.startsWith(word, this.pos)) {
      const after = this.s[this.pos + word.length];
      if (after === undefined || !/[A-Za-z0-9_$]/.test(after)) {
        this.pos += word.length;
        return value;
      }
    }
    const m = /^[^\s,:{}[\]"]+/.exec(this.s.slice(this.pos, this.pos + 256));
    this.fail(`Unrecognized token '${m ? m[0] : this.s[this.pos]}'`);
  }

  private readNumber(): JNumber {
    const m = /^-?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?/.exec(this.s.slice(this.pos, this.pos + MAX_NUMBER_LENGTH + 2));
    const next = m ? this.s[this.pos + m[0].length] : undefined;
    if (!m || (next !== undefined && /[0-9.eE+\-A-Za-z]/.test(next))) this.fail("Invalid numeric value");
    if (m[0].length > MAX_NUMBER_LENGTH) this.fail(`Number value length exceeds the maximum allowed (${MAX_NUMBER_LENGTH})`);
    this.pos += m[0].length;
    const negative = m[0].startsWith("-");
    const fraction = m[2];
    const exponent = m[3];
    if (fraction === undefined && exponent === undefined) {
      const v = BigInt(m[1]);
      return JNumber.integer(negative ? -v : v);
    }
    const digits = BigInt(m[1] + (fraction ?? ""));
    const scale = (fraction?.length ?? 0) - (exponent === undefined ? 0 : Number(exponent));
    return JNumber.decimal(negative ? -digits : digits, scale);
  }

  readString(): string {
    const s = this.s;
    this.pos++; // opening quote
    let out = "";
    let start = this.pos;
    for (;;) {
      if (this.pos >= s.length) this.fail("Unexpected end-of-input in a String value");
      const c = s.charCodeAt(this.pos);
      if (c === 0x22) {
        out += s.slice(start, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail(`Illegal unquoted character ((CTRL-CHAR, code ${c})): has to be escaped`);
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += s.slice(start, this.pos);
      const e = s[this.pos + 1];
      this.pos += 2;
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e !== undefined && e in simple) {
        out += simple[e];
      } else if (e === "u") {
        const hex = s.slice(this.pos, this.pos + 4);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail("Unexpected character in a unicode escape");
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 4;
      } else {
        this.pos--;
        this.fail(`Unrecognized character escape '${e ?? ""}'`);
      }
      start = this.pos;
    }
  }

  private readArray(depth: number): JValue[] {
    this.pos++;
    const out: JValue[] = [];
    this.skipBlank();
    if (this.s[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.readValue(depth + 1));
      this.skipBlank();
      const c = this.s[this.pos];
      if (c === "]") {
        this.pos++;
        return out;
      }
      if (c !== ",") this.fail("Unexpected character: expected a comma or ']' to close an array");
      this.pos++;
    }
  }

  private readObject(depth: number): JObject {
    this.pos++;
    const out: JObject = new Map();
    this.skipBlank();
    if (this.s[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipBlank();
      if (this.s[this.pos] !== '"') this.fail("Unexpected character: was expecting double-quote to start field name");
      const key = this.readString();
      this.skipBlank();
      if (this.s[this.pos] !== ":") this.fail("Unexpected character: was expecting a colon to separate field name and value");
      this.pos++;
      out.set(key, this.readValue(depth + 1)); // Map.set keeps the first position, as ObjectNode.replace does
      this.skipBlank();
      const c = this.s[this.pos];
      if (c === "}") {
        this.pos++;
        return out;
      }
      if (c !== ",") this.fail("Unexpected character: was expecting comma to separate Object entries");
      this.pos++;
    }
  }
}

/** Jackson's compact serialization (ObjectMapper.writeValueAsString of the tree). */
export function writeJson(v: JValue): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return quoteJson(v);
  if (v instanceof JNumber) return v.toString();
  if (Array.isArray(v)) return "[" + v.map(writeJson).join(",") + "]";
  const parts: string[] = [];
  for (const [k, val] of v) parts.push(quoteJson(k) + ":" + writeJson(val));
  return "{" + parts.join(",") + "}";
}

/** The tree re-read with Confluent's sorting node factory: object keys in String.compareTo order. */
export function sortKeys(v: JValue): JValue {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isJObject(v)) return v;
  // String.compareTo compares UTF-16 code units, as the default JS comparison does.
  const keys = [...v.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(keys.map((k) => [k, sortKeys(v.get(k) as JValue)]));
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
  if (a instanceof JNumber) return b instanceof JNumber && a.javaEquals(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => javaJsonEquals(x, b[i]));
  if (isJObject(a)) {
    if (!isJObject(b) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !javaJsonEquals(v, w)) return false;
    }
    return true;
  }
  return a === b;
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
  if (typeof v === "object") return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromPlain(x)]));
  return null;
}
