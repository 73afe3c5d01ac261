import { describe, expect, test } from "bun:test";
import { jsonSchemaFormat } from "#src/schema/jsonschema/index.ts";

const canonical = (text: string): string => jsonSchemaFormat.parse(text, []).canonical;
const normalized = (text: string): string => jsonSchemaFormat.parse(text, []).normalized();

describe("canonical string (Jackson's compact re-serialization)", () => {
  test("whitespace goes, key order stays as written", () => {
    const pretty = `{
      "title": "Person",
      "type" : "object",
      "properties": {
        "name": { "type": "string" },
        "age" : { "type": "integer" }
      },
      "required": [ "name" ]
    }`;
    const compact =
      '{"title":"Person","type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}';
    expect(canonical(pretty)).toBe(compact);
    expect(canonical(compact)).toBe(compact);
  });

  test("different key orders are different schemas", () => {
    expect(canonical('{"type":"string","title":"a"}')).not.toBe(canonical('{"title":"a","type":"string"}'));
  });

  test("integer-looking keys keep their position", () => {
    expect(canonical('{"properties":{"b":{},"10":{},"2":{}}}')).toBe('{"properties":{"b":{},"10":{},"2":{}}}');
  });

  test("a duplicate key keeps its first position and its last value", () => {
    expect(canonical('{"type":"string","title":"a","type":"integer"}')).toBe('{"type":"integer","title":"a"}');
  });

  test("numbers print as Java BigDecimal/integer nodes do", () => {
    expect(
      canonical(
        '{"default":1.50,"minimum":-0,"maximum":1e5,"multipleOf":0.0000001,"examples":[0.001,-0.0,2E-3,12345678901234567890,1.0e2]}',
      ),
    ).toBe(
      '{"default":1.50,"minimum":0,"maximum":1E+5,"multipleOf":1E-7,"examples":[0.001,0.0,0.002,12345678901234567890,1.0E+2]}',
    );
  });

  test("strings are escaped as Jackson does", () => {
    expect(canonical('{"description":"tab\\there \\u00e9 \\/ \\u0001 \\"q\\""}')).toBe(
      '{"description":"tab\\there é / \\u0001 \\"q\\""}',
    );
  });

  test("NaN and Infinity tokens are written as strings", () => {
    expect(canonical('{"default":NaN,"examples":[Infinity,-Infinity]}')).toBe(
      '{"default":"NaN","examples":["Infinity","-Infinity"]}',
    );
  });
});

describe("normalized form (keys sorted, as Confluent's sorting node factory reads them)", () => {
  test("object keys are sorted at every level, arrays keep their order", () => {
    expect(
      normalized(
        '{"type":"object","required":["b","a"],"properties":{"b":{"type":"string","title":"B"},"a":{"type":"integer"}}}',
      ),
    ).toBe(
      '{"properties":{"a":{"type":"integer"},"b":{"title":"B","type":"string"}},"required":["b","a"],"type":"object"}',
    );
  });

  test("schemas differing only in key order and whitespace normalize alike", () => {
    const a = normalized('{"title":"T","type":"object","properties":{"x":{"type":"string"},"y":{"type":"number"}}}');
    const b = normalized(
      '{ "properties": { "y": {"type":"number"}, "x": {"type": "string"} }, "type": "object", "title": "T" }',
    );
    expect(a).toBe(b);
  });

  test("keys sort by UTF-16 code units (String.compareTo)", () => {
    expect(normalized('{"properties":{"b":{},"B":{},"10":{},"2":{},"$id":{},"é":{}}}')).toBe(
      '{"properties":{"$id":{},"10":{},"2":{},"B":{},"b":{},"é":{}}}',
    );
  });

  test("numbers keep their exact form", () => {
    expect(normalized('{"maximum":1.50,"minimum":1e2}')).toBe('{"maximum":1.50,"minimum":1E+2}');
  });

  test("normalizing is idempotent", () => {
    const once = normalized('{"z":{"b":1,"a":[{"d":1,"c":2}]},"a":true}');
    expect(normalized(once)).toBe(once);
    expect(canonical(once)).toBe(once);
  });
});
