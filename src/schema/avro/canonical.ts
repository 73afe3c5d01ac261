// Exact text forms of an Avro schema as Confluent Schema Registry produces them:
// - canonicalString(): Java Avro 1.12 `Schema.toString(referencedSchemas, false)`, the string Confluent
//   stores, hashes for identity and returns from GET /schemas/ids/{id};
// - normalizedSource(): Confluent `AvroSchemaUtils.toNormalizedString` (normalize=true). Confluent then
//   re-parses that text and stores *its* canonical string; index.ts does the re-parse.
//
// Byte-exactness needs Jackson's view of JSON, not JavaScript's: integer and floating literals are
// different node kinds ("1.0" stays 1.0, "1e2" becomes 100.0), numbers print like Java's
// Double.toString, object keys keep their first position on duplicates, and integer-looking keys are
// not reordered. So JSON is read and written with jvm/json-text, into Jackson's node kinds.

import { javaDoubleToString, javaFloatToString } from "../../jvm/java-numbers.ts";
import { jsonString, JsonSyntaxError, readJsonTree, sortedKeys, writeJsonTree, type JsonTree } from "../../jvm/json-text.ts";

// ---------------------------------------------------------------------------------------------
// JSON values as Jackson's tree model sees them

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

// ---------------------------------------------------------------------------------------------
// Parsed Avro schema model (built by index.ts). Named types are shared objects: every reference to
// a name points at the defining node, as in Java, which compatibility memoization relies on.

export type PrimitiveType = "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string";
export type AvroType = PrimitiveType | "record" | "enum" | "fixed" | "array" | "map" | "union";
export type FieldOrder = "ascending" | "descending" | "ignore";

/** Java's Schema.Name: simple name, namespace (null = none) and full name. */
export interface AvroName {
  readonly name: string;
  readonly space: string | null;
  readonly full: string;
}

/** A logical type Java recognised (valid for its schema); invalid ones stay plain props. */
export interface LogicalTypeInfo {
  readonly name: string;
  readonly precision?: number;
  readonly scale?: number;
}

interface NodeBase {
  /** Non-reserved attributes in source order, including logicalType. */
  readonly props: JsonObject;
  logicalType: LogicalTypeInfo | null;
}

export interface PrimitiveNode extends NodeBase {
  readonly type: PrimitiveType;
}

export interface FieldNode {
  readonly name: string;
  readonly pos: number;
  type: AvroNode;
  readonly doc: string | null;
  /** undefined = no default; JSON null = `"default": null`. */
  readonly defaultValue: JsonValue | undefined;
  readonly order: FieldOrder;
  /** Field aliases verbatim (not namespace-qualified), de-duplicated. */
  readonly aliases: readonly string[];
  readonly props: JsonObject;
}

export interface RecordNode extends NodeBase {
  readonly type: "record";
  readonly isError: boolean;
  readonly name: AvroName;
  readonly doc: string | null;
  readonly fields: FieldNode[];
  readonly aliases: readonly AvroName[];
}

export interface EnumNode extends NodeBase {
  readonly type: "enum";
  readonly name: AvroName;
  readonly doc: string | null;
  readonly symbols: readonly string[];
  readonly enumDefault: string | null;
  readonly aliases: readonly AvroName[];
}

export interface FixedNode extends NodeBase {
  readonly type: "fixed";
  readonly name: AvroName;
  readonly doc: string | null;
  readonly size: number;
  readonly aliases: readonly AvroName[];
}

export interface ArrayNode extends NodeBase {
  readonly type: "array";
  items: AvroNode;
}

export interface MapNode extends NodeBase {
  readonly type: "map";
  values: AvroNode;
}

export interface UnionNode extends NodeBase {
  readonly type: "union";
  readonly branches: AvroNode[];
}

export type NamedNode = RecordNode | EnumNode | FixedNode;
export type AvroNode = PrimitiveNode | NamedNode | ArrayNode | MapNode | UnionNode;

export function isNamed(n: AvroNode): n is NamedNode {
  return n.type === "record" || n.type === "enum" || n.type === "fixed";
}

/** Java Schema.Type names; a name equal to one of these is always written fully qualified. */
const TYPE_NAMES = new Set<string>([
  "record", "enum", "array", "map", "union", "fixed",
  "string", "bytes", "int", "long", "float", "double", "boolean", "null",
]);

