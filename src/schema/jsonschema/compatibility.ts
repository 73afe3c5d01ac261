// Confluent's JSON Schema compatibility check (json/diff/SchemaDiff.java and friends) over the
// Everit-style model: every difference between an original and an updated schema is collected,
// and those outside the STRICT policy's compatible set make the update incompatible.
//
// Kept as Confluent has it, because verdicts and messages depend on it:
// - a `$ref` is followed one level only (a reference to a reference compares two references);
// - pairs are memoized by node identity and a pair met again while being compared counts as
//   compatible, iterated to a fixpoint for recursive schemas;
// - property names are walked in Java HashMap/HashSet order;
// - combined subschemas are matched by maximum bipartite matching of compatible pairs;
// - EXCLUSIVE_MAXIMUM_DECREASED compares against the update's `maximum` (a NullPointerException
//   in Java when there is none; raised here as an error too), and a `const: null` original throws.
import { JavaHashKeys } from "../../jvm/hash-order.ts";
import { javaEqualityKey, javaJsonEquals, JNumber, type JValue } from "./json.ts";
import {
  isEmptyLike,
  printNode,
  propertyOrder,
  sameClass,
  type ArrayNode,
  type CombinedNode,
  type NumberNode,
  type ObjectNode,
  type SchemaNode,
  type StringNode,
} from "./model.ts";
import { COMPATIBLE_STRICT, type Difference, type DifferenceType } from "./differences.ts";
import { compileJavaPattern } from "./regex.ts";

/** Thrown where Confluent's Java code fails with a runtime exception during the check. */
export class CompatibilityCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CompatibilityCheckError";
  }
}

type PairMap<T> = Map<SchemaNode, Map<SchemaNode, T>>;

function pairGet<T>(m: PairMap<T>, a: SchemaNode, b: SchemaNode): T | undefined {
  return m.get(a)?.get(b);
}

function pairSet<T>(m: PairMap<T>, a: SchemaNode, b: SchemaNode, v: T): void {
  let inner = m.get(a);
  if (inner === undefined) m.set(a, (inner = new Map()));
  inner.set(b, v);
}

function pairDelete<T>(m: PairMap<T>, a: SchemaNode, b: SchemaNode): void {
  m.get(a)?.delete(b);
}

interface Shared {
  readonly compatible: ReadonlySet<DifferenceType>;
  readonly memo: PairMap<readonly Difference[]>;
  readonly inProgress: PairMap<true>;
  readonly seed: PairMap<readonly Difference[]>;
  optimismUsed: boolean;
}

class Context {
  readonly diffs: Difference[] = [];

  constructor(
    private readonly shared: Shared,
    private readonly path: string[] = [],
  ) {}

  subcontext(): Context {
    return new Context(this.shared, [...this.path]);
  }

  inPath(segment: string, body: () => void): void {
    this.path.push(segment);
    try {
      body();
    } finally {
      this.path.pop();
    }
  }

  add(type: DifferenceType): void {
    this.diffs.push({ type, path: pathString(this.path) });
  }

  addAt(segment: string, type: DifferenceType): void {
    this.inPath(segment, () => this.add(type));
  }

  addAll(diffs: readonly Difference[]): void {
    this.diffs.push(...diffs);
  }

  addRebased(diffs: readonly Difference[]): void {
    if (this.path.length === 0) {
      this.diffs.push(...diffs);
      return;
    }
    const prefix = pathString(this.path);
    for (const d of diffs)
      this.diffs.push({ type: d.type, path: d.path.length <= 2 ? prefix : `${prefix}/${d.path.slice(2)}` });
  }

  isCompatible(): boolean {
    return this.diffs.every((d) => this.shared.compatible.has(d.type));
  }

