// Property-based checks of the Avro format: self-compatibility, canonical-form stability, agreement
// with avsc's resolver as an independent oracle, and the classic field evolution rules.
//
// Known differences between avsc and Java Avro, kept out of the generated pairs:
// - namespaces: Java matches named types on their unqualified names, avsc on full names, so a
//   namespace-only rename is compatible for Java and not for avsc (all generated names are global);
// - union defaults: Java 1.12 accepts a default matching any branch, avsc only the first one (such
//   defaults are left out of the avsc type); generated defaults always match the first branch;
// - empty unions and enums: valid for Java, rejected by avsc (never generated).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Type } from "avsc";
import { InvalidSchemaError } from "#src/schema/format.ts";
import { avroFormat, type AvroParsedSchema } from "#src/schema/avro/index.ts";

// ---------------------------------------------------------------------------------------------
// A small schema model for generation and mutation. Named types get their names after generation,
// so that a mutated copy keeps the names of the types it shares with the original. All names live in
// the null namespace: avsc resolves named types by full name while Java compares unqualified names,
// a known difference kept out of the oracle test.

const PRIMS = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"] as const;
type Prim = (typeof PRIMS)[number];

type S =
  | { k: "prim"; t: Prim }
  | { k: "enum"; name: string; symbols: string[]; def: boolean; aliases: string[] }
  | { k: "fixed"; name: string; size: number }
  | { k: "array"; items: S }
  | { k: "map"; values: S }
  | { k: "union"; branches: S[] }
  | { k: "record"; name: string; fields: F[]; aliases: string[] };
interface F {
  name: string;
  type: S;
  def: boolean;
  aliases: string[];
}

const prim = fc.constantFrom(...PRIMS).map((t): S => ({ k: "prim", t }));
const symbols = fc.uniqueArray(fc.constantFrom("A", "B", "C", "D", "E"), { minLength: 1, maxLength: 4 });
const enumS = fc.record({ symbols, def: fc.boolean() }).map((e): S => ({ k: "enum", name: "", aliases: [], ...e }));
const fixedS = fc.integer({ min: 0, max: 4 }).map((size): S => ({ k: "fixed", name: "", size }));

/** Branch "slot" of a union member: members must differ by it (Java: by full name). */
function slot(s: S): string {
  return s.k === "prim" ? s.t : s.k === "record" || s.k === "enum" || s.k === "fixed" ? `${s.k}:${s.name}` : s.k;
}

const { schema: schemaArb } = fc.letrec<{ schema: S; nonUnion: S; record: S }>((tie) => ({
  schema: fc.oneof({ depthSize: "small" }, tie("nonUnion"), unionOf(tie("nonUnion"))),
  nonUnion: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    prim,
    enumS,
    fixedS,
    tie("schema").map((items): S => ({ k: "array", items })),
    tie("schema").map((values): S => ({ k: "map", values })),
    tie("record"),
  ),
  record: fc.array(fc.record({ type: tie("schema"), def: fc.boolean() }), { maxLength: 4 }).map(
    (fs): S => ({
      k: "record",
      name: "",
      aliases: [],
      fields: fs.map((f, i) => ({ name: `f${i}`, type: f.type, def: f.def, aliases: [] })),
    }),
  ),
}));

