import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { ConnectDate, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp } from "#src/connect/api/data/index.ts";
import { DropHeaders, HeaderFrom, InsertHeader, SetSchemaMetadata } from "#src/connect/transforms/index.ts";
import { parseString } from "#src/connect/transforms/values.ts";
import { configured, source } from "./helpers.ts";

const h = (key: string, value: unknown = "v") => ({ key, schema: Schema.STRING_SCHEMA, value });

describe("InsertHeader", () => {
  test("adds the parsed literal after existing headers", () => {
    const out = configured(new InsertHeader(), { header: "source", "value.literal": "sluice" }).apply(
      source({ headers: [h("a")] }),
    );
    expect(out.headers).toEqual([h("a"), { key: "source", schema: Schema.STRING_SCHEMA, value: "sluice" }]);
    const n = configured(new InsertHeader(), { header: "n", "value.literal": "42" }).apply(source());
    expect(n.headers[0]).toEqual({ key: "n", schema: Schema.INT8_SCHEMA, value: 42 });
    const nul = configured(new InsertHeader(), { header: "n", "value.literal": "null" }).apply(source());
    expect(nul.headers[0]).toEqual({ key: "n", schema: null, value: null });
  });

  test("settings validation", () => {
    expect(() => new InsertHeader().configure({ header: "x" })).toThrow(ConfigError);
    expect(() => new InsertHeader().configure({ "value.literal": "x" })).toThrow(ConfigError);
  });
});

describe("Values.parseString subset", () => {
  test("scalars", () => {
    expect(parseString("")).toEqual({ schema: Schema.STRING_SCHEMA, value: "" });
    expect(parseString("true")).toEqual({ schema: Schema.BOOLEAN_SCHEMA, value: true });
    expect(parseString("1000")).toEqual({ schema: Schema.INT16_SCHEMA, value: 1000 });
    expect(parseString("100000")).toEqual({ schema: Schema.INT32_SCHEMA, value: 100000 });
    expect(parseString("10000000000")).toEqual({ schema: Schema.INT64_SCHEMA, value: 10000000000n });
    expect(parseString("1.0")).toEqual({ schema: Schema.INT8_SCHEMA, value: 1 });
    expect(parseString("1.5")).toEqual({ schema: Schema.FLOAT32_SCHEMA, value: 1.5 });
    expect(parseString("1e400")!.schema!.name).toBe(Decimal.LOGICAL_NAME);
    expect(parseString("hello world")).toEqual({ schema: Schema.STRING_SCHEMA, value: "hello world" });
    expect(parseString("true}")).toEqual({ schema: Schema.STRING_SCHEMA, value: "true}" });
  });

  test("temporal literals", () => {
    expect(parseString("2019-08-23")).toEqual({ schema: ConnectDate.SCHEMA, value: new Date(Date.UTC(2019, 7, 23)) });
    expect(parseString("14:34:54.346Z")).toEqual({
      schema: Time.SCHEMA,
      value: new Date(Date.UTC(1970, 0, 1, 14, 34, 54, 346)),
    });
    expect(parseString("2019-08-23T14:34:54.346Z")).toEqual({
      schema: Timestamp.SCHEMA,
      value: new Date(Date.UTC(2019, 7, 23, 14, 34, 54, 346)),
    });
  });

  test("arrays and maps", () => {
    const list = parseString("[1, 2, 300]")!;
    expect(list.schema!.type).toBe("ARRAY");
    expect(list.schema!.valueSchema!.type).toBe("INT16");
    expect(list.value).toEqual([1, 2, 300]);
    const map = parseString('{"a": 1, "b": 2}')!;
    expect(map.schema!.keySchema!.type).toBe("STRING");
    expect(map.value).toEqual(
      new Map([
        ["a", 1],
        ["b", 2],
      ]),
    );
    expect(parseString("[a, b]")).toEqual({ schema: Schema.STRING_SCHEMA, value: "[a, b]" });
  });
});

describe("DropHeaders", () => {
  test("removes every header with a listed key", () => {
    const out = configured(new DropHeaders(), { headers: "a,c" }).apply(
      source({ headers: [h("a"), h("b"), h("a", "again"), h("c")] }),
    );
    expect(out.headers).toEqual([h("b")]);
    expect(() => new DropHeaders().configure({ headers: "" })).toThrow("Empty list");
  });
});

