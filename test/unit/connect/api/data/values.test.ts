import { describe, expect, test } from "bun:test";
import { SchemaBuilderException } from "#src/connect/api/data/errors.ts";
import { Schema, SchemaBuilder } from "#src/connect/api/data/schema.ts";
import { Struct } from "#src/connect/api/data/struct.ts";
import { inferSchema } from "#src/connect/api/data/values.ts";

describe("Values.inferSchema", () => {
  test("primitives: a number is a double, a bigint a long", () => {
    expect(inferSchema("x")).toBe(Schema.STRING_SCHEMA);
    expect(inferSchema(true)).toBe(Schema.BOOLEAN_SCHEMA);
    expect(inferSchema(1n)).toBe(Schema.INT64_SCHEMA);
    expect(inferSchema(1)).toBe(Schema.FLOAT64_SCHEMA);
    expect(inferSchema(new Uint8Array())).toBe(Schema.BYTES_SCHEMA);
    expect(inferSchema(null)).toBeNull();
    expect(inferSchema(new Date())).toBeNull();
  });

  test("lists and maps of one type; nulls make elements optional", () => {
    expect(inferSchema(["a", null])!.equals(SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build())).toBe(true);
    expect(
      inferSchema(new Map([["a", 1n]]))!.equals(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build()),
    ).toBe(true);
    expect(
      inferSchema({ a: true })!.equals(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA).build()),
    ).toBe(true);
    expect(inferSchema([])).toBeNull();
    expect(inferSchema({})).toBeNull();
    expect(inferSchema(["a", 1])).toBeNull();
    expect(inferSchema([new Date()])).toBeNull();
  });

  test("nested lists keep only the type (as Kafka), all-null lists fail", () => {
    const nested = inferSchema([[1n]])!;
    expect(nested.valueSchema!.type).toBe("ARRAY");
    expect(nested.valueSchema!.valueSchema).toBeNull();
    expect(() => inferSchema([null])).toThrow(SchemaBuilderException);
  });

  test("a struct has its own schema", () => {
    const s = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA).build();
    expect(inferSchema(new Struct(s))).toBe(s);
  });
});
