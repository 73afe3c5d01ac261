// Blocking snapshots asked for by signal, through Kafka and through a file, side by side with Debezium's
// PostgresConnector (test/fixtures/cdc-side-by-side.ts): the same connector config and the same SQL
// and signals on both sides. Each pair captures `orders` and `customers`; after the initial snapshot
// and some streamed changes, an execute-snapshot signal of type blocking names `customers` (with an
// additional condition's SELECT on one pair) while inserts into `orders` keep coming, until both
// connectors have written the blocking snapshot's last record; then changes to both tables close it.
// Both topics of each pair must be the same records, one by one (Debezium's markers on the blocking
// snapshot's rows included), and each insert into `orders` must be there exactly once: streaming
// paused and went on where it stopped. What must differ is normalized as in the Debezium comparison
// (prefixes, versions, times, run ids); a snapshot record's lsn, txId and sequence name the position
// each connector had streamed to when it paused, which is a matter of timing.
// SLUICE_DUMP_DIR=<dir> writes both sides' records there as JSON, to look into a difference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { autoCreatedTopic, encoder } from "#src/broker/broker.ts";
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
} from "../fixtures/cdc-side-by-side.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";

const CUSTOMERS = 3000;
const ORDERS = 5;

const normalize = (event: Event, side: Side, label: string) => normalizeChange(event, side, sideName(side, label));

const snapshotMarker = (e: Event) => payloadOf(e)?.source?.snapshot as string | undefined;
const idOf = (e: Event) => (payloadOf(e)?.after?.id as { number: string } | undefined)?.number;

