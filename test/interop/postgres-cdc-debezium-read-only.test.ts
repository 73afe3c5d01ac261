// Read-only incremental snapshots (read.only=true), Sluice's PostgreSQL connector against Debezium's 3.7
// on the same PostgreSQL and Kafka (test/fixtures/cdc-side-by-side.ts), signals through Kafka.
// - Both connectors log in as a role that may only read (SELECT on the table, REPLICATION, every
//   transaction read-only): a connector that wrote anything would fail. A table of 40,000 rows is
//   snapshotted while a long transaction stays open (its xid in every chunk's watermarks, so that only
//   streamed transactions move the windows on) and rounds of inserts, updates and deletes run, one after
//   another each side has streamed; then the long transaction commits. Each side: every row read once as
//   `op: r` with source.snapshot "incremental" unless a change streamed in its window superseded it,
//   replaying the topic gives the table; the streamed changes are the same on both sides, and a row read
//   is Debezium's record whole.
// - With signal.data.collection but without the source channel (signals through Kafka only) and not
//   read-only, Debezium writes the first chunk's watermarks into the table and never reads them back: its
//   snapshot never hands on a row. Sluice does not start one (it says why in its log) and writes nothing.
//   With the source channel besides Kafka, the same Kafka signal snapshots the table on both sides.
// - A read-only snapshot paused after its first chunk, the task restarted: the snapshot resumes from the
//   offsets (a pause is not kept across a restart) and Sluice's topic replays to the table.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { autoCreatedTopic, encoder } from "#src/broker/broker.ts";
import {
  differences,
  type Event,
  type Json,
  normalizeTimes,
  payloadOf,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
  topicReader,
  withoutPrefix,
} from "../fixtures/cdc-side-by-side.ts";
import { waitFor } from "../fixtures/wait.ts";

const ROWS = 40_000;
const ROUNDS = 30;
const CHUNK = 1024;
const READER = "cdc_reader";
const SNAPSHOT_TIMEOUT_MS = 240_000;

const topicOf = (side: Side, label: string, table: string) => `${sideName(side, label)}.public.${table}`;
const signalTopic = (side: Side, label: string) => `${sideName(side, label)}-signal`;
const keyOf = (e: Event) => Number((e.key as Json).payload.id.number);
const opOf = (e: Event) => payloadOf(e)?.op as string | undefined;

