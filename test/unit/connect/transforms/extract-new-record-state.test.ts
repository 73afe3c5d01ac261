import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import type { SourceRecord } from "#src/connect/api/records.ts";
import { ExtractNewRecordState } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

// A Debezium PostgreSQL change event for table public.orders, topic prefix `server`.
const KEY = SchemaBuilder.struct().name("server.public.orders.Key").field("id", Schema.INT32_SCHEMA).build();
const ROW = SchemaBuilder.struct()
  .name("server.public.orders.Value")
  .optional()
  .field("id", Schema.INT32_SCHEMA)
  .field("status", Schema.OPTIONAL_STRING_SCHEMA)
  .field("note", Schema.OPTIONAL_STRING_SCHEMA)
  .build();
const SOURCE = SchemaBuilder.struct()
  .name("io.debezium.connector.postgresql.Source")
  .field("version", Schema.STRING_SCHEMA)
  .field("connector", Schema.STRING_SCHEMA)
  .field("name", Schema.STRING_SCHEMA)
  .field("ts_ms", Schema.INT64_SCHEMA)
  .field("db", Schema.STRING_SCHEMA)
  .field("schema", Schema.STRING_SCHEMA)
  .field("table", Schema.STRING_SCHEMA)
  .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
  .build();
const TRANSACTION = SchemaBuilder.struct()
  .name("event.block")
  .optional()
  .field("id", Schema.STRING_SCHEMA)
  .field("total_order", Schema.INT64_SCHEMA)
  .field("data_collection_order", Schema.INT64_SCHEMA)
  .build();
const ENVELOPE = SchemaBuilder.struct()
  .name("server.public.orders.Envelope")
  .version(2)
  .field("before", ROW)
  .field("after", ROW)
  .field("source", SOURCE)
  .field("transaction", TRANSACTION)
  .field("op", Schema.STRING_SCHEMA)
  .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
  .build();

const row = (id: number, status: string) => new Struct(ROW).put("id", id).put("status", status);
const src = () =>
  new Struct(SOURCE)
    .put("version", "2.7.0")
    .put("connector", "postgresql")
    .put("name", "server")
    .put("ts_ms", 1_700_000_000_000n)
    .put("db", "shop")
    .put("schema", "public")
    .put("table", "orders")
    .put("lsn", 12345n);

function event(op: string, before: Struct | null, after: Struct | null): SourceRecord {
  const value = new Struct(ENVELOPE)
    .put("before", before)
    .put("after", after)
    .put("source", src())
    .put("op", op)
    .put("ts_ms", 1_700_000_000_500n);
  return source({
    topic: "server.public.orders",
    keySchema: KEY,
    key: new Struct(KEY).put("id", 1),
    valueSchema: ENVELOPE,
    value,
  });
}
const tombstone = () =>
  source({
    topic: "server.public.orders",
    keySchema: KEY,
    key: new Struct(KEY).put("id", 1),
    valueSchema: null,
    value: null,
  });

const unwrap = (config: Record<string, string> = {}) => configured(new ExtractNewRecordState(), config);

