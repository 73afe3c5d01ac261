import { describe, expect, test } from "bun:test";
import type { Struct } from "#src/connect/api/data/index.ts";
import { JsonConverter } from "#src/connect/converters/json.ts";
import {
  InitialSnapshotNotifier,
  javaHashMapOrder,
  javaHashSetOrder,
  logLine,
  Notifications,
  spreadHash,
  type NotificationsConfig,
} from "#src/connectors/postgres-cdc/notifications.ts";
import type { Logger } from "#src/platform/log.ts";

/** A logger that keeps its info lines. */
function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = { info: (_fields: unknown, message: string) => lines.push(message) } as unknown as Logger;
  return { log, lines };
}

function notificationsWith(config: Partial<NotificationsConfig>, offset: () => Record<string, unknown> = () => ({})) {
  const { log, lines } = recordingLog();
  let ids = 0;
  const notifications = new Notifications(
    { channels: new Set(["sink"]), sinkTopic: "notes", logicalName: "shop", ...config },
    { partition: { server: "shop" }, offset },
    log,
    () => 1764210000123,
    () => `00000000-0000-4000-8000-00000000000${ids++}`,
  );
  return { notifications, lines };
}

describe("Java's HashMap order", () => {
  test("String.hashCode (as Java computes it: UTF-16 units, 32-bit), spread by HashMap.hash", () => {
    const spread = (h: number) => h ^ (h >>> 16);
    expect(spreadHash("")).toBe(0);
    expect(spreadHash("connector_name")).toBe(spread(-1921915075));
    expect(spreadHash("public.notify_a")).toBe(spread(-1535845680));
    expect(spreadHash("héllo☃")).toBe(spread(-1099020811));
  });

  // The orders below are what java.util.HashMap and HashSet (Java 17) give for these keys.
  const keys = (copied: string[]) =>
    javaHashMapOrder(
      copied.map((k) => [k, "x"] as const),
      [["connector_name", "c"]],
    ).map(([k]) => k);

  test("the order of Debezium's additional_data maps: the copied entries, then connector_name", () => {
    expect(keys([])).toEqual(["connector_name"]);
    expect(keys(["data_collections"])).toEqual(["connector_name", "data_collections"]);
    expect(keys(["scanned_collection", "status"])).toEqual(["connector_name", "scanned_collection", "status"]);
    expect(keys(["current_collection_in_progress", "data_collections"])).toEqual([
      "current_collection_in_progress",
      "connector_name",
      "data_collections",
    ]);
    expect(keys(["scanned_collection", "data_collections", "total_rows_scanned", "status"])).toEqual([
      "scanned_collection",
      "connector_name",
      "total_rows_scanned",
      "data_collections",
      "status",
    ]);
    expect(keys(["data_collections", "current_collection_in_progress", "maximum_key", "last_processed_key"])).toEqual([
      "current_collection_in_progress",
      "connector_name",
      "maximum_key",
      "data_collections",
      "last_processed_key",
    ]);
  });

  test("a map that outgrows its table is ordered by the grown table's buckets", () => {
    // One copied entry: a 2-bucket table (threshold 1), which the second put grows to 4 buckets.
    const order = javaHashMapOrder([["b", "1"]], [["c", "2"]]).map(([k]) => k);
    const bucket = (k: string) => spreadHash(k) & 3;
    expect(order.map(bucket)).toEqual([...order.map(bucket)].sort((a, b) => a - b));
    // A key put again keeps its place and takes the new value.
    expect(javaHashMapOrder([["a", "1"]], [["a", "2"]])).toEqual([["a", "2"]]);
  });

  test("HashSet order of table names", () => {
    expect(
      javaHashSetOrder([
        "public.notify_a",
        "public.notify_b",
        "public.sel_a",
        "public.sel_b",
        "inventory.items",
        "public.orders",
        "public.customers",
      ]),
    ).toEqual([
      "public.notify_a",
      "public.notify_b",
      "public.orders",
      "public.customers",
      "public.sel_a",
      "public.sel_b",
      "inventory.items",
    ]);
  });
});

