import { describe, expect, test } from "bun:test";
import { isSimpleHeaderConverter, SimpleHeaderConverter } from "#src/connect/converters/simple-header.ts";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

describe("SimpleHeaderConverter", () => {
  const converter = new SimpleHeaderConverter();

  test("writes Values.convertToString's text in UTF-8", () => {
    const schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
    expect(text(converter.fromConnectHeader("t", "h", schema, new Struct(schema).put("id", 10)))).toBe('{"id":10}');
    expect(
      text(
        converter.fromConnectHeader(
          "t",
          "h",
          SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
          new Map([["a", 1]]),
        ),
      ),
    ).toBe('{"a":1}');
    expect(text(converter.fromConnectHeader("t", "h", Schema.BYTES_SCHEMA, new Uint8Array([1, 2, 3])))).toBe("AQID");
    expect(text(converter.fromConnectHeader("t", "h", Schema.FLOAT64_SCHEMA, 5))).toBe("5.0");
    expect(text(converter.fromConnectHeader("t", "h", null, "é"))).toBe("é");
    expect(converter.fromConnectHeader("t", "h", null, null)).toBeNull();
  });

  test("reads header bytes back as an optional string, a null value as null without a schema (Kafka's)", () => {
    expect(converter.toConnectHeader("t", "h", new TextEncoder().encode('{"id":10}'))).toEqual({
      schema: Schema.OPTIONAL_STRING_SCHEMA,
      value: '{"id":10}',
    });
    expect(converter.toConnectHeader("t", "h", null)).toEqual({ schema: null, value: null });
  });

  test("is named by its class or its simple name", () => {
    expect(isSimpleHeaderConverter("org.apache.kafka.connect.storage.SimpleHeaderConverter")).toBe(true);
    expect(isSimpleHeaderConverter(" SimpleHeaderConverter ")).toBe(true);
    expect(isSimpleHeaderConverter("org.apache.kafka.connect.storage.StringConverter")).toBe(false);
  });
});
