// The parsed Avro schema (built by index.ts). Named types are shared objects: every reference to a
// name points at the defining node, as in Java, which compatibility memoization relies on.
import type { JsonObject, JsonValue } from "./json.ts";

export type PrimitiveType = "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string";
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
  "record",
  "enum",
  "array",
  "map",
  "union",
  "fixed",
  "string",
  "bytes",
  "int",
  "long",
  "float",
  "double",
  "boolean",
  "null",
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

/** Java 1.12 NamedSchema.getAliases(): full names, ".name" for a null-namespace alias of a namespaced type. */
export function aliasStrings(s: NamedNode): string[] {
  const seen = new Set<string>();
  for (const a of s.aliases) seen.add(a.space === null && s.name.space !== null ? "." + a.name : a.full);
  return [...seen];
}
