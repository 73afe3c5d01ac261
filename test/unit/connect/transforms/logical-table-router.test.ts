import { describe, expect, test } from "bun:test";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import type { SourceRecord } from "#src/connect/api/records.ts";
import { ByLogicalTableRouter, ToLogicalTopicRouter } from "#src/connect/transforms/index.ts";
import { BUILTIN_TRANSFORMS } from "#src/connect/transforms/registry.ts";
import { validateTransforms } from "#src/connect/transforms/chain.ts";
import { SchemaNameAdjuster } from "#src/connect/transforms/schema-name-adjuster.ts";
import { configured, source } from "./helpers.ts";

function shard(n: number) {
  const key = SchemaBuilder.struct().name(`server.public.shard_${n}.Key`).field("id", Schema.INT32_SCHEMA).build();
  const row = SchemaBuilder.struct()
    .name(`server.public.shard_${n}.Value`)
    .optional()
    .field("id", Schema.INT32_SCHEMA)
    .field("name", SchemaBuilder.string().optional().defaultValue("none").build())
    .build();
  const envelope = SchemaBuilder.struct()
    .name(`server.public.shard_${n}.Envelope`)
    .version(2)
    .field("before", row)
    .field("after", row)
    .field("op", Schema.STRING_SCHEMA)
    .build();
  const record = (op: string, before: Struct | null, after: Struct | null): SourceRecord =>
    source({
      topic: `server.public.shard_${n}`,
      keySchema: key,
      key: new Struct(key).put("id", 1),
      valueSchema: envelope,
      value: new Struct(envelope).put("before", before).put("after", after).put("op", op),
    });
  return {
    key,
    row,
    envelope,
    record,
    rowOf: (id: number, name: string | null) => new Struct(row).put("id", id).put("name", name),
  };
}

const ROUTE = { "topic.regex": "(.*)\\.public\\.shard_(\\d+)", "topic.replacement": "$1.public.shards" };
const router = (config: Record<string, string> = {}) => configured(new ByLogicalTableRouter(), { ...ROUTE, ...config });

