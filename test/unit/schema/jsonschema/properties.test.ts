// Property-based checks of the JSON Schema format: self-compatibility, the content-model rules for
// added properties, canonical-form stability, and the validator against values generated to fit.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsonSchemaFormat, jsonValidator, type JsonSchemaParsed } from "#src/schema/jsonschema/index.ts";

// ---------------------------------------------------------------------------------------------
// A small schema model, generated, then rendered as JSON Schema and used to generate values.

type S =
  | { k: "string"; minLength?: number; maxLength?: number }
  | { k: "integer"; minimum?: number; maximum?: number }
  | { k: "number" }
  | { k: "boolean" }
  | { k: "null" }
  | { k: "enum"; values: string[] }
  | { k: "array"; items: S; maxItems?: number }
  | { k: "object"; props: Array<[string, S, boolean]>; closed: boolean };

const NAMES = ["id", "name", "age", "tags", "a", "b", "c", "d", "e", "f", "10", "2", "$x"];

const leaf: fc.Arbitrary<S> = fc.oneof(
  fc.record({
    k: fc.constant("string" as const),
    minLength: fc.option(fc.nat(3), { nil: undefined }),
    maxLength: fc.option(fc.integer({ min: 3, max: 8 }), { nil: undefined }),
  }),
  fc.record({
    k: fc.constant("integer" as const),
    minimum: fc.option(fc.integer({ min: -50, max: 0 }), { nil: undefined }),
    maximum: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
  }),
  fc.constant<S>({ k: "number" }),
  fc.constant<S>({ k: "boolean" }),
  fc.constant<S>({ k: "null" }),
  fc
    .uniqueArray(fc.constantFrom("red", "green", "blue", "x"), { minLength: 1, maxLength: 3 })
    .map((values): S => ({ k: "enum", values })),
);

const schemaArb: fc.Arbitrary<S> = fc.letrec<{ s: S }>((tie) => ({
  s: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({
      k: fc.constant("array" as const),
      items: tie("s"),
      maxItems: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    }),
    fc.record({
      k: fc.constant("object" as const),
      props: fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), tie("s"), fc.boolean()), {
        maxLength: 4,
        selector: ([n]) => n,
      }),
      closed: fc.boolean(),
    }),
  ),
})).s;

const objectArb = fc.record({
  k: fc.constant("object" as const),
  props: fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), schemaArb, fc.boolean()), {
    maxLength: 5,
    selector: ([n]) => n,
  }),
  closed: fc.boolean(),
});

function render(s: S): Record<string, unknown> {
  switch (s.k) {
    case "string":
      return {
        type: "string",
        ...(s.minLength !== undefined ? { minLength: s.minLength } : {}),
        ...(s.maxLength !== undefined ? { maxLength: s.maxLength } : {}),
      };
    case "integer":
      return {
        type: "integer",
        ...(s.minimum !== undefined ? { minimum: s.minimum } : {}),
        ...(s.maximum !== undefined ? { maximum: s.maximum } : {}),
      };
    case "enum":
      return { enum: s.values };
    case "array":
      return { type: "array", items: render(s.items), ...(s.maxItems !== undefined ? { maxItems: s.maxItems } : {}) };
    case "object": {
      const out: Record<string, unknown> = {
        type: "object",
        properties: Object.fromEntries(s.props.map(([n, t]) => [n, render(t)])),
      };
      const required = s.props.filter(([, , r]) => r).map(([n]) => n);
      if (required.length > 0) out.required = required;
      if (s.closed) out.additionalProperties = false;
      return out;
    }
    default:
      return { type: s.k };
  }
}

function valueOf(s: S): fc.Arbitrary<unknown> {
  switch (s.k) {
    case "string":
      return fc.string({ minLength: s.minLength ?? 0, maxLength: s.maxLength ?? 10 });
    case "integer":
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "enum":
      return fc.constantFrom(...s.values);
    case "array":
      return fc.array(valueOf(s.items), { maxLength: s.maxItems ?? 4 });
    case "object": {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [n, t] of s.props) model[n] = valueOf(t);
      const required = s.props.filter(([, , r]) => r).map(([n]) => n);
      const known = fc.record(model, { requiredKeys: required });
      if (s.closed) return known;
      return fc
        .tuple(known, fc.dictionary(fc.constantFrom("extra1", "extra2"), fc.jsonValue({ maxDepth: 1 })))
        .map(([k, extra]) => ({ ...extra, ...k }));
    }
  }
}

