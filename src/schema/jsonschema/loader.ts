// Builds the Everit-style model (model.ts) from schema JSON the way Confluent does:
// - drafts 4/6/7: Everit's SchemaLoader. Keyword "extractors" run in a fixed order over the keys
//   not yet consumed; one extracted schema is used as is, several become a synthetic allOf.
//   `$ref` ignores its siblings.
// - drafts 2019-09/2020-12: json-sKema loads one schema per keyword, and Confluent's
//   SchemaTranslator folds them into Everit classes (merging same-class parts, collecting the
//   rest into a generated allOf). `$ref` siblings apply.
import { InvalidSchemaError } from "../format.ts";
import { idKeyword, isModern, type Draft } from "./drafts.ts";
import { JavaHashKeys } from "../../jvm/hash-order.ts";
import { isJObject, JNumber, writeJson, type JObject, type JValue } from "./json.ts";
import {
  arrayNode,
  baseProps,
  combinedNode,
  numberNode,
  objectNode,
  type ArrayNode,
  type CombinedNode,
  type Criterion,
  type NumberNode,
  type ObjectNode,
  type ReferenceNode,
  type SchemaNode,
  type StringNode,
  type Unprocessed,
} from "./model.ts";
import { resolveUri, UnresolvableRefError, type Document, type RefResolver } from "./references.ts";
import { compileJavaPattern } from "./regex.ts";

interface Knot {
  referred?: SchemaNode;
  readonly refs: ReferenceNode[];
}

/** Order in which Everit's CombinedSchemaLoader emits allOf/anyOf/oneOf (a HashMap, then a HashSet). */
const COMBINED_KEYWORDS: readonly Criterion[] = (() => {
  const providers = new JavaHashKeys(3);
  for (const k of ["allOf", "anyOf", "oneOf"]) providers.add(k);
  return providers.keys() as Criterion[];
})();

const V4_OBJECT_KEYWORDS = [
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "dependencies",
  "patternProperties",
  "additionalProperties",
];
const V6_OBJECT_KEYWORDS = [...V4_OBJECT_KEYWORDS, "propertyNames"];
const V4_ARRAY_KEYWORDS = ["items", "additionalItems", "minItems", "maxItems", "uniqueItems"];
const V6_ARRAY_KEYWORDS = [...V4_ARRAY_KEYWORDS, "contains"];
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const STRING_KEYWORDS = ["minLength", "maxLength", "pattern", "format"];
const CONDITIONAL_KEYWORDS = ["if", "then", "else"];

/** Keywords json-sKema knows (others stay "unprocessed"). */
const MODERN_KEYWORDS = new Set([
  "$id",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$ref",
  "$defs",
  "$schema",
  "$vocabulary",
  "minLength",
  "maxLength",
  "allOf",
  "anyOf",
  "oneOf",
  "additionalProperties",
  "properties",
  "patternProperties",
  "title",
  "description",
  "readOnly",
  "writeOnly",
  "deprecated",
  "default",
  "enum",
  "const",
  "type",
  "not",
  "required",
  "maximum",
  "minimum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "multipleOf",
  "uniqueItems",
  "items",
  "prefixItems",
  "contains",
  "minContains",
  "maxContains",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependentRequired",
  "unevaluatedItems",
  "unevaluatedProperties",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "pattern",
  "format",
]);

function typeName(v: JValue | undefined): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return "Boolean";
  if (typeof v === "string") return "String";
  if (v instanceof JNumber) return v.integral ? "Integer" : "BigDecimal";
  if (Array.isArray(v)) return "JsonArray";
  return "JsonObject";
}

function fail(path: string, message: string): never {
  throw new InvalidSchemaError(`${path}: ${message}`);
}

export class SchemaLoader {
  private readonly knots = new Map<string, Knot>();
  private readonly modern: boolean;
  private readonly idKey: string;

  constructor(
    private readonly draft: Draft,
    private readonly resolver: RefResolver,
  ) {
    this.modern = isModern(draft);
    this.idKey = idKeyword(draft);
  }

  loadRoot(): SchemaNode {
    const main = this.resolver.main;
    return this.load(main.root, main, this.resolver.mainScope, "#");
  }

  private load(json: JValue, doc: Document, parentScope: string | null, path: string): SchemaNode {
    if (typeof json === "boolean") return json ? { kind: "True", ...baseProps() } : { kind: "False", ...baseProps() };
    if (!isJObject(json)) fail(path, `expected type: one of Boolean or JsonObject, found: ${typeName(json)}`);
    const id = json.get(this.idKey);
    const scope = typeof id === "string" ? resolveUri(parentScope, id) : parentScope;
    return this.modern ? this.loadModern(json, doc, scope, path) : this.loadEverit(json, doc, scope, path);
  }

