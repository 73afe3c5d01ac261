import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
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
import { MaskField } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

const SCHEMA = SchemaBuilder.struct()
  .field("magic", Schema.INT32_SCHEMA)
  .field("bool", Schema.BOOLEAN_SCHEMA)
  .field("byte", Schema.INT8_SCHEMA)
  .field("short", Schema.INT16_SCHEMA)
  .field("int", Schema.INT32_SCHEMA)
  .field("long", Schema.INT64_SCHEMA)
  .field("float", Schema.FLOAT32_SCHEMA)
  .field("double", Schema.FLOAT64_SCHEMA)
  .field("string", Schema.STRING_SCHEMA)
  .field("date", ConnectDate.SCHEMA)
  .field("time", Time.SCHEMA)
  .field("timestamp", Timestamp.SCHEMA)
  .field("decimal", Decimal.schema(0))
  .field("array", SchemaBuilder.array(Schema.INT32_SCHEMA))
  .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA))
  .field("withDefault", SchemaBuilder.string().optional().defaultValue("default").build())
  .build();

function sample(): Struct {
  return new Struct(SCHEMA)
    .put("magic", 42)
    .put("bool", true)
    .put("byte", 42)
    .put("short", 42)
    .put("int", 42)
    .put("long", 42n)
    .put("float", 42.5)
    .put("double", 42.5)
    .put("string", "blabla")
    .put("date", new Date(86_400_000))
    .put("time", new Date(1000))
    .put("timestamp", new Date(1_000_000))
    .put("decimal", new BigDecimal(42n, 0))
    .put("array", [1, 2, 3])
    .put("map", new Map([["what", "what"]]));
}

const ALL = "bool,byte,short,int,long,float,double,string,date,time,timestamp,decimal,array,map,withDefault";

