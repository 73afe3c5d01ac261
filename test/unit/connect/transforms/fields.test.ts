import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import { ExtractField, HoistField, ValueToKey } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

describe("ValueToKey", () => {
  test("schemaless: the key is a map of the listed value fields", () => {
    const out = configured(new ValueToKey(), { fields: "a,b" }).apply(
      source({ key: "old", value: { a: 1, b: 2, c: 3 } }),
    );
    expect(out.keySchema).toBeNull();
    expect(out.key).toEqual({ a: 1, b: 2 });
    expect(out.value).toEqual({ a: 1, b: 2, c: 3 });
  });

  test("schema'd: a key Struct whose schema takes the fields' schemas", () => {
    const schema = SchemaBuilder.struct()
      .field("a", Schema.INT32_SCHEMA)
      .field("b", Schema.INT32_SCHEMA)
      .field("c", Schema.INT32_SCHEMA)
      .build();
    const value = new Struct(schema).put("a", 1).put("b", 2).put("c", 3);
    const out = configured(new ValueToKey(), { fields: "a,b" }).apply(source({ valueSchema: schema, value }));
    const expectedSchema = SchemaBuilder.struct()
      .field("a", Schema.INT32_SCHEMA)
      .field("b", Schema.INT32_SCHEMA)
      .build();
    expect(out.keySchema!.equals(expectedSchema)).toBe(true);
    expect((out.key as Struct).equals(new Struct(expectedSchema).put("a", 1).put("b", 2))).toBe(true);
  });

  test("errors", () => {
    const schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
    expect(() =>
      configured(new ValueToKey(), { fields: "not_exist" }).apply(
        source({ valueSchema: schema, value: new Struct(schema).put("a", 1) }),
      ),
    ).toThrow("Field does not exist: not_exist");
    expect(() => configured(new ValueToKey(), { fields: "a" }).apply(source({ value: "x" }))).toThrow(
      "Only Map objects supported in absence of schema for [copying fields from value to key], found: java.lang.String",
    );
    expect(() => new ValueToKey().configure({ fields: "" })).toThrow(ConfigError);
  });
});

describe("ExtractField", () => {
  const inner = SchemaBuilder.struct().field("bar", Schema.INT32_SCHEMA).build();
  const outer = SchemaBuilder.struct()
    .field("magic", Schema.INT32_SCHEMA)
    .field("nested", inner)
    .field("dotted.name", Schema.STRING_SCHEMA)
    .build();
  const value = new Struct(outer)
    .put("magic", 42)
    .put("nested", new Struct(inner).put("bar", 7))
    .put("dotted.name", "d");

  test("schemaless and schema'd, key and value", () => {
    expect(configured(new ExtractField("key"), { field: "magic" }).apply(source({ key: { magic: 42 } })).key).toBe(42);
    const out = configured(new ExtractField("value"), { field: "magic" }).apply(source({ valueSchema: outer, value }));
    expect(out.valueSchema).toBe(Schema.INT32_SCHEMA);
    expect(out.value).toBe(42);
    // V1: the field name is taken verbatim, dots included.
    expect(
      configured(new ExtractField("value"), { field: "dotted.name" }).apply(source({ valueSchema: outer, value }))
        .value,
    ).toBe("d");
  });

  test("nulls pass through; a missing schemaless field gives null; unknown schema'd field is an error", () => {
    expect(configured(new ExtractField("value"), { field: "magic" }).apply(source({ value: null })).value).toBeNull();
    expect(
      configured(new ExtractField("value"), { field: "magic" }).apply(source({ valueSchema: outer, value: null }))
        .valueSchema,
    ).toBe(Schema.INT32_SCHEMA);
    expect(
      configured(new ExtractField("value"), { field: "nope" }).apply(source({ value: { magic: 1 } })).value,
    ).toBeNull();
    expect(() =>
      configured(new ExtractField("value"), { field: "nope" }).apply(source({ valueSchema: outer, value })),
    ).toThrow("Unknown field: nope");
  });

  test("field.syntax.version=V2 reaches nested fields; backticks quote dotted names", () => {
    const v2 = (field: string) => configured(new ExtractField("value"), { field, "field.syntax.version": "v2" });
    const out = v2("nested.bar").apply(source({ valueSchema: outer, value }));
    expect(out.valueSchema).toBe(Schema.INT32_SCHEMA);
    expect(out.value).toBe(7);
    expect(v2("`dotted.name`").apply(source({ valueSchema: outer, value })).value).toBe("d");
    expect(v2("a.b").apply(source({ value: { a: { b: 5 } } })).value).toBe(5);
    expect(v2("a.b").apply(source({ value: { a: null } })).value).toBeNull();
    expect(() => v2("`open.b")).toThrow(
      "Incomplete backtick pair in path: [`open.b], consider adding a backslash before backtick at position 0 to escape it",
    );
  });

  test("settings validation", () => {
    expect(() => new ExtractField().configure({})).toThrow(ConfigError);
    expect(() => new ExtractField().configure({ field: "a", "field.syntax.version": "V3" })).toThrow(ConfigError);
  });
});

describe("HoistField", () => {
  test("schemaless wraps in a map", () => {
    expect(configured(new HoistField("key"), { field: "magic" }).apply(source({ key: 42 })).key).toEqual({ magic: 42 });
    expect(configured(new HoistField("value"), { field: "v" }).apply(source({ value: null })).value).toEqual({
      v: null,
    });
  });

  test("schema'd wraps in a single-field Struct", () => {
    const out = configured(new HoistField("key"), { field: "magic" }).apply(
      source({ keySchema: Schema.INT32_SCHEMA, key: 42 }),
    );
    expect(out.keySchema!.equals(SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build())).toBe(true);
    expect((out.key as Struct).getInt32("magic")).toBe(42);
    // A null for a required schema is rejected by the Struct, as in Kafka.
    expect(() =>
      configured(new HoistField("value"), { field: "v" }).apply(
        source({ valueSchema: Schema.INT32_SCHEMA, value: null }),
      ),
    ).toThrow('Invalid value: null used for required field: "v", schema type: INT32');
  });
});