  compareMemoized(original: SchemaNode, update: SchemaNode, comparator: (ctx: Context) => void): readonly Difference[] {
    const s = this.shared;
    const cached = pairGet(s.memo, original, update);
    if (cached !== undefined) return cached;
    if (pairGet(s.inProgress, original, update)) {
      const seeded = pairGet(s.seed, original, update);
      if (seeded !== undefined) return seeded;
      s.optimismUsed = true;
      return [];
    }
    pairSet(s.inProgress, original, update, true);
    try {
      const sub = new Context(s);
      comparator(sub);
      const result = [...sub.diffs];
      pairSet(s.memo, original, update, result);
      return result;
    } finally {
      pairDelete(s.inProgress, original, update);
    }
  }
}

function pathString(path: readonly string[]): string {
  return "#/" + path.join("/");
}

/** SchemaDiff.compare: all differences of `update` against `original` (STRICT policy). */
export function compareSchemas(
  original: SchemaNode,
  update: SchemaNode,
  compatible: ReadonlySet<DifferenceType> = COMPATIBLE_STRICT,
): Difference[] {
  let seed: PairMap<readonly Difference[]> = new Map();
  for (;;) {
    const shared: Shared = { compatible, memo: new Map(), inProgress: new Map(), seed, optimismUsed: false };
    const ctx = new Context(shared);
    compare(ctx, original, update);
    const incompatible: PairMap<readonly Difference[]> = new Map();
    for (const [a, inner] of shared.memo) {
      for (const [b, diffs] of inner)
        if (diffs.some((d) => !compatible.has(d.type))) pairSet(incompatible, a, b, diffs);
    }
    if (!shared.optimismUsed || samePairs(incompatible, seed)) return ctx.diffs;
    seed = incompatible;
  }
}

function samePairs<T>(a: PairMap<T>, b: PairMap<T>): boolean {
  const count = (m: PairMap<T>): number => [...m.values()].reduce((n, inner) => n + inner.size, 0);
  if (count(a) !== count(b)) return false;
  for (const [x, inner] of a) for (const y of inner.keys()) if (pairGet(b, x, y) === undefined) return false;
  return true;
}

function normalize(n: SchemaNode): SchemaNode {
  if (n.kind !== "Reference") return n;
  if (n.referred === undefined) throw new CompatibilityCheckError(`Unresolved $ref '${n.refValue}'`);
  return n.referred;
}

function compare(ctx: Context, original: SchemaNode | undefined, update: SchemaNode | undefined): void {
  if (original === undefined && update === undefined) return;
  if (original === undefined) return ctx.add("SCHEMA_ADDED");
  if (update === undefined) return ctx.add("SCHEMA_REMOVED");
  const o = normalize(original);
  const u = normalize(update);
  ctx.addRebased(ctx.compareMemoized(o, u, (sub) => compareTypes(sub, o, u)));
}

function connectType(n: SchemaNode): JValue | undefined {
  const v = n.unprocessed.get("connect.type");
  return v !== undefined && "raw" in v ? v.raw : undefined;
}