describe("ByLogicalTableRouter", () => {
  test("is registered by Debezium's class names", () => {
    expect(BUILTIN_TRANSFORMS["io.debezium.transforms.ByLogicalTableRouter"]!()).toBeInstanceOf(ByLogicalTableRouter);
    expect(BUILTIN_TRANSFORMS["io.debezium.transforms.ToLogicalTopicRouter"]!()).toBeInstanceOf(ToLogicalTopicRouter);
  });

  test("routes shards to one topic, renames the schemas and adds the physical table to the key", async () => {
    const t = router();
    const s1 = shard(1);
    const out = await t.apply(s1.record("c", null, s1.rowOf(1, null)));
    expect(out.topic).toBe("server.public.shards");
    expect(out.keySchema!.name).toBe("server.public.shards.Key");
    expect(out.keySchema!.fields.map((f) => f.name)).toEqual(["id", "__dbz__physicalTableIdentifier"]);
    expect((out.key as Struct).get("__dbz__physicalTableIdentifier")).toBe("server.public.shard_1");
    expect(out.valueSchema!.name).toBe("server.public.shards.Envelope");
    expect(out.valueSchema!.version).toBe(2);
    const after = (out.value as Struct).getStruct("after")!;
    expect(after.schema.name).toBe("server.public.shards.Value");
    expect(out.valueSchema!.field("before")!.schema).toBe(after.schema);
    // Row values are copied without defaults; the envelope keeps its other fields.
    expect(after.getWithoutDefault("name")).toBeNull();
    expect((out.value as Struct).get("op")).toBe("c");
    const s2 = shard(2);
    const second = await t.apply(s2.record("d", s2.rowOf(1, "x"), null));
    expect((second.key as Struct).get("__dbz__physicalTableIdentifier")).toBe("server.public.shard_2");
    expect(second.valueSchema!.equals(out.valueSchema)).toBe(true);
  });

  test("tombstones and other records get the new topic and key only; unmatched topics pass", async () => {
    const s1 = shard(1);
    const tomb = await router().apply({ ...s1.record("d", null, null), value: null, valueSchema: null });
    expect([tomb.topic, tomb.value, (tomb.key as Struct).schema.name]).toEqual([
      "server.public.shards",
      null,
      "server.public.shards.Key",
    ]);
    const other = source({ topic: "server.public.other", value: "x" });
    expect(await router().apply(other)).toBe(other);
    const empty = source({ topic: "server.public.shard_1", value: "x" });
    expect(
      await router({ "topic.regex": "(x?)server\\.public\\.shard_1", "topic.replacement": "$1" }).apply(empty),
    ).toBe(empty);
  });

  test("key.field.regex / key.field.replacement, key.field.name, key.enforce.uniqueness", async () => {
    const s1 = shard(1);
    const out = await router({
      "key.field.regex": ".*_(\\d+)",
      "key.field.replacement": "shard-$1",
      "key.field.name": "src",
    }).apply(s1.record("c", null, s1.rowOf(1, "a")));
    expect((out.key as Struct).get("src")).toBe("shard-1");
    const plain = await router({ "key.enforce.uniqueness": "false" }).apply(s1.record("c", null, s1.rowOf(1, "a")));
    expect(plain.keySchema!.fields.map((f) => f.name)).toEqual(["id"]);
    const current = await configured(new ToLogicalTopicRouter(), ROUTE).apply(s1.record("c", null, s1.rowOf(1, "a")));
    expect(current.keySchema!.fields.map((f) => f.name)).toEqual(["id", "__dbz__sourceIdentifier"]);
  });

  test("schema.name.adjustment.mode=avro adjusts the derived names", async () => {
    const s1 = shard(1);
    const out = await router({
      "topic.replacement": "$1.public.all-shards",
      "schema.name.adjustment.mode": "avro",
    }).apply(s1.record("c", null, s1.rowOf(1, "a")));
    expect(out.topic).toBe("server.public.all-shards");
    expect(out.keySchema!.name).toBe("server.public.all_shards.Key");
    expect(out.valueSchema!.name).toBe("server.public.all_shards.Envelope");
  });

  test("settings are checked as Debezium checks them", () => {
    const check = (settings: Record<string, string>) =>
      validateTransforms({
        transforms: "r",
        "transforms.r.type": "io.debezium.transforms.ByLogicalTableRouter",
        ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`transforms.r.${k}`, v])),
      });
    expect(check(ROUTE)).toEqual({});
    expect(check({})).toEqual({
      "transforms.r.topic.regex": ["The 'topic.regex' value is invalid: A value is required"],
    });
    expect(check({ "topic.regex": "x" })).toEqual({
      "transforms.r.topic.replacement": ["The 'topic.replacement' value is invalid: A value is required"],
    });
    expect(check({ ...ROUTE, "key.field.regex": "(.*)" })).toEqual({
      "transforms.r.key.field.replacement": ["key.field.replacement must be non-empty if key.field.regex is set."],
    });
    expect(Object.keys(check({ ...ROUTE, "schema.name.adjustment.mode": "x" }))).toEqual([
      "transforms.r.schema.name.adjustment.mode",
    ]);
    expect(check({ ...ROUTE, "logical.table.cache.size": "4" })).toEqual({});
  });
});

describe("SchemaNameAdjuster", () => {
  test("avro and avro_unicode replace what Avro names do not allow", () => {
    expect(new SchemaNameAdjuster("none").adjust("a-b.1")).toBe("a-b.1");
    expect(new SchemaNameAdjuster("avro").adjust("my-db.1table.Key")).toBe("my_db.1table.Key");
    expect(new SchemaNameAdjuster("avro").adjust("1abc")).toBe("_1abc");
    expect(new SchemaNameAdjuster("avro_unicode").adjust("a-b_c")).toBe("a_u002db_u005fc");
    expect(new SchemaNameAdjuster("avro_unicode").adjust("a\tb")).toBe("a_u009b");
  });

  test("two names with one replacement fail", () => {
    const adjuster = new SchemaNameAdjuster("avro");
    expect(adjuster.adjust("a-b")).toBe("a_b");
    expect(() => adjuster.adjust("a+b")).toThrow("conflicts with another different schema 'a-b'");
  });
});
