// Notifications and the snapshot's choice of tables and queries, side by side with Debezium 3.7's
// PostgresConnector (test/fixtures/cdc-side-by-side.ts): the same connector config and tables on both
// sides, then both sides' topics compared record by record.
// - notification.enabled.channels=sink,log: the notification topic's records of an initial snapshot
//   of two tables (STARTED, DATA_COLLECTIONS_RESOLVED, IN_PROGRESS and TABLE_SCAN_COMPLETED per table,
//   COMPLETED): key and value,
//   schemas included, byte for byte once the ids (random UUIDs), timestamps and prefixes are normalized.
// - snapshot.include.collection.list (two of three captured tables snapshotted, the third only
//   streamed) with snapshot.select.statement.overrides (one table read by a SELECT of some rows and
//   some columns, in another order): the tables' topics and the notifications, record by record.
//   (Debezium fails its snapshot when such a SELECT leaves out the table's last column: a column left
//   out is only tried in the middle.)
// SLUICE_DUMP_DIR=<dir> writes both sides' records there as JSON, to look into a difference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { javaHashMapOrder } from "#src/connectors/postgres-cdc/notifications.ts";
import { VERSION } from "#src/platform/version.ts";
import {
  differences,
  type Event,
  type Json,
  normalizeTimes,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
  withoutPrefix,
} from "../fixtures/cdc-side-by-side.ts";
import { waitFor } from "../fixtures/wait.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const notificationTopic = (side: Side, label: string) => `${sideName(side, label)}_notifications`;
const notifications = (side: Side, label: string) => ({
  "notification.enabled.channels": "sink,log",
  "notification.sink.topic.name": notificationTopic(side, label),
});
const payloadOf = (e: Event) => (e.value as Json | null)?.payload as Json | undefined;
const isCompleted = (e: Event) => payloadOf(e)?.type === "COMPLETED";

/**
 * additional_data's keys in one order of java.util.HashMap's, after checking the side's order is one:
 * Debezium builds the map from a Map.of, whose order is random per JVM, so keys sharing a bucket
 * (data_collections and status do) come in either order. Two keys sharing no bucket are ordered
 * alike whichever order they are put in; those the side must have in that order.
 */
function javaOrdered(data: Json, what: string): Json {
  const keys = Object.keys(data);
  const copied = keys.filter((k) => k !== "connector_name").sort();
  const orderOf = (names: string[]) =>
    javaHashMapOrder(
      names.map((k) => [k, ""] as const),
      [["connector_name", ""]],
    ).map(([k]) => k);
  const [up, down] = [orderOf(copied), orderOf([...copied].reverse())];
  for (let i = 0; i < keys.length; i++)
    for (let j = i + 1; j < keys.length; j++) {
      const after = (order: string[]) => order.indexOf(keys[i]!) > order.indexOf(keys[j]!);
      expect(after(up) && after(down), `${what}: ${keys[i]} before ${keys[j]}`).toBe(false);
    }
  return Object.fromEntries(up.map((k) => [k, data[k]]));
}

/** A notification with its id (the key's and the value's, one random UUID) and timestamp as placeholders. */
function normalizeNotification(event: Event, side: Side, label: string): Event {
  const e = withoutPrefix(event, sideName(side, label));
  const key = (e.key as Json).payload as Json;
  const payload = (e.value as Json).payload as Json;
  expect(payload.id, `${side} notification id`).toMatch(UUID);
  expect(key.id, `${side} notification key`).toBe(payload.id);
  expect(payload.timestamp, `${side} notification timestamp`).toEqual({ number: expect.stringMatching(/^\d+$/) });
  key.id = payload.id = "<id>";
  payload.timestamp = "<time>";
  payload.additional_data = javaOrdered(payload.additional_data, `${side} additional_data`);
  return e;
}

/** A data record with what differs by nature (times, versions, the snapshot's own LSN and transaction) as placeholders. */
function normalizeRecord(event: Event, side: Side, label: string): Event {
  const e = withoutPrefix(event, sideName(side, label));
  delete e.headers["__debezium.context.runId"];
  const payload = payloadOf(e);
  if (!payload) return e;
  normalizeTimes(payload, `${side} envelope`);
  const source = payload.source as Json;
  expect(source.version).toBe(side === "debezium" ? DEBEZIUM_VERSION : VERSION);
  source.version = "<version>";
  normalizeTimes(source, `${side} source`);
  source.lsn = source.txId = source.sequence = "<position>";
  return e;
}

/** Differences between both sides' notifications, normalized. */
function notificationDifferences(debezium: Event[], sluice: Event[], label: string): string[] {
  expect(debezium.length, `${label}: notifications`).toBe(sluice.length);
  return debezium.flatMap((d, i) =>
    differences(normalizeNotification(d, "debezium", label), normalizeNotification(sluice[i]!, "sluice", label)).map(
      (diff) => `${label} notification ${i}${diff}`,
    ),
  );
}