/** Name.getQualified: the short name only when in the default namespace and not a type name. */
export function qualifiedName(n: AvroName, defaultSpace: string | null): string {
  if (n.space !== null && n.space === defaultSpace && !TYPE_NAMES.has(n.name)) return n.name;
  return n.full;
}

/** Java's Schema.getFullName(): also defined for unnamed types (used in messages and union checks). */
export function fullNameOf(n: AvroNode): string {
  if (isNamed(n)) return n.name.full;
  if (n.type === "union") return "union[" + n.branches.map(simpleNameOf).join(", ") + "]";
  return n.type;
}

function simpleNameOf(n: AvroNode): string {
  return isNamed(n) ? n.name.name : n.type === "union" ? fullNameOf(n) : n.type;
}

// ---------------------------------------------------------------------------------------------
// Canonical string: Java Avro 1.12 Schema.toJson(knownNames, namespace, gen)

/**
 * Renders like Java's `schema.toString(referencedSchemas, false)`. `knownNames` are full names
 * written as name references from the start (Confluent passes the top-level names of the
 * referenced schemas); every other named type is written in full at its first occurrence.
 */
export function canonicalString(root: AvroNode, knownNames: Iterable<string> = []): string {
  const out: string[] = [];
  writeSchema(root, new Set(knownNames), null, out);
  return out.join("");
}

function writeProps(props: JsonObject, out: string[], skipFirst?: string): void {
  for (const [k, v] of props) {
    if (k === skipFirst) continue;
    out.push(",", quoteJson(k), ":", writeJson(v));
  }
}

/**
 * Props in Java's final order. Parsing resolves names by cloning records, arrays and maps, and the
 * clone gets its logical type (when Java recognised one) before the other properties.
 */
function writeContainerProps(node: RecordNode | ArrayNode | MapNode, out: string[]): void {
  const lt = node.logicalType ? node.props.get("logicalType") : undefined;
  if (lt !== undefined) {
    out.push(',"logicalType":', writeJson(lt));
    writeProps(node.props, out, "logicalType");
  } else {
    writeProps(node.props, out);
  }
}

function writeName(n: AvroName, currentSpace: string | null, out: string[]): void {
  out.push(',"name":', quoteJson(n.name));
  if (n.space !== null) {
    if (n.space !== currentSpace) out.push(',"namespace":', quoteJson(n.space));
  } else if (currentSpace !== null) {
    out.push(',"namespace":""'); // null namespace inside a non-null one
  }
}

function writeAliases(node: NamedNode, out: string[]): void {
  if (node.aliases.length === 0) return;
  out.push(',"aliases":[', node.aliases.map((a) => quoteJson(qualifiedName(a, node.name.space))).join(","), "]");
}

function writeSchema(node: AvroNode, known: Set<string>, space: string | null, out: string[]): void {
  switch (node.type) {
    case "record": {
      if (writtenBefore(node.name, known, space, out)) return;
      out.push('{"type":', node.isError ? '"error"' : '"record"');
      writeName(node.name, space, out);
      if (node.doc !== null) out.push(',"doc":', quoteJson(node.doc));
      out.push(',"fields":[');
      node.fields.forEach((f, i) => {
        out.push(i === 0 ? '{"name":' : ',{"name":', quoteJson(f.name), ',"type":');
        writeSchema(f.type, known, node.name.space, out);
        if (f.doc !== null) out.push(',"doc":', quoteJson(f.doc));
        if (f.defaultValue !== undefined) out.push(',"default":', writeJson(f.defaultValue));
        if (f.order !== "ascending") out.push(',"order":', quoteJson(f.order));
        if (f.aliases.length > 0) out.push(',"aliases":[', f.aliases.map(quoteJson).join(","), "]");
        writeProps(f.props, out);
        out.push("}");
      });
      out.push("]");
      writeContainerProps(node, out);
      writeAliases(node, out);
      out.push("}");
      return;
    }
    case "enum": {
      if (writtenBefore(node.name, known, space, out)) return;
      out.push('{"type":"enum"');
      writeName(node.name, space, out);
      if (node.doc !== null) out.push(',"doc":', quoteJson(node.doc));
      out.push(',"symbols":[', node.symbols.map(quoteJson).join(","), "]");
      if (node.enumDefault !== null) out.push(',"default":', quoteJson(node.enumDefault));
      writeProps(node.props, out);
      writeAliases(node, out);
      out.push("}");
      return;
    }
    case "fixed": {
      if (writtenBefore(node.name, known, space, out)) return;
      out.push('{"type":"fixed"');
      writeName(node.name, space, out);
      if (node.doc !== null) out.push(',"doc":', quoteJson(node.doc));
      out.push(',"size":', String(node.size));
      writeProps(node.props, out);
      writeAliases(node, out);
      out.push("}");
      return;
    }
    case "array":
      out.push('{"type":"array","items":');
      writeSchema(node.items, known, space, out);
      writeContainerProps(node, out);
      out.push("}");
      return;
    case "map":
      out.push('{"type":"map","values":');
      writeSchema(node.values, known, space, out);
      writeContainerProps(node, out);
      out.push("}");
      return;
    case "union":
      out.push("[");
      node.branches.forEach((b, i) => {
        if (i > 0) out.push(",");
        writeSchema(b, known, space, out);
      });
      out.push("]");
      return;
    default:
      if (node.props.size === 0) {
        out.push(quoteJson(node.type));
      } else {
        out.push('{"type":', quoteJson(node.type));
        writeProps(node.props, out);
        out.push("}");
      }
  }
}