const DRAFTS = [
  undefined,
  "http://json-schema.org/draft-04/schema#",
  "http://json-schema.org/draft-06/schema#",
  "https://json-schema.org/draft/2019-09/schema",
  "https://json-schema.org/draft/2020-12/schema",
];

const parse = (schema: Record<string, unknown>, draft?: string): JsonSchemaParsed =>
  jsonSchemaFormat.parse(JSON.stringify(draft === undefined ? schema : { $schema: draft, ...schema }), []);

const problems = (newer: JsonSchemaParsed, older: JsonSchemaParsed, direction: "backward" | "forward") =>
  direction === "backward"
    ? jsonSchemaFormat.readProblems(newer, older, "reader")
    : jsonSchemaFormat.readProblems(older, newer, "writer");

describe("properties", () => {
  test("every generated schema is compatible with itself, both ways, in every draft", () => {
    fc.assert(
      fc.property(schemaArb, fc.constantFrom(...DRAFTS), (s, draft) => {
        const a = parse(render(s), draft);
        const b = parse(render(s), draft);
        expect(problems(a, b, "backward")).toEqual([]);
        expect(problems(a, b, "forward")).toEqual([]);
        expect(jsonSchemaFormat.readProblems(a, a)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  test("adding an optional property to a closed model is backward compatible", () => {
    fc.assert(
      fc.property(
        objectArb,
        schemaArb,
        fc.constantFrom(undefined, "https://json-schema.org/draft/2020-12/schema"),
        (o, added, draft) => {
          fc.pre(!o.props.some(([n]) => n === "added"));
          const older = { ...o, closed: true };
          const newer: S = { ...older, props: [...older.props, ["added", added, false]] };
          expect(problems(parse(render(newer), draft), parse(render(older), draft), "backward")).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  test("adding a property to an open model is backward incompatible under STRICT", () => {
    fc.assert(
      fc.property(objectArb, schemaArb, fc.boolean(), (o, added, required) => {
        fc.pre(!o.props.some(([n]) => n === "added"));
        const older = { ...o, closed: false };
        const newer: S = { ...older, props: [...older.props, ["added", added, required]] };
        const found = problems(parse(render(newer)), parse(render(older)), "backward").map(
          (p) => `${p.type} ${p.path}`,
        );
        expect(found).toEqual([
          `${required ? "REQUIRED" : "OPTIONAL"}_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/added`,
        ]);
        // ... while the old schema still reads what the new one writes.
        expect(problems(parse(render(newer)), parse(render(older)), "forward")).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  test("the canonical form is stable under re-parsing and whitespace; normalizing is idempotent", () => {
    fc.assert(
      fc.property(schemaArb, fc.constantFrom("", " ", "\n  ", "\t"), (s, ws) => {
        const text = JSON.stringify(render(s), null, ws.length > 0 ? ws : undefined);
        const p = jsonSchemaFormat.parse(text, []);
        expect(p.canonical).toBe(JSON.stringify(render(s)));
        expect(jsonSchemaFormat.parse(p.canonical, []).canonical).toBe(p.canonical);
        const n = p.normalized();
        expect(jsonSchemaFormat.parse(n, []).normalized()).toBe(n);
      }),
      { numRuns: 150 },
    );
  });

  test("the validator accepts values generated from the schema, in every draft", () => {
    fc.assert(
      fc.property(
        schemaArb.chain((s) => fc.tuple(fc.constant(s), valueOf(s), fc.constantFrom(...DRAFTS))),
        ([s, value, draft]) => {
          expect(jsonValidator(parse(render(s), draft))(value)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("the validator rejects a required property of the wrong type", () => {
    fc.assert(
      fc.property(
        objectArb.chain((o) => fc.tuple(fc.constant(o), valueOf(o))),
        ([o, value]) => {
          const schema: S = {
            ...o,
            props: [...o.props.filter(([n]) => n !== "mustBeText"), ["mustBeText", { k: "string" }, true]],
          };
          const v = { ...(value as Record<string, unknown>), mustBeText: 42 };
          expect(jsonValidator(parse(render(schema)))(v)).toContain("#/mustBeText: must be string");
        },
      ),
      { numRuns: 100 },
    );
  });
});
