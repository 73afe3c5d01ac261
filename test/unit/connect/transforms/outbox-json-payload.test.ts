import { describe, expect, test } from "bun:test";
import { Schema, type Struct } from "#src/connect/api/data/index.ts";
import { OutboxJsonPayload } from "#src/connect/transforms/outbox-json-payload.ts";

const expand = (text: string, json = new OutboxJsonPayload("ignore", "ignore")) => {
  const document = OutboxJsonPayload.parse(text);
  const schema = json.schemaOf("payload", document)!;
  return { schema, value: json.valueOf(document, schema) as Struct };
};

describe("outbox JSON payload expansion", () => {
  test("numbers take Jackson's node kinds: int, long, double", () => {
    const { schema, value } = expand('{"i": 1, "l": 5000000000, "d": 1.0, "e": 1e2}');
    expect(schema.fields.map((f) => f.schema)).toEqual([
      Schema.OPTIONAL_INT32_SCHEMA,
      Schema.OPTIONAL_INT64_SCHEMA,
      Schema.OPTIONAL_FLOAT64_SCHEMA,
      Schema.OPTIONAL_FLOAT64_SCHEMA,
    ]);
    expect([value.get("i"), value.get("l"), value.get("d"), value.get("e")]).toEqual([1, 5000000000n, 1, 100]);
  });

  test("members keep the document's order, integer-like names included; nested structs are named by path", () => {
    const { schema } = expand('{"b": {"2": true, "1": "x"}, "a": 1}');
    expect(schema.fields.map((f) => f.name)).toEqual(["b", "a"]);
    expect(schema.field("b")!.schema.name).toBe("payload.b");
    expect(schema.field("b")!.schema.fields.map((f) => f.name)).toEqual(["2", "1"]);
  });

  test("nulls and empty arrays are left out, or kept by the behaviours", () => {
    expect(expand('{"n": null, "e": [], "k": 1}').schema.fields.map((f) => f.name)).toEqual(["k"]);
    const kept = expand('{"n": null, "e": []}', new OutboxJsonPayload("optional_bytes", "optional_string"));
    expect(kept.schema.fields.map((f) => [f.name, f.schema.type])).toEqual([
      ["n", "BYTES"],
      ["e", "ARRAY"],
    ]);
    expect([kept.value.get("n"), kept.value.get("e")]).toEqual([null, []]);
  });

  test("arrays of objects merge their members; mixed arrays and texts that are not JSON fail", () => {
    const { schema, value } = expand('{"xs": [{"a": 1}, {"b": "y"}]}');
    const element = schema.field("xs")!.schema.valueSchema!;
    expect(element.fields.map((f) => f.name)).toEqual(["a", "b"]);
    expect((value.get("xs") as Struct[]).map((s) => s.getWithoutDefault("a"))).toEqual([1, null]);
    // One element schema stays optional and takes nulls; a merged one is required, as Kafka's copySchemaBasics makes it.
    expect((expand('{"xs": [{"a": 1}, null]}').value.get("xs") as unknown[])[1]).toBeNull();
    expect(() => expand('{"xs": [{"a": 1}, {"b": "y"}, null]}')).toThrow("null used for required element");
    expect(() => expand('{"m": [1, "x"]}')).toThrow("homogenous");
    expect(() => expand('{"m": [1, 5000000000]}')).toThrow("different number types");
    expect(() => OutboxJsonPayload.parse(' {"a": 1}')).toThrow("Unable to parse payload starting with ' '");
    expect(() => OutboxJsonPayload.parse('{"a": ')).toThrow();
  });
});
