// JSON text as Jackson 2.x reads and writes it, where that differs from JSON.parse/JSON.stringify.
// Every Jackson reader in Sluice (Avro's schema parser, the JSON Schema provider, Kafka's
// JsonConverter) goes through readJsonText, with options for the features their ObjectMappers
// turn on, and every writer quotes strings with jsonString.
//
// Reading: numbers reach the caller as their text (so 1.0, 1.50 and 2^64 keep what the caller's
// node kinds need), a repeated object key keeps its first position with the last value, nothing
// after the root value is read unless asked, and Jackson's StreamReadConstraints apply.
//
// Writing: control characters as \u00XX in upper-case hex (but \b \t \n \f \r short); everything
// else, "/" and U+2028 included, raw. A generator writing bytes (UTF8JsonGenerator: Kafka's
// serializers) also escapes every UTF-16 surrogate, paired or not, so "😀" becomes "\uD83D\uDE00";
// one writing a java.lang.String (writeValueAsString, JsonNode.toString) keeps them.

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

/** How the caller's tree is built from what the reader finds (strings, booleans and null are taken as they are, arrays as arrays). */
export interface JsonShape<V> {
  /** A number token: its text, and whether it is integral (no fraction, no exponent). */
  number(text: string, integral: boolean): V;
  /** An object, fields in source order; `start` and `end` delimit it in the text. */
  object(fields: Map<string, V>, start: number, end: number): V;
}

/** Jackson parser features the callers' ObjectMappers turn on (all off by default, as in Jackson). */
export interface JsonReadOptions {
  /** ALLOW_COMMENTS: `//` and `/* *\/` comments count as white space (Avro's parser turns it on). */
  comments?: boolean;
  /** ALLOW_NON_NUMERIC_NUMBERS: NaN, Infinity, +Infinity and -Infinity, read as the strings Jackson writes for them. */
  nonNumericNumbers?: boolean;
  /** ALLOW_LEADING_ZEROS_FOR_NUMBERS: `007` is a number. */
  leadingZeros?: boolean;
  /**
   * What follows the root value: unless given, it is not read (readTree with FAIL_ON_TRAILING_TOKENS
   * off); given, anything but white space (and comments) after it is refused with the error it returns.
   */
  trailing?: (rest: string) => Error;
}

// Jackson's StreamReadConstraints defaults.
export const MAX_NESTING_DEPTH = 1000;
/** Jackson's StreamWriteConstraints default: a generator refuses to write deeper documents. */
export const MAX_WRITE_NESTING_DEPTH = 1000;
const MAX_NUMBER_LENGTH = 1000;
const MAX_STRING_LENGTH = 20_000_000;
const MAX_NAME_LENGTH = 50_000;

/** The first JSON value of `text`, built with `shape`; undefined when the text holds none (only white space). */
export function readJsonText<V>(text: string, shape: JsonShape<V>, options: JsonReadOptions = {}): V | undefined {
  return new Reader<V>(text, shape, options).root();
}

