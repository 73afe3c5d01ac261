// Heartbeats and transaction metadata, Sluice's PostgreSQL connector against Debezium's (3.7, in Apache
// Kafka Connect) on the same PostgreSQL and Kafka, each with its own topic prefix, slot and publication:
// - provide.transaction.metadata=true: the `<prefix>.transaction` topic (BEGIN and END, event counts per
//   table) and each change event's `transaction` block, for single- and multi-table transactions, a key
//   change, a transaction touching only a table the filters leave out, and an empty one. Both read the
//   same WAL, so ids (`<xid>:<LSN>`) and commit times are equal: records are compared as written, but
//   for the prefix (and the envelopes' times, version and run id, normalized as in the main comparison).
// - heartbeat.interval.ms with topic.heartbeat.prefix and heartbeat.action.query: the heartbeat topic's
//   name, key and value, and the action query's changes reaching the topic of its table; topic.heartbeat.name
//   and topic.transaction; a failing action query (retried as any SQL error; errors.max.retries=0 fails the task).
// - Sluice alone: a quiet database on a server busy with another database keeps its slot advancing with
//   heartbeat.action.query (retained WAL stays bounded); so it does with heartbeats alone (they carry the
//   server's keepalive position, which Debezium's do not); without heartbeats the slot keeps it all.
// SLUICE_DUMP_DIR=<dir> writes both sides' records there as JSON, to look into a difference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import {
  differences,
  type Event,
  type Json,
  normalizeChange,
  payloadOf,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
  withoutPrefix,
} from "../fixtures/cdc-side-by-side.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";
import { waitFor } from "../fixtures/wait.ts";

let sides: SideBySide;

beforeAll(async () => {
  sides = await startSideBySide({
    prepare(pg) {
      pg.psql("CREATE TABLE orders (id int PRIMARY KEY, status text)");
      pg.psql("CREATE TABLE lines (id int PRIMARY KEY, order_id int, qty int)");
      pg.psql("CREATE TABLE uncaptured (id int PRIMARY KEY)");
      pg.psql("CREATE TABLE quiet (id int PRIMARY KEY)");
      pg.psql("CREATE TABLE heartbeat (id text PRIMARY KEY, ts timestamptz)");
      pg.psql("INSERT INTO orders VALUES (1, 'snapshotted')");
    },
  });
}, 480_000);
afterAll(() => sides?.stop(), 60_000);

/**
 * Deletes connector `label` on both sides and drops their slots once let go: the server has 10
 * (max_replication_slots) for all the tests of this file.
 */