describe("read-only incremental snapshots side by side with Debezium", () => {
  let sides: SideBySide;

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare: (pg) => {
        pg.psql("CREATE TABLE big (id int PRIMARY KEY, v text NOT NULL)");
        pg.psql(`INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, ${ROWS}) g`);
        pg.psql("CREATE TABLE other (id int PRIMARY KEY, v text NOT NULL)");
        pg.psql("INSERT INTO other SELECT g, 'o' || g FROM generate_series(1, 500) g");
        pg.psql(`CREATE ROLE ${READER} LOGIN REPLICATION`);
        pg.psql("CREATE TABLE resumed (id int8 PRIMARY KEY, v text NOT NULL)");
        pg.psql("INSERT INTO resumed SELECT g, 'r' || g FROM generate_series(1, 20000) g");
        pg.psql(`GRANT SELECT ON big, other, resumed TO ${READER}`);
        pg.psql(`ALTER ROLE ${READER} SET default_transaction_read_only = on`);
        for (const side of SIDES) {
          pg.psql(`CREATE PUBLICATION ${sideName(side, "ro")}_pub FOR TABLE big`);
          pg.psql(`CREATE PUBLICATION ${sideName(side, "ro_restart")}_pub FOR TABLE resumed`);
        }
        pg.psql("ANALYZE");
      },
    });
  }, 180_000);
  afterAll(() => sides?.stop(), 60_000);

  const { events, until } = topicReader(() => sides);
  const sendSignal = async (label: string, signal: Json) => {
    for (const side of SIDES)
      await sides.worker.connect.broker.produce(signalTopic(side, label), [
        { key: encoder.encode(sideName(side, label)), value: encoder.encode(JSON.stringify(signal)) },
      ]);
  };
  const create = async (label: string, settings: (side: Side) => Record<string, string>) => {
    for (const side of SIDES) await sides.worker.connect.broker.createTopic(autoCreatedTopic(signalTopic(side, label)));
    for (const side of SIDES) {
      const created = await sides.api(side).post("/connectors", {
        name: sideName(side, label),
        config: sides.connectorConfig(side, label, {
          "snapshot.mode": "no_data",
          "signal.enabled.channels": "kafka",
          "signal.kafka.bootstrap.servers": sides.bootstrap,
          "signal.poll.interval.ms": "200",
          "incremental.snapshot.chunk.size": String(CHUNK),
          ...settings(side),
        }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    // Changes made before a side's slot exists would never reach it: wait until both stream from theirs.
    for (const side of SIDES)
      await waitFor(
        `${side}'s slot in use`,
        () =>
          sides.pg
            .psql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${sideName(side, label)}'`)
            .trim() === "t",
        { timeoutMs: 90_000, intervalMs: 200 },
      );
  };
  /** Deletes both connectors and, once no walsender holds them, their slots (a test server has few). */
  const deleteBoth = async (label: string) => {
    for (const side of SIDES) await sides.api(side).delete(`/connectors/${sideName(side, label)}`);
    for (const side of SIDES)
      await waitFor(
        `${side}'s slot dropped`,
        () =>
          sides.pg.psql(
            `SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots WHERE slot_name = '${sideName(side, label)}' AND NOT active`,
          ) === "1",
        { timeoutMs: 60_000, intervalMs: 200 },
      );
  };
  /** Waits until both sides have streamed a change whose `after.v` is `v` on `table`. */
  const streamed = async (label: string, table: string, v: string) => {
    for (const side of SIDES)
      await until(topicOf(side, label, table), `${v} streamed`, (all) =>
        all.some((e) => opOf(e) !== "r" && payloadOf(e)?.after?.v === v),
      );
  };
  const tableState = (table: string) =>
    new Map(
      sides.pg
        .psql(`SELECT id, v FROM ${table} ORDER BY id`)
        .trim()
        .split("\n")
        .map((line) => [Number(line.split("|")[0]), line.split("|")[1]!] as const),
    );

  test("40,000 rows with a long transaction and changes during the snapshot: each row once, nothing written", async () => {
    const label = "ro";
    await create(label, () => ({
      "database.user": READER,
      "read.only": "true",
      "table.include.list": "public.big",
      "publication.autocreate.mode": "disabled",
    }));
    const inserted = () =>
      Number(sides.pg.psql("SELECT n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relname = 'big'"));
    sides.pg.psql("UPDATE big SET v = 'warm' WHERE id = 1");
    await streamed(label, "big", "warm");

    // A transaction that stays open: its xid is in every chunk's watermarks until it commits.
    const long = postgres(sides.pg.url, { max: 1, onnotice: () => {} });
    let commitLong!: () => void;
    const longDone = long.begin(async (tx) => {
      await tx`UPDATE big SET v = 'long' WHERE id IN (5, 20001, 39999)`;
      await new Promise<void>((resolve) => {
        commitLong = resolve;
      });
    });
    await waitFor("the long transaction's update", () => commitLong !== undefined);

    await sendSignal(label, {
      id: "ro-1",
      type: "execute-snapshot",
      data: { "data-collections": ["public.big"], type: "incremental" },
    });
    for (const side of SIDES)
      await until(topicOf(side, label, "big"), `${side}'s first chunk`, (all) => all.some((e) => opOf(e) === "r"));
    // Rounds of changes, each after both sides streamed the one before: each moves a window on.
    for (let round = 0; round < ROUNDS; round++) {
      const id = ((round * 1319) % (ROWS - 10)) + 2;
      sides.pg.psql(
        `BEGIN; UPDATE big SET v = 'updated ${round}' WHERE id IN (${id}, ${id + 1});` +
          ` DELETE FROM big WHERE id = ${id + 2}; INSERT INTO big VALUES (${ROWS + round + 1}, 'new ${round}'); COMMIT;`,
      );
      await streamed(label, "big", `new ${round}`);
    }
    commitLong();
    await longDone;
    await long.end();
    const finalRows = tableState("big");
    const writesByTest = inserted();

    const all: Record<Side, Event[]> = { debezium: [], sluice: [] };
    for (const side of SIDES)
      all[side] = await waitFor(
        `every row on ${topicOf(side, label, "big")}`,
        async () => {
          const read = await events(topicOf(side, label, "big"));
          const seen = new Set(read.filter((e) => e.value !== null).map(keyOf));
          return [...finalRows.keys()].every((k) => seen.has(k)) && read.some((e) => payloadOf(e)?.after?.v === "long")
            ? read
            : undefined;
        },
        { timeoutMs: SNAPSHOT_TIMEOUT_MS, intervalMs: 1000 },
      );
    for (const side of SIDES) await sides.dump(`read-only-${side}`, all[side]);

    // The streamed changes come from the same WAL: the same, in the same order.
    const changes = (side: Side) =>
      all[side]
        .filter((e) => e.value !== null && opOf(e) !== "r")
        .map((e) => ({ key: keyOf(e), op: opOf(e), after: payloadOf(e)!.after }));
    expect(changes("sluice")).toEqual(changes("debezium"));
    expect(changes("sluice").length).toBe(1 + ROUNDS * 4 + 3);

    for (const side of SIDES) {
      const reads = all[side].filter((e) => opOf(e) === "r");
      const readKeys = reads.map(keyOf);
      expect(new Set(readKeys).size, `${side}: a row read twice`).toBe(readKeys.length);
      for (const e of reads) expect(payloadOf(e)!.source.snapshot).toBe("incremental");
      // Every row the changes left alone is read, with its value.
      const changed = new Set(changes(side).map((c) => c.key));
      const readAfter = new Map(reads.map((e) => [keyOf(e), payloadOf(e)!.after.v as string]));
      for (const [id, v] of finalRows) if (!changed.has(id)) expect(readAfter.get(id), `${side} row ${id}`).toBe(v);
      // Replaying the topic gives the table: the last record of each key wins.
      const state = new Map<number, string | null>();
      for (const e of all[side]) if (e.value !== null) state.set(keyOf(e), payloadOf(e)!.after?.v ?? null);
      expect(new Map([...state].filter(([, v]) => v !== null)), side).toEqual(finalRows);
    }
    // A row no change touched: the whole record as Debezium's, once what differs by nature is normalized.
    const recordOf = (side: Side) => {
      const e = all[side].find((r) => opOf(r) === "r" && keyOf(r) === 33_333)!;
      const value = withoutPrefix(e.value as Json, sideName(side, label));
      normalizeTimes(value.payload, `${side} envelope`);
      normalizeTimes(value.payload.source, `${side} source`);
      expect(value.payload.source.sequence).toMatch(/^\["\d+","\d+"\]$/);
      value.payload.source.sequence = "<sequence>";
      value.payload.source.version = "<version>";
      const headers = { ...e.headers, "__debezium.context.runId": "<run>" };
      return {
        key: withoutPrefix(e.key, sideName(side, label)),
        value,
        headers: withoutPrefix(headers, sideName(side, label)),
      };
    };
    expect(differences(recordOf("sluice"), recordOf("debezium"))).toEqual([]);
    // Debezium 3.7 acts on a Kafka signal on a thread of its own, beside streaming: what it logs about it.
    const trouble = sides.kafkaConnect
      .log()
      .split("\n")
      .filter((line) => /ConcurrentModificationException|Action execute-snapshot failed|ERROR/.test(line));
    if (trouble.length > 0) console.warn(`Debezium's log:\n${trouble.slice(0, 20).join("\n")}`);
    // Nothing written by either connector: the table's writes are the test's, and the role may not write.
    expect(inserted()).toBe(writesByTest);
    expect(sides.pg.psql(`SELECT has_table_privilege('${READER}', 'big', 'INSERT')`)).toBe("f");
    await deleteBoth(label);
  }, 600_000);

  test("signal.data.collection with signals through Kafka only, not read-only: no snapshot on either side", async () => {
    const label = "kafka_only";
    const signalTable = (side: Side) => `${sideName(side, label)}_signal`;
    for (const side of SIDES)
      sides.pg.psql(
        `CREATE TABLE ${signalTable(side)} (id varchar(64) PRIMARY KEY, type varchar(32), data varchar(2048))`,
      );
    await create(label, (side) => ({
      "table.include.list": "public.other",
      "signal.data.collection": `public.${signalTable(side)}`,
    }));
    sides.pg.psql("UPDATE other SET v = 'warm' WHERE id = 1");
    await streamed(label, "other", "warm");
    await sendSignal(label, {
      id: "ko-1",
      type: "execute-snapshot",
      data: { "data-collections": ["public.other"], type: "incremental" },
    });
    // Debezium writes its first window's watermarks into the signalling table and streams them back...
    await until(topicOf("debezium", label, signalTable("debezium")), "Debezium's watermarks", (all) =>
      all.some((e) => payloadOf(e)?.after?.type === "snapshot-window-close"),
    );
    // ...but never acts on them: a change made afterwards comes with no snapshot row before it.
    sides.pg.psql("UPDATE other SET v = 'after' WHERE id = 2");
    await streamed(label, "other", "after");
    for (const side of SIDES) {
      const rows = (await events(topicOf(side, label, "other"))).filter((e) => opOf(e) === "r");
      expect(rows.length, `${side}: rows read`).toBe(0);
    }
    expect(sides.pg.psql(`SELECT count(*) FROM ${signalTable("sluice")}`)).toBe("0");
    await deleteBoth(label);
  }, 300_000);

  test("signal.data.collection with the source and kafka channels: a Kafka signal snapshots the table on both sides", async () => {
    const label = "source_kafka";
    const signalTable = (side: Side) => `${sideName(side, label)}_signal`;
    for (const side of SIDES)
      sides.pg.psql(
        `CREATE TABLE ${signalTable(side)} (id varchar(64) PRIMARY KEY, type varchar(32), data varchar(2048))`,
      );
    await create(label, (side) => ({
      "table.include.list": "public.other",
      "signal.enabled.channels": "source,kafka",
      "signal.data.collection": `public.${signalTable(side)}`,
      "incremental.snapshot.chunk.size": "100",
    }));
    sides.pg.psql("UPDATE other SET v = 'warm again' WHERE id = 1");
    await streamed(label, "other", "warm again");
    await sendSignal(label, {
      id: "sk-1",
      type: "execute-snapshot",
      data: { "data-collections": ["public.other"], type: "incremental" },
    });
    const expected = tableState("other");
    const reads: Record<Side, Map<number, string>> = { debezium: new Map(), sluice: new Map() };
    for (const side of SIDES) {
      const all = await until(topicOf(side, label, "other"), `${side}'s snapshot of other`, (all) =>
        [...expected.keys()].every((k) => all.some((e) => opOf(e) === "r" && keyOf(e) === k)),
      );
      const rows = all.filter((e) => opOf(e) === "r");
      expect(rows.length, `${side}: each row once`).toBe(expected.size);
      reads[side] = new Map(rows.map((e) => [keyOf(e), payloadOf(e)!.after.v as string]));
      // The watermarks went through the signalling table, one pair per chunk. Waited for: a window's rows
      // may reach their topic before the close watermark's own record reaches the signalling table's.
      await until(topicOf(side, label, signalTable(side)), `${side}'s window closes`, (all) => {
        const closes = all.filter((e) => payloadOf(e)?.after?.type === "snapshot-window-close");
        return closes.length >= expected.size / 100;
      });
    }
    expect(reads.sluice).toEqual(expected);
    expect(reads.debezium).toEqual(expected);
    await deleteBoth(label);
  }, 300_000);

  test("a read-only snapshot resumes after a task restart in its middle", async () => {
    const label = "ro_restart";
    await create(label, () => ({
      "database.user": READER,
      "read.only": "true",
      "table.include.list": "public.resumed",
      "publication.autocreate.mode": "disabled",
      "incremental.snapshot.chunk.size": "500",
    }));
    // A change streamed first: Debezium's read-only snapshot compares the last streamed transaction's id.
    sides.pg.psql("UPDATE resumed SET v = 'warm' WHERE id = 1");
    await streamed(label, "resumed", "warm");
    // Paused at once, each side hands on its first chunk and waits there: the restart lands mid-snapshot.
    await sendSignal(label, {
      id: "rr-1",
      type: "execute-snapshot",
      data: { "data-collections": ["public.resumed"], type: "incremental" },
    });
    await sendSignal(label, { id: "rr-pause", type: "pause-snapshot", data: {} });
    for (const side of SIDES) {
      await until(topicOf(side, label, "resumed"), `${side}'s first chunk`, (all) => all.length > 500);
      const restarted = await sides.api(side).post(`/connectors/${sideName(side, label)}/restart?includeTasks=true`);
      expect(restarted.status, JSON.stringify(restarted.body)).toBeLessThan(300);
    }
    sides.pg.psql(
      "UPDATE resumed SET v = 'after restart' WHERE id IN (5, 15000); DELETE FROM resumed WHERE id = 19999",
    );
    const expected = tableState("resumed");
    const all: Record<Side, Event[]> = { debezium: [], sluice: [] };
    for (const side of SIDES)
      all[side] = await waitFor(
        `the largest key read on ${side}'s side`,
        async () => {
          const read = await events(topicOf(side, label, "resumed"));
          return read.some((e) => opOf(e) === "r" && keyOf(e) === 20_000) &&
            read.some((e) => payloadOf(e)?.after?.v === "after restart" && keyOf(e) === 15000 && opOf(e) !== "r")
            ? read
            : undefined;
        },
        { timeoutMs: SNAPSHOT_TIMEOUT_MS, intervalMs: 1000 },
      ).catch((err) => {
        throw new Error(`${err}${side === "debezium" ? `\n${sides.kafkaConnect.log().slice(-5000)}` : ""}`);
      });
    for (const side of SIDES) await sides.dump(`read-only-restart-${side}`, all[side]);
    // Each task start has its own run id: rows were read before and after the restart.
    for (const side of SIDES) {
      const runs = new Set(all[side].filter((e) => opOf(e) === "r").map((e) => e.headers["__debezium.context.runId"]));
      expect(runs.size, `${side}: rows read by the task before and after its restart`).toBe(2);
    }
    const replay = (events: Event[]) => {
      const state = new Map<number, string | null>();
      for (const e of events) if (e.value !== null) state.set(keyOf(e), payloadOf(e)!.after?.v ?? null);
      return new Map([...state].filter(([, v]) => v !== null));
    };
    expect(replay(all.sluice)).toEqual(expected);
    const debezium = replay(all.debezium);
    const missing = [...expected.keys()].filter((k) => !debezium.has(k));
    if (missing.length > 0)
      console.warn(`Debezium left out ${missing.length} row(s) across the restart, e.g. ${missing.slice(0, 10)}`);
    await deleteBoth(label);
  }, 400_000);
});
