// The schema model Confluent's JSON Schema compatibility check works on: the Everit
// (org.everit.json.schema) classes its loader builds. Compatibility depends on which class a
// keyword combination becomes (e.g. {"type":"string","minimum":1} is a synthetic allOf of a string
// and a number schema), so the loader reproduces those classes rather than the raw JSON.
import { JavaHashKeys } from "../../jvm/hash-order.ts";
import { writeJson, type JNumber, type JValue } from "./json.ts";

export type Criterion = "allOf" | "anyOf" | "oneOf";

/** An unprocessed keyword: raw JSON, or (json-sKema translation) an already translated schema. */
export type Unprocessed = { raw: JValue } | { schema: SchemaNode };

interface Base {
  id?: string;
  title?: string;
  description?: string;
  /** Present when the schema has a `default` (even `null`). */
  defaultValue?: { value: JValue };
  /** Keywords no loader consumed, in source order. */
  unprocessed: Map<string, Unprocessed>;
}

export interface EmptyNode extends Base {
  kind: "Empty";
}
/** `true`; Everit's TrueSchema is a subclass of EmptySchema but a different class. */
export interface TrueNode extends Base {
  kind: "True";
}
export interface FalseNode extends Base {
  kind: "False";
}
export interface NullNode extends Base {
  kind: "Null";
}
export interface BooleanNode extends Base {
  kind: "Boolean";
}
export interface StringNode extends Base {
  kind: "String";
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}
export interface NumberNode extends Base {
  kind: "Number";
  minimum?: JNumber;
  maximum?: JNumber;
  exclusiveMinimum?: JNumber;
  exclusiveMaximum?: JNumber;
  multipleOf?: JNumber;
  requiresInteger: boolean;
}
export interface ObjectNode extends Base {
  kind: "Object";
  /** Property schemas in source order; propertyOrder() gives the order Java iterates them in. */
  properties: Map<string, SchemaNode>;
  required: string[];
  additionalProperties: boolean;
  schemaOfAdditionalProperties?: SchemaNode;
  patternProperties: Array<[string, SchemaNode]>;
  minProperties?: number;
  maxProperties?: number;
  propertyDependencies: Map<string, string[]>;
  schemaDependencies: Map<string, SchemaNode>;
  propertyNames?: SchemaNode;
}
export interface ArrayNode extends Base {
  kind: "Array";
  allItemSchema?: SchemaNode;
  itemSchemas?: SchemaNode[];
  additionalItems: boolean;
  schemaOfAdditionalItems?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems: boolean;
  contains?: SchemaNode;
}
export interface EnumNode extends Base {
  kind: "Enum";
  values: JValue[];
}
export interface ConstNode extends Base {
  kind: "Const";
  value: JValue;
}
export interface CombinedNode extends Base {
  kind: "Combined";
  criterion: Criterion;
  subschemas: SchemaNode[];
  /** Built by the json-sKema translator from several keywords (CombinedSchemaExt.isGenerated). */
  generated: boolean;
}
export interface NotNode extends Base {
  kind: "Not";
  mustNotMatch: SchemaNode;
}
export interface ReferenceNode extends Base {
  kind: "Reference";
  refValue: string;
  /** Set once the target is loaded (targets may refer back to the reference). */
  referred?: SchemaNode;
}
export interface ConditionalNode extends Base {
  kind: "Conditional";
  ifSchema?: SchemaNode;
  thenSchema?: SchemaNode;
  elseSchema?: SchemaNode;
}

export type SchemaNode =
  | EmptyNode
  | TrueNode
  | FalseNode
  | NullNode
  | BooleanNode
  | StringNode
  | NumberNode
  | ObjectNode
  | ArrayNode
  | EnumNode
  | ConstNode
  | CombinedNode
  | NotNode
  | ReferenceNode
  | ConditionalNode;

export function baseProps(): Base {
  return { unprocessed: new Map() };
}

export function objectNode(): ObjectNode {
  return {
    kind: "Object",
    ...baseProps(),
    properties: new Map(),
    required: [],
    additionalProperties: true,
    patternProperties: [],
    propertyDependencies: new Map(),
    schemaDependencies: new Map(),
  };
}

export function arrayNode(): ArrayNode {
  return { kind: "Array", ...baseProps(), additionalItems: true, uniqueItems: false };
}