describe(`PostgreSQL CDC notifications and snapshot selection, as Debezium ${DEBEZIUM_VERSION}'s`, () => {
  let sides: SideBySide;

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare(pg) {
        pg.psql("CREATE TABLE notify_a (id int PRIMARY KEY, name text)");
        pg.psql("INSERT INTO notify_a SELECT i, 'a' || i FROM generate_series(1, 3) i");
        pg.psql("CREATE TABLE notify_b (id int PRIMARY KEY, name text)");
        pg.psql("INSERT INTO notify_b SELECT i, 'b' || i FROM generate_series(1, 2) i");
        pg.psql("CREATE TABLE fails (id int PRIMARY KEY, name text)");
        pg.psql("INSERT INTO fails VALUES (1, 'one')");
        for (const t of ["sel_a", "sel_b", "sel_c"]) {
          pg.psql(`CREATE TABLE ${t} (id int PRIMARY KEY, name text, note text)`);
          pg.psql(`INSERT INTO ${t} SELECT i, '${t}-' || i, 'note ' || i FROM generate_series(1, 5) i`);
        }
      },
    });
  }, 240_000);
  afterAll(() => sides?.stop(), 60_000);

  test("an initial snapshot of two tables: the same notification records", async () => {
    const label = "notify";
    await sides.createBoth(label, (side) => ({
      "table.include.list": "public.notify_a,public.notify_b",
      ...notifications(side, label),
    }));
    const [debezium, sluice] = await Promise.all(
      SIDES.map((side) =>
        sides.eventsUntil(notificationTopic(side, label), "COMPLETED", (all) => all.some(isCompleted)),
      ),
    );
    await sides.dump(`${label}-debezium`, debezium!);
    await sides.dump(`${label}-sluice`, sluice!);
    const types = (all: Event[]) => all.map((e) => payloadOf(e)!.type);
    expect(types(sluice!)).toEqual([
      "STARTED",
      "DATA_COLLECTIONS_RESOLVED",
      "IN_PROGRESS",
      "TABLE_SCAN_COMPLETED",
      "IN_PROGRESS",
      "TABLE_SCAN_COMPLETED",
      "COMPLETED",
    ]);
    expect(types(debezium!)).toEqual(types(sluice!));
    expect(payloadOf(sluice![3]!)!.additional_data).toEqual({
      scanned_collection: "public.notify_a",
      data_collections: "public.notify_a,public.notify_b",
      total_rows_scanned: "3",
      status: "SUCCEEDED",
      connector_name: sideName("sluice", label),
    });
    const report = debezium!.flatMap((d, i) =>
      differences(normalizeNotification(d, "debezium", label), normalizeNotification(sluice![i]!, "sluice", label)).map(
        (diff) => `notification ${i}${diff}`,
      ),
    );
    expect(report).toEqual([]);
  }, 240_000);

  test("snapshot.include.collection.list and snapshot.select.statement.overrides: the same records", async () => {
    const label = "select";
    await sides.createBoth(label, (side) => ({
      "table.include.list": "public.sel_a,public.sel_b,public.sel_c",
      "snapshot.include.collection.list": "public\\.sel_[ab]",
      "snapshot.select.statement.overrides": "public.sel_a",
      "snapshot.select.statement.overrides.public.sel_a": "SELECT note, id FROM public.sel_a WHERE id % 2 = 1",
      ...notifications(side, label),
    }));
    for (const side of SIDES)
      await sides.eventsUntil(notificationTopic(side, label), "COMPLETED", (all) => all.some(isCompleted));
    // sel_c is captured but not snapshotted: only this change of it is on its topic.
    sides.pg.psql("INSERT INTO sel_c VALUES (6, 'streamed', 'after the snapshot')");
    const report: string[] = [];
    const expectedIds = { sel_a: ["1", "3", "5"], sel_b: ["1", "2", "3", "4", "5"], sel_c: ["6"] };
    for (const [table, ids] of Object.entries(expectedIds)) {
      const [debezium, sluice] = await Promise.all(
        SIDES.map((side) =>
          sides.eventsUntil(
            `${sideName(side, label)}.public.${table}`,
            `${ids.length} records`,
            (all) => all.length >= ids.length,
          ),
        ),
      );
      await sides.dump(`${label}-${table}-debezium`, debezium!);
      await sides.dump(`${label}-${table}-sluice`, sluice!);
      const after = (all: Event[]) => all.map((e) => payloadOf(e)!.after as Json);
      expect(after(sluice!).map((a) => a.id.number)).toEqual(ids);
      // Columns are matched by name; one the SELECT leaves out is null.
      if (table === "sel_a")
        expect(after(sluice!).map((a) => [a.name, a.note])).toEqual([
          [null, "note 1"],
          [null, "note 3"],
          [null, "note 5"],
        ]);
      expect(debezium!.length, table).toBe(sluice!.length);
      debezium!.forEach((d, i) =>
        report.push(
          ...differences(normalizeRecord(d, "debezium", label), normalizeRecord(sluice![i]!, "sluice", label)).map(
            (diff) => `${table} record ${i}${diff}`,
          ),
        ),
      );
    }
    const [debezium, sluice] = await Promise.all(SIDES.map((side) => sides.events(notificationTopic(side, label))));
    await sides.dump(`${label}-notifications-debezium`, debezium!);
    await sides.dump(`${label}-notifications-sluice`, sluice!);
    const scanned = (all: Event[]) =>
      all.flatMap((e) => {
        const data = payloadOf(e)!.additional_data as Json;
        return payloadOf(e)!.type === "TABLE_SCAN_COMPLETED"
          ? [[data.scanned_collection, data.total_rows_scanned]]
          : [];
      });
    expect(scanned(sluice!)).toEqual([
      ["public.sel_a", "3"],
      ["public.sel_b", "5"],
    ]);
    expect(debezium!.length).toBe(sluice!.length);
    debezium!.forEach((d, i) =>
      report.push(
        ...differences(
          normalizeNotification(d, "debezium", label),
          normalizeNotification(sluice![i]!, "sluice", label),
        ).map((diff) => `notification ${i}${diff}`),
      ),
    );
    expect(report).toEqual([]);
  }, 240_000);

  test("a restarted task whose snapshot is done: SKIPPED", async () => {
    const label = "notify";
    const before = await Promise.all(SIDES.map((side) => sides.events(notificationTopic(side, label))));
    for (const side of SIDES) {
      const restarted = await sides.api(side).post(`/connectors/${sideName(side, label)}/tasks/0/restart`);
      expect(restarted.status, `${side} restart`).toBeLessThan(300);
    }
    const [debezium, sluice] = await Promise.all(
      SIDES.map((side, i) =>
        sides.eventsUntil(notificationTopic(side, label), "SKIPPED", (all) => all.length > before[i]!.length),
      ),
    );
    const added = (all: Event[], i: number) => all.slice(before[i]!.length);
    await sides.dump(`${label}-restart-debezium`, added(debezium!, 0));
    await sides.dump(`${label}-restart-sluice`, added(sluice!, 1));
    expect(added(sluice!, 1).map((e) => payloadOf(e)!.type)).toEqual(["SKIPPED"]);
    expect(notificationDifferences(added(debezium!, 0), added(sluice!, 1), label)).toEqual([]);
  }, 240_000);

  // Sluice only: Debezium takes the SQL error for a lost connection and restarts its task every
  // retriable.restart.connector.wait.ms, forever, and what its sink channel delivers of each attempt
  // depends on timing. Sluice fails the task, after handing on the notifications of the failure.
  test("a snapshot whose query fails: TABLE_SCAN_COMPLETED with SQL_EXCEPTION, ABORTED, and the task fails", async () => {
    const label = "fails";
    const name = sideName("sluice", label);
    const created = await sides.api("sluice").post("/connectors", {
      name,
      config: sides.connectorConfig("sluice", label, {
        "table.include.list": "public.fails",
        "snapshot.select.statement.overrides": "public.fails",
        "snapshot.select.statement.overrides.public.fails": "SELECT id, no_such_column FROM public.fails",
        ...notifications("sluice", label),
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitFor(`${name} failed`, async () => {
      const status = (await sides.api("sluice").get(`/connectors/${name}/status`)).body as Json;
      return status?.tasks?.[0]?.state === "FAILED" ? status : undefined;
    });
    const all = await sides.events(notificationTopic("sluice", label));
    await sides.dump(`${label}-sluice`, all);
    const data = (e: Event) => [payloadOf(e)!.type, payloadOf(e)!.additional_data];
    expect(all.map(data)).toEqual([
      ["STARTED", { connector_name: name }],
      ["DATA_COLLECTIONS_RESOLVED", { connector_name: name, data_collections: "public.fails" }],
      [
        "IN_PROGRESS",
        { current_collection_in_progress: "public.fails", connector_name: name, data_collections: "public.fails" },
      ],
      ["TABLE_SCAN_COMPLETED", { connector_name: name, scanned_collection: "public.fails", status: "SQL_EXCEPTION" }],
      ["ABORTED", { connector_name: name }],
    ]);
  }, 240_000);
});
