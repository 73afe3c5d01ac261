import { describe, expect, test } from "bun:test";
import type { ResolvedReference } from "#src/schema/format.ts";
import { avroFormat } from "#src/schema/avro/index.ts";
import {
  jsonSchemaFormat,
  jsonSchemaTitle,
  jsonValidator,
  type JsonSchemaParsed,
} from "#src/schema/jsonschema/index.ts";

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

describe("jsonValidator", () => {
  const person = parse({
    type: "object",
    properties: {
      name: { type: "string", minLength: 1 },
      age: { type: "integer", minimum: 0 },
      email: { type: "string", format: "email" },
    },
    required: ["name"],
    additionalProperties: false,
  });

  test("valid values give no errors", () => {
    expect(jsonValidator(person)({ name: "Ada", age: 36, email: "ada@example.com" })).toEqual([]);
  });

  test("invalid values give one message per problem, with the location", () => {
    const errors = jsonValidator(person)({ age: -1, email: "not-an-email", extra: true });
    expect(errors).toContain("#: must have required property 'name'");
    expect(errors).toContain("#/age: must be >= 0");
    expect(errors).toContain('#/email: must match format "email"');
    expect(errors).toContain("#: must NOT have additional properties (extra)");
    expect(jsonValidator(person)("text")).toEqual(["#: must be object"]);
  });

  test("validators are compiled once per parsed schema", () => {
    expect(jsonValidator(person)).toBe(jsonValidator(person));
  });

  test("formats from ajv-formats", () => {
    const v = jsonValidator(
      parse({
        type: "object",
        properties: { at: { type: "string", format: "date-time" }, id: { type: "string", format: "uuid" } },
      }),
    );
    expect(v({ at: "2024-01-02T03:04:05Z", id: "123e4567-e89b-12d3-a456-426614174000" })).toEqual([]);
    expect(v({ at: "yesterday" })).toHaveLength(1);
    expect(v({ id: "nope" })).toHaveLength(1);
  });

  test("referenced schemas, nested, by name and by URL", () => {
    const address = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const customer = {
      type: "object",
      properties: { name: { type: "string" }, address: { $ref: "address.json" } },
      required: ["name"],
    };
    const order = parse({ type: "object", properties: { customer: { $ref: "customer.json" } } }, [
      ref("customer.json", customer, [ref("address.json", address)]),
    ]);
    const v = jsonValidator(order);
    expect(v({ customer: { name: "x", address: { city: "Oslo" } } })).toEqual([]);
    expect(v({ customer: { name: "x", address: {} } })).toEqual([
      "#/customer/address: must have required property 'city'",
    ]);

    const url = "https://example.com/schemas/customer.schema.json";
    const byUrl = parse(
      { $id: "https://example.com/schemas/order.schema.json", properties: { c: { $ref: "customer.schema.json" } } },
      [ref(url, { type: "object", properties: { name: { type: "string" } } })],
    );
    expect(jsonValidator(byUrl)({ c: { name: 1 } })).toEqual(["#/c/name: must be string"]);
  });

  test("$defs finds top-level definitions, as in Confluent", () => {
    const v = jsonValidator(
      parse({ definitions: { id: { type: "integer" } }, properties: { id: { $ref: "#/$defs/id" } } }),
    );
    expect(v({ id: 1 })).toEqual([]);
    expect(v({ id: "1" })).toEqual(["#/id: must be integer"]);
  });

  test("each draft's own semantics", () => {
    const d4 = jsonValidator(
      parse({ $schema: "http://json-schema.org/draft-04/schema#", type: "number", maximum: 5, exclusiveMaximum: true }),
    );
    expect(d4(5)).toHaveLength(1);
    expect(d4(4)).toEqual([]);
    const d2020 = jsonValidator(
      parse({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "array",
        prefixItems: [{ type: "string" }],
        items: false,
      }),
    );
    expect(d2020(["a"])).toEqual([]);
    expect(d2020(["a", "b"])).toHaveLength(1);
    const d2019 = jsonValidator(
      parse({
        $schema: "https://json-schema.org/draft/2019-09/schema",
        type: "object",
        dependentRequired: { a: ["b"] },
      }),
    );
    expect(d2019({ a: 1 })).toHaveLength(1);
  });

  test("Java-style patterns", () => {
    const v = jsonValidator(parse({ type: "string", pattern: "(?i)^abc$" }));
    expect(v("ABC")).toEqual([]);
    expect(v("abd")).toHaveLength(1);
  });

  test("boolean schemas", () => {
    expect(jsonValidator(parse("true"))({ anything: 1 })).toEqual([]);
    expect(jsonValidator(parse("false"))(1)).toHaveLength(1);
  });

  test("non-JSON schemas are refused", () => {
    const avro = avroFormat.parse('"string"', []);
    expect(() => jsonValidator(avro)).toThrow(TypeError);
  });
});

describe("jsonSchemaTitle", () => {
  test("the root title, as RecordNameStrategy uses it", () => {
    expect(jsonSchemaTitle(parse({ title: "com.example.Person", type: "object" }))).toBe("com.example.Person");
    expect(jsonSchemaTitle(parse({ type: "object", properties: { a: { title: "inner" } } }))).toBeUndefined();
    expect(jsonSchemaTitle(parse("true"))).toBeUndefined();
  });
});