  // -------------------------------------------------------------------------------------------
  // References

  private reference(refValue: JValue | undefined, doc: Document, scope: string | null, path: string): ReferenceNode {
    if (typeof refValue !== "string") fail(`${path}/$ref`, `expected type: String, found: ${typeName(refValue)}`);
    let target;
    try {
      target = this.resolver.resolve(refValue, doc, scope);
    } catch (e) {
      if (e instanceof UnresolvableRefError) fail(`${path}/$ref`, e.message);
      throw e;
    }
    const node: ReferenceNode = { kind: "Reference", ...baseProps(), refValue };
    const existing = this.knots.get(target.key);
    if (existing !== undefined) {
      existing.refs.push(node);
      node.referred = existing.referred;
      return node;
    }
    // The knot is registered before loading so that a recursive reference finds it.
    const knot: Knot = { refs: [node] };
    this.knots.set(target.key, knot);
    const where = target.key.includes("#") ? target.key : `${target.key}#`;
    const referred = this.load(target.node, target.doc, target.scope, where);
    knot.referred = referred;
    for (const r of knot.refs) r.referred = referred;
    return node;
  }

  // -------------------------------------------------------------------------------------------
  // Everit (drafts 4, 6, 7)

  private loadEverit(json: JObject, doc: Document, scope: string | null, path: string): SchemaNode {
    const consumed = new Set<string>();
    const unconsumed = (k: string): boolean => json.has(k) && !consumed.has(k);
    const child = (key: string, value: JValue): SchemaNode => this.load(value, doc, scope, `${path}/${key}`);
    const extracted: SchemaNode[] = [];

    if (json.has("$ref")) {
      consumed.add("$ref");
      extracted.push(this.reference(json.get("$ref"), doc, scope, path));
    } else {
      if (unconsumed("enum")) {
        consumed.add("enum");
        const values = json.get("enum");
        if (!Array.isArray(values)) fail(`${path}/enum`, `expected type: JsonArray, found: ${typeName(values)}`);
        extracted.push({ kind: "Enum", ...baseProps(), values });
      }
      const combined = JavaHashKeys.of(COMBINED_KEYWORDS.filter(unconsumed)).keys() as Criterion[];
      for (const keyword of combined) {
        consumed.add(keyword);
        const subs = json.get(keyword);
        if (!Array.isArray(subs)) fail(`${path}/${keyword}`, `expected type: JsonArray, found: ${typeName(subs)}`);
        extracted.push(
          combinedNode(
            keyword,
            subs.map((s, i) => child(`${keyword}/${i}`, s)),
          ),
        );
      }
      if (unconsumed("not")) {
        consumed.add("not");
        extracted.push({ kind: "Not", ...baseProps(), mustNotMatch: child("not", json.get("not") as JValue) });
      }
      if (this.draft !== "draft-04" && unconsumed("const")) {
        consumed.add("const");
        extracted.push({ kind: "Const", ...baseProps(), value: json.get("const") as JValue });
      }
      if (unconsumed("type")) {
        consumed.add("type");
        const type = json.get("type");
        if (Array.isArray(type)) {
          const subs = type.map((t) => {
            if (typeof t !== "string") fail(`${path}/type`, `expected type: String, found: ${typeName(t)}`);
            return this.explicitType(t, json, doc, scope, path, consumed);
          });
          extracted.push(combinedNode("anyOf", subs));
        } else if (typeof type === "string") {
          extracted.push(this.explicitType(type, json, doc, scope, path, consumed));
        } else {
          fail(`${path}/type`, `expected type: one of JsonArray or String, found: ${typeName(type)}`);
        }
      }
      // Property sniffing sees only the keys the extractors above left.
      const left = (keys: readonly string[]): boolean => keys.some(unconsumed);
      const sniffed: SchemaNode[] = [];
      if (left(this.arrayKeywords())) sniffed.push(this.everitArray(json, doc, scope, path, consumed));
      if (left(this.objectKeywords())) sniffed.push(this.everitObject(json, doc, scope, path, consumed));
      if (left(NUMBER_KEYWORDS)) sniffed.push(this.everitNumber(json, path, consumed, false));
      if (left(STRING_KEYWORDS)) sniffed.push(this.everitString(json, path, consumed));
      if (this.draft === "draft-07" && left(CONDITIONAL_KEYWORDS)) {
        for (const k of CONDITIONAL_KEYWORDS) consumed.add(k);
        const opt = (k: string): SchemaNode | undefined => (json.has(k) ? child(k, json.get(k) as JValue) : undefined);
        sniffed.push({
          kind: "Conditional",
          ...baseProps(),
          ifSchema: opt("if"),
          thenSchema: opt("then"),
          elseSchema: opt("else"),
        });
      }
      extracted.push(...sniffed);
    }

    const node: SchemaNode =
      extracted.length === 0
        ? { kind: "Empty", ...baseProps() }
        : extracted.length === 1
          ? extracted[0]
          : combinedNode("allOf", extracted);
    this.everitCommon(node, json, path, consumed);
    return node;
  }