function compareTypes(ctx: Context, original: SchemaNode, update: SchemaNode): void {
  if (original.kind !== "Combined" && update.kind === "Combined") {
    if (update.subschemas.length === 1) {
      const sub = ctx.subcontext();
      compare(sub, original, update.subschemas[0]);
      if (sub.isCompatible()) return ctx.addAll(sub.diffs);
    } else if (update.criterion === "anyOf" || update.criterion === "oneOf") {
      for (const s of update.subschemas) {
        const sub = ctx.subcontext();
        compare(sub, original, s);
        if (sub.isCompatible()) {
          ctx.addAll(sub.diffs);
          return ctx.add("SUM_TYPE_EXTENDED");
        }
      }
    }
  } else if (original.kind === "Combined" && update.kind !== "Combined") {
    if (original.subschemas.length === 1) {
      const sub = ctx.subcontext();
      compare(sub, original.subschemas[0], update);
      if (sub.isCompatible()) return ctx.addAll(sub.diffs);
    } else if (original.criterion === "allOf") {
      for (const s of original.subschemas) {
        const sub = ctx.subcontext();
        compare(sub, s, update);
        if (sub.isCompatible()) {
          ctx.addAll(sub.diffs);
          return ctx.add("PRODUCT_TYPE_NARROWED");
        }
      }
    }
  }

  if (!sameClass(original, update)) {
    if (original.kind === "False" || isEmptyLike(update)) return;
    // Two types both marked connect.type "bytes" count as the same (Connect's decimal fix).
    if (connectType(original) === "bytes" && connectType(update) === "bytes") return;
    return ctx.add("TYPE_CHANGED");
  }

  if (original.id !== update.id) ctx.add("ID_CHANGED");
  if (original.title !== update.title) ctx.add("TITLE_CHANGED");
  if (original.description !== update.description) ctx.add("DESCRIPTION_CHANGED");
  if (!sameDefault(original, update)) ctx.add("DEFAULT_CHANGED");

  switch (original.kind) {
    case "String":
      return compareString(ctx, original, update as StringNode);
    case "Number":
      return compareNumber(ctx, original, update as NumberNode);
    case "Const": {
      const u = update as typeof original;
      if (original.value === null) throw new CompatibilityCheckError("NullPointerException comparing const values");
      if (!javaJsonEquals(original.value, u.value)) ctx.addAt("const", "ENUM_ARRAY_CHANGED");
      return;
    }
    case "Enum":
      return compareEnum(ctx, original.values, (update as typeof original).values);
    case "Combined":
      return compareCombined(ctx, original, update as CombinedNode);
    case "Not":
      return ctx.inPath("not", () => {
        const sub = ctx.subcontext();
        compare(sub, (update as typeof original).mustNotMatch, original.mustNotMatch);
        ctx.add(sub.isCompatible() ? "NOT_TYPE_NARROWED" : "NOT_TYPE_EXTENDED");
      });
    case "Object":
      return compareObject(ctx, original, update as ObjectNode);
    case "Array":
      return compareArray(ctx, original, update as ArrayNode);
    default:
      return;
  }
}

/** Objects.equals on the default values: JSONObject/JSONArray defaults never compare equal. */
function sameDefault(a: SchemaNode, b: SchemaNode): boolean {
  if (a.defaultValue === undefined || b.defaultValue === undefined) return a.defaultValue === b.defaultValue;
  const x = a.defaultValue.value;
  const y = b.defaultValue.value;
  if (x !== null && typeof x === "object" && !(x instanceof JNumber)) return false;
  return javaJsonEquals(x, y);
}

function compareString(ctx: Context, o: StringNode, u: StringNode): void {
  compareLimit(ctx, "maxLength", o.maxLength, u.maxLength, "MAX_LENGTH");
  compareLimit(ctx, "minLength", o.minLength, u.minLength, "MIN_LENGTH");
  if (o.pattern === undefined && u.pattern !== undefined) ctx.addAt("pattern", "PATTERN_ADDED");
  else if (o.pattern !== undefined && u.pattern === undefined) ctx.addAt("pattern", "PATTERN_REMOVED");
  else if (o.pattern !== undefined && o.pattern !== u.pattern) ctx.addAt("pattern", "PATTERN_CHANGED");
}

type LimitFamily =
  | "MAX_LENGTH"
  | "MIN_LENGTH"
  | "MAX_PROPERTIES"
  | "MIN_PROPERTIES"
  | "MAX_ITEMS"
  | "MIN_ITEMS"
  | "MAX_CONTAINS"
  | "MIN_CONTAINS"
  | "MAXIMUM"
  | "MINIMUM"
  | "EXCLUSIVE_MAXIMUM"
  | "EXCLUSIVE_MINIMUM";

function compareLimit(
  ctx: Context,
  keyword: string,
  o: number | undefined,
  u: number | undefined,
  family: LimitFamily,
): void {
  if (o === u) return;
  if (o === undefined) ctx.addAt(keyword, `${family}_ADDED`);
  else if (u === undefined) ctx.addAt(keyword, `${family}_REMOVED`);
  else if (o < u) ctx.addAt(keyword, `${family}_INCREASED`);
  else if (o > u) ctx.addAt(keyword, `${family}_DECREASED`);
}

