import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConfigError } from "#src/platform/settings.ts";
import {
  BigDecimal,
  ConnectDate,
  Decimal,
  Schema,
  SchemaBuilder,
  Struct,
  Timestamp,
} from "#src/connect/api/data/index.ts";
import { Cast } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

const cast = (spec: string, side: "key" | "value" = "value") => configured(new Cast(side), { spec });

describe("Cast", () => {
  test("whole-value casts, schema'd", () => {
    const r = (schema: Schema, value: unknown) => source({ valueSchema: schema, value });
    expect(cast("int8").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe(42);
    expect(cast("int8").apply(r(Schema.INT32_SCHEMA, 42)).valueSchema!.type).toBe("INT8");
    expect(cast("int16").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe(42);
    expect(cast("int64").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe(42n);
    expect(cast("float32").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe(42);
    expect(cast("float64").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe(42);
    expect(cast("boolean").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe(true);
    expect(cast("boolean").apply(r(Schema.INT32_SCHEMA, 0)).value).toBe(false);
    expect(cast("string").apply(r(Schema.INT32_SCHEMA, 42)).value).toBe("42");
    expect(cast("string").apply(r(Schema.FLOAT64_SCHEMA, 42)).value).toBe("42.0");
    expect(cast("string").apply(r(Schema.FLOAT32_SCHEMA, 0.1)).value).toBe("0.1");
    expect(cast("string").apply(r(Schema.BOOLEAN_SCHEMA, true)).value).toBe("true");
    expect(cast("string").apply(r(Schema.BYTES_SCHEMA, new Uint8Array([1, 2, 3]))).value).toBe("AQID");
    expect(cast("int32").apply(r(Schema.STRING_SCHEMA, "42")).value).toBe(42);
    expect(cast("float64").apply(r(Schema.STRING_SCHEMA, "4.5")).value).toBe(4.5);
    expect(cast("boolean").apply(r(Schema.STRING_SCHEMA, "TRUE")).value).toBe(true);
    expect(cast("boolean").apply(r(Schema.STRING_SCHEMA, "yes")).value).toBe(false);
  });

  test("Java narrowing: integers wrap, floats saturate, NaN is 0", () => {
    const r = (schema: Schema, value: unknown) => source({ valueSchema: schema, value });
    expect(cast("int8").apply(r(Schema.INT32_SCHEMA, 300)).value).toBe(44);
    expect(cast("int32").apply(r(Schema.INT64_SCHEMA, 2n ** 32n + 5n)).value).toBe(5);
    expect(cast("int32").apply(r(Schema.FLOAT64_SCHEMA, 1e12)).value).toBe(2147483647);
    expect(cast("int32").apply(r(Schema.FLOAT64_SCHEMA, -3.9)).value).toBe(-3);
    expect(cast("int8").apply(r(Schema.FLOAT64_SCHEMA, 1e12)).value).toBe(-1);
    expect(cast("int64").apply(r(Schema.FLOAT64_SCHEMA, NaN)).value).toBe(0n);
    expect(cast("boolean").apply(r(Schema.FLOAT64_SCHEMA, 0.5)).value).toBe(false);
    expect(cast("float32").apply(r(Schema.FLOAT64_SCHEMA, 0.1)).value).toBe(Math.fround(0.1));
  });

  test("field casts in a Struct keep optionality and convert defaults", () => {
    const schema = SchemaBuilder.struct()
      .name("row")
      .field("age", Schema.STRING_SCHEMA)
      .field("price", SchemaBuilder.int32().optional().defaultValue(7).build())
      .field("other", Schema.STRING_SCHEMA)
      .build();
    const value = new Struct(schema).put("age", "30").put("other", "x");
    const out = cast("age:int32,price:float64").apply(source({ valueSchema: schema, value }));
    const s = out.valueSchema!;
    expect(s.name).toBe("row");
    expect(s.field("age")!.schema.type).toBe("INT32");
    expect(s.field("price")!.schema.type).toBe("FLOAT64");
    expect(s.field("price")!.schema.optional).toBe(true);
    expect(s.field("price")!.schema.defaultValue).toBe(7);
    expect(s.field("other")!.schema).toBe(Schema.STRING_SCHEMA);
    const v = out.value as Struct;
    expect([v.get("age"), v.get("price"), v.get("other")]).toEqual([30, 7, "x"]);
  });

  test("logical types: Date/Timestamp to integers, Decimal and dates to string", () => {
    const schema = SchemaBuilder.struct()
      .field("ts", Timestamp.SCHEMA)
      .field("d", ConnectDate.SCHEMA)
      .field("dec", Decimal.schema(2))
      .field("ts2", Timestamp.SCHEMA)
      .build();
    const value = new Struct(schema)
      .put("ts", new Date(1_600_000_000_123))
      .put("d", new Date(86_400_000 * 3))
      .put("dec", new BigDecimal(12345n, 2))
      .put("ts2", new Date(1_600_000_000_123));
    const out = cast("ts:int64,d:int32,dec:string,ts2:string").apply(source({ valueSchema: schema, value }));
    const v = out.value as Struct;
    expect(v.get("ts")).toBe(1_600_000_000_123n);
    expect(v.get("d")).toBe(3);
    expect(v.get("dec")).toBe("123.45");
    expect(v.get("ts2")).toBe("2020-09-13T12:26:40.123Z");
  });

  test("schemaless maps and values", () => {
    expect(cast("a:string,b:int16,missing:int8").apply(source({ value: { a: 1, b: "7", c: true } })).value).toEqual({
      a: "1",
      b: 7,
      c: true,
      missing: null,
    });
    expect(cast("int64", "key").apply(source({ key: 5 })).key).toBe(5n);
    expect(cast("string").apply(source({ value: 4.5 })).value).toBe("4.5");
    const tombstone = source({ value: null });
    expect(cast("string").apply(tombstone)).toBe(tombstone);
  });

  test("errors", () => {
    expect(() => cast("int8").apply(source({ valueSchema: Schema.STRING_SCHEMA, value: "300" }))).toThrow(
      "Value (300) was out of range for requested data type",
    );
    expect(() => cast("int32").apply(source({ valueSchema: Schema.STRING_SCHEMA, value: "abc" }))).toThrow(
      "Value (abc) was out of range for requested data type",
    );
    const struct = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
    expect(() => cast("string").apply(source({ valueSchema: struct, value: new Struct(struct).put("a", 1) }))).toThrow(
      "Cast transformation does not support casting from STRUCT; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]",
    );
    expect(() => cast("a:string").apply(source({ value: { a: new Date(0) } }))).toThrow(
      "Cast transformation was passed a value of type class java.util.Date which is not supported by Connect's data API",
    );
  });

  test("settings validation", () => {
    expect(() => new Cast().configure({ spec: "" })).toThrow("Must specify at least one field to cast.");
    expect(() => new Cast().configure({ spec: "a:foo" })).toThrow("Invalid type found in casting spec: foo");
    expect(() => new Cast().configure({ spec: "a:bytes" })).toThrow(
      "Cast transformation does not support casting to BYTES; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]",
    );
    expect(() => new Cast().configure({ spec: "int8,a:int32" })).toThrow(
      "Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec",
    );
    expect(() => new Cast().configure({ spec: "a:b:c" })).toThrow(ConfigError);
  });

  test("property: int32 → string → int32 is the identity; int64 too", () => {
    const toString = cast("string");
    const toInt32 = cast("int32");
    const toInt64 = cast("int64");
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
        const s = toString.apply(source({ valueSchema: Schema.INT32_SCHEMA, value: n }));
        expect(s.valueSchema!.type).toBe("STRING");
        expect(toInt32.apply(s).value).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        expect(toInt64.apply(toString.apply(source({ valueSchema: Schema.INT64_SCHEMA, value: n }))).value).toBe(n);
      }),
    );
  });
});