async function deleteBoth(label: string): Promise<void> {
  for (const side of SIDES)
    expect((await sides.api(side).delete(`/connectors/${sideName(side, label)}`)).status).toBe(204);
  const names = SIDES.map((side) => `'${sideName(side, label)}'`).join(", ");
  const inList = `slot_name IN (${names})`;
  await waitFor(
    `the slots of ${label} dropped`,
    () => {
      sides.pg.psql(
        `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE ${inList} AND NOT active`,
      );
      return sides.pg.psql(`SELECT count(*) FROM pg_replication_slots WHERE ${inList}`).trim() === "0" || undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

const txIdOf = (e: Event) => (payloadOf(e)?.id as string | undefined)?.split(":")[0];

describe(`PostgreSQL CDC heartbeats and transaction metadata, as Debezium ${DEBEZIUM_VERSION}'s`, () => {
  test("provide.transaction.metadata: BEGIN/END records and the envelopes' transaction blocks are Debezium's", async () => {
    const label = "tx";
    // FOR ALL TABLES: the uncaptured table's transaction reaches both connectors, which filter it out.
    await sides.createBoth(label, {
      "table.include.list": "public.orders,public.lines",
      "publication.autocreate.mode": "all_tables",
      "provide.transaction.metadata": "true",
    });
    const topics = (side: Side) => ({
      orders: `${sideName(side, label)}.public.orders`,
      lines: `${sideName(side, label)}.public.lines`,
      transaction: `${sideName(side, label)}.transaction`,
    });
    for (const side of SIDES) await sides.eventsUntil(topics(side).orders, "the snapshot", (all) => all.length >= 1);

    for (const sql of [
      "INSERT INTO orders VALUES (2, 'single')",
      "BEGIN; INSERT INTO orders VALUES (3, 'multi'); INSERT INTO lines VALUES (1, 3, 5), (2, 3, 7); UPDATE orders SET status = 'paid' WHERE id = 3; DELETE FROM lines WHERE id = 1; COMMIT",
      "INSERT INTO uncaptured VALUES (1)",
      "BEGIN; COMMIT",
      "BEGIN; UPDATE lines SET id = 20 WHERE id = 2; UPDATE orders SET id = 30 WHERE id = 3; COMMIT",
      "INSERT INTO orders VALUES (99, 'last')",
    ])
      sides.pg.psql(sql);

    const isLast = (e: Event) => payloadOf(e)?.after?.status === "last";
    const report: string[] = [];
    const compared: Record<Side, { transaction: Event[]; orders: Event[]; lines: Event[] }> = {} as never;
    for (const side of SIDES) {
      const t = topics(side);
      const orders = await sides.eventsUntil(t.orders, "the last insert", (all) => all.some(isLast));
      const lastTx = payloadOf(orders.find(isLast)!)!.source.txId.number as string;
      const transaction = await sides.eventsUntil(t.transaction, "the last END", (all) =>
        all.some((e) => payloadOf(e)?.status === "END" && txIdOf(e) === lastTx),
      );
      const lines = await sides.events(t.lines);
      compared[side] = { transaction, orders, lines };
      for (const [name, all] of Object.entries(compared[side]))
        await sides.dump(`${sideName(side, label)}.${name}`, all);
    }
    const [dbz, slc] = [compared.debezium, compared.sluice];

    // 5 captured transactions, each a BEGIN and an END; the uncaptured table's is filtered out by both
    // connectors but still has its BEGIN/END (counts 0) — or not: whatever Debezium writes, Sluice must.
    const statuses = (all: Event[]) =>
      all.map((e) => `${payloadOf(e)!.status}:${payloadOf(e)!.event_count?.number ?? "-"}`);
    expect(statuses(slc.transaction)).toEqual(statuses(dbz.transaction));
    expect(statuses(dbz.transaction).filter((s) => s.startsWith("END") && !s.endsWith(":0"))).toEqual([
      "END:1",
      "END:5",
      "END:4",
      "END:1",
    ]);
    // The multi-table transaction's END counts per table.
    const multi = dbz.transaction.filter((e) => payloadOf(e)!.status === "END")[1]!;
    expect(
      (payloadOf(multi)!.data_collections as Json[]).map((c) => [c.data_collection, c.event_count.number]),
    ).toEqual([
      ["public.orders", "2"],
      ["public.lines", "3"],
    ]);
    for (const [i, d] of dbz.transaction.entries())
      report.push(
        ...differences(
          withoutPrefix(d, sideName("debezium", label)),
          withoutPrefix(slc.transaction[i], sideName("sluice", label)),
        ).map((diff) => `transaction record ${i}${diff}`),
      );

    // Every change event, its transaction block included (null in the snapshot's).
    for (const table of ["orders", "lines"] as const) {
      expect(slc[table].length, table).toBe(dbz[table].length);
      for (const [i, d] of dbz[table].entries()) {
        const [a, b] = [
          normalizeChange(d, "debezium", sideName("debezium", label)),
          normalizeChange(slc[table][i]!, "sluice", sideName("sluice", label)),
        ];
        report.push(...differences(a, b).map((diff) => `${table} record ${i}${diff}`));
      }
    }
    expect(payloadOf(slc.orders[0]!)!.transaction).toBeNull();
    expect(payloadOf(slc.orders[1]!)!.transaction).toEqual({
      id: expect.stringMatching(/^\d+:\d+$/),
      total_order: { number: "1" },
      data_collection_order: { number: "1" },
    });
    expect(report).toEqual([]);
  }, 240_000);

  test("heartbeats: topic.heartbeat.prefix names the topic; key, value and the action query's changes are Debezium's", async () => {
    const label = "hb";
    await sides.createBoth(label, (side) => ({
      "table.include.list": "public.quiet,public.heartbeat",
      "heartbeat.interval.ms": "200",
      "topic.heartbeat.prefix": "beats",
      "heartbeat.action.query": `INSERT INTO heartbeat (id, ts) VALUES ('${side}', now()) ON CONFLICT (id) DO UPDATE SET ts = EXCLUDED.ts`,
    }));
    const firstBeats: Event[] = [];
    for (const side of SIDES) {
      const prefix = sideName(side, label);
      const beats = await sides.eventsUntil(`beats.${prefix}`, "three heartbeats", (all) => all.length >= 3);
      await sides.dump(`beats.${prefix}`, beats);
      // The action query ran: its upserts are change events of the heartbeat table (an insert, then updates).
      const own = (all: Event[]) => all.filter((e) => payloadOf(e)?.after?.id === side && payloadOf(e)!.op !== "r");
      const actions = await sides.eventsUntil(
        `${prefix}.public.heartbeat`,
        "two action-query changes",
        (all) => own(all).length >= 2,
      );
      // The side's first beat inserts its row (unless the other side's snapshot read it first), the next update it.
      expect(own(actions)[1]!.value).toMatchObject({ payload: { op: "u" } });
      const beat = withoutPrefix(beats[0]!, prefix);
      expect(payloadOf(beat)!.ts_ms).toEqual({ number: expect.stringMatching(/^\d+$/) });
      payloadOf(beat)!.ts_ms = "<time>";
      firstBeats.push(beat);
    }
    expect(firstBeats[1]).toEqual(firstBeats[0]!);
    expect(firstBeats[0]!.key).toEqual({
      schema: {
        type: "struct",
        fields: [{ type: "string", optional: false, field: "serverName" }],
        optional: false,
        name: "io.debezium.connector.common.ServerNameKey",
        version: { number: "1" },
      },
      payload: { serverName: "<prefix>" },
    });
    await deleteBoth(label);
  }, 240_000);

  test("topic.heartbeat.name and topic.transaction name the topics; a failing heartbeat.action.query fails the task", async () => {
    const label = "named";
    await sides.createBoth(label, (side) => ({
      "table.include.list": "public.quiet",
      "heartbeat.interval.ms": "100",
      "topic.heartbeat.name": `${sideName(side, label)}_beats`,
      "provide.transaction.metadata": "true",
      "topic.transaction": "txs",
    }));
    for (const side of SIDES) await sides.api(side).waitForState(sideName(side, label), "RUNNING", 1);
    for (const side of SIDES)
      await sides.eventsUntil(`${sideName(side, label)}_beats`, "a heartbeat", (all) => all.length >= 1);
    sides.pg.psql("INSERT INTO quiet VALUES (1)");
    for (const side of SIDES)
      await sides.eventsUntil(`${sideName(side, label)}.txs`, "BEGIN and END", (all) =>
        all.some((e) => payloadOf(e)?.status === "END" && payloadOf(e)?.event_count?.number === "1"),
      );

    const failing = "failing";
    await sides.createBoth(failing, {
      "table.include.list": "public.quiet",
      "heartbeat.interval.ms": "100",
      "heartbeat.action.query": "INSERT INTO no_such_table VALUES (1)",
      // Debezium's PostgreSQL connector retries on any SQL error but authentication's; so does Sluice here.
      "errors.max.retries": "0",
    });
    for (const side of SIDES) {
      const status = (await sides.api(side).waitForState(sideName(side, failing), "RUNNING")) as unknown as Json;
      expect(status.connector.state).toBe("RUNNING");
      const failed = await waitFor(
        `${side}'s task failed`,
        async () => {
          const r = await sides.api(side).get(`/connectors/${sideName(side, failing)}/status`);
          const task = (r.body as Json).tasks?.[0];
          return task?.state === "FAILED" ? task : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 200 },
      );
      // 42P01 undefined_table
      expect(failed.trace as string).toContain("Could not execute heartbeat action query (Error: 42P01)");
    }
    await deleteBoth(label);
    await deleteBoth(failing);
  }, 240_000);

  test("heartbeat.action.query: a quiet database's slot keeps advancing while another database takes heavy writes (Sluice)", async () => {
    const { pg } = sides;
    pg.psql("CREATE DATABASE busy");
    const busy = postgres(pg.url.replace(/\/postgres$/, "/busy"), { max: 1, onnotice: () => {} });
    const local = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await busy`CREATE TABLE churn (id serial PRIMARY KEY, pad text)`;
      const upsert =
        "INSERT INTO heartbeat (id, ts) VALUES ('wal', now()) ON CONFLICT (id) DO UPDATE SET ts = EXCLUDED.ts";
      const variants: Record<string, Record<string, string>> = {
        // The heartbeat table is in the publication (publication.autocreate.mode=filtered: in table.include.list).
        action: {
          "table.include.list": "public.quiet,public.heartbeat",
          "heartbeat.interval.ms": "100",
          "heartbeat.action.query": upsert,
        },
        heartbeat: { "table.include.list": "public.quiet", "heartbeat.interval.ms": "100" },
        none: { "table.include.list": "public.quiet" },
      };
      for (const [variant, settings] of Object.entries(variants)) {
        const created = await sides.api("sluice").post("/connectors", {
          name: sideName("sluice", `wal_${variant}`),
          config: sides.connectorConfig("sluice", `wal_${variant}`, settings),
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      }
      const slot = async (variant: string) => {
        const [row] = await local<{ confirmed: string | null; retained: string | null }[]>`
          SELECT (confirmed_flush_lsn - '0/0')::text AS confirmed, (pg_current_wal_lsn() - restart_lsn)::text AS retained
          FROM pg_replication_slots WHERE slot_name = ${sideName("sluice", `wal_${variant}`)}`;
        return row?.confirmed == null
          ? undefined
          : { confirmed: BigInt(row.confirmed), retained: BigInt(row.retained!) };
      };
      const currentLsn = async () =>
        BigInt((await local<{ lsn: string }[]>`SELECT (pg_current_wal_lsn() - '0/0')::text AS lsn`)[0]!.lsn);
      for (const variant of Object.keys(variants))
        await waitFor(`slot of ${variant}`, () => slot(variant), { timeoutMs: 60_000 });
      for (const variant of ["action", "heartbeat"])
        await sides.eventsUntil(
          `__debezium-heartbeat.${sideName("sluice", `wal_${variant}`)}`,
          "a heartbeat",
          (all) => all.length >= 1,
        );

      const start = await currentLsn();
      for (let i = 0; i < 4; i++)
        await busy`INSERT INTO churn (pad) SELECT repeat(md5(g::text), 32) FROM generate_series(1, 4000) g`;
      const end = await currentLsn();
      const written = end - start;
      expect(written).toBeGreaterThan(16n * 1024n * 1024n);
      // With the action query the slot passes all the busy WAL, and what it retains is far less than was written.
      await waitFor(
        "the action query's slot past the busy database's WAL",
        async () => {
          const s = await slot("action");
          return s !== undefined && s.confirmed >= end && s.retained < written / 4n ? s : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      // Heartbeats alone also get there in Sluice: they carry the position of the server's keepalives,
      // which pass WAL the slot has nothing to send for (Debezium's advance only with changes it receives).
      await waitFor(
        "the heartbeat-only slot past the busy database's WAL",
        async () => {
          const s = await slot("heartbeat");
          return s !== undefined && s.confirmed >= end ? s : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      const none = await slot("none");
      // Without heartbeats nothing is committed: the slot keeps all of it.
      expect(none!.confirmed).toBeLessThan(start);
      expect(none!.retained).toBeGreaterThan(written);
    } finally {
      await Promise.all([busy.end(), local.end()]);
    }
  }, 240_000);
});