class Reader<V> {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly shape: JsonShape<V>,
    private readonly options: JsonReadOptions,
  ) {}

  root(): V | undefined {
    this.skipSpace();
    if (this.pos >= this.text.length) return undefined;
    const c = this.text.charCodeAt(this.pos);
    const node = this.value();
    // Jackson wants white space (or the end) after a root-level number.
    if (
      ((c >= 0x30 && c <= 0x39) || c === 0x2d) &&
      typeof node !== "string" &&
      this.pos < this.text.length &&
      !isSpace(this.text.charCodeAt(this.pos))
    )
      this.fail(`Unexpected character ${describe(this.text, this.pos)}: Expected space separating root-level values`);
    if (this.options.trailing !== undefined) {
      this.skipSpace();
      if (this.pos < this.text.length) throw this.options.trailing(this.text.slice(this.pos));
    }
    return node;
  }

  private value(): V {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b:
        return this.object();
      case 0x5b:
        return this.array();
      case 0x22:
        return this.string(MAX_STRING_LENGTH) as V;
      case 0x74:
        return this.literal("true", true);
      case 0x66:
        return this.literal("false", false);
      case 0x6e:
        return this.literal("null", null);
    }
    if (this.options.nonNumericNumbers) {
      for (const [token, value] of NON_NUMERIC)
        if (this.text.startsWith(token, this.pos)) return this.literal(token, value);
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    return this.fail(`Unexpected character ${describe(this.text, this.pos)}: expected a valid value`);
  }

  private object(): V {
    const start = this.pos;
    const fields = new Map<string, V>();
    this.enter();
    this.pos++;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
    } else {
      for (;;) {
        if (this.text.charCodeAt(this.pos) !== 0x22)
          this.fail(
            `Unexpected character ${describe(this.text, this.pos)}: was expecting double-quote to start field name`,
          );
        const key = this.string(MAX_NAME_LENGTH);
        this.skipSpace();
        if (this.text.charCodeAt(this.pos) !== 0x3a)
          this.fail(
            `Unexpected character ${describe(this.text, this.pos)}: was expecting a colon to separate field name and value`,
          );
        this.pos++;
        this.skipSpace();
        fields.set(key, this.value()); // Map.set keeps the first position, as ObjectNode.replace does
        this.skipSpace();
        const c = this.text.charCodeAt(this.pos);
        if (c !== 0x7d && c !== 0x2c)
          this.fail(
            `Unexpected character ${describe(this.text, this.pos)}: was expecting comma to separate Object entries`,
          );
        this.pos++;
        if (c === 0x7d) break;
        this.skipSpace();
      }
    }
    this.depth--;
    return this.shape.object(fields, start, this.pos);
  }

  private array(): V {
    const items: V[] = [];
    this.enter();
    this.pos++;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
    } else {
      for (;;) {
        items.push(this.value());
        this.skipSpace();
        const c = this.text.charCodeAt(this.pos);
        if (c !== 0x5d && c !== 0x2c)
          this.fail(
            `Unexpected character ${describe(this.text, this.pos)}: was expecting comma to separate Array entries`,
          );
        this.pos++;
        if (c === 0x5d) break;
        this.skipSpace();
      }
    }
    this.depth--;
    return items as V;
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING_DEPTH)
      this.fail(`Document nesting depth (${this.depth}) exceeds the maximum allowed (${MAX_NESTING_DEPTH})`);
  }

  private string(maxLength: number): string {
    const text = this.text;
    const start = ++this.pos;
    // Fast path: no escapes.
    let i = start;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22 || c === 0x5c || c < 0x20) break;
    }
    if (text.charCodeAt(i) === 0x22) {
      this.pos = i + 1;
      if (i - start > maxLength)
        this.fail(`String value length (${i - start}) exceeds the maximum allowed (${maxLength})`);
      return text.slice(start, i);
    }
    let out = text.slice(start, i);
    for (;;) {
      if (i >= text.length) {
        this.pos = i;
        this.fail("Unexpected end-of-input in a String value");
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) {
        this.pos = i;
        this.fail(
          `Illegal unquoted character ((CTRL-CHAR, code ${c})): has to be escaped using backslash to be included in string value`,
        );
      }
      if (c !== 0x5c) {
        out += text[i];
        i++;
        continue;
      }
      const e = text[i + 1];
      i += 2;
      switch (e) {
        case '"':
        case "\\":
        case "/":
          out += e;
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u": {
          const hex = text.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            this.pos = i;
            this.fail("Unexpected character in a \\u escape: expected a hex-digit");
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          this.pos = i - 1;
          this.fail(`Unrecognized character escape ${describe(text, i - 1)}`);
      }
    }
    this.pos = i + 1;
    if (out.length > maxLength)
      this.fail(`String value length (${out.length}) exceeds the maximum allowed (${maxLength})`);
    return out;
  }

  private number(): V {
    const text = this.text;
    const start = this.pos;
    let i = start;
    if (text.charCodeAt(i) === 0x2d) i++;
    const intStart = i;
    while (isDigit(text.charCodeAt(i))) i++;
    if (i === intStart) {
      this.pos = i;
      this.fail(`Unexpected character ${describe(text, i)} in numeric value: expected digit`);
    }
    if (!this.options.leadingZeros && text.charCodeAt(intStart) === 0x30 && i - intStart > 1) {
      this.pos = intStart;
      this.fail("Invalid numeric value: Leading zeroes not allowed");
    }
    let integral = true;
    if (text.charCodeAt(i) === 0x2e) {
      integral = false;
      const fractionStart = ++i;
      while (isDigit(text.charCodeAt(i))) i++;
      if (i === fractionStart) {
        this.pos = i;
        this.fail(`Unexpected character ${describe(text, i)} in numeric value: Decimal point not followed by a digit`);
      }
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      integral = false;
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      const expStart = i;
      while (isDigit(text.charCodeAt(i))) i++;
      if (i === expStart) {
        this.pos = i;
        this.fail(
          `Unexpected character ${describe(text, i)} in numeric value: Exponent indicator not followed by a digit`,
        );
      }
    }
    if (i - start > MAX_NUMBER_LENGTH)
      this.fail(`Number value length (${i - start}) exceeds the maximum allowed (${MAX_NUMBER_LENGTH})`);
    this.pos = i;
    return this.shape.number(text.slice(start, i), integral);
  }

  private literal<T extends V | boolean | string | null>(word: string, value: T): V {
    const unrecognized = () =>
      this.fail(
        `Unrecognized token '${this.token()}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')`,
      );
    if (!this.text.startsWith(word, this.pos)) unrecognized();
    this.pos += word.length;
    // "truex" is one unknown token, not true followed by x.
    if (isIdentifierPart(this.text.charCodeAt(this.pos))) {
      this.pos -= word.length;
      unrecognized();
    }
    return value as V;
  }

  private token(): string {
    let end = this.pos;
    while (end < this.text.length && isIdentifierPart(this.text.charCodeAt(end))) end++;
    return this.text.slice(this.pos, Math.max(end, this.pos + 1));
  }

  private skipSpace(): void {
    const text = this.text;
    let i = this.pos;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) {
        i++;
      } else if (c === 0x2f && this.options.comments) {
        i = this.skipComment(i);
      } else if (c < 0x20) {
        this.pos = i;
        this.fail(
          `Illegal character ((CTRL-CHAR, code ${c})): only regular white space (\\r, \\n, \\t) is allowed between tokens`,
        );
      } else {
        break;
      }
    }
    this.pos = i;
  }

  /** The position after the comment starting at `i` (a '/'). */
  private skipComment(i: number): number {
    const text = this.text;
    const next = text[i + 1];
    if (next === "/") {
      const nl = text.indexOf("\n", i);
      return nl < 0 ? text.length : nl + 1;
    }
    if (next === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) {
        this.pos = text.length;
        this.fail("Unexpected end-of-input in a comment");
      }
      return end + 2;
    }
    this.pos = i + 1;
    return this.fail(`Unexpected character ${describe(text, i + 1)}: was expecting either '*' or '/' for a comment`);
  }

  private fail(message: string): never {
    if (this.pos >= this.text.length && !message.startsWith("Unexpected end")) message = "Unexpected end-of-input";
    const before = this.text.slice(0, this.pos);
    const line = before.split("\n").length;
    const column = this.pos - before.lastIndexOf("\n");
    throw new JsonSyntaxError(`${message} at line ${line}, column ${column}`);
  }
}

