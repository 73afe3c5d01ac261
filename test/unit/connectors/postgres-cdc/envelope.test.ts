import { describe, expect, test } from "bun:test";
import { Schema, Struct } from "#src/connect/api/data/index.ts";
import {
  changeRecords,
  contextHeaders,
  sequence,
  SOURCE_SCHEMA,
  sourceStruct,
  tableSchemas,
  type ChangeEvent,
  namedRow,
  type TableSchemas,
  type SourceInfo,
} from "#src/connectors/postgres-cdc/envelope.ts";

const columns = [
  { name: "id", schema: Schema.INT32_SCHEMA, isKey: true },
  { name: "name", schema: Schema.OPTIONAL_STRING_SCHEMA, isKey: false },
];
const schemas = tableSchemas("dbserver1", "inventory", "customers", columns);
const source: SourceInfo = {
  version: "3.0.0.Final",
  name: "dbserver1",
  db: "postgres",
  schema: "inventory",
  table: "customers",
  timestamp: 1_704_164_645_123_456n,
  lastCommitLsn: 0x16b374d800n,
  lsn: 0x16b374d848n,
  txId: 556n,
};
const options = {
  sourcePartition: { server: "dbserver1" },
  sourceOffset: { lsn: 0x16b374d848n.toString() },
  tombstonesOnDelete: true,
};
type Named = Readonly<Record<string, unknown>>;

/** An event whose rows are given by column name, for the table of `on`. */
const event = (
  changes: Omit<Partial<ChangeEvent>, "before" | "after"> & { before?: Named | null; after?: Named | null },
  on: TableSchemas = schemas,
): ChangeEvent => ({
  op: "c",
  source,
  processedAt: 1_704_164_646_000_001n,
  ...changes,
  before: changes.before ? namedRow(on, changes.before) : null,
  after: changes.after ? namedRow(on, changes.after) : null,
});