  private arrayKeywords(): readonly string[] {
    return this.draft === "draft-04" ? V4_ARRAY_KEYWORDS : V6_ARRAY_KEYWORDS;
  }

  private objectKeywords(): readonly string[] {
    return this.draft === "draft-04" ? V4_OBJECT_KEYWORDS : V6_OBJECT_KEYWORDS;
  }

  private everitCommon(node: SchemaNode, json: JObject, path: string, consumed: Set<string>): void {
    const text = (key: string): string | undefined => {
      if (!json.has(key) || consumed.has(key)) return undefined;
      consumed.add(key);
      const v = json.get(key);
      if (typeof v !== "string") fail(`${path}/${key}`, `expected type: String, found: ${typeName(v)}`);
      return v;
    };
    const id = text(this.idKey);
    if (id !== undefined) node.id = id;
    const title = text("title");
    if (title !== undefined) node.title = title;
    const description = text("description");
    if (description !== undefined) node.description = description;
    if (this.draft === "draft-07") {
      for (const key of ["readOnly", "writeOnly"]) {
        if (!json.has(key) || consumed.has(key)) continue;
        consumed.add(key);
        if (typeof json.get(key) !== "boolean")
          fail(`${path}/${key}`, `expected type: Boolean, found: ${typeName(json.get(key))}`);
      }
    }
    if (json.has("default") && !consumed.has("default")) {
      consumed.add("default");
      node.defaultValue = { value: json.get("default") as JValue };
    }
    const unprocessed = new Map<string, Unprocessed>();
    for (const [k, v] of json) if (!consumed.has(k)) unprocessed.set(k, { raw: v });
    node.unprocessed = unprocessed;
  }

  private explicitType(
    type: string,
    json: JObject,
    doc: Document,
    scope: string | null,
    path: string,
    consumed: Set<string>,
  ): SchemaNode {
    switch (type) {
      case "string":
        return this.everitString(json, path, consumed);
      case "integer":
        return this.everitNumber(json, path, consumed, true);
      case "number":
        return this.everitNumber(json, path, consumed, false);
      case "boolean":
        return { kind: "Boolean", ...baseProps() };
      case "null":
        return { kind: "Null", ...baseProps() };
      case "array":
        return this.everitArray(json, doc, scope, path, consumed);
      case "object":
        return this.everitObject(json, doc, scope, path, consumed);
      default:
        fail(path, `unknown type: [${type}]`);
    }
  }

  /** Everit's requireInteger: a Java Integer (no fraction, within 32 bits). */
  private int(json: JObject, key: string, path: string): number | undefined {
    if (!json.has(key)) return undefined;
    const v = json.get(key);
    if (!(v instanceof JNumber) || !v.integral || v.unscaled < -2147483648n || v.unscaled > 2147483647n) {
      fail(`${path}/${key}`, `expected type: Integer, found: ${typeName(v)}`);
    }
    return Number(v.unscaled);
  }

  private num(json: JObject, key: string, path: string): JNumber | undefined {
    if (!json.has(key)) return undefined;
    const v = json.get(key);
    if (!(v instanceof JNumber)) fail(`${path}/${key}`, `expected type: Number, found: ${typeName(v)}`);
    return v;
  }

  private bool(json: JObject, key: string, path: string): boolean | undefined {
    if (!json.has(key)) return undefined;
    const v = json.get(key);
    if (typeof v !== "boolean") fail(`${path}/${key}`, `expected type: Boolean, found: ${typeName(v)}`);
    return v;
  }