describe("notifications", () => {
  test("the sink channel's record: Debezium's key and value schemas and fields", () => {
    const { notifications } = notificationsWith({}, () => ({ lsn: 42 }));
    notifications.emit("Initial Snapshot", "STARTED");
    const [record, ...more] = notifications.drain();
    expect(more).toEqual([]);
    expect(notifications.drain()).toEqual([]);
    expect(record!.topic).toBe("notes");
    expect(record!.sourcePartition).toEqual({ server: "shop" });
    expect(record!.sourceOffset).toEqual({ lsn: 42 });
    const converter = new JsonConverter();
    converter.configure({ "schemas.enable": "true" }, false);
    const json = (schema: typeof record.keySchema, value: unknown) =>
      Buffer.from(converter.fromConnectData("notes", schema, value)!).toString("utf8");
    expect(json(record!.keySchema, record!.key)).toBe(
      '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"}],"optional":false,"name":"io.debezium.connector.common.NotificationKey","version":1},"payload":{"id":"00000000-0000-4000-8000-000000000000"}}',
    );
    expect(json(record!.valueSchema, record!.value)).toBe(
      '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},{"type":"string","optional":false,"field":"type"},{"type":"string","optional":false,"field":"aggregate_type"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"additional_data"},{"type":"int64","optional":false,"field":"timestamp"}],"optional":false,"name":"io.debezium.connector.common.Notification","version":1},"payload":{"id":"00000000-0000-4000-8000-000000000000","type":"STARTED","aggregate_type":"Initial Snapshot","additional_data":{"connector_name":"shop"},"timestamp":1764210000123}}',
    );
    expect((record!.value as Struct).get("additional_data")).toEqual(new Map([["connector_name", "shop"]]));
  });

  test("the log channel logs Debezium's line; without the sink channel there are no records", () => {
    const { notifications, lines } = notificationsWith({ channels: new Set(["log"]), sinkTopic: null });
    notifications.emit("Initial Snapshot", "COMPLETED");
    expect(notifications.drain()).toEqual([]);
    expect(lines).toEqual([
      "[Notification Service]  {id='00000000-0000-4000-8000-000000000000', aggregateType='Initial Snapshot', type='COMPLETED', additionalData={connector_name=shop}, timestamp=1764210000123}",
    ]);
    expect(
      logLine(
        "i",
        "A",
        "T",
        new Map([
          ["a", "1"],
          ["b", "2"],
        ]),
        5,
      ),
    ).toBe("[Notification Service]  {id='i', aggregateType='A', type='T', additionalData={a=1, b=2}, timestamp=5}");
  });

  test("no channel: nothing", () => {
    const { notifications, lines } = notificationsWith({ channels: new Set() });
    notifications.emit("Initial Snapshot", "STARTED");
    expect([notifications.drain(), lines]).toEqual([[], []]);
  });

  test("each record carries the offset at its emit", () => {
    let offset = 1;
    const { notifications } = notificationsWith({}, () => ({ lsn: offset }));
    notifications.emit("Initial Snapshot", "STARTED");
    offset = 2;
    notifications.emit("Initial Snapshot", "COMPLETED");
    expect(notifications.drain().map((r) => r.sourceOffset)).toEqual([{ lsn: 1 }, { lsn: 2 }]);
  });
});

describe("the initial snapshot's notifications", () => {
  const typesAndData = (notifications: Notifications) =>
    notifications.drain().map((r) => {
      const value = r.value as Struct;
      return [value.get("type"), Object.fromEntries(value.get("additional_data") as Map<string, string>)];
    });

  test("STARTED, DATA_COLLECTIONS_RESOLVED, per table IN_PROGRESS and TABLE_SCAN_COMPLETED, COMPLETED", () => {
    const { notifications } = notificationsWith({});
    const notifier = new InitialSnapshotNotifier(notifications);
    notifier.started();
    notifier.tables([
      { name: "public.b", estimate: null },
      { name: "public.a", estimate: 2 },
    ]);
    notifier.tableStarted("public.a");
    notifier.row("public.a");
    notifier.row("public.a");
    notifier.tableDone("public.a");
    notifier.tableStarted("public.b");
    notifier.tableDone("public.b");
    notifier.done();
    notifier.aborted(); // after the end: nothing
    // Resolved: sorted; scanned: in the snapshot's order; in progress: java.util.HashSet's order.
    const sorted = "public.a,public.b";
    const all = "public.b,public.a";
    expect(typesAndData(notifications)).toEqual([
      ["STARTED", { connector_name: "shop" }],
      ["DATA_COLLECTIONS_RESOLVED", { data_collections: sorted, connector_name: "shop" }],
      ["IN_PROGRESS", { current_collection_in_progress: "public.a", data_collections: sorted, connector_name: "shop" }],
      [
        "TABLE_SCAN_COMPLETED",
        {
          scanned_collection: "public.a",
          data_collections: all,
          total_rows_scanned: "2",
          status: "SUCCEEDED",
          connector_name: "shop",
        },
      ],
      ["IN_PROGRESS", { current_collection_in_progress: "public.b", data_collections: sorted, connector_name: "shop" }],
      [
        "TABLE_SCAN_COMPLETED",
        {
          scanned_collection: "public.b",
          data_collections: all,
          total_rows_scanned: "0",
          status: "SUCCEEDED",
          connector_name: "shop",
        },
      ],
      ["COMPLETED", { connector_name: "shop" }],
    ]);
  });

  test("a failure while a table is read: its TABLE_SCAN_COMPLETED with SQL_EXCEPTION, then ABORTED, once", () => {
    const { notifications } = notificationsWith({});
    const notifier = new InitialSnapshotNotifier(notifications);
    notifier.started();
    notifier.tables([{ name: "public.a", estimate: 1 }]);
    notifier.tableStarted("public.a");
    notifier.aborted();
    notifier.aborted();
    expect(typesAndData(notifications).slice(3)).toEqual([
      ["TABLE_SCAN_COMPLETED", { scanned_collection: "public.a", status: "SQL_EXCEPTION", connector_name: "shop" }],
      ["ABORTED", { connector_name: "shop" }],
    ]);
  });
});
