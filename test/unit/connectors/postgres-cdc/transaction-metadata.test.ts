// Transaction metadata's pure parts: the BEGIN/END records and blocks of one transaction, and the order
// Debezium's END record lists the tables in (a java.util.HashMap's; expected orders printed by Java 21).
import { expect, test } from "bun:test";
import type { Struct } from "#src/connect/api/data/index.ts";
import {
  javaHashMapOrder,
  javaStringHash,
  TransactionMetadata,
} from "#src/connectors/postgres-cdc/transaction-metadata.ts";

test("String.hashCode as Java computes it", () => {
  expect(javaStringHash("")).toBe(0);
  expect(javaStringHash("public.orders")).toBe(762281482);
  expect(javaStringHash("ä☃")).toBe(16799);
});

test("tables in java.util.HashMap's iteration order", () => {
  expect(javaHashMapOrder(["public.orders", "public.lines"])).toEqual(["public.orders", "public.lines"]);
  expect(javaHashMapOrder(["public.a", "public.b", "public.c"])).toEqual(["public.c", "public.a", "public.b"]);
  expect(javaHashMapOrder(["s1.zeta", "s1.alpha", "inventory.customers", "inventory.orders", "public.x"])).toEqual([
    "s1.zeta",
    "inventory.customers",
    "public.x",
    "inventory.orders",
    "s1.alpha",
  ]);
  // 20 keys: the map has grown to 32 buckets.
  const keys = Array.from({ length: 20 }, (_, i) => `t${i}`);
  expect(javaHashMapOrder(keys).join(",")).toBe(
    "t4,t5,t6,t7,t8,t9,t10,t12,t11,t14,t13,t16,t15,t18,t17,t0,t1,t19,t2,t3",
  );
});

test("BEGIN, the events' blocks and END of one transaction, ids by the LSN at hand", () => {
  const tm = new TransactionMetadata("p.transaction", { server: "p" });
  const begin = tm.begin(734n, 100n, 1_700_000_000_123_456n, {})!;
  expect(begin.topic).toBe("p.transaction");
  expect((begin.key as Struct).get("id")).toBe("734:100");
  expect((begin.value as Struct).get("status")).toBe("BEGIN");
  expect((begin.value as Struct).get("ts_ms")).toBe(1_700_000_000_123n);
  expect(tm.event("public.a", 100n)).toEqual({ id: "734:100", totalOrder: 1n, dataCollectionOrder: 1n });
  expect(tm.event("public.b", 120n)).toEqual({ id: "734:120", totalOrder: 2n, dataCollectionOrder: 1n });
  expect(tm.event("public.a", 140n)).toEqual({ id: "734:140", totalOrder: 3n, dataCollectionOrder: 2n });
  const end = tm.commit(160n, 1_700_000_000_123_456n, {})!;
  const value = end.value as Struct;
  expect([value.get("status"), value.get("id"), value.get("event_count")]).toEqual(["END", "734:160", 3n]);
  expect(
    (value.get("data_collections") as Struct[]).map((c) => [c.get("data_collection"), c.get("event_count")]),
  ).toEqual([
    ["public.a", 2n],
    ["public.b", 1n],
  ]);
  // Between transactions there is nothing to count or end.
  expect(tm.event("public.a", 200n)).toBeNull();
  expect(tm.commit(200n, 1n, {})).toBeNull();
});

test("each record's offset holds the open transaction as Debezium's TransactionContext stores it", () => {
  const tm = new TransactionMetadata("p.transaction", { server: "p" });
  expect(tm.offsetFields()).toEqual({});
  expect(tm.begin(734n, 100n, 1n, { lsn: 100 })!.sourceOffset).toEqual({ lsn: 100, transaction_id: "734" });
  tm.event("public.a", 100n);
  tm.event("public.b", 120n);
  tm.event("public.a", 140n);
  expect(tm.offsetFields()).toEqual({
    transaction_id: "734",
    "transaction_data_collection_order_public.a": 2,
    "transaction_data_collection_order_public.b": 1,
  });
  // The END's offset still holds the transaction (Debezium resets its context after writing the END).
  expect(tm.commit(160n, 1n, { lsn: 160 })!.sourceOffset).toEqual({
    lsn: 160,
    transaction_id: "734",
    "transaction_data_collection_order_public.a": 2,
    "transaction_data_collection_order_public.b": 1,
  });
  expect(tm.offsetFields()).toEqual({});
});

test("restarted from an offset in the middle of a transaction: no second BEGIN, the counts go on", () => {
  const stored = {
    lsn: 140,
    txId: 734,
    transaction_id: "734",
    "transaction_data_collection_order_public.a": 2,
    "transaction_data_collection_order_public.b": 1,
  };
  const tm = new TransactionMetadata("p.transaction", { server: "p" }, stored);
  // The server sends the transaction again from its Begin.
  expect(tm.begin(734n, 100n, 1_700_000_000_123_456n, {})).toBeNull();
  expect(tm.event("public.b", 180n)).toEqual({ id: "734:180", totalOrder: 4n, dataCollectionOrder: 2n });
  const end = tm.commit(200n, 1_700_000_000_123_456n, {})!.value as Struct;
  expect([end.get("event_count"), end.get("ts_ms")]).toEqual([4n, 1_700_000_000_123n]);
  expect(
    (end.get("data_collections") as Struct[]).map((c) => [c.get("data_collection"), c.get("event_count")]),
  ).toEqual([
    ["public.a", 2n],
    ["public.b", 2n],
  ]);
  // A later transaction begins anew.
  expect((tm.begin(735n, 300n, 1n, {})!.value as Struct).get("status")).toBe("BEGIN");
  expect(tm.event("public.a", 300n)).toEqual({ id: "735:300", totalOrder: 1n, dataCollectionOrder: 1n });
});

test("restarted from an offset of another transaction (or one it ended): the next BEGIN is written", () => {
  const tm = new TransactionMetadata("p.transaction", { server: "p" }, { transaction_id: "700" });
  const begin = tm.begin(734n, 100n, 1n, {})!;
  expect((begin.value as Struct).get("status")).toBe("BEGIN");
  expect(begin.sourceOffset).toEqual({ transaction_id: "734" });
  // Offsets without the keys (written without transaction metadata, or a snapshot's) restore nothing.
  for (const stored of [null, { lsn: 5, txId: 734 }, { snapshot: true }]) {
    const fresh = new TransactionMetadata("p.transaction", { server: "p" }, stored);
    expect(fresh.offsetFields()).toEqual({});
    expect(fresh.begin(734n, 100n, 1n, {})).not.toBeNull();
  }
});