  private everitString(json: JObject, path: string, consumed: Set<string>): StringNode {
    for (const k of STRING_KEYWORDS) consumed.add(k);
    const node: StringNode = { kind: "String", ...baseProps() };
    node.minLength = this.int(json, "minLength", path);
    node.maxLength = this.int(json, "maxLength", path);
    if (json.has("pattern")) {
      const p = json.get("pattern");
      if (typeof p !== "string") fail(`${path}/pattern`, `expected type: String, found: ${typeName(p)}`);
      checkPattern(p, `${path}/pattern`);
      node.pattern = p;
    }
    if (json.has("format") && typeof json.get("format") !== "string") {
      fail(`${path}/format`, `expected type: String, found: ${typeName(json.get("format"))}`);
    }
    return node;
  }

  private everitNumber(json: JObject, path: string, consumed: Set<string>, integer: boolean): NumberNode {
    for (const k of NUMBER_KEYWORDS) consumed.add(k);
    const node = numberNode();
    node.requiresInteger = integer;
    node.minimum = this.num(json, "minimum", path);
    node.maximum = this.num(json, "maximum", path);
    const multipleOf = this.num(json, "multipleOf", path);
    if (multipleOf !== undefined && multipleOf.toNumber() === 0) fail(path, "multipleOf should not be 0");
    node.multipleOf = multipleOf;
    if (this.draft === "draft-04") {
      // Draft 4 exclusive limits are flags on minimum/maximum; Confluent's diff ignores them.
      this.bool(json, "exclusiveMinimum", path);
      this.bool(json, "exclusiveMaximum", path);
    } else {
      node.exclusiveMinimum = this.num(json, "exclusiveMinimum", path);
      node.exclusiveMaximum = this.num(json, "exclusiveMaximum", path);
    }
    return node;
  }

  private everitObject(
    json: JObject,
    doc: Document,
    scope: string | null,
    path: string,
    consumed: Set<string>,
  ): ObjectNode {
    for (const k of this.objectKeywords()) consumed.add(k);
    const child = (key: string, value: JValue): SchemaNode => this.load(value, doc, scope, `${path}/${key}`);
    const node = objectNode();
    node.minProperties = this.int(json, "minProperties", path);
    node.maxProperties = this.int(json, "maxProperties", path);
    if (json.has("properties")) {
      const props = json.get("properties");
      if (!isJObject(props)) fail(`${path}/properties`, `expected type: JsonObject, found: ${typeName(props)}`);
      for (const [name, value] of props) {
        // Everit skips a property named like the id keyword unless its value is an object.
        if (name === this.idKey && !isJObject(value)) continue;
        node.properties.set(name, child(`properties/${escapePointer(name)}`, value));
      }
    }
    if (json.has("additionalProperties")) {
      const ap = json.get("additionalProperties");
      if (typeof ap === "boolean") node.additionalProperties = ap;
      else if (isJObject(ap)) node.schemaOfAdditionalProperties = child("additionalProperties", ap);
      else fail(`${path}/additionalProperties`, `expected type: one of Boolean or JsonObject, found: ${typeName(ap)}`);
    }
    if (json.has("required")) {
      const req = json.get("required");
      if (!Array.isArray(req)) fail(`${path}/required`, `expected type: JsonArray, found: ${typeName(req)}`);
      for (const r of req) {
        if (typeof r !== "string") fail(`${path}/required`, `expected type: String, found: ${typeName(r)}`);
        node.required.push(r);
      }
    }
    if (json.has("patternProperties")) {
      const pp = json.get("patternProperties");
      if (!isJObject(pp)) fail(`${path}/patternProperties`, `expected type: JsonObject, found: ${typeName(pp)}`);
      for (const [pattern, value] of pp) {
        const s = child(`patternProperties/${escapePointer(pattern)}`, value);
        checkPattern(pattern, `${path}/patternProperties`);
        node.patternProperties.push([pattern, s]);
      }
    }
    if (json.has("dependencies")) {
      const deps = json.get("dependencies");
      if (!isJObject(deps)) fail(`${path}/dependencies`, `expected type: JsonObject, found: ${typeName(deps)}`);
      for (const [name, value] of deps) {
        if (Array.isArray(value)) {
          const list = node.propertyDependencies.get(name) ?? [];
          for (const v of value) {
            if (typeof v !== "string")
              fail(`${path}/dependencies/${name}`, `expected type: String, found: ${typeName(v)}`);
            if (!list.includes(v)) list.push(v);
          }
          node.propertyDependencies.set(name, list);
        } else if (isJObject(value) || (this.draft !== "draft-04" && typeof value === "boolean")) {
          node.schemaDependencies.set(name, child(`dependencies/${escapePointer(name)}`, value));
        } else {
          fail(
            `${path}/dependencies/${name}`,
            `expected type: one of JsonArray or JsonObject, found: ${typeName(value)}`,
          );
        }
      }
    }
    if (this.draft !== "draft-04" && json.has("propertyNames"))
      node.propertyNames = child("propertyNames", json.get("propertyNames") as JValue);
    return node;
  }