const NON_NUMERIC: readonly (readonly [string, string])[] = [
  ["NaN", "NaN"],
  ["Infinity", "Infinity"],
  ["+Infinity", "Infinity"],
  ["-Infinity", "-Infinity"],
];

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isIdentifierPart(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x24 ||
    c > 0x7f
  );
}

function describe(text: string, pos: number): string {
  if (pos >= text.length) return "(end-of-input)";
  return `('${text[pos]}' (code ${text.charCodeAt(pos)}))`;
}

/**
 * The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count),
 * for checking Jackson's nesting limit without building a tree; the scan stops once past `limit`.
 */
export function jsonNestingDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length && max <= limit; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * Why `text` is not one JSON value, in Jackson's words, for a request body JSON.parse refused (its
 * messages are the JavaScript engine's own).
 */
export function jsonSyntaxProblem(text: string): string {
  try {
    const read = readJsonText(
      text,
      { number: () => null, object: () => null },
      {
        trailing: (rest) => new JsonSyntaxError(`Unexpected content after the JSON value: ${rest.slice(0, 20)}`),
      },
    );
    if (read === undefined) return "No content to map due to end-of-input";
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err.message;
  }
  return "Malformed JSON";
}

// ---------------------------------------------------------------------------------------------
// Trees of Maps: Jackson's ObjectNode order (source order, not JS's integer-keys-first)