describe(`PostgreSQL CDC signals: Sluice's blocking snapshots are Debezium ${DEBEZIUM_VERSION}'s`, () => {
  let sides: SideBySide;
  const files = mkdtempSync(join(tmpdir(), "sluice-signal-files-"));
  const signalFile = (side: Side) => join(files, `${side}-signals.txt`);

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare(pg) {
        pg.psql("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, tier int)");
        pg.psql(`INSERT INTO customers SELECT i, 'customer ' || i, i % 3 FROM generate_series(1, ${CUSTOMERS}) i`);
        pg.psql("CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2))");
        pg.psql(`INSERT INTO orders SELECT i, i, i * 1.5 FROM generate_series(1, ${ORDERS}) i`);
      },
    });
  }, 240_000);
  afterAll(async () => {
    await sides?.stop();
    rmSync(files, { recursive: true, force: true });
  }, 60_000);

  /**
   * Creates the pair, waits for the initial snapshot and one streamed change, sends the blocking snapshot
   * signal with `send`, inserts into orders until both have written its last record, then closes with a
   * change to each table; compares both topics record by record.
   */
  async function blockingSnapshotRun(
    label: string,
    settings: (side: Side) => Record<string, string>,
    send: (side: Side, signal: Json) => Promise<void>,
    signalData: Json,
    firstOrder: number,
  ): Promise<void> {
    for (const side of SIDES) {
      const created = await sides.api(side).post("/connectors", {
        name: sideName(side, label),
        config: sides.connectorConfig(side, label, {
          "table.include.list": "public.customers,public.orders",
          "signal.poll.interval.ms": "500",
          ...settings(side),
        }),
      });
      expect(created.status, `${side} ${label}: ${JSON.stringify(created.body)}`).toBe(201);
    }
    const topic = (side: Side, table: string) => `${sideName(side, label)}.public.${table}`;
    const last = (all: Event[]) => all[all.length - 1]!;
    for (const side of SIDES)
      await sides.eventsUntil(
        topic(side, "orders"),
        `${side} initial snapshot`,
        (all) => snapshotMarker(last(all)) === "last",
      );
    sides.pg.psql(`UPDATE customers SET tier = 9 WHERE id = 1`);
    for (const side of SIDES)
      await sides.eventsUntil(
        topic(side, "customers"),
        `${side} streamed update`,
        (all) => payloadOf(last(all))?.op === "u",
      );

    for (const side of SIDES) await send(side, { id: `blocking-${label}`, type: "execute-snapshot", data: signalData });
    // Changes keep coming while the connectors pause streaming, snapshot and resume.
    let order = firstOrder;
    const blockingDone = async (side: Side) =>
      (await sides.events(topic(side, "customers")).catch(() => [])).some(
        (e, i) => i > CUSTOMERS && snapshotMarker(e) === "last",
      );
    const deadline = Date.now() + 120_000;
    while (!((await blockingDone("debezium")) && (await blockingDone("sluice")))) {
      expect(Date.now() < deadline, "both connectors finish the blocking snapshot").toBe(true);
      sides.pg.psql(`INSERT INTO orders VALUES (${order}, ${order % 7}, ${order}.25)`);
      order++;
    }
    sides.pg.psql(`INSERT INTO orders VALUES (${order}, 1, 1.00)`);
    sides.pg.psql(`UPDATE customers SET name = 'after' WHERE id = 2`);
    const inserted = order - firstOrder + 1;

    const report: string[] = [];
    for (const table of ["customers", "orders"]) {
      const done =
        table === "orders"
          ? (all: Event[]) => idOf(last(all)) === String(order)
          : (all: Event[]) => payloadOf(last(all))?.after?.name === "after";
      const [debezium, sluice] = await Promise.all(
        SIDES.map((side) => sides.eventsUntil(topic(side, table), `${side} last change`, done)),
      );
      await sides.dump(topic("debezium", table), debezium!);
      await sides.dump(topic("sluice", table), sluice!);
      expect([sluice!.length, table]).toEqual([debezium!.length, table]);
      for (let i = 0; i < debezium!.length; i++) {
        const [d, s] = [normalize(debezium![i]!, "debezium", label), normalize(sluice![i]!, "sluice", label)];
        report.push(...differences(d, s).map((diff) => `${label} ${table} record ${i}${diff}`));
      }
      if (table === "orders") {
        // Every insert made during the blocking snapshot streamed exactly once, in order.
        const streamed = sluice!.filter((e) => payloadOf(e)?.op === "c").map(idOf);
        expect(streamed).toEqual(Array.from({ length: inserted }, (_, i) => String(firstOrder + i)));
      }
    }
    expect(report).toEqual([]);
  }

  const deleteBoth = async (label: string) => {
    for (const side of SIDES) await sides.api(side).delete(`/connectors/${sideName(side, label)}`);
  };
  const topicOf = (side: Side, label: string, table: string) => `${sideName(side, label)}.public.${table}`;

  const kafkaLabel = "kafka_signal";
  const signalTopic = (side: Side) => `${sideName(side, kafkaLabel)}-signal`;
  const sendKafka = async (side: Side, signal: Json) => {
    await sides.worker.connect.broker.produce(signalTopic(side), [
      // A signal for another connector (its key is another topic.prefix): ignored by both.
      { key: encoder.encode("someone_else"), value: encoder.encode(JSON.stringify({ ...signal, id: "other" })) },
      { key: encoder.encode(sideName(side, kafkaLabel)), value: encoder.encode(JSON.stringify(signal)) },
    ]);
  };

  test("a blocking snapshot signalled through Kafka", async () => {
    for (const side of SIDES) await sides.worker.connect.broker.createTopic(autoCreatedTopic(signalTopic(side)));
    await blockingSnapshotRun(
      kafkaLabel,
      () => ({ "signal.enabled.channels": "kafka", "signal.kafka.bootstrap.servers": sides.bootstrap }),
      sendKafka,
      { "data-collections": ["public\\.cust.*"], type: "blocking" },
      1000,
    );
  }, 400_000);

  test("after a restart, a signal read from Kafka before is not acted on again", async () => {
    const customers = async (side: Side) => (await sides.events(topicOf(side, kafkaLabel, "customers"))).length;
    const before = await Promise.all(SIDES.map(customers));
    const orders = await Promise.all(
      SIDES.map(async (side) => (await sides.events(topicOf(side, kafkaLabel, "orders"))).length),
    );
    for (const side of SIDES) {
      const restarted = await sides
        .api(side)
        .post(`/connectors/${sideName(side, kafkaLabel)}/restart?includeTasks=true`);
      expect(restarted.status, `${side} restart`).toBeLessThan(300);
    }
    // Signals are acted on in order: once the second is done, the first would have been too.
    for (const side of SIDES)
      await sendKafka(side, {
        id: "blocking-orders",
        type: "execute-snapshot",
        data: { "data-collections": ["public.orders"], type: "blocking" },
      });
    const [debezium, sluice] = await Promise.all(
      SIDES.map((side, i) =>
        sides.eventsUntil(topicOf(side, kafkaLabel, "orders"), `${side} blocking snapshot of orders`, (all) =>
          all.slice(orders[i]!).some((e) => snapshotMarker(e) === "last"),
        ),
      ),
    );
    expect(await Promise.all(SIDES.map(customers))).toEqual(before);
    const report: string[] = [];
    for (let i = 0; i < debezium!.length; i++) {
      const [d, s] = [normalize(debezium![i]!, "debezium", kafkaLabel), normalize(sluice![i]!, "sluice", kafkaLabel)];
      report.push(...differences(d, s).map((diff) => `orders record ${i}${diff}`));
    }
    expect([sluice!.length, report]).toEqual([debezium!.length, []]);
    await deleteBoth(kafkaLabel);
  }, 400_000);

  test("a blocking snapshot signalled through a file, with an additional condition's SELECT", async () => {
    const label = "file_signal";
    await blockingSnapshotRun(
      label,
      (side) => ({ "signal.enabled.channels": "file", "signal.file": signalFile(side) }),
      async (side, signal) => writeFileSync(signalFile(side), `${JSON.stringify(signal)}\n`),
      {
        "data-collections": ["public.customers"],
        type: "blocking",
        "additional-conditions": [
          { "data-collection": "public.customers", filter: "SELECT * FROM public.customers WHERE tier = 1" },
        ],
      },
      100_000,
    );
    await deleteBoth("file_signal");
  }, 400_000);

  test("while a blocking snapshot pauses streaming, the server still hears from Sluice's connector", async () => {
    // The walsender ends a replication connection silent for wal_sender_timeout; a table read that
    // takes longer (a SELECT that sleeps) must not make the paused connector lose its connection.
    const label = "paused";
    const file = join(files, "paused-signals.txt");
    sides.pg.psql("ALTER SYSTEM SET wal_sender_timeout = '2s'");
    sides.pg.psql("SELECT pg_reload_conf()");
    try {
      const created = await sides.api("sluice").post("/connectors", {
        name: sideName("sluice", label),
        config: sides.connectorConfig("sluice", label, {
          "table.include.list": "public.orders",
          "signal.enabled.channels": "file",
          "signal.file": file,
          "signal.poll.interval.ms": "200",
        }),
      });
      expect(created.status).toBe(201);
      const topic = topicOf("sluice", label, "orders");
      const initial = await sides.eventsUntil(topic, "initial snapshot", (all) =>
        all.some((e) => snapshotMarker(e) === "last"),
      );
      const walsender = () =>
        sides.pg.psql(`SELECT active_pid FROM pg_replication_slots WHERE slot_name = '${sideName("sluice", label)}'`);
      const before = walsender();
      expect(before).toMatch(/^\d+$/);
      writeFileSync(
        file,
        `${JSON.stringify({
          id: "slow",
          type: "execute-snapshot",
          data: {
            type: "blocking",
            "data-collections": ["public.orders"],
            "additional-conditions": [
              {
                "data-collection": "public.orders",
                filter: "SELECT * FROM public.orders WHERE (SELECT count(*) FROM pg_sleep(5)) = 1",
              },
            ],
          },
        })}\n`,
      );
      sides.pg.psql("INSERT INTO orders VALUES (900000, 1, 1.00)");
      const all = await sides.eventsUntil(
        topic,
        "the blocking snapshot and the insert",
        (events) =>
          events.slice(initial.length).some((e) => snapshotMarker(e) === "last") &&
          events.some((e) => idOf(e) === "900000" && payloadOf(e)?.op === "c"),
      );
      expect(walsender()).toBe(before);
      expect(all.filter((e) => idOf(e) === "900000" && payloadOf(e)?.op === "c")).toHaveLength(1);
      await sides.api("sluice").delete(`/connectors/${sideName("sluice", label)}`);
    } finally {
      sides.pg.psql("ALTER SYSTEM RESET wal_sender_timeout");
      sides.pg.psql("SELECT pg_reload_conf()");
    }
  }, 200_000);
});
