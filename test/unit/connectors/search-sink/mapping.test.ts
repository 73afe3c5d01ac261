// Index mappings derived from value schemas, as Confluent's sink puts them.
import { describe, expect, test } from "bun:test";
import {
  BigDecimal,
  ConnectDate,
  Decimal,
  Schema,
  SchemaBuilder,
  Time,
  Timestamp,
} from "#src/connect/api/data/index.ts";
import { mappingJson, schemaMapping } from "#src/connectors/search-sink/mapping.ts";

const text = { type: "text", fields: { keyword: { type: "keyword", ignore_above: 256 } } };

describe("schemaMapping", () => {
  test("primitive types", () => {
    expect(schemaMapping(Schema.INT8_SCHEMA)).toEqual({ type: "byte" });
    expect(schemaMapping(Schema.INT16_SCHEMA)).toEqual({ type: "short" });
    expect(schemaMapping(Schema.INT32_SCHEMA)).toEqual({ type: "integer" });
    expect(schemaMapping(Schema.INT64_SCHEMA)).toEqual({ type: "long" });
    expect(schemaMapping(Schema.FLOAT32_SCHEMA)).toEqual({ type: "float" });
    expect(schemaMapping(Schema.FLOAT64_SCHEMA)).toEqual({ type: "double" });
    expect(schemaMapping(Schema.BOOLEAN_SCHEMA)).toEqual({ type: "boolean" });
    expect(schemaMapping(Schema.OPTIONAL_STRING_SCHEMA)).toEqual(text);
    expect(schemaMapping(Schema.BYTES_SCHEMA)).toEqual({ type: "binary" });
  });

  test("logical types by name: dates are date, a Decimal is double; other names map by type", () => {
    expect(schemaMapping(ConnectDate.SCHEMA)).toEqual({ type: "date" });
    expect(schemaMapping(Time.SCHEMA)).toEqual({ type: "date" });
    expect(schemaMapping(Timestamp.SCHEMA)).toEqual({ type: "date" });
    expect(schemaMapping(Decimal.schema(2))).toEqual({ type: "double" });
    expect(schemaMapping(SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").build())).toEqual(text);
  });

  test("a struct has properties, nested structs too; an array maps as its element", () => {
    const address = SchemaBuilder.struct()
      .field("city", Schema.STRING_SCHEMA)
      .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
      .build();
    const schema = SchemaBuilder.struct()
      .name("Person")
      .field("id", Schema.INT64_SCHEMA)
      .field("name", Schema.STRING_SCHEMA)
      .field("seen", Timestamp.SCHEMA)
      .field("price", Decimal.schema(2))
      .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
      .field("homes", SchemaBuilder.array(address).build())
      .field("address", address)
      .build();
    const addressMapping = { properties: { city: text, zip: { type: "integer" } } };
    expect(schemaMapping(schema)).toEqual({
      properties: {
        id: { type: "long" },
        name: text,
        seen: { type: "date" },
        price: { type: "double" },
        tags: text,
        homes: addressMapping,
        address: addressMapping,
      },
    });
  });

  test("a map has key and value properties", () => {
    expect(schemaMapping(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).build())).toEqual({
      properties: { key: text, value: { type: "double" } },
    });
  });

  test("defaults become null_value, except on text and binary fields", () => {
    const schema = SchemaBuilder.struct()
      .field("b", SchemaBuilder.int8().defaultValue(-3).build())
      .field("s", SchemaBuilder.int16().defaultValue(300).build())
      .field("i", SchemaBuilder.int32().defaultValue(7).build())
      .field("l", SchemaBuilder.int64().defaultValue(9n).build())
      .field("f", SchemaBuilder.float32().defaultValue(1.1).build())
      .field("d", SchemaBuilder.float64().defaultValue(2.5).build())
      .field("ok", SchemaBuilder.bool().defaultValue(false).build())
      .field("name", SchemaBuilder.string().defaultValue("none").build())
      .field(
        "raw",
        SchemaBuilder.bytes()
          .defaultValue(new Uint8Array([1]))
          .build(),
      )
      .field("at", Timestamp.builder().defaultValue(new Date(1_700_000_000_123)).build())
      .field(
        "day",
        ConnectDate.builder()
          .defaultValue(new Date(Date.UTC(2024, 0, 2)))
          .build(),
      )
      .field("price", Decimal.builder(2).defaultValue(BigDecimal.parse("12.34")).build())
      .build();
    expect(schemaMapping(schema).properties).toEqual({
      b: { type: "byte", null_value: -3 },
      s: { type: "short", null_value: 300 },
      i: { type: "integer", null_value: 7 },
      l: { type: "long", null_value: 9 },
      f: { type: "float", null_value: 1.1 },
      d: { type: "double", null_value: 2.5 },
      ok: { type: "boolean", null_value: false },
      name: text,
      raw: { type: "binary" },
      at: { type: "date", null_value: 1_700_000_000_123 },
      day: { type: "date", null_value: Date.UTC(2024, 0, 2) },
      price: { type: "double", null_value: 12.34 },
    });
  });
});

describe("mappingJson", () => {
  test("the JSON text of a mapping", () => {
    const schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("name", Schema.STRING_SCHEMA).build();
    expect(mappingJson(schemaMapping(schema))).toBe(
      '{"properties":{"id":{"type":"long"},"name":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}',
    );
  });

  test("an INT64 default beyond 2^53 keeps its digits; non-finite doubles are written as text", () => {
    const schema = SchemaBuilder.struct()
      .field("big", SchemaBuilder.int64().defaultValue(9_223_372_036_854_775_807n).build())
      .field("nan", SchemaBuilder.float64().defaultValue(Number.NaN).build())
      .build();
    expect(mappingJson(schemaMapping(schema))).toBe(
      '{"properties":{"big":{"type":"long","null_value":9223372036854775807},"nan":{"type":"double","null_value":"NaN"}}}',
    );
  });

  test("a field named __proto__ stays a field", () => {
    const schema = SchemaBuilder.struct().field("__proto__", Schema.BOOLEAN_SCHEMA).build();
    expect(mappingJson(schemaMapping(schema))).toBe('{"properties":{"__proto__":{"type":"boolean"}}}');
  });
});
