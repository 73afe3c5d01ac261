// JSON as Avro's parser (Jackson's default tree model) sees it: integer and floating literals are
// different node kinds ("1.0" stays 1.0, "1e2" becomes 100.0), numbers print like Java's
// Double.toString, object keys keep their first position on duplicates and integer-looking keys are
// not reordered, comments are allowed. Reading and writing are jvm/json-text's.
import { javaDoubleToString, javaFloatToString } from "../../jvm/java-numbers.ts";
import { jsonString, JsonSyntaxError, readJsonTree, writeJsonTree, type JsonTree } from "../../jvm/json-text.ts";

/** Jackson numeric node kinds: IntNode, LongNode, BigIntegerNode, DoubleNode, FloatNode. */
export type JsonNumberKind = "int" | "long" | "bigint" | "double" | "float";

export class JsonNumber {
  private constructor(
    readonly kind: JsonNumberKind,
    /** Numeric value (approximate for longs beyond 2^53 and big integers; use `integer` there). */
    readonly value: number,
    /** Exact value of an integral node. */
    readonly integer: bigint | null,
  ) {}

  static ofInteger(v: bigint): JsonNumber {
    const kind: JsonNumberKind =
      v >= -2147483648n && v <= 2147483647n
        ? "int"
        : v >= -9223372036854775808n && v <= 9223372036854775807n
          ? "long"
          : "bigint";
    return new JsonNumber(kind, Number(v), v);
  }

  static ofDouble(v: number): JsonNumber {
    return new JsonNumber("double", v, null);
  }

  static ofFloat(v: number): JsonNumber {
    return new JsonNumber("float", Math.fround(v), null);
  }

  get isIntegral(): boolean {
    return this.integer !== null;
  }

  /** The token Jackson writes for this node. */
  toJson(): string {
    if (this.integer !== null) return this.integer.toString();
    const text = this.kind === "float" ? javaFloatToString(this.value) : javaDoubleToString(this.value);
    // Jackson quotes non-finite numbers by default (WRITE_NAN_AS_STRINGS).
    return Number.isFinite(this.value) ? text : jsonString(text, "string");
  }
}

/** Objects are Maps so that key order is exactly the source order (JS objects hoist integer keys). */
export type JsonValue = JsonTree<JsonNumber>;
export type JsonObject = Map<string, JsonValue>;

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v instanceof Map;
}

function jsonNumber(text: string, integral: boolean): JsonNumber {
  return integral ? JsonNumber.ofInteger(BigInt(text)) : JsonNumber.ofDouble(Number(text));
}

const danglingContent = (rest: string) => new JsonSyntaxError(`dangling content after end of schema: ${rest.trim()}`);

/**
 * Parses JSON the way Avro's Jackson factory does: comments allowed (Avro enables ALLOW_COMMENTS),
 * duplicate keys keep their first position with the last value, nothing but whitespace after the
 * root value. Returns undefined for input that holds no value at all (Jackson's readTree → null).
 */
export function parseJson(text: string): JsonValue | undefined {
  return readJsonTree(text, jsonNumber, { comments: true, trailing: danglingContent });
}

/** Jackson's string quoting for text written to a java.lang.String, as Avro's Schema.toString does. */
export function quoteJson(s: string): string {
  return jsonString(s, "string");
}

/** Compact JSON exactly as Jackson's JsonNode.toString()/writeTree produce it. */
export function writeJson(v: JsonValue): string {
  return writeJsonTree(v, (n) => n.toJson(), "string");
}