  private everitArray(
    json: JObject,
    doc: Document,
    scope: string | null,
    path: string,
    consumed: Set<string>,
  ): ArrayNode {
    for (const k of this.arrayKeywords()) consumed.add(k);
    const child = (key: string, value: JValue): SchemaNode => this.load(value, doc, scope, `${path}/${key}`);
    const node = arrayNode();
    node.minItems = this.int(json, "minItems", path);
    node.maxItems = this.int(json, "maxItems", path);
    node.uniqueItems = this.bool(json, "uniqueItems", path) ?? false;
    if (json.has("additionalItems")) {
      const ai = json.get("additionalItems");
      if (typeof ai === "boolean") node.additionalItems = ai;
      else if (isJObject(ai)) node.schemaOfAdditionalItems = child("additionalItems", ai);
      else fail(`${path}/additionalItems`, `expected type: one of Boolean or JsonObject, found: ${typeName(ai)}`);
    }
    if (json.has("items")) {
      const items = json.get("items") as JValue;
      if (Array.isArray(items)) node.itemSchemas = items.map((s, i) => child(`items/${i}`, s));
      else if (isJObject(items) || (this.draft !== "draft-04" && typeof items === "boolean"))
        node.allItemSchema = child("items", items);
      else fail(`${path}/items`, `expected type: one of JsonArray or JsonObject, found: ${typeName(items)}`);
    }
    if (this.draft !== "draft-04" && json.has("contains"))
      node.contains = child("contains", json.get("contains") as JValue);
    return node;
  }

  // -------------------------------------------------------------------------------------------
  // json-sKema + SchemaTranslator (drafts 2019-09, 2020-12)

  private loadModern(json: JObject, doc: Document, scope: string | null, path: string): SchemaNode {
    const child = (key: string, value: JValue): SchemaNode => this.load(value, doc, scope, `${path}/${key}`);
    const parts: SchemaNode[] = [];
    const prefixCount = Array.isArray(json.get("prefixItems")) ? (json.get("prefixItems") as JValue[]).length : 0;
    const tupleItems = this.draft === "draft-2019-09" && Array.isArray(json.get("items"));

    for (const [key, value] of json) {
      const part = this.modernKeyword(key, value, json, doc, scope, path, prefixCount, tupleItems);
      if (part !== undefined) parts.push(part);
    }
    // json-sKema visits property and pattern-property schemas after the other keywords.
    if (json.has("properties")) {
      const props = json.get("properties");
      if (!isJObject(props)) fail(`${path}/properties`, `expected type: JsonObject, found: ${typeName(props)}`);
      for (const [name, value] of props) {
        const o = objectNode();
        o.properties.set(name, child(`properties/${escapePointer(name)}`, value));
        parts.push(o);
      }
    }
    if (json.has("patternProperties")) {
      const pp = json.get("patternProperties");
      if (!isJObject(pp)) fail(`${path}/patternProperties`, `expected type: JsonObject, found: ${typeName(pp)}`);
      for (const [pattern, value] of pp) {
        checkPattern(pattern, `${path}/patternProperties`);
        const o = objectNode();
        o.patternProperties.push([pattern, child(`patternProperties/${escapePointer(pattern)}`, value)]);
        parts.push(o);
      }
    }
    for (const [key, make] of [
      ["unevaluatedItems", arrayNode],
      ["unevaluatedProperties", objectNode],
    ] as const) {
      if (!json.has(key)) continue;
      const n: SchemaNode = make();
      n.unprocessed.set(key, { schema: child(key, json.get(key) as JValue) });
      parts.push(n);
    }

    let result: SchemaNode | undefined;
    for (const p of parts) result = result === undefined ? p : join("composite", result, p);
    if (result === undefined) result = { kind: "Empty", ...baseProps() };
    if (result.kind === "Combined" && result.generated && result.criterion === "allOf") {
      if (result.subschemas.length === 0) result = { kind: "Empty", ...baseProps() };
      else if (result.subschemas.length === 1) result = result.subschemas[0];
    }
    const text = (key: string): string | undefined => {
      const v = json.get(key);
      if (v === undefined) return undefined;
      if (typeof v !== "string") fail(`${path}/${key}`, `expected type: String, found: ${typeName(v)}`);
      return v;
    };
    text("$id"); // json-sKema's composite keeps no id, so the translator sets none
    const title = text("title");
    if (title !== undefined) result.title = title;
    const description = text("description");
    if (description !== undefined) result.description = description;
    if (json.has("default")) result.defaultValue = { value: json.get("default") as JValue };
    // The translator replaces whatever the parts carried with the composite's own leftovers.
    const unprocessed = new Map<string, Unprocessed>();
    for (const [k, v] of json) if (!MODERN_KEYWORDS.has(k)) unprocessed.set(k, { raw: v });
    if (json.has("$defs") || json.has("definitions")) unprocessed.set("$defs", { raw: mergedDefs(json) });
    if (unprocessed.size > 0) result.unprocessed = unprocessed;
    return result;
  }

