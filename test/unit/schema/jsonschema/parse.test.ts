import { describe, expect, test } from "bun:test";
import { InvalidSchemaError, type ResolvedReference } from "#src/schema/format.ts";
import { jsonSchemaFormat, type Draft, type JsonSchemaParsed } from "#src/schema/jsonschema/index.ts";
import type { SchemaNode } from "#src/schema/jsonschema/model.ts";

const parse = (s: unknown, refs: ResolvedReference[] = []): JsonSchemaParsed =>
  jsonSchemaFormat.parse(typeof s === "string" ? s : JSON.stringify(s), refs);

const ref = (name: string, schema: unknown, references: ResolvedReference[] = []): ResolvedReference => ({
  name,
  subject: name,
  version: 1,
  schema: JSON.stringify(schema),
  schemaType: "JSON",
  references,
});

/** The InvalidSchemaError message parse throws (fails the test when it does not throw). */
function rejection(s: unknown, refs: ResolvedReference[] = []): string {
  try {
    parse(s, refs);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidSchemaError);
    return (e as Error).message;
  }
  throw new Error(`accepted: ${typeof s === "string" ? s : JSON.stringify(s)}`);
}

describe("drafts", () => {
  const person = {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
    required: ["name"],
  };
  const cases: Array<[Draft, string | undefined]> = [
    ["draft-04", "http://json-schema.org/draft-04/schema#"],
    ["draft-06", "http://json-schema.org/draft-06/schema#"],
    ["draft-07", "http://json-schema.org/draft-07/schema#"],
    ["draft-2019-09", "https://json-schema.org/draft/2019-09/schema"],
    ["draft-2020-12", "https://json-schema.org/draft/2020-12/schema"],
    ["draft-07", undefined],
    ["draft-07", "http://example.com/my-own-meta-schema"],
  ];
  for (const [draft, url] of cases) {
    test(`${url ?? "no $schema"} is ${draft}`, () => {
      const p = parse(url === undefined ? person : { $schema: url, ...person });
      expect(p.schemaType).toBe("JSON");
      expect(p.draft).toBe(draft);
    });
  }

  test("https draft-04 URL and a trailing '#' on modern drafts are recognised", () => {
    expect(parse({ $schema: "https://json-schema.org/draft-04/schema" }).draft).toBe("draft-04");
    expect(parse({ $schema: "https://json-schema.org/draft/2020-12/schema#" }).draft).toBe("draft-2020-12");
  });

  test("draft-specific keywords are judged by that draft's meta-schema", () => {
    // Draft 4: exclusiveMaximum is a boolean; draft 6+: a number.
    const draft4 = parse({
      $schema: "http://json-schema.org/draft-04/schema#",
      type: "number",
      maximum: 5,
      exclusiveMaximum: true,
    });
    expect(draft4.model).toMatchObject({ kind: "Number", maximum: { unscaled: 5n, scale: 0 } });
    expect(
      rejection({ $schema: "http://json-schema.org/draft-04/schema#", type: "number", exclusiveMaximum: 5 }),
    ).toContain("draft-04");
    expect(parse({ type: "number", exclusiveMaximum: 5 }).model).toMatchObject({
      kind: "Number",
      maximum: undefined,
      exclusiveMaximum: { unscaled: 5n, scale: 0 },
    });
    expect(rejection({ type: "number", exclusiveMaximum: true })).toContain("exclusiveMaximum");
    // 2020-12 prefixItems with items: false: a tuple of one string, nothing after it.
    const tuple = parse({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }],
      items: false,
    });
    expect(tuple.model).toMatchObject({
      kind: "Array",
      itemSchemas: [{ kind: "String" }],
      additionalItems: false,
      allItemSchema: undefined,
    });
  });

  test("boolean schemas", () => {
    expect(parse("true").canonical).toBe("true");
    expect(parse("false").canonical).toBe("false");
    const properties = (s: unknown) => {
      const model = parse(s).model;
      return model.kind === "Object"
        ? Object.fromEntries([...model.properties].map(([name, node]) => [name, node.kind]))
        : model.kind;
    };
    expect(properties({ type: "object", properties: { anything: true, nothing: false } })).toEqual({
      anything: "True",
      nothing: "False",
    });
    const closed = parse({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      properties: { a: true },
      additionalProperties: false,
    });
    expect(closed.model).toMatchObject({ kind: "Object", additionalProperties: false });
    expect(properties(closed.canonical)).toEqual({ a: "True" });
    // Draft 4 has no boolean subschemas.
    expect(rejection({ $schema: "http://json-schema.org/draft-04/schema#", properties: { a: true } })).toContain(
      "draft-04",
    );
  });
});

