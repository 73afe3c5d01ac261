// Record values as documents, as Confluent's DataConverter writes them.
import { describe, expect, test } from "bun:test";
import {
  BigDecimal,
  ConnectDate,
  Decimal,
  Schema,
  SchemaBuilder,
  Struct,
  Time,
  Timestamp,
} from "#src/connect/api/data/index.ts";
import { documentJson } from "#src/connectors/search-sink/document.ts";

const withSchema = { ignoreSchema: false, compactMapEntries: true };

describe("documentJson", () => {
  const address = SchemaBuilder.struct().name("Address").field("city", Schema.STRING_SCHEMA).build();
  const person = SchemaBuilder.struct()
    .name("Person")
    .field("id", Schema.INT64_SCHEMA)
    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
    .field("score", SchemaBuilder.float64().build())
    .field("price", Decimal.schema(2))
    .field("born", ConnectDate.SCHEMA)
    .field("wakes", Time.SCHEMA)
    .field("seen", Timestamp.SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
    .field("address", address)
    .field("level", SchemaBuilder.int32().defaultValue(3).build())
    .build();

  test("a struct: Decimal as a number, Date as days, Time as ms of the day, Timestamp as epoch ms", () => {
    const value = new Struct(person)
      .put("id", 42n)
      .put("name", null)
      .put("score", 1.5)
      .put("price", BigDecimal.parse("12.34"))
      .put("born", new Date(Date.UTC(2024, 0, 2)))
      .put("wakes", new Date(7 * 3600_000))
      .put("seen", new Date(1_700_000_000_123))
      .put("tags", ["a", "b"])
      .put("address", new Struct(address).put("city", "Oslo"));
    expect(JSON.parse(documentJson("t", person, value, withSchema))).toEqual({
      id: 42,
      name: null,
      score: 1.5,
      price: 12.34,
      born: 19724,
      wakes: 25_200_000,
      seen: 1_700_000_000_123,
      tags: ["a", "b"],
      address: { city: "Oslo" },
      level: 3,
    });
  });

  test("a missing required value is a DataException", () => {
    const schema = SchemaBuilder.struct().field("x", Schema.STRING_SCHEMA).build();
    const struct = new Struct(schema);
    expect(() => documentJson("t", schema, struct, withSchema)).toThrow("null value for field that is required");
  });

  test("maps: string keys as an object (compact), other keys as key/value documents", () => {
    const byName = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build();
    const byNumber = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build();
    expect(documentJson("t", byName, new Map([["a", 1]]), withSchema)).toBe('{"a":1}');
    expect(documentJson("t", byName, new Map([["a", 1]]), { ignoreSchema: false, compactMapEntries: false })).toBe(
      '[{"key":"a","value":1}]',
    );
    expect(documentJson("t", byNumber, new Map([[7, "x"]]), withSchema)).toBe('[{"key":7,"value":"x"}]');
  });

  test("schema.ignore writes what the JSON converter writes (a Decimal stays base64)", () => {
    const schema = SchemaBuilder.struct().field("price", Decimal.schema(2)).build();
    const value = new Struct(schema).put("price", BigDecimal.parse("1.00"));
    expect(documentJson("t", schema, value, { ignoreSchema: true, compactMapEntries: true })).toBe('{"price":"ZA=="}');
  });

  test("schemaless values pass through as they are", () => {
    const value = { name: "n", n: 7n, f: 1.25, nested: { list: [1n, "x", null] } };
    expect(documentJson("t", null, value, withSchema)).toBe(
      '{"name":"n","n":7,"f":1.25,"nested":{"list":[1,"x",null]}}',
    );
  });

  test("non-finite doubles become strings, as Jackson writes them", () => {
    const schema = SchemaBuilder.struct().field("x", Schema.FLOAT64_SCHEMA).build();
    expect(documentJson("t", schema, new Struct(schema).put("x", Number.NaN), withSchema)).toBe('{"x":"NaN"}');
  });
});
