// fast-check arbitraries shared by the schema registry converter tests: Connect schemas that each
// format can carry (valid record/message names, no name used by two different structs) and values
// for them, built on the generic Connect-data arbitraries.
import fc from "fast-check";
import { BigDecimal } from "../../../../src/jvm/big-decimal.ts";
import { ConnectDate, Decimal, Time, Timestamp, SchemaBuilder, type Schema, Struct } from "../../../../src/connect/api/data/index.ts";
import { floatArbitrary } from "../../../fixtures/connect-data.ts";

export interface RegistrySchemaOptions {
  /** Structs may be optional at the top (the Avro and JSON Schema mappings carry that). */
  optionalStructs: boolean;
  /** Maps whose keys are not required strings. */
  anyMapKeys: boolean;
  /** Nulls in arrays and maps (Protobuf has none). */
  nullElements: boolean;
  /** Defaults on primitive schemas. */
  defaults: boolean;
  /** Names, docs, versions and parameters on schemas other than structs. */
  decorations: boolean;
  /** Arrays of arrays (Protobuf has none). */
  nestedArrays: boolean;
  /** No arrays or maps inside arrays and maps (Protobuf's repeated fields and entry messages). */
  flatCollections?: boolean;
  maxDepth: number;
}

const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
/** Unicode text without lone surrogates (UTF-8 cannot carry them). */
export const text = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 4 }), fc.constantFrom("", "q\"uo\\te\n", "😀 é ∑"));

type Primitive = "INT8" | "INT16" | "INT32" | "INT64" | "FLOAT32" | "FLOAT64" | "BOOLEAN" | "STRING" | "BYTES" | "DECIMAL" | "DATE" | "TIME" | "TIMESTAMP";
const PRIMITIVES: Primitive[] = ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES", "DECIMAL", "DATE", "TIME", "TIMESTAMP"];

function primitiveBuilder(kind: Primitive, scale: number): SchemaBuilder {
  switch (kind) {
    case "DECIMAL":
      return Decimal.builder(scale);
    case "DATE":
      return ConnectDate.builder();
    case "TIME":
      return Time.builder();
    case "TIMESTAMP":
      return Timestamp.builder();
    case "BOOLEAN":
      return SchemaBuilder.bool();
    default:
      return new SchemaBuilder(kind);
  }
}

/** Values of a schema's own type (never null); floats finite. */
export function valueOf(schema: Schema, o: RegistrySchemaOptions): fc.Arbitrary<unknown> {
  switch (schema.name) {
    case Decimal.LOGICAL_NAME: {
      const scale = Decimal.scale(schema);
      return fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((u) => new BigDecimal(u, scale));
    }
    case ConnectDate.LOGICAL_NAME:
      return fc.integer({ min: -100_000, max: 100_000 }).map((days) => new Date(days * 86_400_000));
    case Time.LOGICAL_NAME:
      return fc.integer({ min: 0, max: 86_399_999 }).map((ms) => new Date(ms));
    case Timestamp.LOGICAL_NAME:
      return fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new Date(ms));
  }
  switch (schema.type) {
    case "INT8":
      return fc.integer({ min: -128, max: 127 });
    case "INT16":
      return fc.integer({ min: -32768, max: 32767 });
    case "INT32":
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case "INT64":
      return fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.maxSafeInteger());
    case "FLOAT32":
    case "FLOAT64":
      return floatArbitrary(schema.type, { finiteFloats: true });
    case "BOOLEAN":
      return fc.boolean();
    case "STRING":
      return text;
    case "BYTES":
      return fc.uint8Array({ maxLength: 12 });
    case "ARRAY":
      return fc.array(elementOf(schema.valueSchema!, o), { maxLength: 3 });
    case "MAP":
      return fc
        .uniqueArray(fc.tuple(valueOf(schema.keySchema!, o), elementOf(schema.valueSchema!, o)), { maxLength: 3, selector: ([k]) => keyText(k) })
        .map((entries) => new Map(entries));
    case "STRUCT":
      return fc.tuple(...schema.fields.map((f) => fieldValueOf(f.schema, o))).map((values) => {
        const struct = new Struct(schema);
        schema.fields.forEach((f, i) => struct.put(f, values[i]));
        return struct;
      });
  }
}

function elementOf(schema: Schema, o: RegistrySchemaOptions): fc.Arbitrary<unknown> {
  return o.nullElements ? fieldValueOf(schema, o) : valueOf(schema, o);
}

/** A value for a field: null sometimes when the schema is optional and has no default. */
export function fieldValueOf(schema: Schema, o: RegistrySchemaOptions): fc.Arbitrary<unknown> {
  const value = valueOf(schema, o);
  return schema.optional && schema.defaultValue === null ? fc.option(value, { nil: null, freq: 4 }) : value;
}

function keyText(k: unknown): string {
  if (k instanceof Uint8Array) return `b:${Buffer.from(k).toString("hex")}`;
  if (k instanceof Struct) return `s:${k.schema.fields.map((f) => keyText(k.getWithoutDefault(f.name))).join("|")}`;
  if (k instanceof Date) return `d:${k.getTime()}`;
  // Maps with the same entries are equal keys, whatever their order.
  if (k instanceof Map) return `m:${[...k].map(([a, b]) => `${keyText(a)}=${keyText(b)}`).sort().join(",")}`;
  if (Array.isArray(k)) return `a:${k.map(keyText).join(",")}`;
  // An INT64 held as number equals the same bigint.
  return typeof k === "number" || typeof k === "bigint" ? `n:${String(k)}` : `${typeof k}:${String(k)}`;
}