function compareNumber(ctx: Context, o: NumberNode, u: NumberNode): void {
  // Limits compare as doubles; equal values of different Java types add nothing either.
  const d = (n: JNumber | undefined): number | undefined => n?.toNumber();
  compareLimit(ctx, "maximum", d(o.maximum), d(u.maximum), "MAXIMUM");
  compareLimit(ctx, "minimum", d(o.minimum), d(u.minimum), "MINIMUM");
  const oe = o.exclusiveMaximum;
  const ue = u.exclusiveMaximum;
  if (oe === undefined ? ue !== undefined : ue === undefined || !oe.javaEquals(ue)) {
    if (oe === undefined) ctx.addAt("exclusiveMaximum", "EXCLUSIVE_MAXIMUM_ADDED");
    else if (ue === undefined) ctx.addAt("exclusiveMaximum", "EXCLUSIVE_MAXIMUM_REMOVED");
    else if (oe.toNumber() < ue.toNumber()) ctx.addAt("exclusiveMaximum", "EXCLUSIVE_MAXIMUM_INCREASED");
    else {
      // Confluent compares with the update's maximum here, failing when there is none.
      const max = d(u.maximum);
      if (max === undefined) throw new CompatibilityCheckError("NullPointerException comparing exclusiveMaximum");
      if (oe.toNumber() > max) ctx.addAt("exclusiveMaximum", "EXCLUSIVE_MAXIMUM_DECREASED");
    }
  }
  compareLimit(ctx, "exclusiveMinimum", d(o.exclusiveMinimum), d(u.exclusiveMinimum), "EXCLUSIVE_MINIMUM");
  const om = o.multipleOf;
  const um = u.multipleOf;
  const equal = om === undefined ? um === undefined : um !== undefined && om.compare(um) === 0;
  if (!equal) {
    if (om === undefined) ctx.addAt("multipleOf", "MULTIPLE_OF_ADDED");
    else if (um === undefined) ctx.addAt("multipleOf", "MULTIPLE_OF_REMOVED");
    else if (!om.isZero && um.isMultipleOf(om)) ctx.addAt("multipleOf", "MULTIPLE_OF_EXPANDED");
    else if (!um.isZero && om.isMultipleOf(um)) ctx.addAt("multipleOf", "MULTIPLE_OF_REDUCED");
    else ctx.addAt("multipleOf", "MULTIPLE_OF_CHANGED");
  }
  if (o.requiresInteger !== u.requiresInteger) ctx.add(o.requiresInteger ? "TYPE_EXTENDED" : "TYPE_NARROWED");
}

/** Set semantics over Java values (org.json numbers keep their kind and scale). */
function containsAll(haystack: readonly JValue[], needles: readonly JValue[]): boolean {
  // Bucketed by a key equal values share, so large enums are not compared pairwise.
  const buckets = new Map<string, JValue[]>();
  for (const h of haystack) {
    const key = javaEqualityKey(h);
    const bucket = buckets.get(key);
    if (bucket) bucket.push(h);
    else buckets.set(key, [h]);
  }
  return needles.every((n) => buckets.get(javaEqualityKey(n))?.some((h) => javaJsonEquals(h, n)) ?? false);
}

function compareEnum(ctx: Context, o: readonly JValue[], u: readonly JValue[]): void {
  const oInU = containsAll(u, o);
  const uInO = containsAll(o, u);
  if (oInU && uInO) return;
  if (oInU) ctx.addAt("enum", "ENUM_ARRAY_EXTENDED");
  else if (uInO) ctx.addAt("enum", "ENUM_ARRAY_NARROWED");
  else ctx.addAt("enum", "ENUM_ARRAY_CHANGED");
}

function isSingleton(n: CombinedNode): boolean {
  return n.subschemas.length === 1;
}