describe("ExtractNewRecordState", () => {
  test("create and update become the `after` row with its schema", () => {
    const t = unwrap();
    const created = t.apply(event("c", null, row(1, "NEW")))!;
    expect(created.valueSchema).toBe(ROW);
    expect((created.value as Struct).equals(row(1, "NEW"))).toBe(true);
    expect(created.topic).toBe("server.public.orders");
    expect((created.key as Struct).get("id")).toBe(1);
    const updated = t.apply(event("u", row(1, "NEW"), row(1, "PAID")))!;
    expect((updated.value as Struct).get("status")).toBe("PAID");
  });

  test("legacy defaults: delete and tombstone are dropped", () => {
    const t = unwrap();
    expect(t.apply(event("d", row(1, "PAID"), null))).toBeNull();
    expect(t.apply(tombstone())).toBeNull();
  });

  test("the spec's drop.tombstones=false keeps tombstones; delete.handling.mode=none turns deletes into null values", () => {
    const t = unwrap({ "drop.tombstones": "false", "delete.handling.mode": "none" });
    const ts = tombstone();
    expect(t.apply(ts)).toBe(ts);
    const deleted = t.apply(event("d", row(1, "PAID"), null))!;
    expect(deleted.value).toBeNull();
    expect(deleted.valueSchema).toBe(ROW);
  });

  test("legacy rewrite: __deleted marks every row, deletes carry `before`", () => {
    const t = unwrap({ "delete.handling.mode": "rewrite" });
    const created = t.apply(event("c", null, row(1, "NEW")))!;
    expect(created.valueSchema!.field("__deleted")!.schema).toBe(Schema.OPTIONAL_STRING_SCHEMA);
    expect((created.value as Struct).get("__deleted")).toBe("false");
    const deleted = t.apply(event("d", row(1, "PAID"), null))!;
    expect((deleted.value as Struct).get("status")).toBe("PAID");
    expect((deleted.value as Struct).get("__deleted")).toBe("true");
    expect(t.apply(tombstone())).toBeNull();
  });

  test("delete.tombstone.handling.mode variants", () => {
    const del = () => event("d", row(1, "PAID"), null);
    expect(unwrap({ "delete.tombstone.handling.mode": "drop" }).apply(del())).toBeNull();
    expect(unwrap({ "delete.tombstone.handling.mode": "drop" }).apply(tombstone())).toBeNull();
    const tomb = unwrap({ "delete.tombstone.handling.mode": "tombstone" });
    expect(tomb.apply(del())!.value).toBeNull();
    expect(tomb.apply(tombstone())).toBeNull();
    const toTomb = unwrap({ "delete.tombstone.handling.mode": "delete-to-tombstone" }).apply(del())!;
    expect([toTomb.valueSchema, toTomb.value]).toEqual([null, null]);
    const rwt = unwrap({ "delete.tombstone.handling.mode": "rewrite-with-tombstone" });
    expect((rwt.apply(del())!.value as Struct).get("__deleted")).toBe("true");
    expect(rwt.apply(tombstone())).not.toBeNull();
    // The new setting wins over the legacy ones.
    expect(
      unwrap({ "delete.tombstone.handling.mode": "tombstone", "drop.tombstones": "false" }).apply(tombstone()),
    ).toBeNull();
  });

  test("add.fields: op, table, lsn, source.ts_ms, transaction and renamed fields", () => {
    const t = unwrap({
      "add.fields": "op,table,lsn,source.ts_ms,ts_ms,id,db:database",
      "delete.handling.mode": "rewrite",
    });
    const out = t.apply(event("u", row(1, "NEW"), row(1, "PAID")))!;
    const v = out.value as Struct;
    expect(out.valueSchema!.name).toBe("server.public.orders.Value");
    expect(out.valueSchema!.fields.map((f) => f.name)).toEqual([
      "id",
      "status",
      "note",
      "__deleted",
      "__op",
      "__table",
      "__lsn",
      "__source_ts_ms",
      "__ts_ms",
      "__id",
      "__database",
    ]);
    expect([
      v.get("__op"),
      v.get("__table"),
      v.get("__lsn"),
      v.get("__source_ts_ms"),
      v.get("__ts_ms"),
      v.get("__id"),
      v.get("__database"),
    ]).toEqual(["u", "orders", 12345n, 1_700_000_000_000n, 1_700_000_000_500n, null, "shop"]);
    // Added fields are optional copies of the envelope's schemas.
    expect(out.valueSchema!.field("__op")!.schema.optional).toBe(true);
    // Deletes carry them in rewrite mode too.
    const deleted = t.apply(event("d", row(1, "PAID"), null))!;
    expect((deleted.value as Struct).get("__op")).toBe("d");
    // The derived schema is cached per (row schema, op).
    expect(t.apply(event("u", row(2, "X"), row(2, "Y")))!.valueSchema).toBe(out.valueSchema);
  });

  test("add.headers, with a custom prefix; tombstones get only the op header", () => {
    const t = unwrap({ "add.headers": "op,source.table", "add.headers.prefix": "dbz.", "drop.tombstones": "false" });
    const out = t.apply(event("c", null, row(1, "NEW")))!;
    expect(out.headers.map((h) => [h.key, h.value])).toEqual([
      ["dbz.op", "c"],
      ["dbz.source_table", "orders"],
    ]);
    expect(out.headers[0].schema!.optional).toBe(true);
    expect(t.apply(tombstone())!.headers).toEqual([{ key: "dbz.op", schema: Schema.STRING_SCHEMA, value: "d" }]);
  });

  test("route.by.field and drop.fields.header.name", () => {
    const routed = unwrap({ "route.by.field": "status" }).apply(event("c", null, row(1, "NEW")))!;
    expect(routed.topic).toBe("NEW");
    const withHeader = event("c", null, row(1, "NEW").put("note", "n"));
    const dropped = unwrap({ "drop.fields.header.name": "drop" }).apply({
      ...withHeader,
      headers: [{ key: "drop", schema: null, value: ["note", "id"] }],
    })!;
    // Only optional fields are dropped while keeping schemas compatible.
    expect(dropped.valueSchema!.fields.map((f) => f.name)).toEqual(["id", "status"]);
  });

  test("non-envelope records and truncates", () => {
    const plain = source({ valueSchema: Schema.STRING_SCHEMA, value: "x" });
    expect(unwrap().apply(plain)).toBe(plain);
    const schemaless = source({ value: { before: null, after: { id: 1 }, op: "c" } });
    expect(unwrap().apply(schemaless)).toBe(schemaless);
    expect(unwrap().apply(event("t", null, null))).toBeNull();
  });

  test("settings validation", () => {
    expect(() => unwrap({ "delete.handling.mode": "bogus" })).toThrow(ConfigError);
    expect(() => unwrap({ "delete.tombstone.handling.mode": "bogus" })).toThrow(ConfigError);
    expect(() => unwrap({ "drop.tombstones": "maybe" })).toThrow(ConfigError);
    expect(() => unwrap({ "add.fields": "a:b:c" })).toThrow("Unexpected field name: a:b:c");
  });
});
