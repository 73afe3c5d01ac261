import { describe, expect, test } from "bun:test";
import type { Incompatibility, ResolvedReference } from "#src/schema/format.ts";
import {
  CompatibilityCheckError,
  formatJsonSchemaDifference,
  jsonSchemaFormat,
  type JsonSchemaParsed,
} from "#src/schema/jsonschema/index.ts";
import { compareSchemas } from "#src/schema/jsonschema/compatibility.ts";

const parse = (s: unknown, refs: ResolvedReference[] = []): JsonSchemaParsed =>
  jsonSchemaFormat.parse(typeof s === "string" ? s : JSON.stringify(s), refs);

/** BACKWARD: the new schema reads data written with the old one. */
const backward = (newer: unknown, older: unknown): Incompatibility[] =>
  jsonSchemaFormat.readProblems(parse(newer), parse(older), "reader");
/** FORWARD: the old schema reads data written with the new one. */
const forward = (newer: unknown, older: unknown): Incompatibility[] =>
  jsonSchemaFormat.readProblems(parse(older), parse(newer), "writer");

const brief = (ps: Incompatibility[]): string[] => ps.map((p) => `${p.type} ${p.path}`);

/** Checks the incompatibilities of evolving `older` into `newer`, both ways. */
function evolve(older: unknown, newer: unknown, expected: { backward: string[]; forward: string[] }): void {
  expect(brief(backward(newer, older))).toEqual(expected.backward);
  expect(brief(forward(newer, older))).toEqual(expected.forward);
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

describe("types", () => {
  test("identical schemas are compatible", () => {
    const s = obj({ a: { type: "string" }, b: { type: "array", items: { type: "number" } } }, { required: ["a"] });
    evolve(s, s, { backward: [], forward: [] });
  });

  test("changing a type", () => {
    evolve({ type: "string" }, { type: "integer" }, { backward: ["TYPE_CHANGED #/"], forward: ["TYPE_CHANGED #/"] });
  });

  test("number narrowed to integer, integer extended to number", () => {
    evolve({ type: "number" }, { type: "integer" }, { backward: ["TYPE_NARROWED #/"], forward: [] });
    evolve({ type: "integer" }, { type: "number" }, { backward: [], forward: ["TYPE_NARROWED #/"] });
  });

  test("anything may become the empty schema or true; false may become anything", () => {
    evolve({ type: "string" }, {}, { backward: [], forward: ["TYPE_CHANGED #/"] });
    evolve({ type: "string" }, true, { backward: [], forward: ["TYPE_CHANGED #/"] });
    evolve(false, { type: "string" }, { backward: [], forward: ["TYPE_CHANGED #/"] });
  });

  test("a type widened into a union (SUM_TYPE_EXTENDED) and narrowed back", () => {
    evolve({ type: "string" }, { type: ["string", "null"] }, { backward: [], forward: ["TYPE_CHANGED #/"] });
    evolve(
      { type: "string" },
      { oneOf: [{ type: "string" }, { type: "integer" }] },
      { backward: [], forward: ["TYPE_CHANGED #/"] },
    );
  });

  test("connect.type bytes on both sides counts as the same type", () => {
    evolve(
      { type: "string", "connect.type": "bytes" },
      { type: "number", "connect.type": "bytes" },
      { backward: [], forward: [] },
    );
  });
});

describe("string, number and enum limits", () => {
  test("maxLength and minLength", () => {
    evolve(
      { type: "string", maxLength: 10 },
      { type: "string", maxLength: 5 },
      { backward: ["MAX_LENGTH_DECREASED #/maxLength"], forward: [] },
    );
    evolve(
      { type: "string" },
      { type: "string", maxLength: 5 },
      { backward: ["MAX_LENGTH_ADDED #/maxLength"], forward: [] },
    );
    evolve(
      { type: "string", minLength: 1 },
      { type: "string", minLength: 3 },
      { backward: ["MIN_LENGTH_INCREASED #/minLength"], forward: [] },
    );
    evolve(
      { type: "string" },
      { type: "string", minLength: 3 },
      { backward: ["MIN_LENGTH_ADDED #/minLength"], forward: [] },
    );
  });

  test("pattern added, removed, changed", () => {
    evolve(
      { type: "string" },
      { type: "string", pattern: "^a" },
      { backward: ["PATTERN_ADDED #/pattern"], forward: [] },
    );
    evolve(
      { type: "string", pattern: "^a" },
      { type: "string", pattern: "^b" },
      { backward: ["PATTERN_CHANGED #/pattern"], forward: ["PATTERN_CHANGED #/pattern"] },
    );
  });

  test("maximum, minimum and exclusive limits", () => {
    evolve(
      { type: "number", maximum: 10 },
      { type: "number", maximum: 5 },
      { backward: ["MAXIMUM_DECREASED #/maximum"], forward: [] },
    );
    evolve(
      { type: "number", minimum: 0 },
      { type: "number", minimum: 1.5 },
      { backward: ["MINIMUM_INCREASED #/minimum"], forward: [] },
    );
    evolve(
      { type: "number" },
      { type: "number", exclusiveMinimum: 0 },
      { backward: ["EXCLUSIVE_MINIMUM_ADDED #/exclusiveMinimum"], forward: [] },
    );
    expect(backward({ type: "number", exclusiveMaximum: 9 }, { type: "number", exclusiveMaximum: 5 })).toEqual([]);
    evolve({ type: "number", maximum: 3 }, { type: "number", maximum: 3.0 }, { backward: [], forward: [] });
  });

  test("exclusiveMaximum decreased without maximum fails as Confluent's check does", () => {
    expect(() => backward({ type: "number", exclusiveMaximum: 5 }, { type: "number", exclusiveMaximum: 9 })).toThrow(
      CompatibilityCheckError,
    );
    expect(
      brief(backward({ type: "number", maximum: 4, exclusiveMaximum: 5 }, { type: "number", exclusiveMaximum: 9 })),
    ).toEqual(["MAXIMUM_ADDED #/maximum", "EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum"]);
  });

  test("multipleOf", () => {
    evolve(
      { type: "number", multipleOf: 2 },
      { type: "number", multipleOf: 4 },
      { backward: ["MULTIPLE_OF_EXPANDED #/multipleOf"], forward: [] },
    );
    evolve(
      { type: "number", multipleOf: 0.5 },
      { type: "number", multipleOf: 0.75 },
      { backward: ["MULTIPLE_OF_CHANGED #/multipleOf"], forward: ["MULTIPLE_OF_CHANGED #/multipleOf"] },
    );
    evolve({ type: "number", multipleOf: 0.5 }, { type: "number", multipleOf: 0.5 }, { backward: [], forward: [] });
  });

  test("enum extended, narrowed, changed", () => {
    evolve({ enum: ["a", "b"] }, { enum: ["a", "b", "c"] }, { backward: [], forward: ["ENUM_ARRAY_NARROWED #/enum"] });
    evolve(
      { enum: ["a", "b"] },
      { enum: ["b", "c"] },
      { backward: ["ENUM_ARRAY_CHANGED #/enum"], forward: ["ENUM_ARRAY_CHANGED #/enum"] },
    );
    evolve({ enum: [1, "a"] }, { enum: ["a", 1] }, { backward: [], forward: [] });
  });

  test("const changed", () => {
    evolve(
      { const: "a" },
      { const: "b" },
      { backward: ["ENUM_ARRAY_CHANGED #/const"], forward: ["ENUM_ARRAY_CHANGED #/const"] },
    );
    evolve({ const: { x: [1, 2] } }, { const: { x: [1, 2] } }, { backward: [], forward: [] });
  });
});

describe("objects", () => {
  test("required added, with a default, removed", () => {
    const older = obj({ a: { type: "string" }, b: { type: "string", default: "x" } });
    evolve(older, { ...older, required: ["a"] }, { backward: ["REQUIRED_ATTRIBUTE_ADDED #/required/a"], forward: [] });
    evolve(older, { ...older, required: ["b"] }, { backward: [], forward: [] });
  });

  test("maxProperties and minProperties", () => {
    evolve(
      { type: "object", maxProperties: 5 },
      { type: "object", maxProperties: 3 },
      { backward: ["MAX_PROPERTIES_DECREASED #/maxProperties"], forward: [] },
    );
    evolve(
      { type: "object" },
      { type: "object", minProperties: 1 },
      { backward: ["MIN_PROPERTIES_ADDED #/minProperties"], forward: [] },
    );
  });

  test("a changed property type is reported at its path", () => {
    evolve(obj({ a: obj({ b: { type: "string" } }) }), obj({ a: obj({ b: { type: "boolean" } }) }), {
      backward: ["TYPE_CHANGED #/properties/a/properties/b"],
      forward: ["TYPE_CHANGED #/properties/a/properties/b"],
    });
  });

  test("dependencies", () => {
    evolve(
      { dependencies: { a: ["b"] } },
      { dependencies: { a: ["b", "c"] } },
      { backward: ["DEPENDENCY_ARRAY_EXTENDED #/dependencies/a"], forward: [] },
    );
    evolve({}, { dependencies: { a: ["b"] } }, { backward: ["TYPE_CHANGED #/"], forward: [] });
    evolve(
      { dependencies: { z: ["y"] } },
      { dependencies: { z: ["y"], a: ["b"] } },
      { backward: ["DEPENDENCY_ARRAY_ADDED #/dependencies/a"], forward: [] },
    );
  });

  test("additionalProperties", () => {
    evolve(
      { type: "object" },
      { type: "object", additionalProperties: false },
      { backward: ["ADDITIONAL_PROPERTIES_REMOVED #/additionalProperties"], forward: [] },
    );
    evolve(
      { type: "object" },
      { type: "object", additionalProperties: { type: "string" } },
      {
        backward: ["ADDITIONAL_PROPERTIES_NARROWED #/additionalProperties"],
        forward: [],
      },
    );
  });
});

describe("content models (property added / removed)", () => {
  const open = (props: Record<string, unknown>, required: string[] = []) => obj(props, { required });
  const closed = (props: Record<string, unknown>, required: string[] = []) =>
    obj(props, { required, additionalProperties: false });
  const partial = (props: Record<string, unknown>, required: string[] = []) =>
    obj(props, { required, additionalProperties: { type: "string" } });
  const pattern = (props: Record<string, unknown>) => obj(props, { patternProperties: { "^s_": { type: "string" } } });
  const a = { a: { type: "string" } };

  // [model, before, after, BACKWARD incompatibilities, FORWARD incompatibilities]
  const table: Array<[string, unknown, unknown, string[], string[]]> = [
    [
      "open: optional property added",
      open(a),
      open({ ...a, b: { type: "integer" } }),
      ["OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"],
      [],
    ],
    [
      "open: required property added",
      open(a),
      open({ ...a, b: { type: "integer" } }, ["b"]),
      ["REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"],
      [],
    ],
    [
      "open: required property with default added",
      open(a),
      open({ ...a, b: { type: "integer", default: 0 } }, ["b"]),
      ["REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"],
      [],
    ],
    ["open: property with empty schema added", open(a), open({ ...a, b: {} }), [], []],
    [
      "open: property removed",
      open({ ...a, b: { type: "integer" } }),
      open(a),
      [],
      ["OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b"],
    ],
    [
      "closed: optional property added",
      closed(a),
      closed({ ...a, b: { type: "integer" } }),
      [],
      ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"],
    ],
    [
      "closed: required property added",
      closed(a),
      closed({ ...a, b: { type: "integer" } }, ["b"]),
      ["REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"],
      ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"],
    ],
    [
      "closed: required property with default added",
      closed(a),
      closed({ ...a, b: { type: "integer", default: 1 } }, ["b"]),
      [],
      ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"],
    ],
    [
      "closed: property removed",
      closed({ ...a, b: { type: "integer" } }),
      closed(a),
      ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"],
      [],
    ],
    ["closed: property with false schema removed", closed({ ...a, b: false }), closed(a), [], []],
    ["partially open: added property covered", partial(a), partial({ ...a, b: { type: "string" } }), [], []],
    [
      "partially open: added property narrower than the additional schema",
      partial(a),
      partial({ ...a, b: { type: "string", maxLength: 3 } }),
      [
        "MAX_LENGTH_ADDED #/properties/b/maxLength",
        "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b",
      ],
      [],
    ],
    [
      "partially open: added property not covered",
      partial(a),
      partial({ ...a, b: { type: "integer" } }),
      ["TYPE_CHANGED #/properties/b", "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b"],
      ["TYPE_CHANGED #/properties/b", "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b"],
    ],
    [
      "pattern properties: matching property added",
      pattern(a),
      pattern({ ...a, s_b: { type: "integer" } }),
      ["TYPE_CHANGED #/properties/s_b", "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/s_b"],
      [
        "TYPE_CHANGED #/properties/s_b",
        "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/s_b",
      ],
    ],
    ["pattern properties: matching property covered", pattern(a), pattern({ ...a, s_b: { type: "string" } }), [], []],
    [
      "pattern properties: other property added",
      pattern(a),
      pattern({ ...a, b: { type: "integer" } }),
      [],
      ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"],
    ],
  ];
  for (const [name, before, after, back, fwd] of table) {
    test(name, () => evolve(before, after, { backward: back, forward: fwd }));
  }

  test("2020-12: unevaluatedProperties closes and partially opens the model", () => {
    const d = "https://json-schema.org/draft/2020-12/schema";
    const closed20 = (props: Record<string, unknown>) => ({
      $schema: d,
      type: "object",
      properties: props,
      unevaluatedProperties: false,
    });
    const partial20 = (props: Record<string, unknown>) => ({
      $schema: d,
      type: "object",
      properties: props,
      unevaluatedProperties: { type: "string" },
    });
    evolve(closed20(a), closed20({ ...a, b: { type: "integer" } }), {
      backward: [],
      forward: ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"],
    });
    evolve(partial20(a), partial20({ ...a, b: { type: "integer" } }), {
      backward: [
        "TYPE_CHANGED #/properties/b",
        "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b",
      ],
      forward: [
        "TYPE_CHANGED #/properties/b",
        "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b",
      ],
    });
    evolve({ $schema: d, type: "object", properties: a }, closed20(a), {
      backward: ["UNEVALUATED_PROPERTIES_REMOVED #/unevaluatedProperties"],
      forward: [],
    });
  });
});

describe("arrays", () => {
  test("items schema changed, added", () => {
    evolve(
      { type: "array", items: { type: "string" } },
      { type: "array", items: { type: "integer" } },
      { backward: ["TYPE_CHANGED #/items"], forward: ["TYPE_CHANGED #/items"] },
    );
    evolve(
      { type: "array" },
      { type: "array", items: { type: "string" } },
      { backward: ["SCHEMA_ADDED #/items"], forward: [] },
    );
  });

  test("maxItems, minItems, uniqueItems", () => {
    evolve(
      { type: "array", maxItems: 3 },
      { type: "array", maxItems: 2 },
      { backward: ["MAX_ITEMS_DECREASED #/maxItems"], forward: [] },
    );
    evolve(
      { type: "array" },
      { type: "array", minItems: 1 },
      { backward: ["MIN_ITEMS_ADDED #/minItems"], forward: [] },
    );
    evolve(
      { type: "array" },
      { type: "array", uniqueItems: true },
      { backward: ["UNIQUE_ITEMS_ADDED #/uniqueItems"], forward: [] },
    );
  });

  test("tuple items in open and closed content models", () => {
    const tuple = (n: number, extra: Record<string, unknown> = {}) => ({
      type: "array",
      items: Array.from({ length: n }, () => ({ type: "string" })),
      ...extra,
    });
    evolve(tuple(1), tuple(2), { backward: ["ITEM_ADDED_TO_OPEN_CONTENT_MODEL #/items/1"], forward: [] });
    evolve(tuple(1, { additionalItems: false }), tuple(2, { additionalItems: false }), {
      backward: [],
      forward: ["ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1"],
    });
    evolve(tuple(1, { additionalItems: { type: "string" } }), tuple(2, { additionalItems: { type: "string" } }), {
      backward: [],
      forward: [],
    });
    evolve(tuple(1, { additionalItems: { type: "integer" } }), tuple(2, { additionalItems: { type: "integer" } }), {
      backward: ["TYPE_CHANGED #/items/1", "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"],
      forward: ["TYPE_CHANGED #/items/1", "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/items/1"],
    });
  });

  test("additionalItems removed and narrowed", () => {
    const t = { type: "array", items: [{ type: "string" }] };
    evolve(
      t,
      { ...t, additionalItems: false },
      { backward: ["ADDITIONAL_ITEMS_REMOVED #/additionalItems"], forward: [] },
    );
    evolve(
      t,
      { ...t, additionalItems: { type: "string" } },
      { backward: ["ADDITIONAL_ITEMS_NARROWED #/additionalItems"], forward: [] },
    );
  });
});

describe("combined schemas", () => {
  test("oneOf extended and narrowed", () => {
    const two = { oneOf: [{ type: "string" }, { type: "integer" }] };
    const three = { oneOf: [{ type: "string" }, { type: "integer" }, { type: "boolean" }] };
    evolve(two, three, { backward: [], forward: ["SUM_TYPE_NARROWED #/"] });
  });

  test("criterion changes", () => {
    const subs = [{ type: "string" }, { type: "integer" }];
    evolve({ oneOf: subs }, { anyOf: subs }, { backward: [], forward: ["COMBINED_TYPE_CHANGED #/"] });
    evolve(
      { allOf: subs },
      { oneOf: subs },
      { backward: ["COMBINED_TYPE_CHANGED #/"], forward: ["COMBINED_TYPE_CHANGED #/"] },
    );
  });

  test("allOf extended (PRODUCT_TYPE_EXTENDED)", () => {
    evolve(
      { allOf: [{ type: "string" }] },
      { allOf: [{ type: "string" }, { maxLength: 3 }] },
      {
        backward: ["PRODUCT_TYPE_EXTENDED #/"],
        forward: [],
      },
    );
  });

  test("subschemas that no longer match", () => {
    evolve(
      { anyOf: [{ type: "string" }, { type: "integer" }] },
      { anyOf: [{ type: "boolean" }, { type: "integer" }] },
      {
        backward: ["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"],
        forward: ["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"],
      },
    );
  });

  test("a union narrowed to one of its branches is forward compatible only", () => {
    evolve({ type: ["string", "null"] }, { type: "string" }, { backward: ["TYPE_CHANGED #/"], forward: [] });
  });

  test("not", () => {
    evolve(
      { not: { type: "string" } },
      { not: { type: ["string", "integer"] } },
      { backward: ["NOT_TYPE_EXTENDED #/not"], forward: [] },
    );
  });

  test("keywords of different types make a synthetic allOf, matched subschema by subschema", () => {
    // The narrowed number part has no compatible counterpart, so only the combined type is reported.
    evolve(
      { type: "string", minimum: 1 },
      { type: "string", minimum: 2 },
      { backward: ["COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"], forward: [] },
    );
  });
});

describe("references", () => {
  const customer = (type: string): ResolvedReference => ({
    name: "customer.json",
    subject: "customer",
    version: 1,
    schema: JSON.stringify(obj({ id: { type } })),
    schemaType: "JSON",
    references: [],
  });

  test("local $ref targets are compared", () => {
    const withDef = (t: string) => ({ definitions: { id: { type: t } }, ...obj({ id: { $ref: "#/definitions/id" } }) });
    evolve(withDef("string"), withDef("integer"), {
      backward: ["TYPE_CHANGED #/properties/id"],
      forward: ["TYPE_CHANGED #/properties/id"],
    });
  });

  test("referenced schemas are followed", () => {
    const s = obj({ customer: { $ref: "customer.json" } });
    const older = parse(s, [customer("string")]);
    const newer = parse(s, [customer("integer")]);
    expect(brief(jsonSchemaFormat.readProblems(newer, older))).toEqual([
      "TYPE_CHANGED #/properties/customer/properties/id",
    ]);
    expect(jsonSchemaFormat.readProblems(newer, parse(s, [customer("integer")]))).toEqual([]);
  });

  test("an inlined definition and a reference to the same definition are compatible", () => {
    const inline = obj({ id: { type: "string" } });
    const s = { definitions: { id: { type: "string" } }, ...obj({ id: { $ref: "#/definitions/id" } }) };
    evolve(inline, s, { backward: [], forward: [] });
  });

  test("recursive schemas compare in bounded time", () => {
    const defs: Record<string, unknown> = {
      Id: obj({ id: { type: "string" } }, { required: ["id"] }),
      Base: obj({ name: { type: "string" } }),
      ProductOrId: { oneOf: [{ $ref: "#/$defs/Id" }, { $ref: "#/$defs/Product" }] },
    };
    const branches = 12;
    for (let i = 0; i < branches; i++) {
      const props: Record<string, unknown> = { tag: { const: `t${i}` } };
      for (let p = 0; p < 5; p++) props[`ref${p}`] = { $ref: "#/$defs/ProductOrId" };
      defs[`Type${i}`] = { $ref: "#/$defs/Base", type: "object", properties: props, required: ["ref0", "tag"] };
    }
    defs.Product = { oneOf: Array.from({ length: branches }, (_, i) => ({ $ref: `#/$defs/Type${i}` })) };
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", $defs: defs, $ref: "#/$defs/Product" };
    const started = performance.now();
    expect(backward(schema, schema)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("descriptions", () => {
  test("BACKWARD names the new schema first", () => {
    const [p] = backward(obj({ a: { type: "string" }, b: { type: "string" } }), obj({ a: { type: "string" } }));
    expect(p).toEqual({
      type: "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
      path: "#/properties/b",
      description:
        "The new schema has an open content model and has a property or item at path '#/properties/b' which is missing in the old schema",
      rendered:
        "{errorType:\"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL\", description:\"The new schema has an open content model and has a property or item at path '#/properties/b' which is missing in the old schema'}",
    });
  });

  test("FORWARD names the old schema first", () => {
    const [p] = forward(
      obj({ a: { type: "string" }, b: { type: "string" } }, { additionalProperties: false }),
      obj({ a: { type: "string" } }, { additionalProperties: false }),
    );
    expect(p.type).toBe("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL");
    expect(p.description).toBe(
      "The old has a closed content model and is missing a property or item present at path '#/properties/b' in the new schema",
    );
  });

  test("templates by family", () => {
    const d = (newer: unknown, older: unknown): string => backward(newer, older)[0].description;
    expect(d({ type: "string", maxLength: 1 }, { type: "string" })).toBe(
      "The keyword at path '#/maxLength' in the new schema is not present in the old schema",
    );
    expect(d({ type: "string", minLength: 2 }, { type: "string", minLength: 1 })).toBe(
      "The value at path '#/minLength' in the new schema is more than its value in the old schema",
    );
    expect(d({ type: "string", maxLength: 1 }, { type: "string", maxLength: 2 })).toBe(
      "The value at path '#/maxLength' in the new schema is less than its value in the old schema",
    );
    expect(d({ type: "string", pattern: "a" }, { type: "string", pattern: "b" })).toBe(
      "The value at path '#/pattern' is different between the new and old schema",
    );
    expect(d({ enum: [1] }, { enum: [1, 2] })).toBe(
      "An array or combined type at path '#/enum' has fewer elements in the new schema than the old schema",
    );
    expect(d({ type: "integer" }, { type: "string" })).toBe(
      "A type at path '#/' is different between the new schema and the old schema",
    );
    expect(
      d(
        obj({ a: {}, b: { type: "string" } }, { additionalProperties: false, required: ["b"] }),
        obj({ a: {} }, { additionalProperties: false }),
      ),
    ).toBe(
      "The new schema has an unopen content model and has a required property at path '#/properties/b' which is missing in the old schema",
    );
    expect(
      d(
        obj({ a: {}, b: { type: "integer" } }, { additionalProperties: { type: "string" } }),
        obj({ a: {} }, { additionalProperties: { type: "string" } }),
      ),
    ).toBe("A type at path '#/properties/b' is different between the new schema and the old schema");
  });

  test("Confluent's message rendering", () => {
    const [p] = backward({ type: "integer" }, { type: "string" });
    expect(formatJsonSchemaDifference(p)).toBe(
      "{errorType:\"TYPE_CHANGED\", description:\"A type at path '#/' is different between the new schema and the old schema'}",
    );
  });

  test("compatible differences are found but not reported", () => {
    const older = parse({ type: "string", title: "a", maxLength: 3 });
    const newer = parse({ type: "string", title: "b" });
    expect(compareSchemas(older.model, newer.model).map((d) => d.type)).toEqual([
      "TITLE_CHANGED",
      "MAX_LENGTH_REMOVED",
    ]);
    expect(jsonSchemaFormat.readProblems(newer, older)).toEqual([]);
  });
});