function compareCombined(ctx: Context, o: CombinedNode, u: CombinedNode): void {
  if (o.criterion !== u.criterion) {
    const extended =
      u.criterion === "anyOf" ||
      (isSingleton(o) && isSingleton(u)) ||
      (isSingleton(o) && u.criterion === "oneOf") ||
      (isSingleton(u) && o.criterion === "allOf");
    if (!extended) return ctx.add("COMBINED_TYPE_CHANGED");
    ctx.add("COMBINED_TYPE_EXTENDED");
  }
  // Duplicates (subschemas printing the same) collapse, as Confluent's LinkedHashSet<JsonSchema>.
  const distinct = (subs: readonly SchemaNode[]): SchemaNode[] => {
    const seen = new Set<string>();
    return subs.filter((s) => {
      const key = printNode(s);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
  const os = distinct(o.subschemas);
  const us = distinct(u.subschemas);
  if (os.length < us.length) ctx.add(u.criterion === "allOf" ? "PRODUCT_TYPE_EXTENDED" : "SUM_TYPE_EXTENDED");
  else if (os.length > us.length)
    ctx.add(o.criterion === "anyOf" || o.criterion === "oneOf" ? "SUM_TYPE_NARROWED" : "PRODUCT_TYPE_NARROWED");

  const edges: Array<{ o: number; u: number; diffs: Difference[] }> = [];
  os.forEach((oSub, i) => {
    ctx.inPath(`${o.criterion}/${i}`, () => {
      us.forEach((uSub, j) => {
        const sub = ctx.subcontext();
        compare(sub, oSub, uSub);
        if (sub.isCompatible()) edges.push({ o: i, u: j, diffs: sub.diffs });
      });
    });
  });
  const matching = maximumMatching(os.length, us.length, edges);
  for (const e of matching) ctx.addAll(e.diffs);
  if (matching.length < Math.min(os.length, us.length)) ctx.add("COMBINED_TYPE_SUBSCHEMAS_CHANGED");
}

/** A maximum-cardinality bipartite matching (augmenting paths; only its size matters to verdicts). */
function maximumMatching<E extends { o: number; u: number }>(left: number, right: number, edges: readonly E[]): E[] {
  const adj: E[][] = Array.from({ length: left }, () => []);
  for (const e of edges) adj[e.o].push(e);
  const matchOfRight: Array<E | undefined> = new Array(right).fill(undefined);
  const augment = (i: number, visited: boolean[]): boolean => {
    for (const e of adj[i]) {
      if (visited[e.u]) continue;
      visited[e.u] = true;
      const current = matchOfRight[e.u];
      if (current === undefined || augment(current.o, visited)) {
        matchOfRight[e.u] = e;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < left; i++) augment(i, new Array(right).fill(false));
  return matchOfRight.filter((e): e is E => e !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Objects (ObjectSchemaDiff)

function unevaluated(n: ObjectNode | ArrayNode, key: string): SchemaNode | undefined {
  const v = n.unprocessed.get(key);
  return v !== undefined && "schema" in v ? v.schema : undefined;
}

function isOpenObject(n: ObjectNode): boolean {
  if (!n.additionalProperties || n.schemaOfAdditionalProperties !== undefined || n.patternProperties.length > 0)
    return false;
  const u = unevaluated(n, "unevaluatedProperties");
  return u === undefined || isEmptyLike(u);
}

function partialObjectSchema(n: ObjectNode, property: string): SchemaNode | undefined {
  for (const [pattern, schema] of n.patternProperties) if (compileJavaPattern(pattern)?.test(property)) return schema;
  if (n.schemaOfAdditionalProperties !== undefined) return n.schemaOfAdditionalProperties;
  if (n.additionalProperties) {
    const u = unevaluated(n, "unevaluatedProperties");
    if (u !== undefined && u.kind !== "False" && !isEmptyLike(u)) return u;
  }
  return undefined;
}

function compareObject(ctx: Context, o: ObjectNode, u: ObjectNode): void {
  compareRequired(ctx, o, u);
  compareProperties(ctx, o, u);
  compareDependencies(ctx, o, u);
  compareAdditionalProperties(ctx, o, u);
  compareUnevaluated(
    ctx,
    "unevaluatedProperties",
    unevaluated(o, "unevaluatedProperties"),
    unevaluated(u, "unevaluatedProperties"),
    "UNEVALUATED_PROPERTIES",
  );
  compareLimit(ctx, "maxProperties", o.maxProperties, u.maxProperties, "MAX_PROPERTIES");
  compareLimit(ctx, "minProperties", o.minProperties, u.minProperties, "MIN_PROPERTIES");
}

function compareRequired(ctx: Context, o: ObjectNode, u: ObjectNode): void {
  const originalRequired = new Set(o.required);
  const updateRequired = new Set(u.required);
  ctx.inPath("required", () => {
    for (const key of propertyOrder(o)) {
      if (!u.properties.has(key)) continue;
      ctx.inPath(key, () => {
        const wasRequired = originalRequired.has(key);
        const isRequired = updateRequired.has(key);
        if (wasRequired && !isRequired) ctx.add("REQUIRED_ATTRIBUTE_REMOVED");
        else if (!wasRequired && isRequired) {
          ctx.add(
            (u.properties.get(key) as SchemaNode).defaultValue !== undefined
              ? "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED"
              : "REQUIRED_ATTRIBUTE_ADDED",
          );
        }
      });
    }
  });
}

/** `new HashSet<>(a)` then `addAll(b)`, iterated. */
function unionOrder(a: readonly string[], b: readonly string[]): string[] {
  const set = JavaHashKeys.copyOf(a, true);
  set.addAll(b);
  return set.keys();
}

function compareProperties(ctx: Context, o: ObjectNode, u: ObjectNode): void {
  const updateRequired = new Set(u.required);
  ctx.inPath("properties", () => {
    for (const key of unionOrder(propertyOrder(o), propertyOrder(u))) {
      ctx.inPath(key, () => {
        const os = o.properties.get(key);
        const us = u.properties.get(key);
        if (us === undefined) {
          // Only the update's content model decides whether a property may be removed.
          if (isOpenObject(u)) return ctx.add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL");
          const partial = partialObjectSchema(u, key);
          if (partial !== undefined) {
            const sub = ctx.subcontext();
            compare(sub, os, partial);
            ctx.addAll(sub.diffs);
            return ctx.add(
              sub.isCompatible()
                ? "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
                : "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
            );
          }
          return ctx.add(
            os?.kind === "False"
              ? "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
              : "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
          );
        }
        if (os === undefined) {
          // Only the original's content model decides whether a property may be added.
          if (isOpenObject(o)) {
            if (isEmptyLike(us)) return ctx.add("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL");
            if (updateRequired.has(key)) {
              return ctx.add(
                us.defaultValue !== undefined
                  ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"
                  : "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
              );
            }
            return ctx.add("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL");
          }
          const partial = partialObjectSchema(o, key);
          if (partial !== undefined) {
            const sub = ctx.subcontext();
            compare(sub, partial, us);
            ctx.addAll(sub.diffs);
            ctx.add(
              sub.isCompatible()
                ? "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
                : "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
            );
          }
          if (updateRequired.has(key)) {
            ctx.add(
              us.defaultValue !== undefined
                ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL"
                : "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
            );
          } else {
            ctx.add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
          }
          return;
        }
        compare(ctx, os, us);
      });
    }
  });
}

/** Key order of a map Everit copied (`new HashMap<>(builderMap)`). */
function copiedMapOrder(keys: Iterable<string>): string[] {
  return JavaHashKeys.copyOf(JavaHashKeys.of(keys).keys(), false).keys();
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.every((x) => b.includes(x)) && b.every((x) => a.includes(x));
}

function compareDependencies(ctx: Context, o: ObjectNode, u: ObjectNode): void {
  ctx.inPath("dependencies", () => {
    for (const key of unionOrder(
      copiedMapOrder(o.propertyDependencies.keys()),
      copiedMapOrder(u.propertyDependencies.keys()),
    )) {
      ctx.inPath(key, () => {
        const od = o.propertyDependencies.get(key);
        const ud = u.propertyDependencies.get(key);
        if (ud === undefined) ctx.add("DEPENDENCY_ARRAY_REMOVED");
        else if (od === undefined) ctx.add("DEPENDENCY_ARRAY_ADDED");
        else if (!sameSet(od, ud)) {
          if (od.every((x) => ud.includes(x))) ctx.add("DEPENDENCY_ARRAY_EXTENDED");
          else if (ud.every((x) => od.includes(x))) ctx.add("DEPENDENCY_ARRAY_NARROWED");
          else ctx.add("DEPENDENCY_ARRAY_CHANGED");
        }
      });
    }
    for (const key of unionOrder(
      copiedMapOrder(o.schemaDependencies.keys()),
      copiedMapOrder(u.schemaDependencies.keys()),
    )) {
      ctx.inPath(key, () => {
        const os = o.schemaDependencies.get(key);
        const us = u.schemaDependencies.get(key);
        if (us === undefined) ctx.add("DEPENDENCY_SCHEMA_REMOVED");
        else if (os === undefined) ctx.add("DEPENDENCY_SCHEMA_ADDED");
        else compare(ctx, os, us);
      });
    }
  });
}

function compareAdditionalProperties(ctx: Context, o: ObjectNode, u: ObjectNode): void {
  ctx.inPath("additionalProperties", () => {
    if (o.additionalProperties !== u.additionalProperties) {
      ctx.add(u.additionalProperties ? "ADDITIONAL_PROPERTIES_ADDED" : "ADDITIONAL_PROPERTIES_REMOVED");
    } else if (o.schemaOfAdditionalProperties === undefined && u.schemaOfAdditionalProperties !== undefined) {
      ctx.add("ADDITIONAL_PROPERTIES_NARROWED");
    } else if (u.schemaOfAdditionalProperties === undefined && o.schemaOfAdditionalProperties !== undefined) {
      ctx.add("ADDITIONAL_PROPERTIES_EXTENDED");
    } else {
      compare(ctx, o.schemaOfAdditionalProperties, u.schemaOfAdditionalProperties);
    }
  });
}

function compareUnevaluated(
  ctx: Context,
  keyword: string,
  o: SchemaNode | undefined,
  u: SchemaNode | undefined,
  family: "UNEVALUATED_PROPERTIES" | "UNEVALUATED_ITEMS",
): void {
  if (o === undefined && u === undefined) return;
  ctx.inPath(keyword, () => {
    if (o === undefined) ctx.add(u?.kind === "False" ? `${family}_REMOVED` : `${family}_NARROWED`);
    else if (u === undefined) ctx.add(o.kind === "False" ? `${family}_ADDED` : `${family}_EXTENDED`);
    else if (o.kind === "False" && u.kind !== "False") ctx.add(`${family}_ADDED`);
    else if (o.kind !== "False" && u.kind === "False") ctx.add(`${family}_REMOVED`);
    else if (isEmptyLike(o) && !isEmptyLike(u)) ctx.add(`${family}_NARROWED`);
    else if (!isEmptyLike(o) && isEmptyLike(u)) ctx.add(`${family}_EXTENDED`);
    else compare(ctx, o, u);
  });
}

// ---------------------------------------------------------------------------------------------
// Arrays (ArraySchemaDiff)

function isOpenArray(n: ArrayNode): boolean {
  if (!n.additionalItems || n.schemaOfAdditionalItems !== undefined) return false;
  const u = unevaluated(n, "unevaluatedItems");
  return u === undefined || isEmptyLike(u);
}

function partialArraySchema(n: ArrayNode): SchemaNode | undefined {
  if (n.schemaOfAdditionalItems !== undefined) return n.schemaOfAdditionalItems;
  if (n.additionalItems) {
    const u = unevaluated(n, "unevaluatedItems");
    if (u !== undefined && u.kind !== "False" && !isEmptyLike(u)) return u;
  }
  return undefined;
}

/** minContains/maxContains when an unprocessed number (Number.intValue comparisons). */
function containsLimit(n: ArrayNode, key: string): number | undefined {
  const v = n.unprocessed.get(key);
  return v !== undefined && "raw" in v && v.raw instanceof JNumber ? Math.trunc(v.raw.toNumber()) : undefined;
}

function compareArray(ctx: Context, o: ArrayNode, u: ArrayNode): void {
  ctx.inPath("items", () => compare(ctx, o.allItemSchema, u.allItemSchema));
  compareTuple(ctx, o, u);
  ctx.inPath("additionalItems", () => {
    if (o.additionalItems !== u.additionalItems)
      ctx.add(o.additionalItems ? "ADDITIONAL_ITEMS_REMOVED" : "ADDITIONAL_ITEMS_ADDED");
    else if (o.schemaOfAdditionalItems === undefined && u.schemaOfAdditionalItems !== undefined)
      ctx.add("ADDITIONAL_ITEMS_NARROWED");
    else if (u.schemaOfAdditionalItems === undefined && o.schemaOfAdditionalItems !== undefined)
      ctx.add("ADDITIONAL_ITEMS_EXTENDED");
    else compare(ctx, o.schemaOfAdditionalItems, u.schemaOfAdditionalItems);
  });
  compareUnevaluated(
    ctx,
    "unevaluatedItems",
    unevaluated(o, "unevaluatedItems"),
    unevaluated(u, "unevaluatedItems"),
    "UNEVALUATED_ITEMS",
  );
  compareLimit(ctx, "maxItems", o.maxItems, u.maxItems, "MAX_ITEMS");
  compareLimit(ctx, "minItems", o.minItems, u.minItems, "MIN_ITEMS");
  if (o.uniqueItems !== u.uniqueItems)
    ctx.addAt("uniqueItems", o.uniqueItems ? "UNIQUE_ITEMS_REMOVED" : "UNIQUE_ITEMS_ADDED");
  compareLimit(ctx, "maxContains", containsLimit(o, "maxContains"), containsLimit(u, "maxContains"), "MAX_CONTAINS");
  compareLimit(ctx, "minContains", containsLimit(o, "minContains"), containsLimit(u, "minContains"), "MIN_CONTAINS");
}

function compareTuple(ctx: Context, o: ArrayNode, u: ArrayNode): void {
  const os = o.itemSchemas ?? [];
  const us = u.itemSchemas ?? [];
  const common = Math.min(os.length, us.length);
  for (let i = 0; i < common; i++) ctx.inPath(`items/${i}`, () => compare(ctx, os[i], us[i]));
  for (let i = common; i < os.length; i++) {
    ctx.inPath(`items/${i}`, () => {
      if (isOpenArray(u)) return ctx.add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL");
      const partial = partialArraySchema(u);
      if (partial !== undefined) {
        const sub = ctx.subcontext();
        compare(sub, os[i], partial);
        ctx.addAll(sub.diffs);
        return ctx.add(
          sub.isCompatible()
            ? "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            : "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        );
      }
      ctx.add(
        os[i].kind === "False"
          ? "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
          : "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL",
      );
    });
  }
  for (let i = common; i < us.length; i++) {
    ctx.inPath(`items/${i}`, () => {
      if (isOpenArray(o))
        return ctx.add(
          isEmptyLike(us[i])
            ? "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
            : "ITEM_ADDED_TO_OPEN_CONTENT_MODEL",
        );
      const partial = partialArraySchema(o);
      if (partial !== undefined) {
        const sub = ctx.subcontext();
        compare(sub, partial, us[i]);
        ctx.addAll(sub.diffs);
        return ctx.add(
          sub.isCompatible()
            ? "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            : "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        );
      }
      ctx.add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL");
    });
  }
}
