import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import { Flatten } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

const flatten = (side: "key" | "value" = "value", delimiter?: string) =>
  configured(new Flatten(side), delimiter === undefined ? {} : { delimiter });

describe("Flatten", () => {
  test("schemaless nested maps; arrays kept; nulls kept", () => {
    const value = { A: { B: { int8: 8, string: "s" }, arr: [1, 2] }, top: null, m: new Map([["k", 1]]) };
    expect(flatten().apply(source({ value })).value).toEqual({
      "A.B.int8": 8,
      "A.B.string": "s",
      "A.arr": [1, 2],
      top: null,
      "m.k": 1,
    });
    expect(flatten("key", "#").apply(source({ key: { a: { b: 1 } } })).key).toEqual({ "a#b": 1 });
  });

  test("schema'd nested structs with optionality and defaults from the parent", () => {
    const leaf = SchemaBuilder.struct()
      .field("int", Schema.INT32_SCHEMA)
      .field("str", SchemaBuilder.string().optional().defaultValue("d").build())
      .build();
    const mid = SchemaBuilder.struct().optional().field("leaf", leaf).build();
    const schema = SchemaBuilder.struct()
      .name("top")
      .field("mid", mid)
      .field("plain", Schema.INT64_SCHEMA)
      .field("arr", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
      .build();
    const value = new Struct(schema)
      .put("mid", new Struct(mid).put("leaf", new Struct(leaf).put("int", 5)))
      .put("plain", 9n)
      .put("arr", [1]);
    const out = flatten().apply(source({ valueSchema: schema, value }));
    const s = out.valueSchema!;
    expect(s.name).toBe("top");
    expect(s.fields.map((f) => f.name)).toEqual(["mid.leaf.int", "mid.leaf.str", "plain", "arr"]);
    // The optional parent makes its leaves optional.
    expect(s.field("mid.leaf.int")!.schema.optional).toBe(true);
    expect(s.field("mid.leaf.str")!.schema.defaultValue).toBe("d");
    expect(s.field("plain")!.schema.optional).toBe(false);
    const v = out.value as Struct;
    expect([v.get("mid.leaf.int"), v.get("mid.leaf.str"), v.get("plain"), v.get("arr")]).toEqual([5, "d", 9n, [1]]);
    // A null optional struct leaves its flattened fields null.
    const sparse = flatten().apply(
      source({ valueSchema: schema, value: new Struct(schema).put("plain", 1n).put("arr", []) }),
    );
    expect((sparse.value as Struct).getWithoutDefault("mid.leaf.int")).toBeNull();
  });

  test("null value keeps the flattened schema", () => {
    const schema = SchemaBuilder.struct()
      .optional()
      .field("a", SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).build())
      .build();
    const out = flatten().apply(source({ valueSchema: schema, value: null }));
    expect(out).toEqual(source({ valueSchema: schema, value: null }));
  });

  test("unsupported types", () => {
    const withMap = SchemaBuilder.struct()
      .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
      .build();
    expect(() =>
      flatten().apply(source({ valueSchema: withMap, value: new Struct(withMap).put("m", new Map()) })),
    ).toThrow("Flatten transformation does not support MAP for record with schemas (for field m).");
    const struct = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
    expect(() => flatten().apply(source({ value: { s: new Struct(struct).put("a", 1) } }))).toThrow(
      "Flatten transformation does not support class org.apache.kafka.connect.data.Struct for record without schemas (for field s).",
    );
    expect(() => flatten().apply(source({ value: "x" }))).toThrow(
      "Only Map objects supported in absence of schema for [flattening], found: java.lang.String",
    );
  });

  test("property: flattened keys are unique and one per leaf; every leaf keeps its value", () => {
    type Tree = { [k: string]: Tree | number };
    const name = fc.stringMatching(/^[a-z]{1,4}$/);
    const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
      node: fc.dictionary(name, fc.oneof({ depthSize: "small" }, fc.integer(), tie("node")), {
        minKeys: 1,
        maxKeys: 4,
      }),
    })).node;
    const leaves = (t: Tree, prefix: string, out: Map<string, number>) => {
      for (const [k, v] of Object.entries(t)) {
        const key = prefix === "" ? k : `${prefix}.${k}`;
        if (typeof v === "number") out.set(key, v);
        else leaves(v, key, out);
      }
    };
    fc.assert(
      fc.property(tree, (t) => {
        const out = flatten().apply(source({ value: t })).value as Record<string, unknown>;
        const expected = new Map<string, number>();
        leaves(t, "", expected);
        const keys = Object.keys(out);
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys.length).toBe(expected.size);
        for (const [k, v] of expected) expect(out[k]).toBe(v);
      }),
    );
  });
});
