// Records as Bulk API lines: index names, document ids, index/update/delete actions.
import { describe, expect, test } from "bun:test";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import type { SinkRecord } from "#src/connect/api/records.ts";
import { bulkAction, documentId, indexName, type ActionConfig } from "#src/connectors/search-sink/bulk-actions.ts";

function record(fields: Partial<SinkRecord>): SinkRecord {
  return {
    topic: "Orders",
    kafkaPartition: 2,
    kafkaOffset: 17,
    keySchema: Schema.STRING_SCHEMA,
    key: "k1",
    valueSchema: null,
    value: { a: 1n },
    timestamp: 0,
    timestampType: "CreateTime",
    headers: [],
    originalTopic: "Orders",
    originalKafkaPartition: 2,
    originalKafkaOffset: 17,
    ...fields,
  };
}

const config = (changes: Partial<ActionConfig> = {}): ActionConfig => ({
  keyIgnore: () => false,
  schemaIgnore: () => false,
  compactMapEntries: true,
  nullValues: "fail",
  writeMethod: "insert",
  maxInFlightRequests: 5,
  ...changes,
});

const lines = (text: string | null) => text?.split("\n").map((l) => JSON.parse(l) as unknown);

describe("indexName", () => {
  test("lower case, no leading - or _, at most 255 characters", () => {
    expect(indexName("Orders")).toBe("orders");
    expect(indexName("_private")).toBe("private");
    expect(indexName("-x")).toBe("x");
    expect(indexName("..")).toBe("dotdot");
    expect(indexName("a".repeat(300))).toHaveLength(255);
  });
});

describe("documentId", () => {
  test("the key's text for string and integer keys", () => {
    expect(documentId(record({ key: "abc" }), false)).toBe("abc");
    expect(documentId(record({ keySchema: Schema.INT64_SCHEMA, key: 12n }), false)).toBe("12");
    expect(documentId(record({ keySchema: null, key: 5n }), false)).toBe("5");
  });
  test("topic+partition+offset when keys are ignored", () => {
    expect(documentId(record({ key: null }), true)).toBe("Orders+2+17");
  });
  test("null, empty and non-scalar keys are refused", () => {
    expect(() => documentId(record({ key: null }), false)).toThrow("Key is used as document id and can not be null.");
    expect(() => documentId(record({ key: "" }), false)).toThrow("can not be empty");
    const s = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
    expect(() => documentId(record({ keySchema: s, key: new Struct(s).put("id", 1) }), false)).toThrow(
      "STRUCT is not supported as the document id.",
    );
    expect(() => documentId(record({ keySchema: null, key: 1.5 }), false)).toThrow("FLOAT64 is not supported");
  });
});

describe("bulkAction", () => {
  test("insert: index with external version = offset when the key is the id", () => {
    expect(lines(bulkAction(record({}), config()))).toEqual([
      { index: { _index: "orders", _id: "k1", version: 17, version_type: "external" } },
      { a: 1 },
    ]);
  });
  test("insert with key.ignore: offset-based id, no versioning", () => {
    expect(lines(bulkAction(record({}), config({ keyIgnore: () => true })))).toEqual([
      { index: { _index: "orders", _id: "Orders+2+17" } },
      { a: 1 },
    ]);
  });
  test("upsert: update with doc_as_upsert", () => {
    expect(lines(bulkAction(record({}), config({ writeMethod: "upsert", maxInFlightRequests: 2 })))).toEqual([
      { update: { _index: "orders", _id: "k1", retry_on_conflict: 2 } },
      { doc: { a: 1 }, doc_as_upsert: true },
    ]);
  });
  test("tombstones per behavior.on.null.values", () => {
    const tombstone = record({ value: null });
    expect(lines(bulkAction(tombstone, config({ nullValues: "delete" })))).toEqual([
      { delete: { _index: "orders", _id: "k1", version: 17, version_type: "external" } },
    ]);
    expect(bulkAction(record({ value: null, key: null }), config({ nullValues: "delete" }))).toBeNull();
    expect(bulkAction(tombstone, config({ nullValues: "ignore" }))).toBeNull();
    expect(() => bulkAction(tombstone, config())).toThrow("has a null value");
  });
});