  private modernKeyword(
    key: string,
    value: JValue,
    json: JObject,
    doc: Document,
    scope: string | null,
    path: string,
    prefixCount: number,
    tupleItems: boolean,
  ): SchemaNode | undefined {
    const child = (k: string, v: JValue): SchemaNode => this.load(v, doc, scope, `${path}/${k}`);
    switch (key) {
      case "$ref":
        return this.reference(value, doc, scope, path);
      case "$dynamicRef":
        // Resolved like $ref to its static target; dynamic scopes (meta-schemas) are not followed.
        try {
          return this.reference(value, doc, scope, path);
        } catch (e) {
          if (e instanceof InvalidSchemaError) return { kind: "Empty", ...baseProps() };
          throw e;
        }
      case "type": {
        if (typeof value === "string") return modernType(value, path);
        if (!Array.isArray(value))
          fail(`${path}/type`, `expected type: one of JsonArray or String, found: ${typeName(value)}`);
        return combinedNode(
          "anyOf",
          value.map((t) => {
            if (typeof t !== "string") fail(`${path}/type`, `expected type: String, found: ${typeName(t)}`);
            return modernType(t, path);
          }),
          true,
        );
      }
      case "minLength":
      case "maxLength": {
        const s: StringNode = { kind: "String", ...baseProps() };
        s[key] = intValue(value, `${path}/${key}`);
        return s;
      }
      case "pattern": {
        if (typeof value !== "string") fail(`${path}/pattern`, `expected type: String, found: ${typeName(value)}`);
        checkPattern(value, `${path}/pattern`);
        return { kind: "String", ...baseProps(), pattern: value };
      }
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "multipleOf": {
        if (!(value instanceof JNumber)) fail(`${path}/${key}`, `expected type: Number, found: ${typeName(value)}`);
        const n = numberNode();
        n[key] = value;
        return n;
      }
      case "enum":
        if (!Array.isArray(value)) fail(`${path}/enum`, `expected type: JsonArray, found: ${typeName(value)}`);
        return { kind: "Enum", ...baseProps(), values: value };
      case "const":
        return { kind: "Const", ...baseProps(), value };
      case "not":
        return { kind: "Not", ...baseProps(), mustNotMatch: child("not", value) };
      case "allOf":
      case "anyOf":
      case "oneOf": {
        if (!Array.isArray(value)) fail(`${path}/${key}`, `expected type: JsonArray, found: ${typeName(value)}`);
        let acc: SchemaNode = combinedNode(key, []);
        value.forEach((s, i) => {
          acc = join(key, acc, child(`${key}/${i}`, s));
        });
        return acc;
      }
      case "if":
        return {
          kind: "Conditional",
          ...baseProps(),
          ifSchema: child("if", value),
          thenSchema: json.has("then") ? child("then", json.get("then") as JValue) : undefined,
          elseSchema: json.has("else") ? child("else", json.get("else") as JValue) : undefined,
        };
      case "required": {
        if (!Array.isArray(value)) fail(`${path}/required`, `expected type: JsonArray, found: ${typeName(value)}`);
        const o = objectNode();
        for (const r of value) {
          if (typeof r !== "string") fail(`${path}/required`, `expected type: String, found: ${typeName(r)}`);
          o.required.push(r);
        }
        return o;
      }
      case "additionalProperties": {
        const s = child("additionalProperties", value);
        const o = objectNode();
        if (s.kind === "False") o.additionalProperties = false;
        else if (s.kind !== "True") o.schemaOfAdditionalProperties = s;
        return o;
      }
      case "minProperties":
      case "maxProperties": {
        const o = objectNode();
        o[key] = intValue(value, `${path}/${key}`);
        return o;
      }
      case "dependentRequired": {
        if (!isJObject(value)) fail(`${path}/${key}`, `expected type: JsonObject, found: ${typeName(value)}`);
        const o = objectNode();
        for (const [name, deps] of value) {
          if (!Array.isArray(deps))
            fail(`${path}/${key}/${name}`, `expected type: JsonArray, found: ${typeName(deps)}`);
          o.propertyDependencies.set(name, [...new Set(deps.map((d) => String(d)))]);
        }
        return o;
      }
      case "dependentSchemas": {
        if (!isJObject(value)) fail(`${path}/${key}`, `expected type: JsonObject, found: ${typeName(value)}`);
        const o = objectNode();
        for (const [name, s] of value) o.schemaDependencies.set(name, child(`${key}/${escapePointer(name)}`, s));
        return o;
      }
      case "propertyNames": {
        const o = objectNode();
        o.propertyNames = child(key, value);
        return o;
      }
      case "items": {
        if (tupleItems && Array.isArray(value)) {
          const a = arrayNode();
          a.itemSchemas = value.map((s, i) => child(`items/${i}`, s));
          return a;
        }
        const s = child("items", value);
        const a = arrayNode();
        if (s.kind === "False") a.additionalItems = false;
        else if (s.kind !== "True") {
          if (prefixCount === 0) a.allItemSchema = s;
          else a.schemaOfAdditionalItems = s;
        }
        return a;
      }
      case "additionalItems": {
        // Draft 2019-09 tuples: additionalItems plays the role 2020-12 gives to items.
        if (!tupleItems) return undefined;
        const s = child("additionalItems", value);
        const a = arrayNode();
        if (s.kind === "False") a.additionalItems = false;
        else if (s.kind !== "True") a.schemaOfAdditionalItems = s;
        return a;
      }
      case "prefixItems": {
        if (!Array.isArray(value)) fail(`${path}/prefixItems`, `expected type: JsonArray, found: ${typeName(value)}`);
        const a = arrayNode();
        a.itemSchemas = value.map((s, i) => child(`prefixItems/${i}`, s));
        return a;
      }
      case "contains": {
        const a = arrayNode();
        a.contains = child("contains", value);
        const min = json.get("minContains");
        a.unprocessed.set("minContains", { raw: min instanceof JNumber ? min : JNumber.integer(1n) });
        const max = json.get("maxContains");
        if (max instanceof JNumber) a.unprocessed.set("maxContains", { raw: max });
        return a;
      }
      case "minItems":
      case "maxItems": {
        const a = arrayNode();
        a[key] = intValue(value, `${path}/${key}`);
        return a;
      }
      case "uniqueItems": {
        if (typeof value !== "boolean") fail(`${path}/${key}`, `expected type: Boolean, found: ${typeName(value)}`);
        const a = arrayNode();
        a.uniqueItems = value;
        return a;
      }
      default:
        return undefined;
    }
  }
}