// ---------------------------------------------------------------------------------------------
// Normalized source: Confluent AvroSchemaUtils.toNormalizedString (adapted by Confluent from Avro's
// SchemaNormalization). Full names everywhere, fixed key order, sorted props/aliases, every field
// with its "order", defaults converted through Avro's JacksonUtils.toObject and re-serialized with
// sorted object keys. The result may contain duplicate keys (logicalType is written twice); Jackson
// keeps the first position, and so does parseJson.

/** Confluent's normalized JSON text, before the re-parse that yields the stored string. */
export function normalizedSource(root: AvroNode, referenceNames: Iterable<string> = []): string {
  const env = new Set(referenceNames);
  const out: string[] = [];
  buildNormalized(root, env, out);
  return out.join("");
}

function buildNormalized(s: AvroNode, env: Set<string>, out: string[]): void {
  switch (s.type) {
    case "union":
      out.push("[");
      s.branches.forEach((b, i) => {
        if (i > 0) out.push(",");
        buildNormalized(b, env, out);
      });
      out.push("]");
      return;
    case "array":
    case "map":
      out.push('{"type":"', s.type, '"');
      if (s.type === "array") {
        out.push(',"items":');
        buildNormalized(s.items, env, out);
      } else {
        out.push(',"values":');
        buildNormalized(s.values, env, out);
      }
      if (s.logicalType) writeLogicalProps(s.logicalType, out);
      writeSortedProps(s.props, out);
      out.push("}");
      return;
    case "record":
    case "enum":
    case "fixed": {
      const name = s.name.full;
      const qname = '"' + name + '"';
      if (env.has(name)) {
        out.push(qname);
        return;
      }
      env.add(name);
      // Java writes Schema.Type names here, so an "error" record comes out as "record".
      out.push('{"name":', qname, ',"type":"', s.type, '"');
      if (s.type === "enum") {
        out.push(',"symbols":[', s.symbols.map((x) => '"' + x + '"').join(","), "]");
      } else if (s.type === "fixed") {
        out.push(',"size":', String(s.size));
      } else {
        out.push(',"fields":[');
        s.fields.forEach((f, i) => {
          out.push(i === 0 ? '{"name":"' : ',{"name":"', f.name, '","type":');
          buildNormalized(f.type, env, out);
          writeNormalizedFieldProps(f, out);
          out.push("}");
        });
        out.push("]");
      }
      if (s.logicalType) writeLogicalProps(s.logicalType, out);
      if (s.doc !== null && s.doc !== "") out.push(',"doc":', quoteJson(s.doc));
      const aliases = aliasStrings(s);
      if (aliases.length > 0) out.push(',"aliases":', writeJson(sortStrings(aliases)));
      if (s.type === "enum" && s.enumDefault !== null) out.push(',"default":', quoteJson(s.enumDefault));
      writeSortedProps(s.props, out);
      out.push("}");
      return;
    }
    default:
      if (s.logicalType) {
        out.push('{"type":"', s.type, '"');
        writeLogicalProps(s.logicalType, out);
        writeSortedProps(s.props, out);
        out.push("}");
      } else if (s.props.size > 0) {
        out.push('{"type":"', s.type, '"');
        writeSortedProps(s.props, out);
        out.push("}");
      } else {
        out.push('"', s.type, '"');
      }
  }
}

