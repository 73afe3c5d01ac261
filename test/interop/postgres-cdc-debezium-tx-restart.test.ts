// Transaction metadata across a restart in the middle of a transaction, Sluice's PostgreSQL connector
// against Debezium's (3.7, in Apache Kafka Connect) on the same PostgreSQL and Kafka: each connector is
// stopped (PUT …/stop) while it streams a large transaction and resumed (PUT …/resume). Both keep the
// open transaction in their offsets (transaction_id, transaction_data_collection_order_<table>), so
// after the restart neither writes a second BEGIN, total_order and data_collection_order go on, and the
// END counts the whole transaction. Compared: the transaction topic and every change event record by
// record, and the offsets each side committed at the stop and at the end. Two transactions:
// - 20,000 inserts alternating between two tables, then an update and a delete;
// - a COPY of 10,000 rows (a topic is read in one fetch of at most 64 MB), whose rows share an LSN per
//   page (one WAL record each): the offset's lsn_events_processed says how many of them went, and the
//   restart resumes at the next one.
// To land the stop in the middle of the transaction on any machine, the broker throttles producers (a
// client quota of a few KB/s) until both are stopped: the transaction cannot be through by then.
// SLUICE_DUMP_DIR=<dir> writes both sides' records there as JSON, to look into a difference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
import { kafkaClasspath } from "../fixtures/kafka.ts";
import { waitFor } from "../fixtures/wait.ts";

const ROWS = 10_000;
/** Bytes per second each producer may write while the restart is due (a few dozen records). */
const THROTTLED_RATE = 20_000;

let sides: SideBySide;

beforeAll(async () => {
  sides = await startSideBySide({
    prepare(pg) {
      pg.psql("CREATE TABLE a (id int PRIMARY KEY, v text)");
      pg.psql("CREATE TABLE b (id int PRIMARY KEY, v text)");
      pg.psql("CREATE TABLE c (id int PRIMARY KEY, v text)");
      for (const table of ["a", "b", "c"]) pg.psql(`INSERT INTO ${table} VALUES (0, 'snapshotted')`);
    },
    // Offsets committed each second; a stop waits for every record sent to be acknowledged (however
    // throttled), so what was written is what the committed offset says.
    worker: {
      "offset.flush.interval.ms": "1000",
      "offset.flush.timeout.ms": "120000",
      "task.shutdown.graceful.timeout.ms": "120000",
    },
  });
}, 480_000);
afterAll(() => sides?.stop(), 60_000);