/** The `$defs` Confluent hands json-sKema: top-level `definitions` merged in (existing entries win). */
function mergedDefs(json: JObject): JValue {
  const defs = json.get("$defs");
  const definitions = json.get("definitions");
  if (!isJObject(definitions) || (defs !== undefined && !isJObject(defs))) return defs ?? null;
  const out = new Map(defs ?? []);
  for (const [k, v] of definitions) if (!out.has(k)) out.set(k, v);
  return out;
}

function intValue(value: JValue, path: string): number {
  if (!(value instanceof JNumber)) fail(path, `expected type: Integer, found: ${typeName(value)}`);
  return Math.trunc(value.toNumber());
}

function modernType(type: string, path: string): SchemaNode {
  switch (type) {
    case "string":
      return { kind: "String", ...baseProps() };
    case "integer": {
      const n = numberNode();
      n.requiresInteger = true;
      return n;
    }
    case "number":
      return numberNode();
    case "boolean":
      return { kind: "Boolean", ...baseProps() };
    case "null":
      return { kind: "Null", ...baseProps() };
    case "array":
      return arrayNode();
    case "object":
      return objectNode();
    default:
      fail(`${path}/type`, `unknown type: [${type}]`);
  }
}

function escapePointer(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

function checkPattern(pattern: string, path: string): void {
  if (compileJavaPattern(pattern) === null) fail(path, `Invalid regular expression: ${writeJson(pattern)}`);
}

// ---------------------------------------------------------------------------------------------
// SchemaTranslator.SchemaContext.join and SchemaUtils.merge

type Parent = "composite" | Criterion;

function isGenerated(n: SchemaNode, criterion: Criterion): n is CombinedNode {
  return n.kind === "Combined" && n.generated && n.criterion === criterion;
}

function flatten(n: SchemaNode): SchemaNode[] {
  return isGenerated(n, "allOf") ? [...n.subschemas] : [n];
}

const MERGEABLE = new Set(["Array", "Number", "Object", "String"]);

/** Adds `current` to `product`, merged into the first part of the same mergeable class. */
function accumulate(product: SchemaNode[], current: SchemaNode): SchemaNode[] {
  for (let i = 0; i < product.length; i++) {
    if (product[i].kind === current.kind && MERGEABLE.has(current.kind)) {
      product[i] = merge(product[i], current);
      return product;
    }
  }
  product.push(current);
  return product;
}

function join(parent: Parent, a: SchemaNode, b: SchemaNode): SchemaNode {
  if (a.kind === b.kind && MERGEABLE.has(a.kind)) return merge(a, b);
  if (isGenerated(a, "anyOf") && a.subschemas.some((s) => s.kind === b.kind)) {
    return combinedNode("anyOf", accumulate([...a.subschemas], b), true);
  }
  if (isGenerated(b, "anyOf") && b.subschemas.some((s) => s.kind === a.kind)) {
    return combinedNode("anyOf", accumulate([...b.subschemas], a), true);
  }
  if (parent !== "composite" && a.kind === "Combined") return combinedNode(parent, [...a.subschemas, ...flatten(b)]);
  return combinedNode(
    "allOf",
    [...flatten(a), ...flatten(b)].reduce<SchemaNode[]>((acc, s) => accumulate(acc, s), []),
    true,
  );
}

/** SchemaUtils.merge(toBuilder(a), b): b's settings over a's. */
function merge(a: SchemaNode, b: SchemaNode): SchemaNode {
  const out = { ...a, unprocessed: new Map(a.unprocessed) } as SchemaNode;
  if (b.title !== undefined) out.title = b.title;
  if (b.description !== undefined) out.description = b.description;
  if (b.id !== undefined) out.id = b.id;
  if (b.defaultValue !== undefined) out.defaultValue = b.defaultValue;
  for (const [k, v] of b.unprocessed) out.unprocessed.set(k, v);
  if (out.kind === "Object" && a.kind === "Object" && b.kind === "Object") {
    out.patternProperties = [...a.patternProperties, ...b.patternProperties];
    out.properties = new Map([...a.properties, ...b.properties]);
    out.additionalProperties = a.additionalProperties && b.additionalProperties;
    out.schemaOfAdditionalProperties = b.schemaOfAdditionalProperties ?? a.schemaOfAdditionalProperties;
    out.required = [...a.required, ...b.required];
    out.minProperties = b.minProperties ?? a.minProperties;
    out.maxProperties = b.maxProperties ?? a.maxProperties;
    out.propertyDependencies = new Map(a.propertyDependencies);
    for (const [k, v] of b.propertyDependencies)
      out.propertyDependencies.set(k, [...new Set([...(a.propertyDependencies.get(k) ?? []), ...v])]);
    out.schemaDependencies = new Map([...a.schemaDependencies, ...b.schemaDependencies]);
    out.propertyNames = b.propertyNames ?? a.propertyNames;
  } else if (out.kind === "Array" && a.kind === "Array" && b.kind === "Array") {
    out.minItems = b.minItems ?? a.minItems;
    out.maxItems = b.maxItems ?? a.maxItems;
    out.uniqueItems = a.uniqueItems || b.uniqueItems;
    out.allItemSchema = b.allItemSchema ?? a.allItemSchema;
    if (b.itemSchemas !== undefined) out.itemSchemas = [...(a.itemSchemas ?? []), ...b.itemSchemas];
    out.additionalItems = a.additionalItems && b.additionalItems;
    out.schemaOfAdditionalItems = b.schemaOfAdditionalItems ?? a.schemaOfAdditionalItems;
    out.contains = b.contains ?? a.contains;
  } else if (out.kind === "Number" && a.kind === "Number" && b.kind === "Number") {
    out.minimum = b.minimum ?? a.minimum;
    out.maximum = b.maximum ?? a.maximum;
    out.exclusiveMinimum = b.exclusiveMinimum ?? a.exclusiveMinimum;
    out.exclusiveMaximum = b.exclusiveMaximum ?? a.exclusiveMaximum;
    out.multipleOf = b.multipleOf ?? a.multipleOf;
    out.requiresInteger = a.requiresInteger || b.requiresInteger;
  } else if (out.kind === "String" && a.kind === "String" && b.kind === "String") {
    out.minLength = b.minLength ?? a.minLength;
    out.maxLength = b.maxLength ?? a.maxLength;
    out.pattern = b.pattern ?? a.pattern;
  }
  return out;
}
