import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { DataException, Schema, SchemaBuilder, Struct, Timestamp } from "#src/connect/api/data/index.ts";
import { InsertField } from "#src/connect/transforms/index.ts";
import { configured, sink, source } from "./helpers.ts";

const VALUE_SCHEMA = SchemaBuilder.struct()
  .name("name")
  .version(1)
  .doc("doc")
  .field("magic", Schema.OPTIONAL_INT64_SCHEMA)
  .build();

describe("InsertField", () => {
  test("schema'd value: adds topic, partition, offset, timestamp and static fields with the optionality suffixes", () => {
    const t = configured(new InsertField("value"), {
      "topic.field": "topic_field!",
      "partition.field": "partition_field",
      "offset.field": "offset_field!",
      "timestamp.field": "timestamp_field?",
      "static.field": "instance_id",
      "static.value": "my-instance-id",
    });
    const value = new Struct(VALUE_SCHEMA).put("magic", 42n);
    const out = t.apply(
      sink({
        topic: "test",
        kafkaPartition: 0,
        kafkaOffset: 0,
        valueSchema: VALUE_SCHEMA,
        value,
        timestamp: 1_483_425_001_864,
      }),
    );
    const schema = out.valueSchema!;
    expect(schema.name).toBe("name");
    expect(schema.version).toBe(1);
    expect(schema.doc).toBe("doc");
    expect(schema.fields.map((f) => f.name)).toEqual([
      "magic",
      "topic_field",
      "partition_field",
      "offset_field",
      "timestamp_field",
      "instance_id",
    ]);
    expect(schema.field("topic_field")!.schema).toBe(Schema.STRING_SCHEMA);
    expect(schema.field("partition_field")!.schema).toBe(Schema.OPTIONAL_INT32_SCHEMA);
    expect(schema.field("offset_field")!.schema).toBe(Schema.INT64_SCHEMA);
    expect(schema.field("timestamp_field")!.schema.name).toBe(Timestamp.LOGICAL_NAME);
    expect(schema.field("timestamp_field")!.schema.optional).toBe(true);
    const v = out.value as Struct;
    expect(v.getInt64("magic")).toBe(42n);
    expect(v.getString("topic_field")).toBe("test");
    expect(v.getInt32("partition_field")).toBe(0);
    expect(v.getInt64("offset_field")).toBe(0n);
    expect(v.get("timestamp_field")).toEqual(new Date(1_483_425_001_864));
    expect(v.getString("instance_id")).toBe("my-instance-id");
    // The derived schema is cached per input schema.
    const again = t.apply(sink({ valueSchema: VALUE_SCHEMA, value: new Struct(VALUE_SCHEMA), timestamp: 1 }));
    expect(again.valueSchema).toBe(schema);
  });

  test("schemaless value keeps the map shape and skips null partition / timestamp", () => {
    const t = configured(new InsertField("value"), {
      "topic.field": "topic_field!",
      "partition.field": "p",
      "timestamp.field": "ts",
      "static.field": "s",
      "static.value": "v",
    });
    const out = t.apply(source({ topic: "orders", value: { magic: 42 } }));
    expect(out.valueSchema).toBeNull();
    expect(out.value).toEqual({ magic: 42, topic_field: "orders", s: "v" });
    const asMap = t.apply(
      source({ topic: "orders", kafkaPartition: 3, timestamp: 7, value: new Map([["magic", 42]]) }),
    );
    expect(asMap.value).toEqual(
      new Map<string, unknown>([
        ["magic", 42],
        ["topic_field", "orders"],
        ["p", 3],
        ["ts", 7],
        ["s", "v"],
      ]),
    );
  });

  test("key variant operates on the key and leaves the value alone", () => {
    const t = configured(new InsertField("key"), { "topic.field": "t" });
    const out = t.apply(source({ topic: "x", key: { id: 1 }, value: "v" }));
    expect(out.key).toEqual({ id: 1, t: "x" });
    expect(out.value).toBe("v");
  });

  test("null values pass through (tombstones)", () => {
    const t = configured(new InsertField("value"), { "topic.field": "t" });
    const r = source({ value: null });
    expect(t.apply(r)).toBe(r);
  });

  test("replace.null.with.default decides whether a null field takes its default", () => {
    const schema = SchemaBuilder.struct()
      .field("opt", SchemaBuilder.int32().optional().defaultValue(5).build())
      .build();
    const withDefault = configured(new InsertField("value"), { "topic.field": "t" }).apply(
      source({ valueSchema: schema, value: new Struct(schema) }),
    );
    expect((withDefault.value as Struct).getWithoutDefault("opt")).toBe(5);
    const without = configured(new InsertField("value"), {
      "topic.field": "t",
      "replace.null.with.default": "false",
    }).apply(source({ valueSchema: schema, value: new Struct(schema) }));
    expect((without.value as Struct).getWithoutDefault("opt")).toBeNull();
  });

  test("Kafka's error messages", () => {
    const t = configured(new InsertField("value"), { "topic.field": "t" });
    expect(() => t.apply(source({ valueSchema: Schema.STRING_SCHEMA, value: "x" }))).toThrow(
      new DataException("Only Struct objects supported for [field insertion], found: java.lang.String"),
    );
    expect(() => t.apply(source({ value: "x" }))).toThrow(
      "Only Map objects supported in absence of schema for [field insertion], found: java.lang.String",
    );
    const offset = configured(new InsertField("value"), { "offset.field": "o" });
    expect(() => offset.apply(source({ value: {} }))).toThrow(
      "Only SinkRecord supported for [field insertion], found: org.apache.kafka.connect.source.SourceRecord",
    );
  });

  test("settings validation", () => {
    expect(() => new InsertField().configure({})).toThrow("No field insertion configured");
    expect(() => new InsertField().configure({ "static.field": "s" })).toThrow(ConfigError);
    expect(() => new InsertField().configure({ "static.field": "s" })).toThrow(
      "Invalid value null for configuration static.value: No value specified for static field: s",
    );
    expect(() => new InsertField().configure({ "topic.field": "t", "replace.null.with.default": "maybe" })).toThrow(
      ConfigError,
    );
    expect(new InsertField().config().settings.map((s) => s.name)).toContain("partition.field");
  });
});