/** Sets (or with null removes) the producer byte rate quota of every client the broker has no other quota for. */
async function throttleProducers(bytesPerSecond: number | null): Promise<void> {
  const change =
    bytesPerSecond === null
      ? ["--delete-config", "producer_byte_rate"]
      : ["--add-config", `producer_byte_rate=${bytesPerSecond}`];
  const cli = Bun.spawn(
    [
      "java",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
      "-cp",
      kafkaClasspath(),
      "kafka.admin.ConfigCommand",
      "--bootstrap-server",
      sides.bootstrap,
      "--alter",
      ...change,
      "--entity-type",
      "clients",
      "--entity-default",
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [code, stderr] = await Promise.all([cli.exited, new Response(cli.stderr).text()]);
  expect(code, stderr).toBe(0);
}

const offsetOf = async (side: Side, label: string): Promise<Json> => {
  const body = (await sides.api(side).get(`/connectors/${sideName(side, label)}/offsets`)).body as Json;
  return body.offsets?.[0]?.offset ?? {};
};

const num = (v: unknown) => (v as { number: string }).number;
const txIdOf = (e: Event) => (payloadOf(e)?.id as string | undefined)?.split(":")[0];

interface Restarted {
  /** The transaction topic. */
  transaction: Event[];
  /** Each table's topic. */
  tables: Record<string, Event[]>;
  /** The large transaction's xid. */
  xid: string;
  /** The offsets committed at the stop and once the END went. */
  atStop: Json;
  atEnd: Json;
}

/**
 * Connector `label` on both sides capturing `tables` (each holding one row for the snapshot): after a
 * first streamed transaction, `sql` runs as one transaction while the broker throttles producers, each
 * side is stopped once `tables`' last topic has `stopAfter` records of it, and resumed without throttling.
 */
async function restartInTransaction(
  label: string,
  tables: string[],
  sql: string,
  stopAfter: number,
): Promise<Record<Side, Restarted>> {
  await sides.createBoth(label, () => ({
    "table.include.list": tables.map((t) => `public.${t}`).join(","),
    "provide.transaction.metadata": "true",
    "max.batch.size": "50",
    // Both producers take records ahead into their buffers (Kafka's 32 MB, Sluice's 16 MiB by default),
    // acknowledged only as the quota lets them through: kept small, the stop can wait for them all.
    "producer.override.buffer.memory": "131072",
  }));
  const topic = (side: Side, name: string) => `${sideName(side, label)}.${name}`;
  const [first] = tables as [string];
  // Streaming on both sides: after the snapshot, a first transaction arrived.
  for (const side of SIDES)
    await sides.eventsUntil(topic(side, `public.${first}`), "the snapshot", (all) => all.length >= 1);
  sides.pg.psql(`INSERT INTO ${first} VALUES (-1, 'streamed')`);
  for (const side of SIDES)
    await sides.eventsUntil(topic(side, `public.${first}`), "the first insert", (all) => all.length >= 2);

  await throttleProducers(THROTTLED_RATE);
  try {
    sides.pg.psql(sql);
    // Each stopped once it has handed on part of the transaction (at a few dozen records a second).
    await Promise.all(
      SIDES.map(async (side) => {
        await sides.eventsUntil(
          topic(side, `public.${tables.at(-1)}`),
          "part of the transaction",
          (all) => all.length >= stopAfter,
        );
        const stopped = await sides.api(side).put(`/connectors/${sideName(side, label)}/stop`);
        expect(stopped.status).toBeLessThan(300);
      }),
    );
    for (const side of SIDES) await sides.api(side).waitForState(sideName(side, label), "STOPPED");
  } finally {
    await throttleProducers(null);
  }
  const atStop = { debezium: await offsetOf("debezium", label), sluice: await offsetOf("sluice", label) };
  for (const side of SIDES)
    expect((await sides.api(side).put(`/connectors/${sideName(side, label)}/resume`)).status).toBeLessThan(300);

  const restarted = {} as Record<Side, Restarted>;
  for (const side of SIDES) {
    // The large transaction is the last one begun; done once its END went.
    const lastBegun = (all: Event[]) => txIdOf(all.filter((e) => payloadOf(e)?.status === "BEGIN").at(-1)!);
    const transaction = await sides.eventsUntil(topic(side, "transaction"), "the END", (all) =>
      all.some((e) => payloadOf(e)?.status === "END" && txIdOf(e) === lastBegun(all)),
    );
    const xid = lastBegun(transaction)!;
    // The END may be written before the last events (other topics): each table's topic is read once it has
    // as many of the transaction's events as the END counts.
    const end = payloadOf(transaction.find((e) => payloadOf(e)?.status === "END" && txIdOf(e) === xid)!)!;
    const byTable: Record<string, Event[]> = {};
    for (const table of tables) {
      const count = Number(
        num((end.data_collections as Json[]).find((c) => c.data_collection === `public.${table}`)!.event_count),
      );
      byTable[table] = await sides.eventsUntil(
        topic(side, `public.${table}`),
        `${count} events of the transaction`,
        (all) =>
          all.filter((e) => (payloadOf(e)?.transaction?.id as string | undefined)?.startsWith(`${xid}:`)).length >=
          count,
      );
    }
    const atEnd = await waitFor(
      `${side}'s offset at the END`,
      async () => {
        const offset = await offsetOf(side, label);
        return offset.messageType === "COMMIT" && String(offset.txId) === xid ? offset : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    restarted[side] = { transaction, tables: byTable, xid, atStop: atStop[side], atEnd };
    await sides.dump(`${sideName(side, label)}.transaction`, transaction);
    for (const [table, all] of Object.entries(byTable)) await sides.dump(`${sideName(side, label)}.${table}`, all);
    await sides.dump(`${sideName(side, label)}.offsets`, [{ atStop: atStop[side], atEnd }] as never);
  }
  return restarted;
}

const lsnOf = (e: Event) => Number(num(payloadOf(e)!.source.lsn));

/**
 * Differences between the sides, and what both must hold: the transaction topic's BEGIN and END of the
 * first transaction, then one BEGIN and one END of the large one (`counts` per table); each of its events
 * once, numbered on across the restart; the offset at the stop that of the last event handed on, as
 * Debezium writes it; the offsets at the END equal.
 * One event may come twice, as in Debezium: when the stop fell among several events of the transaction's
 * first LSN, which its BEGIN has too, the BEGIN counts among the lsn_events_processed to skip when the
 * transaction is sent again, so the last event handed on comes once more (numbered on). Unless both
 * sides repeated the same event, the repeated ones are left out and the orders are not compared across
 * the sides.
 */
function compare(label: string, run: Record<Side, Restarted>, counts: Record<string, number>): string[] {
  const report: string[] = [];
  /** The large transaction's events of `table` (or all tables), in each topic's order. */
  const ofTx = (side: Side, table?: string) =>
    (table ? run[side].tables[table]! : Object.values(run[side].tables).flat()).filter((e) =>
      (payloadOf(e)?.transaction?.id as string | undefined)?.startsWith(`${run[side].xid}:`),
    );
  const orderOf = (e: Event) => Number(num(payloadOf(e)!.transaction.total_order));
  const runIds = (side: Side) => [...new Set(ofTx(side).map((e) => e.headers["__debezium.context.runId"]))];
  /** The last event handed on before the stop, and the event after it. */
  const stops = Object.fromEntries(
    SIDES.map((side) => {
      const firstRun = runIds(side)[0];
      const events = ofTx(side);
      const last = events
        .filter((e) => e.headers["__debezium.context.runId"] === firstRun)
        .reduce((x, y) => (orderOf(y) > orderOf(x) ? y : x));
      return [side, { last, next: events.find((e) => orderOf(e) === orderOf(last) + 1)! }];
    }),
  ) as Record<Side, { last: Event; next: Event }>;
  const lastBeforeStop = (side: Side) => stops[side].last;
  const beginLsn = (side: Side) => Number((payloadOf(run[side].transaction[2]!)!.id as string).split(":")[1]);
  const repeated = (side: Side) =>
    run[side].atStop.lsn === beginLsn(side) && run[side].atStop.lsn_events_processed > 1 ? 1 : 0;
  for (const side of SIDES) {
    const extra = repeated(side);
    const stopTable = payloadOf(lastBeforeStop(side))!.source.table as string;
    const expected = Object.fromEntries(Object.entries(counts).map(([t, n]) => [t, n + (t === stopTable ? extra : 0)]));
    const total = Object.values(expected).reduce((x, y) => x + y, 0);
    const records = run[side].transaction.map((e) => payloadOf(e)!);
    expect(
      records.map((p) => `${p.status}:${p.event_count ? num(p.event_count) : "-"}`),
      side,
    ).toEqual(["BEGIN:-", "END:1", "BEGIN:-", `END:${total}`]);
    expect(
      Object.fromEntries(
        (records[3]!.data_collections as Json[]).map((c) => [c.data_collection, Number(num(c.event_count))]),
      ),
      side,
    ).toEqual(Object.fromEntries(Object.entries(expected).map(([t, n]) => [`public.${t}`, n])));

    expect(
      ofTx(side)
        .map(orderOf)
        .sort((x, y) => x - y),
      `${side}: total_order of each event once`,
    ).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    for (const [table, n] of Object.entries(expected))
      expect(
        ofTx(side, table).map((e) => Number(num(payloadOf(e)!.transaction.data_collection_order))),
        `${side}: data_collection_order of ${table}`,
      ).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(runIds(side).length, `${side}: events before and after the restart`).toBe(2);
    // Each row once, but the one repeated: the last before the stop is the first after it.
    const last = lastBeforeStop(side);
    const afterStop = stops[side].next;
    expect(
      JSON.stringify(payloadOf(afterStop)!.after) === JSON.stringify(payloadOf(last)!.after),
      `${side}: the event after the stop repeats the last before it`,
    ).toBe(extra === 1);

    // The offset at the stop: the last event of the first run, the transaction's counts up to it.
    const offset = run[side].atStop;
    const upToLast = ofTx(side).filter((e) => orderOf(e) <= orderOf(last));
    const inTable = (table: string) => upToLast.filter((e) => payloadOf(e)!.source.table === table).length;
    expect({ ...offset, lsn_commit: "<resume>" } as Json, `${side} offset at the stop`).toEqual({
      lsn: lsnOf(last),
      lsn_proc: lsnOf(last),
      lsn_commit: "<resume>",
      txId: Number(run[side].xid),
      ts_usec: Number(num(payloadOf(last)!.source.ts_us)),
      messageType: "INSERT",
      lsn_events_processed: upToLast.filter((e) => lsnOf(e) === lsnOf(last)).length,
      transaction_id: run[side].xid,
      ...Object.fromEntries(
        Object.keys(counts)
          .filter((t) => inTable(t) > 0)
          .map((t) => [`transaction_data_collection_order_public.${t}`, inTable(t)]),
      ),
    });
    expect(upToLast.length, `${side} stopped in the middle`).toBeLessThan(total);
    // lsn_commit, where streaming resumes, is the previous transaction's commit (the events' sequence
    // starts with it): Sluice's too, though its heartbeats carry later keepalive positions.
    expect(offset.lsn_commit, `${side} lsn_commit`).toBe(
      Number(JSON.parse(payloadOf(ofTx(side)[0]!)!.source.sequence)[0]),
    );
  }

  // Across the sides, as written when both repeated the same event or neither did; else without the
  // repeated events, the orders and the counts (each side's are checked above).
  const same =
    repeated("debezium") === repeated("sluice") &&
    (!repeated("debezium") || orderOf(stops.debezium.last) === orderOf(stops.sluice.last));
  const comparable = (side: Side, events: Event[]) =>
    events
      .filter((e) => same || !repeated(side) || e !== stops[side].next)
      .map((e) => {
        const n = normalizeChange(e, side, sideName(side, label));
        const transaction = payloadOf(n)?.transaction as Json | undefined;
        if (!same && transaction) transaction.total_order = transaction.data_collection_order = "<order>";
        return n;
      });
  const endless = (side: Side, e: Event) => {
    const w = withoutPrefix(e, sideName(side, label));
    if (!same && payloadOf(w)?.status === "END")
      payloadOf(w)!.event_count = payloadOf(w)!.data_collections = "<counts>";
    return w;
  };
  for (const [i, d] of run.debezium.transaction.entries())
    report.push(
      ...differences(endless("debezium", d), endless("sluice", run.sluice.transaction[i]!)).map(
        (diff) => `transaction record ${i}${diff}`,
      ),
    );
  for (const table of Object.keys(counts)) {
    const [dbz, slc] = [
      comparable("debezium", run.debezium.tables[table]!),
      comparable("sluice", run.sluice.tables[table]!),
    ];
    expect(slc.length, table).toBe(dbz.length);
    for (const [i, d] of dbz.entries())
      report.push(...differences(d, slc[i]).map((diff) => `${table} record ${i}${diff}`));
  }
  // At the end both committed the END's offset, which still holds the whole transaction.
  const sorted = (side: Side) =>
    Object.fromEntries(
      Object.entries(run[side].atEnd)
        .filter(([k]) => same || !k.startsWith("transaction_data_collection_order_"))
        .sort(([x], [y]) => x.localeCompare(y)),
    );
  report.push(...differences(sorted("debezium"), sorted("sluice")).map((diff) => `offset at the END${diff}`));
  for (const side of SIDES)
    expect(run[side].atEnd, side).toMatchObject({
      transaction_id: run[side].xid,
      ...Object.fromEntries(
        Object.entries(counts).map(([t, n]) => [
          `transaction_data_collection_order_public.${t}`,
          n + (Object.keys(counts).length === 1 ? repeated(side) : 0),
        ]),
      ),
    });
  return report;
}

describe(`PostgreSQL CDC transaction metadata across a restart, as Debezium ${DEBEZIUM_VERSION}'s`, () => {
  test("restarted in the middle of a transaction over two tables: one BEGIN, the orders go on, the END counts it all; offsets as Debezium's", async () => {
    const run = await restartInTransaction(
      "txr",
      ["a", "b"],
      `DO $$ BEGIN FOR i IN 1..${ROWS} LOOP INSERT INTO a VALUES (i, 'a' || i); INSERT INTO b VALUES (i, 'b' || i); END LOOP;
       UPDATE a SET v = 'updated' WHERE id = 1; DELETE FROM b WHERE id = 2; END $$`,
      40,
    );
    // The update and the delete are events too (the delete's tombstone is not).
    expect(compare("txr", run, { a: ROWS + 1, b: ROWS + 1 })).toEqual([]);
  }, 400_000);

  test("restarted among a COPY's rows of one LSN: lsn_events_processed, and the next row goes first", async () => {
    const run = await restartInTransaction("txc", ["c"], `COPY c (id) FROM PROGRAM 'seq 1 ${ROWS}'`, 42);
    expect(compare("txc", run, { c: ROWS })).toEqual([]);
    // The stop fell among rows of one WAL record (a page holds some 200 of them) on at least one side.
    // (Debezium repeats the last row handed on when that record is the transaction's first: see compare.)
    expect(Math.max(run.debezium.atStop.lsn_events_processed, run.sluice.atStop.lsn_events_processed)).toBeGreaterThan(
      1,
    );
  }, 400_000);
});