/** A JSON tree whose objects are Maps and whose numbers are the caller's number nodes `N`. */
export type JsonTree<N> = null | boolean | string | N | JsonTree<N>[] | Map<string, JsonTree<N>>;

/** Reads a JsonTree: `number` builds the number nodes. */
export function readJsonTree<N>(
  text: string,
  number: (text: string, integral: boolean) => N,
  options?: JsonReadOptions,
): JsonTree<N> | undefined {
  return readJsonText<JsonTree<N>>(text, { number, object: (fields) => fields }, options);
}

/** Where JSON text goes: a java.lang.String (writeValueAsString, JsonNode.toString) or bytes (writeValueAsBytes, Kafka's serializers). */
export type JacksonOutput = "string" | "bytes";

/** Compact JSON as Jackson writes a tree; `number` gives a number node's text. */
export function writeJsonTree<N>(v: JsonTree<N>, number: (n: N) => string, output: JacksonOutput): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return jsonString(v, output);
  if (Array.isArray(v)) return "[" + v.map((x) => writeJsonTree(x, number, output)).join(",") + "]";
  if (v instanceof Map) {
    let out = "{";
    let first = true;
    for (const [k, x] of v) {
      out += (first ? "" : ",") + jsonString(k, output) + ":" + writeJsonTree(x, number, output);
      first = false;
    }
    return out + "}";
  }
  return number(v);
}

/**
 * Jackson's JsonNode.equals on trees (and Everit's ObjectComparator.deepEquals on org.json's values,
 * which has the same shape): arrays element by element, objects as maps (key order does not count),
 * strings, booleans and null by value, number nodes by `numberEquals` (their node classes decide:
 * IntNode 1 is not DoubleNode 1.0). `N` is an object type.
 */
export function jsonTreeEquals<N>(a: JsonTree<N>, b: JsonTree<N>, numberEquals: (a: N, b: N) => boolean): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => jsonTreeEquals(x, b[i] as JsonTree<N>, numberEquals))
    );
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) {
      const y = b.get(k);
      if (y === undefined || !jsonTreeEquals(x, y, numberEquals)) return false;
    }
    return true;
  }
  return numberEquals(a as N, b as N);
}

/** The tree re-read with Confluent's sorting node factory: object keys in String.compareTo order at every level. */
export function sortedKeys<N>(v: JsonTree<N>): JsonTree<N> {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!(v instanceof Map)) return v;
  // String.compareTo compares UTF-16 code units, as JavaScript's default sort does.
  return new Map([...v.keys()].sort().map((k) => [k, sortedKeys(v.get(k) as JsonTree<N>)]));
}

// ---------------------------------------------------------------------------------------------
// Writing

const SHORT_ESCAPES: Record<number, string> = {
  0x08: "\\b",
  0x09: "\\t",
  0x0a: "\\n",
  0x0c: "\\f",
  0x0d: "\\r",
  0x22: '\\"',
  0x5c: "\\\\",
};
// Characters Jackson escapes: controls, '"' and '\\', and for byte output surrogates.
const NEEDS_ESCAPE = { string: /["\\\u0000-\u001f]/, bytes: /["\\\u0000-\u001f\ud800-\udfff]/ };

/** A JSON string literal as Jackson writes it to `output` (bytes unless said). */
export function jsonString(s: string, output: JacksonOutput = "bytes"): string {
  if (!NEEDS_ESCAPE[output].test(s)) return '"' + s + '"';
  const surrogates = output === "bytes";
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (!surrogates || c < 0xd800 || c > 0xdfff)) continue;
    out += s.slice(from, i) + (SHORT_ESCAPES[c] ?? "\\u" + c.toString(16).toUpperCase().padStart(4, "0"));
    from = i + 1;
  }
  return out + s.slice(from) + '"';
}

/** Standard base64 with padding, as Jackson writes binary nodes. */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

const utf8 = new TextEncoder();

/** Text → UTF-8 bytes. jsonString(…, "bytes") leaves no lone surrogate in the text, so nothing is replaced. */
export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}