describe("HeaderFrom", () => {
  const schema = SchemaBuilder.struct()
    .name("row")
    .field("id", Schema.INT32_SCHEMA)
    .field("user", Schema.STRING_SCHEMA)
    .field("opt", Schema.OPTIONAL_STRING_SCHEMA)
    .build();
  const value = new Struct(schema).put("id", 1).put("user", "ann");

  test("schema'd copy keeps the value; move drops the fields from schema and value", () => {
    const copy = configured(new HeaderFrom("value"), {
      fields: "user,opt",
      headers: "h_user,h_opt",
      operation: "copy",
    }).apply(source({ valueSchema: schema, value, headers: [h("x")] }));
    expect(copy.value).toBe(value);
    expect(copy.headers).toEqual([
      h("x"),
      { key: "h_user", schema: Schema.STRING_SCHEMA, value: "ann" },
      { key: "h_opt", schema: Schema.OPTIONAL_STRING_SCHEMA, value: null },
    ]);
    const move = configured(new HeaderFrom("value"), { fields: "user", headers: "h_user", operation: "move" }).apply(
      source({ valueSchema: schema, value }),
    );
    expect(move.valueSchema!.name).toBe("row");
    expect(move.valueSchema!.fields.map((f) => f.name)).toEqual(["id", "opt"]);
    expect((move.value as Struct).get("id")).toBe(1);
    expect(move.headers).toEqual([{ key: "h_user", schema: Schema.STRING_SCHEMA, value: "ann" }]);
  });

  test("schemaless key", () => {
    const out = configured(new HeaderFrom("key"), { fields: "id,missing", headers: "k,m", operation: "move" }).apply(
      source({ key: { id: 7, other: 1 } }),
    );
    expect(out.key).toEqual({ other: 1 });
    expect(out.headers).toEqual([
      { key: "k", schema: null, value: 7 },
      { key: "m", schema: null, value: null },
    ]);
  });

  test("errors", () => {
    expect(() => new HeaderFrom().configure({ fields: "a,b", headers: "x", operation: "copy" })).toThrow(
      "'fields' config must have the same number of elements as 'headers' config.",
    );
    expect(() => new HeaderFrom().configure({ fields: "a", headers: "x", operation: "steal" })).toThrow(ConfigError);
    expect(() =>
      configured(new HeaderFrom("value"), { fields: "a", headers: "x", operation: "move" }).apply(source({ value: 5 })),
    ).toThrow("Only Map objects supported in absence of schema for [header move], found: java.lang.Integer");
  });
});

describe("SetSchemaMetadata", () => {
  test("renames and re-versions a Struct schema, rebuilding the value", () => {
    const schema = SchemaBuilder.struct().name("old").version(1).doc("d").field("a", Schema.INT32_SCHEMA).build();
    const out = configured(new SetSchemaMetadata("value"), { "schema.name": "new", "schema.version": "3" }).apply(
      source({ valueSchema: schema, value: new Struct(schema).put("a", 1) }),
    );
    expect(out.valueSchema!.name).toBe("new");
    expect(out.valueSchema!.version).toBe(3);
    expect(out.valueSchema!.doc).toBe("d");
    expect((out.value as Struct).schema).toBe(out.valueSchema!);
    expect((out.value as Struct).get("a")).toBe(1);
  });

  test("primitive key schemas, nulls, and the schema requirement", () => {
    const out = configured(new SetSchemaMetadata("key"), { "schema.version": "2" }).apply(
      source({ keySchema: Schema.STRING_SCHEMA, key: "k" }),
    );
    expect(out.keySchema!.version).toBe(2);
    expect(out.keySchema!.type).toBe("STRING");
    expect(out.key).toBe("k");
    const t = configured(new SetSchemaMetadata("value"), { "schema.name": "n" });
    const tombstone = source({ value: null });
    expect(t.apply(tombstone)).toBe(tombstone);
    expect(() => t.apply(source({ value: "x" }))).toThrow("Schema required for [updating schema metadata]");
    expect(() => new SetSchemaMetadata().configure({})).toThrow("Neither schema name nor version configured");
    expect(() => new SetSchemaMetadata().configure({ "schema.version": "x" })).toThrow(ConfigError);
  });
});