function unionOf(member: fc.Arbitrary<S>): fc.Arbitrary<S> {
  // Named members get distinct names later; unnamed ones are de-duplicated by kind here.
  return fc
    .array(member, { minLength: 1, maxLength: 4 })
    .map((bs) => {
      const seen = new Set<string>();
      return bs.filter((b) => {
        const key = b.k === "prim" ? b.t : b.k === "array" || b.k === "map" ? b.k : `${b.k}:${seen.size}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    })
    .map((branches): S => ({ k: "union", branches }));
}

const topRecordArb: fc.Arbitrary<S> = fc
  .array(fc.record({ type: schemaArb, def: fc.boolean() }), { minLength: 0, maxLength: 5 })
  .map((fs) => ({
    k: "record" as const,
    name: "",
    aliases: [],
    fields: fs.map((f, i) => ({ name: `f${i}`, type: f.type, def: f.def, aliases: [] })),
  }));

/** Names every named type T0, T1, … (pre-order). */
function named(s: S): S {
  let n = 0;
  const visit = (x: S): void => {
    if (x.k === "record" || x.k === "enum" || x.k === "fixed") x.name = `T${n++}`;
    if (x.k === "record") x.fields.forEach((f) => visit(f.type));
    if (x.k === "array") visit(x.items);
    if (x.k === "map") visit(x.values);
    if (x.k === "union") x.branches.forEach(visit);
  };
  visit(s);
  return s;
}

/** A default that Java and avsc both accept (a union default matches its first branch). */
function defaultFor(s: S): unknown {
  switch (s.k) {
    case "prim":
      return { null: null, boolean: true, int: 7, long: -3, float: 1.5, double: 0.25, bytes: "\u00ff", string: "s" }[
        s.t
      ];
    case "enum":
      return s.symbols[s.symbols.length - 1];
    case "fixed":
      return "x".repeat(s.size);
    case "array":
      return [defaultFor(s.items)];
    case "map":
      return { k: defaultFor(s.values) };
    case "union":
      return defaultFor(s.branches[0]);
    case "record":
      return Object.fromEntries(s.fields.map((f) => [f.name, defaultFor(f.type)]));
  }
}

function toJson(s: S): unknown {
  switch (s.k) {
    case "prim":
      return s.t;
    case "enum":
      return {
        type: "enum",
        name: s.name,
        symbols: s.symbols,
        ...(s.def ? { default: s.symbols[0] } : {}),
        ...(s.aliases.length ? { aliases: s.aliases } : {}),
      };
    case "fixed":
      return { type: "fixed", name: s.name, size: s.size };
    case "array":
      return { type: "array", items: toJson(s.items) };
    case "map":
      return { type: "map", values: toJson(s.values) };
    case "union":
      return s.branches.map(toJson);
    case "record":
      return {
        type: "record",
        name: s.name,
        ...(s.aliases.length ? { aliases: s.aliases } : {}),
        fields: s.fields.map((f) => ({
          name: f.name,
          type: toJson(f.type),
          ...(f.def ? { default: defaultFor(f.type) } : {}),
          ...(f.aliases.length ? { aliases: f.aliases } : {}),
        })),
      };
  }
}

const parse = (s: S): AvroParsedSchema => avroFormat.parse(JSON.stringify(toJson(s)), []);

// ---------------------------------------------------------------------------------------------
// Mutations: one random schema change, driven by a tape of random numbers.

function nodes(s: S, out: S[] = []): S[] {
  out.push(s);
  if (s.k === "record") s.fields.forEach((f) => nodes(f.type, out));
  if (s.k === "array") nodes(s.items, out);
  if (s.k === "map") nodes(s.values, out);
  if (s.k === "union") s.branches.forEach((b) => nodes(b, out));
  return out;
}

let fresh = 0;

function mutate(base: S, tape: number[]): S {
  const s = structuredClone(base);
  let i = 0;
  const next = (n: number): number => (n <= 0 ? 0 : (tape[i++ % tape.length] ?? 0) % n);
  const all = nodes(s);
  const target = all[next(all.length)];
  switch (target.k) {
    case "prim":
      target.t = PRIMS[next(PRIMS.length)];
      break;
    case "enum":
      switch (next(3)) {
        case 0:
          if (target.symbols.length > 1) target.symbols.splice(next(target.symbols.length), 1);
          break;
        case 1:
          if (!target.symbols.includes("Z")) target.symbols.push("Z");
          break;
        default:
          target.def = !target.def;
      }
      break;
    case "fixed":
      target.size = next(5);
      break;
    case "array":
    case "map": {
      const inner = target.k === "array" ? target.items : target.values;
      const replacement: S = inner.k === "prim" ? { k: "prim", t: PRIMS[next(PRIMS.length)] } : inner;
      if (target.k === "array") target.items = replacement;
      else target.values = replacement;
      break;
    }
    case "union": {
      const op = next(3);
      if (op === 0 && target.branches.length > 1) {
        target.branches.splice(next(target.branches.length), 1);
      } else {
        const p = PRIMS[next(PRIMS.length)];
        if (!target.branches.some((b) => slot(b) === p))
          target.branches.splice(next(target.branches.length + 1), 0, { k: "prim", t: p });
      }
      break;
    }
    case "record":
      switch (next(5)) {
        case 0:
          target.fields.push({
            name: `added${fresh++}`,
            type: { k: "prim", t: PRIMS[next(PRIMS.length)] },
            def: next(2) === 0,
            aliases: [],
          });
          break;
        case 1:
          if (target.fields.length > 0) target.fields.splice(next(target.fields.length), 1);
          break;
        case 2:
          if (target.fields.length > 0) {
            const f = target.fields[next(target.fields.length)];
            f.def = !f.def;
          }
          break;
        case 3:
          if (target.fields.length > 0) {
            // rename a field, remembering the old name as an alias (or not)
            const f = target.fields[next(target.fields.length)];
            const old = f.name;
            f.name = `renamed${fresh++}`;
            if (next(2) === 0) f.aliases = [old];
          }
          break;
        default: {
          const old = target.name;
          target.name = `${old}x`;
          if (next(2) === 0) target.aliases = [old];
        }
      }
      break;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------

/** avsc's verdict: can `reader` read `writer` data? Also round-trips random writer values. */
function avscReads(reader: Type, writer: Type): boolean {
  let resolver;
  try {
    resolver = reader.createResolver(writer);
  } catch {
    return false;
  }
  const w = writer as unknown as { random(): unknown };
  for (let i = 0; i < 5; i++) {
    const value = w.random();
    reader.fromBuffer(writer.toBuffer(value), resolver);
  }
  return true;
}

/** Re-renders JSON text with shuffled schema keys, random whitespace and comments (defaults untouched). */
function scramble(value: unknown, rnd: () => number): string {
  const ws = () => [" ", "\n", "\t", "", "  ", " /* c */ "][Math.floor(rnd() * 6)];
  const render = (v: unknown, shuffle: boolean): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map((x) => render(x, shuffle)).join(`,${ws()}`)}${ws()}]`;
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      if (shuffle) entries.sort(() => rnd() - 0.5);
      return `{${ws()}${entries
        .map(([k, x]) => `${JSON.stringify(k)}${ws()}:${ws()}${render(x, shuffle && k !== "default")}`)
        .join(`,${ws()}`)}${ws()}}`;
    }
    return JSON.stringify(v);
  };
  return render(value, true);
}

const RUNS = { numRuns: 150 };

describe("properties", () => {
  test("(a) every schema is compatible with itself", () => {
    fc.assert(
      fc.property(schemaArb.map(named), (s) => {
        const a = parse(s);
        expect(avroFormat.readProblems(a, a)).toEqual([]);
        expect(avroFormat.readProblems(a, parse(s))).toEqual([]);
      }),
      RUNS,
    );
  });

  test("(b) canonical form is stable under re-parsing, key order, whitespace and comments", () => {
    fc.assert(
      fc.property(topRecordArb.map(named), fc.integer(), (s, seed) => {
        const c = parse(s).canonical;
        expect(avroFormat.parse(c, []).canonical).toBe(c);
        let x = seed | 0;
        const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
        expect(avroFormat.parse(scramble(toJson(s), rnd), []).canonical).toBe(c);
        const n = parse(s).normalized();
        expect(avroFormat.parse(n, []).normalized()).toBe(n);
      }),
      RUNS,
    );
  });

  test("(c) readProblems agrees with avsc's resolver", () => {
    const seen = { compatible: 0, incompatible: 0, invalid: 0 };
    fc.assert(
      fc.property(
        topRecordArb.map(named),
        fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        (base, tape, swap) => {
          const mutated = mutate(base, tape);
          const [readerS, writerS] = swap ? [mutated, base] : [base, mutated];
          let reader: AvroParsedSchema;
          let writer: AvroParsedSchema;
          try {
            reader = parse(readerS);
            writer = parse(writerS);
          } catch (e) {
            // a mutation may produce an invalid schema (e.g. a duplicate union branch): nothing to compare
            if (e instanceof InvalidSchemaError) {
              seen.invalid++;
              return;
            }
            throw e;
          }
          const problems = avroFormat.readProblems(reader, writer);
          const avsc = avscReads(reader.avscType, writer.avscType);
          seen[avsc ? "compatible" : "incompatible"]++;
          expect({ compatible: problems.length === 0, problems }).toEqual({
            compatible: avsc,
            problems: avsc ? [] : problems,
          });
        },
      ),
      { numRuns: 200 },
    );
    // the mutations must exercise both outcomes, not just one
    expect(seen.compatible).toBeGreaterThan(30);
    expect(seen.incompatible).toBeGreaterThan(30);
    expect(seen.invalid).toBeLessThan(60);
  });

  test("(d) adding or removing fields", () => {
    fc.assert(
      fc.property(topRecordArb.map(named), schemaArb, (base, added) => {
        if (base.k !== "record") return;
        const withField = (def: boolean): S => {
          const copy = structuredClone(base) as Extract<S, { k: "record" }>;
          copy.fields.push({ name: "zz", type: named2(added), def, aliases: [] });
          return copy;
        };
        const old = parse(base);
        const withDefault = parse(withField(true));
        const withoutDefault = parse(withField(false));
        // added with a default: compatible both ways
        expect(avroFormat.readProblems(withDefault, old)).toEqual([]);
        expect(avroFormat.readProblems(old, withDefault, "writer")).toEqual([]);
        // added without a default: the new reader cannot read old data (BACKWARD)
        const pos = base.fields.length;
        const backward = avroFormat.readProblems(withoutDefault, old);
        // Java quirk: an enum with its own default is compared against the writer record instead
        const enumWithDefault = added.k === "enum" && added.def;
        expect(backward.map((p) => [p.type, p.path])).toEqual([
          enumWithDefault
            ? ["TYPE_MISMATCH", `/fields/${pos}/type`]
            : ["READER_FIELD_MISSING_DEFAULT_VALUE", `/fields/${pos}`],
        ]);
        // removing a field without default: the old reader cannot read new data (FORWARD)
        const forward = avroFormat.readProblems(withoutDefault, old, "writer");
        expect(forward).toHaveLength(1);
        if (!enumWithDefault) {
          expect(forward[0].description).toBe(
            `The field 'zz' at path '/fields/${pos}' in the old schema has no default value and is missing in the new schema`,
          );
        }
      }),
      RUNS,
    );
  });
});

/** Names the named types of an added field's type apart from the base record's (N0, N1, …). */
function named2(s: S): S {
  const copy = structuredClone(s);
  let n = 0;
  for (const x of nodes(copy)) if (x.k === "record" || x.k === "enum" || x.k === "fixed") x.name = `N${n++}`;
  return copy;
}