describe("MaskField", () => {
  test("schema'd: every type masks to its empty value; unlisted fields are kept", () => {
    const out = configured(new MaskField("value"), { fields: ALL }).apply(
      source({ valueSchema: SCHEMA, value: sample() }),
    );
    const v = out.value as Struct;
    expect(out.valueSchema).toBe(SCHEMA);
    expect(v.get("magic")).toBe(42);
    expect(v.get("bool")).toBe(false);
    expect(v.get("byte")).toBe(0);
    expect(v.get("short")).toBe(0);
    expect(v.get("int")).toBe(0);
    expect(v.get("long")).toBe(0n);
    expect(v.get("float")).toBe(0);
    expect(v.get("double")).toBe(0);
    expect(v.get("string")).toBe("");
    expect(v.get("date")).toEqual(new Date(0));
    expect(v.get("time")).toEqual(new Date(0));
    expect(v.get("timestamp")).toEqual(new Date(0));
    expect((v.get("decimal") as BigDecimal).equals(new BigDecimal(0n, 0))).toBe(true);
    expect(v.get("array")).toEqual([]);
    expect(v.get("map")).toEqual(new Map());
    // A null field with a default is masked as its default (replace.null.with.default=true).
    expect(v.get("withDefault")).toBe("");
  });

  test("schemaless: masks by the JS value, adds null for listed absent fields", () => {
    const value = {
      magic: 42,
      bool: true,
      int: 42,
      long: 2 ** 40,
      double: 4.5,
      string: "x",
      date: new Date(5),
      array: [1],
      map: { a: 1 },
    };
    const out = configured(new MaskField("value"), {
      fields: "bool,int,long,double,string,date,array,map,absent",
    }).apply(source({ value }));
    expect(out.value).toEqual({
      magic: 42,
      bool: false,
      int: 0,
      long: 0,
      double: 0,
      string: "",
      date: new Date(0),
      array: [],
      map: {},
      absent: null,
    });
  });

  test("replacement is converted to the field's numeric or string type", () => {
    const schema = SchemaBuilder.struct()
      .field("byte", Schema.INT8_SCHEMA)
      .field("int", Schema.INT32_SCHEMA)
      .field("long", Schema.INT64_SCHEMA)
      .field("float", Schema.FLOAT32_SCHEMA)
      .field("double", Schema.FLOAT64_SCHEMA)
      .field("string", Schema.STRING_SCHEMA)
      .field("decimal", Decimal.schema(2))
      .build();
    const value = new Struct(schema)
      .put("byte", 1)
      .put("int", 1)
      .put("long", 1n)
      .put("float", 1)
      .put("double", 1)
      .put("string", "s")
      .put("decimal", new BigDecimal(100n, 2));
    const out = configured(new MaskField("value"), {
      fields: "byte,int,long,float,double,string",
      replacement: "123",
    }).apply(source({ valueSchema: schema, value }));
    const v = out.value as Struct;
    expect([v.get("byte"), v.get("int"), v.get("long"), v.get("float"), v.get("double"), v.get("string")]).toEqual([
      123,
      123,
      123n,
      123,
      123,
      "123",
    ]);
    // BigDecimal("1.5").longValue() is 1, (byte) 300 wraps.
    const wrapped = configured(new MaskField("value"), { fields: "byte,int,decimal", replacement: "300.5" }).apply(
      source({ valueSchema: schema, value }),
    );
    expect((wrapped.value as Struct).get("byte")).toBe(44);
    expect((wrapped.value as Struct).get("int")).toBe(300);
    expect(((wrapped.value as Struct).get("decimal") as BigDecimal).toString()).toBe("300.5");
  });

  test("replacement errors", () => {
    const schema = SchemaBuilder.struct()
      .field("bool", Schema.BOOLEAN_SCHEMA)
      .field("int", Schema.INT32_SCHEMA)
      .field("d", Decimal.schema(0))
      .build();
    const value = new Struct(schema).put("bool", true).put("int", 1).put("d", new BigDecimal(1n, 0));
    const record = source({ valueSchema: schema, value });
    expect(() => configured(new MaskField("value"), { fields: "bool", replacement: "x" }).apply(record)).toThrow(
      "Cannot mask value of type class java.lang.Boolean with custom replacement.",
    );
    expect(() => configured(new MaskField("value"), { fields: "int", replacement: "abc" }).apply(record)).toThrow(
      "Unable to convert abc (class java.lang.String) to a number",
    );
    expect(() => configured(new MaskField("value"), { fields: "d", replacement: "abc" }).apply(record)).toThrow(
      "Unable to convert abc (class java.lang.String) to number",
    );
  });

  test("types without an empty value cannot be masked", () => {
    const schema = SchemaBuilder.struct().field("bytes", Schema.BYTES_SCHEMA).build();
    const value = new Struct(schema).put("bytes", new Uint8Array([1]));
    expect(() =>
      configured(new MaskField("value"), { fields: "bytes" }).apply(source({ valueSchema: schema, value })),
    ).toThrow("Cannot mask value of type: class [B");
  });

  test("key variant and wrong shapes", () => {
    const out = configured(new MaskField("key"), { fields: "ssn" }).apply(
      source({ key: { ssn: "123", id: 1 }, value: "v" }),
    );
    expect(out.key).toEqual({ ssn: "", id: 1 });
    expect(() => configured(new MaskField("value"), { fields: "a" }).apply(source({ value: null }))).toThrow(
      "Only Map objects supported in absence of schema for [mask fields], found: null",
    );
    expect(() =>
      configured(new MaskField("value"), { fields: "a" }).apply(
        source({ valueSchema: Schema.STRING_SCHEMA, value: "x" }),
      ),
    ).toThrow("Only Struct objects supported for [mask fields], found: java.lang.String");
  });

  test("settings validation", () => {
    expect(() => new MaskField().configure({})).toThrow(ConfigError);
    expect(() => new MaskField().configure({ fields: "" })).toThrow("Empty list");
    expect(() => new MaskField().configure({ fields: "a", replacement: "" })).toThrow("String must be non-empty");
  });
});
