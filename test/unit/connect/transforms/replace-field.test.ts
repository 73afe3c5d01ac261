import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConfigError } from "#src/platform/settings.ts";
import { Schema, SchemaBuilder, SchemaBuilderException, Struct } from "#src/connect/api/data/index.ts";
import { ReplaceField } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

describe("ReplaceField", () => {
  test("schemaless: exclude wins over include, renames apply", () => {
    const t = configured(new ReplaceField("value"), {
      exclude: "dont",
      include: "abc,foo,dont",
      renames: "abc:xyz,foo:bar",
    });
    const out = t.apply(source({ value: { dont: "whatever", abc: 42, foo: true, etc: "etc" } }));
    expect(out.value).toEqual({ xyz: 42, bar: true });
  });

  test("schema'd: derived schema keeps metadata and field order", () => {
    const schema = SchemaBuilder.struct()
      .name("row")
      .field("dont", Schema.STRING_SCHEMA)
      .field("abc", Schema.INT32_SCHEMA)
      .field("foo", Schema.BOOLEAN_SCHEMA)
      .field("etc", Schema.STRING_SCHEMA)
      .build();
    const value = new Struct(schema).put("dont", "whatever").put("abc", 42).put("foo", true).put("etc", "etc");
    const t = configured(new ReplaceField("value"), { exclude: "dont", renames: "abc:xyz,foo:bar" });
    const out = t.apply(source({ valueSchema: schema, value }));
    const updated = out.value as Struct;
    expect(out.valueSchema!.name).toBe("row");
    expect(out.valueSchema!.fields.map((f) => f.name)).toEqual(["xyz", "bar", "etc"]);
    expect([updated.get("xyz"), updated.get("bar"), updated.get("etc")]).toEqual([42, true, "etc"]);
    expect(t.apply(source({ valueSchema: schema, value })).valueSchema).toBe(out.valueSchema);
  });

  test("legacy whitelist/blacklist names; the new names win when both are given", () => {
    const value = { a: 1, b: 2, c: 3 };
    expect(configured(new ReplaceField("value"), { whitelist: "a,b" }).apply(source({ value })).value).toEqual({
      a: 1,
      b: 2,
    });
    expect(configured(new ReplaceField("value"), { blacklist: "a" }).apply(source({ value })).value).toEqual({
      b: 2,
      c: 3,
    });
    expect(
      configured(new ReplaceField("value"), { whitelist: "a", include: "c" }).apply(source({ value })).value,
    ).toEqual({ c: 3 });
  });

  test("key variant, tombstones and wrong shapes", () => {
    expect(
      configured(new ReplaceField("key"), { renames: "id:key_id" }).apply(source({ key: new Map([["id", 1]]) })).key,
    ).toEqual(new Map([["key_id", 1]]));
    const tombstone = source({ value: null });
    expect(configured(new ReplaceField("value"), { exclude: "a" }).apply(tombstone)).toBe(tombstone);
    expect(() => configured(new ReplaceField("value"), { exclude: "a" }).apply(source({ value: 5 }))).toThrow(
      "Only Map objects supported in absence of schema for [field replacement], found: java.lang.Integer",
    );
  });

  test("a rename onto an existing field is a schema error, as in Kafka", () => {
    const schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.INT32_SCHEMA).build();
    const t = configured(new ReplaceField("value"), { renames: "a:b" });
    expect(() => t.apply(source({ valueSchema: schema, value: new Struct(schema).put("a", 1).put("b", 2) }))).toThrow(
      SchemaBuilderException,
    );
  });

  test("settings validation", () => {
    expect(() => new ReplaceField().configure({ renames: "a:b,c" })).toThrow(ConfigError);
    expect(() => new ReplaceField().configure({ renames: "a:b,c" })).toThrow(
      "Invalid value [a:b, c] for configuration renames: Invalid rename mapping: c",
    );
    expect(() => new ReplaceField().configure({ renames: "a:b:c" })).toThrow("Invalid rename mapping: a:b:c");
    expect(() => new ReplaceField().configure({ renames: "a:" })).toThrow("Invalid rename mapping: a:");
  });

  test("property: renaming old→new then new→old restores the value and the schema's field names", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 8 }),
        fc.uniqueArray(name, { minLength: 1, maxLength: 8 }),
        (fields, targets) => {
          // Rename a prefix of the fields to names not used by any field.
          const fresh = targets.filter((t) => !fields.includes(t));
          const pairs = fields.slice(0, fresh.length).map((f, i) => [f, fresh[i]] as const);
          if (pairs.length === 0) return;
          const builder = SchemaBuilder.struct();
          for (const f of fields) builder.field(f, Schema.INT32_SCHEMA);
          const schema = builder.build();
          const value = new Struct(schema);
          fields.forEach((f, i) => value.put(f, i));
          const forward = configured(new ReplaceField("value"), {
            renames: pairs.map(([a, b]) => `${a}:${b}`).join(","),
          });
          const back = configured(new ReplaceField("value"), { renames: pairs.map(([a, b]) => `${b}:${a}`).join(",") });
          const out = back.apply(forward.apply(source({ valueSchema: schema, value })));
          expect(out.valueSchema!.equals(schema)).toBe(true);
          expect((out.value as Struct).equals(value)).toBe(true);
          // Schemaless too.
          const map = Object.fromEntries(fields.map((f, i) => [f, i]));
          expect(back.apply(forward.apply(source({ value: map }))).value).toEqual(map);
        },
      ),
    );
  });
});