describe("invalid schemas", () => {
  test("text that is not JSON", () => {
    expect(rejection('{"type": "string"')).toMatch(/^Invalid JSON schema: Unexpected end-of-input/);
    expect(rejection("{type: 'string'}")).toContain("was expecting double-quote to start field name");
    expect(rejection('{"type": "string",}')).toContain("Invalid JSON schema");
    expect(rejection("{'a': 1}")).toContain("Invalid JSON schema");
    expect(rejection('{"a": 01}')).toContain("Invalid numeric value");
  });

  test("a root that is neither an object nor a boolean", () => {
    expect(rejection("")).toBe("Invalid JSON schema: expected an object or boolean at the root, found MISSING");
    expect(rejection("[]")).toBe("Invalid JSON schema: expected an object or boolean at the root, found ARRAY");
    expect(rejection('"string"')).toContain("found STRING");
    expect(rejection("null")).toContain("found NULL");
    expect(rejection("42")).toContain("found NUMBER");
  });

  test("schemas that break their meta-schema, with the offending location", () => {
    expect(rejection({ type: "strnig" })).toContain("#/type must be equal to one of the allowed values");
    expect(rejection({ type: "string", minLength: -1 })).toContain("#/minLength must be >= 0");
    expect(rejection({ type: "object", required: "name" })).toContain("#/required must be array");
    expect(rejection({ properties: { a: { type: 5 } } })).toContain("#/properties/a/type");
    expect(rejection({ type: "number", multipleOf: 0 })).toContain("#/multipleOf");
    expect(rejection({ enum: "a" })).toContain("#/enum must be array");
    expect(rejection({ $schema: "https://json-schema.org/draft/2020-12/schema", prefixItems: {} })).toContain(
      "#/prefixItems",
    );
  });

  test("what Confluent's loader rejects beyond the meta-schema", () => {
    // Everit reads these keywords as Java Integers.
    expect(rejection('{"type": "string", "maxLength": 2.0}')).toContain("maxLength: expected type: Integer");
    expect(rejection({ type: "array", maxItems: 3000000000 })).toContain("expected type: Integer");
    expect(rejection({ type: "string", pattern: "([a-z]" })).toContain("Invalid regular expression");
  });

  test("Java-style patterns are accepted, kept as written", () => {
    expect(parse({ type: "string", pattern: "(?i)^[a-z]++$" }).model).toMatchObject({
      kind: "String",
      pattern: "(?i)^[a-z]++$",
    });
    expect(parse({ type: "string", pattern: "\\Aabc\\z" }).model).toMatchObject({
      kind: "String",
      pattern: "\\Aabc\\z",
    });
  });

  test("anything after the root value is ignored, as Jackson's readTree does", () => {
    expect(parse('{"type":"string"} trailing').canonical).toBe('{"type":"string"}');
  });
});