describe("Debezium envelope", () => {
  test("table schemas: names, versions and field order", () => {
    expect(schemas.topic).toBe("dbserver1.inventory.customers");
    expect(schemas.keySchema?.name).toBe("dbserver1.inventory.customers.Key");
    expect(schemas.keySchema?.fields.map((f) => f.name)).toEqual(["id"]);
    expect(schemas.valueSchema.name).toBe("dbserver1.inventory.customers.Value");
    expect(schemas.valueSchema.optional).toBe(true);
    expect(schemas.valueSchema.fields.map((f) => f.name)).toEqual(["id", "name"]);
    const envelope = schemas.envelopeSchema;
    expect([envelope.name, envelope.version, envelope.optional]).toEqual([
      "dbserver1.inventory.customers.Envelope",
      2,
      false,
    ]);
    expect(envelope.fields.map((f) => `${f.name}:${f.schema.type}${f.schema.optional ? "?" : ""}`)).toEqual([
      "before:STRUCT?",
      "after:STRUCT?",
      "source:STRUCT",
      "transaction:STRUCT?",
      "op:STRING",
      "ts_ms:INT64?",
      "ts_us:INT64?",
      "ts_ns:INT64?",
    ]);
    expect(envelope.field("transaction")?.schema.name).toBe("event.block");
    expect(envelope.field("transaction")?.schema.fields.map((f) => f.name)).toEqual([
      "id",
      "total_order",
      "data_collection_order",
    ]);
    expect(tableSchemas("p", "s", "nokey", [columns[1]]).keySchema).toBeNull();
  });

  test("the source struct: io.debezium.connector.postgresql.Source in Debezium's field order", () => {
    expect([SOURCE_SCHEMA.name, SOURCE_SCHEMA.version]).toEqual(["io.debezium.connector.postgresql.Source", 1]);
    expect(SOURCE_SCHEMA.fields.map((f) => f.name)).toEqual([
      "version",
      "connector",
      "name",
      "ts_ms",
      "snapshot",
      "db",
      "sequence",
      "ts_us",
      "ts_ns",
      "schema",
      "table",
      "txId",
      "lsn",
      "xmin",
      "origin",
      "origin_lsn",
    ]);
    const snapshot = SOURCE_SCHEMA.field("snapshot")?.schema;
    expect([snapshot?.name, snapshot?.defaultValue, snapshot?.parameters?.get("allowed")]).toEqual([
      "io.debezium.data.Enum",
      "false",
      "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental",
    ]);

    const struct = sourceStruct(source);
    expect(struct.get("connector")).toBe("postgresql");
    expect(struct.get("ts_ms")).toBe(1_704_164_645_123n);
    expect(struct.get("ts_us")).toBe(1_704_164_645_123_456n);
    expect(struct.get("ts_ns")).toBe(1_704_164_645_123_456_000n);
    expect(struct.get("snapshot")).toBe("false");
    expect(struct.getWithoutDefault("snapshot")).toBeNull();
    expect(struct.get("sequence")).toBe('["97500059648","97500059720"]');
    expect([struct.get("txId"), struct.get("lsn"), struct.get("xmin")]).toEqual([556n, 0x16b374d848n, null]);
    expect(struct.toString()).toContain("schema=inventory,table=customers");

    const snapshotRead = sourceStruct({ ...source, snapshot: "last", lastCommitLsn: null });
    expect(snapshotRead.get("snapshot")).toBe("last");
    expect(snapshotRead.get("sequence")).toBe('[null,"97500059720"]');
    const incremental = sourceStruct({ ...source, snapshot: "incremental" });
    expect([incremental.get("txId"), incremental.get("lsn")]).toEqual([null, null]);
  });

  test("sequence: both LSNs as decimal strings, nulls kept", () => {
    expect(sequence(null, null)).toBe("[null,null]");
    expect(sequence(1n, 18446744073709551615n)).toBe('["1","18446744073709551615"]');
  });

  test("create: key struct, after row, op c, processing time in ts_*", () => {
    const [record, ...rest] = changeRecords(schemas, event({ op: "c", after: { id: 1, name: "Anne" } }), options);
    expect(rest).toEqual([]);
    expect(record.topic).toBe("dbserver1.inventory.customers");
    expect(record.sourcePartition).toEqual({ server: "dbserver1" });
    expect(record.sourceOffset).toEqual(options.sourceOffset);
    expect((record.key as Struct).equals(new Struct(schemas.keySchema as Schema).put("id", 1))).toBe(true);
    const value = record.value as Struct;
    value.validate();
    expect(value.get("before")).toBeNull();
    expect((value.get("after") as Struct).toString()).toBe("Struct{id=1,name=Anne}");
    expect([value.get("op"), value.get("ts_ms"), value.get("ts_us"), value.get("ts_ns")]).toEqual([
      "c",
      1_704_164_646_000n,
      1_704_164_646_000_001n,
      1_704_164_646_000_001_000n,
    ]);
    expect(value.get("transaction")).toBeNull();
    expect(record.valueSchema).toBe(schemas.envelopeSchema);
  });

  test("snapshot read and update keep one record; the transaction block is filled when given", () => {
    const [read] = changeRecords(
      schemas,
      event({ op: "r", after: { id: 2, name: null }, source: { ...source, snapshot: "first" } }),
      options,
    );
    expect((read.value as Struct).get("op")).toBe("r");
    expect(((read.value as Struct).get("source") as Struct).get("snapshot")).toBe("first");

    const update = changeRecords(
      schemas,
      event({
        op: "u",
        before: null,
        after: { id: 2, name: "Bo" },
        transaction: { id: "556:97500059720", totalOrder: 3n, dataCollectionOrder: 1n },
      }),
      options,
    );
    expect(update.length).toBe(1);
    const transaction = (update[0].value as Struct).get("transaction") as Struct;
    expect(transaction.toString()).toBe("Struct{id=556:97500059720,total_order=3,data_collection_order=1}");
  });

  test("delete: before row, op d, then a tombstone with the same key (unless tombstones are off)", () => {
    const records = changeRecords(schemas, event({ op: "d", before: { id: 3 } }), options);
    expect(records.length).toBe(2);
    const [deleted, tombstone] = records;
    expect((deleted.value as Struct).get("op")).toBe("d");
    expect((deleted.value as Struct).get("after")).toBeNull();
    expect((deleted.key as Struct).get("id")).toBe(3);
    expect(tombstone.topic).toBe(deleted.topic);
    expect(tombstone.key).toBe(deleted.key);
    expect(tombstone.keySchema).toBe(schemas.keySchema);
    expect([tombstone.value, tombstone.valueSchema]).toEqual([null, null]);
    expect(tombstone.sourceOffset).toEqual(deleted.sourceOffset);
    expect(
      changeRecords(schemas, event({ op: "d", before: { id: 3 } }), { ...options, tombstonesOnDelete: false }).length,
    ).toBe(1);
  });

  test("an update that changes the key: delete (newkey header), tombstone, create (oldkey header)", () => {
    const records = changeRecords(
      schemas,
      event({ op: "u", before: { id: 1 }, after: { id: 9, name: "Anne" } }),
      options,
    );
    expect(records.map((r) => (r.value as Struct | null)?.get("op") ?? null)).toEqual(["d", null, "c"]);
    const [deleted, tombstone, created] = records;
    expect((deleted.key as Struct).get("id")).toBe(1);
    expect(deleted.headers.map((h) => [h.key, (h.value as Struct).get("id")])).toEqual([["__debezium.newkey", 9]]);
    expect((tombstone.key as Struct).get("id")).toBe(1);
    // As Debezium's: the tombstone keeps the delete's headers.
    expect(tombstone.headers).toEqual(deleted.headers);
    expect((created.key as Struct).get("id")).toBe(9);
    expect((created.value as Struct).get("before")).toBeNull();
    expect(created.headers.map((h) => [h.key, (h.value as Struct).get("id")])).toEqual([["__debezium.oldkey", 1]]);
    // The same key in before and after is an ordinary update.
    expect(
      changeRecords(schemas, event({ op: "u", before: { id: 1, name: "A" }, after: { id: 1, name: "B" } }), options)
        .length,
    ).toBe(1);
  });

  test("extended headers: Debezium's context headers after the record's own, on every record of a change", () => {
    const headers = contextHeaders({
      logicalName: "dbserver1",
      taskId: "0",
      runId: "01a1fd74-627b-7c34-9a8d-9d3646bd8390",
    });
    expect(headers.map((h) => [h.key, h.value])).toEqual([
      ["__debezium.context.connectorLogicalName", "dbserver1"],
      ["__debezium.context.taskId", "0"],
      ["__debezium.context.connectorName", "postgresql"],
      ["__debezium.context.runId", "01a1fd74-627b-7c34-9a8d-9d3646bd8390"],
    ]);
    const records = changeRecords(schemas, event({ op: "u", before: { id: 1 }, after: { id: 9, name: "Anne" } }), {
      ...options,
      headers,
    });
    expect(records.map((r) => r.headers.map((h) => h.key))).toEqual([
      ["__debezium.newkey", ...headers.map((h) => h.key)],
      ["__debezium.newkey", ...headers.map((h) => h.key)],
      ["__debezium.oldkey", ...headers.map((h) => h.key)],
    ]);
    expect(changeRecords(schemas, event({ op: "c", after: { id: 2 } }), { ...options, headers })[0]!.headers).toEqual(
      headers,
    );
  });

  test("truncate: null key, no rows, op t", () => {
    const [record] = changeRecords(schemas, event({ op: "t" }), options);
    expect([record.key, record.keySchema]).toEqual([null, null]);
    const value = record.value as Struct;
    expect([value.get("op"), value.get("before"), value.get("after")]).toEqual(["t", null, null]);
  });

  test("a table without a key gives null keys", () => {
    const keyless = tableSchemas("p", "s", "t", [columns[1]]);
    const [record] = changeRecords(keyless, event({ op: "c", after: { name: "x" } }, keyless), options);
    expect([record.key, record.keySchema]).toEqual([null, null]);
  });
});