/** Java 1.12 NamedSchema.getAliases(): full names, ".name" for a null-namespace alias of a namespaced type. */
export function aliasStrings(s: NamedNode): string[] {
  const seen = new Set<string>();
  for (const a of s.aliases) seen.add(a.space === null && s.name.space !== null ? "." + a.name : a.full);
  return [...seen];
}

function sortStrings(xs: readonly string[]): string[] {
  // TreeSet / TreeMap order: String.compareTo, i.e. UTF-16 code units, which is JS's default sort.
  return [...new Set(xs)].sort();
}

function writeLogicalProps(lt: LogicalTypeInfo, out: string[]): void {
  out.push(',"logicalType":"', lt.name, '"');
  if (lt.name === "decimal") {
    out.push(',"precision":', String(lt.precision ?? 0));
    if ((lt.scale ?? 0) !== 0) out.push(',"scale":', String(lt.scale));
  }
}

function writeSortedProps(props: JsonObject, out: string[]): void {
  for (const key of sortStrings([...props.keys()])) {
    const v = props.get(key);
    if (v === undefined) continue;
    out.push(',"', key, '":', writeJson(sortedKeys(v)));
  }
}

function writeNormalizedFieldProps(f: FieldNode, out: string[]): void {
  out.push(',"order":"', f.order.toUpperCase(), '"'); // Field.Order.toString() is the constant name
  if (f.doc !== null) out.push(',"doc":', quoteJson(f.doc));
  if (f.aliases.length > 0) out.push(',"aliases":', writeJson(sortStrings(f.aliases)));
  if (f.defaultValue !== undefined) {
    const v = defaultToObject(f.defaultValue, f.type);
    if (v !== undefined) out.push(',"default":', writeJson(sortedKeys(v)));
  }
  writeSortedProps(f.props, out);
}

/**
 * Avro's JacksonUtils.toObject(node, schema) as seen through Confluent's genJson: the value Java
 * would write for a field default, or undefined where Java gets null (then no "default" is written).
 * A union converts against its first branch only, as in Java.
 */
function defaultToObject(node: JsonValue, schema: AvroNode | null): JsonValue | undefined {
  if (schema !== null && schema.type === "union") return defaultToObject(node, schema.branches[0] ?? null);
  const t = schema?.type;
  if (node === null) return null;
  if (typeof node === "boolean") return node;
  if (node instanceof JsonNumber) {
    if (node.kind === "int" || node.kind === "long") {
      if (t === undefined || t === "int" || t === "long") return node;
      if (t === "float") return JsonNumber.ofFloat(node.value);
      if (t === "double") return JsonNumber.ofDouble(node.value);
      return undefined;
    }
    if (node.kind === "double" || node.kind === "float") {
      if (t === "double" || (t === undefined && node.kind === "double")) return JsonNumber.ofDouble(node.value);
      if (t === "float" || t === undefined) return JsonNumber.ofFloat(node.value);
      return undefined;
    }
    return undefined; // BigIntegerNode: toObject has no branch for it
  }
  if (typeof node === "string") {
    if (t === undefined || t === "string" || t === "enum") return node;
    // bytes/fixed go through ISO-8859-1 both ways: chars above U+00FF become '?'.
    if (t === "bytes" || t === "fixed") return node.replace(/[^\u0000-\u00ff]/gu, "?");
    return undefined;
  }
  if (Array.isArray(node)) {
    const items = schema !== null && schema.type === "array" ? schema.items : null;
    return node.map((x) => defaultToObject(x, items) ?? null);
  }
  const m: JsonObject = new Map();
  for (const [k, v] of node) {
    let s: AvroNode | null = null;
    if (schema !== null && schema.type === "map") s = schema.values;
    else if (schema !== null && schema.type === "record") s = schema.fields.find((f) => f.name === k)?.type ?? null;
    m.set(k, defaultToObject(v, s) ?? null);
  }
  return m;
}

/** A named type is written in full once; later occurrences are name references (as Java's Names do). */
function writtenBefore(name: AvroName, known: Set<string>, space: string | null, out: string[]): boolean {
  if (known.has(name.full)) {
    out.push(quoteJson(qualifiedName(name, space)));
    return true;
  }
  known.add(name.full);
  return false;
}