export function numberNode(): NumberNode {
  return { kind: "Number", ...baseProps(), requiresInteger: false };
}

export function combinedNode(criterion: Criterion, subschemas: SchemaNode[], generated = false): CombinedNode {
  return { kind: "Combined", ...baseProps(), criterion, subschemas, generated };
}

/** `instanceof EmptySchema` (TrueSchema included). */
export function isEmptyLike(n: SchemaNode): boolean {
  return n.kind === "Empty" || n.kind === "True";
}

/** SchemaDiff.schemaTypesEqual: same class, or both combined. */
export function sameClass(a: SchemaNode, b: SchemaNode): boolean {
  return a.kind === b.kind;
}

/** Property names in the order Java iterates the property HashMap. */
export function propertyOrder(n: ObjectNode): string[] {
  return JavaHashKeys.of(n.properties.keys()).keys();
}

/**
 * A printed form of a schema, equal for schemas Everit would print identically. Confluent wraps
 * combined subschemas into JsonSchema objects compared by that print to drop duplicates.
 */
export function printNode(n: SchemaNode, seen: Set<SchemaNode> = new Set()): string {
  const base = (): string[] => {
    const parts: string[] = [];
    if (n.id !== undefined) parts.push(`id=${n.id}`);
    if (n.title !== undefined) parts.push(`title=${n.title}`);
    if (n.description !== undefined) parts.push(`description=${n.description}`);
    if (n.defaultValue !== undefined) parts.push(`default=${writeJson(n.defaultValue.value)}`);
    for (const [k, v] of n.unprocessed) parts.push(`${k}=${"raw" in v ? writeJson(v.raw) : sub(v.schema)}`);
    return parts;
  };
  const sub = (s: SchemaNode | undefined): string => (s === undefined ? "-" : printNode(s, seen));
  if (n.kind === "Reference") return `{$ref:${JSON.stringify(n.refValue)},${base().join(",")}}`;
  if (seen.has(n)) return "{cycle}";
  seen.add(n);
  const parts = [n.kind, ...base()];
  switch (n.kind) {
    case "String":
      parts.push(`${n.minLength}/${n.maxLength}/${n.pattern}`);
      break;
    case "Number":
      parts.push(
        `${n.minimum}/${n.maximum}/${n.exclusiveMinimum}/${n.exclusiveMaximum}/${n.multipleOf}/${n.requiresInteger}`,
      );
      break;
    case "Object":
      for (const k of [...n.properties.keys()].sort()) parts.push(`p:${JSON.stringify(k)}=${sub(n.properties.get(k))}`);
      parts.push(
        `req:${JSON.stringify(n.required)}`,
        `ap:${n.additionalProperties}:${sub(n.schemaOfAdditionalProperties)}`,
      );
      for (const [p, s] of n.patternProperties) parts.push(`pp:${JSON.stringify(p)}=${sub(s)}`);
      parts.push(`${n.minProperties}/${n.maxProperties}`);
      for (const [k, v] of n.propertyDependencies) parts.push(`pd:${JSON.stringify(k)}=${JSON.stringify(v)}`);
      for (const [k, v] of n.schemaDependencies) parts.push(`sd:${JSON.stringify(k)}=${sub(v)}`);
      parts.push(`pn:${sub(n.propertyNames)}`);
      break;
    case "Array":
      parts.push(`items:${sub(n.allItemSchema)}`, `tuple:${n.itemSchemas?.map((s) => sub(s)).join(";") ?? "-"}`);
      parts.push(
        `ai:${n.additionalItems}:${sub(n.schemaOfAdditionalItems)}`,
        `${n.minItems}/${n.maxItems}/${n.uniqueItems}`,
      );
      parts.push(`contains:${sub(n.contains)}`);
      break;
    case "Enum":
      parts.push(writeJson(n.values));
      break;
    case "Const":
      parts.push(writeJson(n.value));
      break;
    case "Combined":
      parts.push(n.criterion, ...n.subschemas.map((s) => sub(s)));
      break;
    case "Not":
      parts.push(sub(n.mustNotMatch));
      break;
    case "Conditional":
      parts.push(sub(n.ifSchema), sub(n.thenSchema), sub(n.elseSchema));
      break;
    default:
      break;
  }
  seen.delete(n);
  return `{${parts.join(",")}}`;
}