const decorations = fc.record({
  name: fc.option(identifier.map((n) => `com.example.${n}`), { nil: null, freq: 3 }),
  version: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null, freq: 3 }),
  doc: fc.option(text, { nil: null, freq: 3 }),
  parameters: fc.uniqueArray(fc.tuple(identifier.map((k) => `p.${k}`), text), { maxLength: 2, selector: ([k]) => k }),
});

export function registrySchema(o: RegistrySchemaOptions, depth = o.maxDepth, top = true): fc.Arbitrary<Schema> {
  const primitive = fc.tuple(fc.constantFrom(...PRIMITIVES), fc.integer({ min: 0, max: 12 }), decorations, fc.boolean()).chain(([kind, scale, d, optional]) => {
    const logical = kind === "DECIMAL" || kind === "DATE" || kind === "TIME" || kind === "TIMESTAMP";
    const b = primitiveBuilder(kind, scale);
    if (optional) b.optional();
    if (!logical && o.decorations) decorate(b, d);
    const plain = b.build();
    if (!o.defaults) return fc.constant(plain);
    return fc.option(valueOf(plain, o), { nil: null, freq: 3 }).map((dflt) => {
      if (dflt === null) return plain;
      const withDefault = primitiveBuilder(kind, scale);
      if (optional) withDefault.optional();
      if (!logical && o.decorations) decorate(withDefault, d);
      return withDefault.defaultValue(dflt).build();
    });
  });
  if (depth <= 0) return primitive;
  const inner = registrySchema(o, depth - 1, false);
  const collection = (s: Schema) => s.type === "ARRAY" || s.type === "MAP";
  const element = o.flatCollections ? inner.filter((s) => !collection(s)) : inner;
  const optional = fc.boolean();
  const array = fc
    .tuple(element, optional)
    .filter(([items]) => o.nestedArrays || items.type !== "ARRAY")
    .map(([items, opt]) => (opt ? SchemaBuilder.array(items).optional() : SchemaBuilder.array(items)).build());
  // Required string keys become the format's own map keys, which carry no schema of their own.
  const keys = o.anyMapKeys
    ? element.filter((k) => (k.type !== "ARRAY" || o.nestedArrays) && (k.type !== "STRING" || k.optional || k.equals(SchemaBuilder.string().build())))
    : fc.constant(SchemaBuilder.string().build());
  const map = fc
    .tuple(keys, element, optional)
    .filter(([, v]) => o.nestedArrays || v.type !== "ARRAY")
    .map(([k, v, opt]) => (opt ? SchemaBuilder.map(k, v).optional() : SchemaBuilder.map(k, v)).build());
  const struct = fc
    .tuple(fc.uniqueArray(fc.tuple(identifier, inner), { maxLength: 4, selector: ([n]) => n }), fc.option(identifier, { nil: null }), fc.boolean())
    .map(([fields, name, opt]) => {
      const b = SchemaBuilder.struct();
      if (name !== null) b.name(`com.example.S${name}`);
      for (const [n, s] of fields) b.field(n, s);
      if (opt && (o.optionalStructs || !top)) b.optional();
      return b.build();
    });
  return fc.oneof({ weight: 2, arbitrary: primitive }, { weight: 1, arbitrary: array }, { weight: 1, arbitrary: map }, { weight: 3, arbitrary: struct }).filter(uniqueStructNames);
}

function decorate(b: SchemaBuilder, d: { name: string | null; version: number | null; doc: string | null; parameters: [string, string][] }): void {
  if (d.name !== null) b.name(d.name);
  if (d.version !== null) b.version(d.version);
  if (d.doc !== null) b.doc(d.doc);
  for (const [k, v] of d.parameters) b.parameter(k, v);
}

/** No struct name stands for two different structs (Avro and Protobuf define a name once). */
export function uniqueStructNames(schema: Schema): boolean {
  const seen = new Map<string, Schema>();
  const walk = (s: Schema): boolean => {
    if (s.type === "STRUCT") {
      if (s.name !== null) {
        const other = seen.get(s.name);
        if (other && !sameShape(other, s)) return false;
        seen.set(s.name, s);
      }
      return s.fields.every((f) => walk(f.schema));
    }
    if (s.type === "ARRAY") return walk(s.valueSchema!);
    if (s.type === "MAP") return walk(s.keySchema!) && walk(s.valueSchema!);
    return true;
  };
  return walk(schema);
}

function sameShape(a: Schema, b: Schema): boolean {
  return a.fields.length === b.fields.length && a.fields.every((f, i) => f.name === b.fields[i]!.name && f.schema.equals(b.fields[i]!.schema));
}

/** A struct schema at the top (what Protobuf writes) and a value for it. */
export function structAndValue(o: RegistrySchemaOptions): fc.Arbitrary<[Schema, unknown]> {
  return registrySchema(o)
    .filter((s) => s.type === "STRUCT" && !s.optional)
    .chain((s) => valueOf(s, o).map((v): [Schema, unknown] => [s, v]));
}