describe("references", () => {
  const customer = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
  /** The node a property's $ref resolved to, as the compatibility checks see it. */
  const referred = (parsed: JsonSchemaParsed, property: string): SchemaNode | undefined => {
    const node = parsed.model.kind === "Object" ? parsed.model.properties.get(property) : undefined;
    return node?.kind === "Reference" ? node.referred : undefined;
  };
  const customerNode = {
    kind: "Object",
    properties: new Map([["name", expect.objectContaining({ kind: "String" })]]),
    required: ["name"],
  };

  test("a $ref to a referenced schema by name", () => {
    const p = parse({ type: "object", properties: { customer: { $ref: "customer.json" } } }, [
      ref("customer.json", customer),
    ]);
    expect(p.references.has("customer.json")).toBe(true);
  });

  test("a $ref by absolute URL, and by a name relative to the root $id", () => {
    const url = "https://example.com/schemas/customer.schema.json";
    expect(referred(parse({ properties: { c: { $ref: url } } }, [ref(url, customer)]), "c")).toMatchObject(
      customerNode,
    );
    const order = {
      $id: "https://example.com/schemas/order.schema.json",
      properties: { c: { $ref: "customer.schema.json" } },
    };
    expect(referred(parse(order, [ref("customer.schema.json", customer)]), "c")).toMatchObject(customerNode);
    expect(referred(parse(order, [ref(url, customer)]), "c")).toMatchObject(customerNode);
  });

  test("a fragment inside a referenced schema, and definitions reached as $defs", () => {
    const defs = { definitions: { address: { type: "object", properties: { city: { type: "string" } } } } };
    const address = { kind: "Object", properties: new Map([["city", expect.objectContaining({ kind: "String" })]]) };
    expect(
      referred(parse({ properties: { a: { $ref: "defs.json#/definitions/address" } } }, [ref("defs.json", defs)]), "a"),
    ).toMatchObject(address);
    expect(
      referred(parse({ properties: { a: { $ref: "defs.json#/$defs/address" } } }, [ref("defs.json", defs)]), "a"),
    ).toMatchObject(address);
    expect(
      referred(parse({ definitions: { x: { type: "string" } }, properties: { a: { $ref: "#/$defs/x" } } }), "a"),
    ).toMatchObject({ kind: "String" });
  });

  test("nested references are resolved recursively", () => {
    const address = { type: "object", properties: { city: { type: "string" } } };
    const withAddress = { type: "object", properties: { address: { $ref: "address.json" } } };
    const p = parse({ properties: { customer: { $ref: "customer.json" } } }, [
      ref("customer.json", withAddress, [ref("address.json", address)]),
    ]);
    expect([...p.references.keys()].sort()).toEqual(["address.json", "customer.json"]);
  });

  test("a missing reference is rejected", () => {
    expect(rejection({ properties: { c: { $ref: "customer.json" } } })).toContain(
      "Unable to resolve $ref 'customer.json'",
    );
    expect(rejection({ properties: { c: { $ref: "customer.json" } } }, [ref("other.json", customer)])).toContain(
      "customer.json",
    );
    expect(rejection({ properties: { c: { $ref: "#/definitions/nope" } } })).toContain(
      "'#/definitions/nope' not found",
    );
    const address = { properties: { zip: { $ref: "zip.json" } } };
    expect(rejection({ properties: { a: { $ref: "address.json" } } }, [ref("address.json", address)])).toContain(
      "zip.json",
    );
  });

  test("a missing reference is rejected in 2020-12 too", () => {
    expect(rejection({ $schema: "https://json-schema.org/draft/2020-12/schema", $ref: "nope.json" })).toContain(
      "nope.json",
    );
  });

  test("references to the bundled meta-schemas resolve locally", () => {
    // The draft-07 meta-schema's root, "type": ["object", "boolean"], as Everit reads it.
    expect(
      referred(parse({ properties: { s: { $ref: "http://json-schema.org/draft-07/schema#" } } }), "s"),
    ).toMatchObject({
      kind: "Combined",
      criterion: "anyOf",
      subschemas: [{ kind: "Object" }, { kind: "Boolean" }],
    });
  });

  test("recursive schemas", () => {
    // A node's "next" refers back to the node itself: one shared model node, not an endless copy.
    const linked = parse({
      definitions: { node: { type: "object", properties: { next: { $ref: "#/definitions/node" } } } },
      $ref: "#/definitions/node",
    }).model;
    const node = linked.kind === "Reference" ? linked.referred : undefined;
    expect(node?.kind).toBe("Object");
    expect(node?.kind === "Object" && node.properties.get("next")).toMatchObject({ kind: "Reference", referred: node });
    const tree = parse({ type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } }).model;
    const children = tree.kind === "Object" ? tree.properties.get("children") : undefined;
    const item = children?.kind === "Array" ? children.allItemSchema : undefined;
    expect(item).toMatchObject({ kind: "Reference", refValue: "#", referred: { kind: "Object" } });
  });
});
