// The Debezium settings of the PostgreSQL CDC connector, each against a real PostgreSQL and a real
// Kafka broker: snapshot.mode (never, no_data, initial_only, always), table and column include/exclude
// lists, publication.autocreate.mode, tombstones.on.delete, decimal.handling.mode,
// heartbeat.interval.ms and the older database.server.name. Every case has its own connector, slot,
// topic prefix and tables, and its connector and slot are removed after it.
//
// Checks that something does NOT arrive rely on order: the connector reads the WAL in order and the
// worker writes each topic's records in poll order. So once a record for a change committed later (a
// "marker") is in Kafka, every record the connector made for earlier changes of that topic is in Kafka
// too; what is missing then was never made.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

interface Field {
  field: string;
  type: string;
  fields?: Field[];
}
interface Event {
  key: { payload: Record<string, unknown> } | null;
  value: { schema: { name: string; fields: Field[] }; payload: Envelope } | null;
}
interface Envelope {
  op: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  source: Record<string, unknown>;
}

describe("PostgreSQL CDC connector settings", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  const run = Date.now().toString(36);
  const json = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
  };
  /** Connector name, slot name and topic prefix of one case (slot names allow [a-z0-9_]). */
  const nameOf = (what: string) => `s${run}_${what}`;
  const started: string[] = [];
  const api = () => connectClient(worker.url);

  const configOf = (name: string, extra: Record<string, string>): Record<string, string> => ({
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    ...cdcConnection(pg),
    "topic.prefix": name,
    "slot.name": name,
    ...json,
    ...extra,
  });
  const create = async (name: string, config: Record<string, string>) => {
    const created = await api().post("/connectors", { name, config });
    expect(created.status).toBe(201);
    started.push(name);
  };
  const start = async (name: string, extra: Record<string, string>, config = configOf(name, extra)) => {
    await create(name, config);
    await api().waitForState(name, "RUNNING", 1);
  };

  const events = async (topic: string): Promise<Event[]> => {
    if (!(await worker.connect.broker.describeTopic(topic))) return [];
    const fetched = await worker.connect.broker.fetch(topic, 0, 0, { maxBytes: 16 * 1024 * 1024 });
    const parse = (bytes: Uint8Array | null) =>
      bytes === null ? null : JSON.parse(Buffer.from(bytes).toString("utf8"));
    return fetched.map((r) => ({ key: parse(r.key), value: parse(r.value) }));
  };
  /** The topic's events once the last one matches (`op:id`, e.g. "c:3"). */
  const eventsUntil = (topic: string, last: string) =>
    waitFor(
      `${last} on ${topic}`,
      async () => {
        const all = await events(topic).catch(() => []);
        return all.length > 0 && summary(all).at(-1) === last ? all : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  /** `op:id` per event, `tombstone` for a null value. */
  const summary = (all: Event[]) =>
    all.map((e) =>
      e.value === null ? "tombstone" : `${e.value.payload.op}:${(e.value.payload.after ?? e.value.payload.before)?.id}`,
    );
  const afterFields = (event: Event) => event.value!.schema.fields.find((f) => f.field === "after")!.fields!;
  const slotCount = (slot: string) => pg.psql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${slot}'`);

  beforeAll(async () => {
    pg = await startPostgres();
    worker = await startTestConnect("kafka", json);
  }, 180_000);
  afterEach(async () => {
    // Connectors go, and so do their slots (once their walsender has let go), so cases don't add up.
    for (const name of started.splice(0)) {
      await api().delete(`/connectors/${name}`);
      await waitFor(`slot ${name} dropped`, () => {
        pg.psql(
          `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${name}' AND NOT active`,
        );
        return slotCount(name) === "0";
      });
    }
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await pg?.stop();
  }, 60_000);

  test.each(["never", "no_data"])("snapshot.mode %s: no snapshot rows, later changes stream", async (mode) => {
    const name = nameOf(mode);
    pg.psql(`CREATE TABLE m_${mode} (id int PRIMARY KEY, name text); INSERT INTO m_${mode} VALUES (1, 'before')`);
    // RUNNING means the task's start() returned: the slot exists, so later changes are kept for it.
    await start(name, { "snapshot.mode": mode, "table.include.list": `public.m_${mode}` });
    expect(slotCount(name)).toBe("1");
    pg.psql(`INSERT INTO m_${mode} VALUES (2, 'after')`);
    const all = await eventsUntil(`${name}.public.m_${mode}`, "c:2");
    // Snapshot rows would have come before the insert on the same topic.
    expect(summary(all)).toEqual(["c:2"]);
    expect(all[0]!.value!.payload.after).toEqual({ id: 2, name: "after" });
  });

  test("snapshot.mode initial_only: snapshot rows, then nothing streams while the task stays RUNNING", async () => {
    const name = nameOf("initial_only");
    const witness = nameOf("initial_only_witness");
    pg.psql("CREATE TABLE m_only (id int PRIMARY KEY, name text); INSERT INTO m_only VALUES (1, 'one'), (2, 'two')");
    await start(name, {
      "snapshot.mode": "initial_only",
      "table.include.list": "public.m_only",
      "publication.name": `${name}_pub`,
    });
    const snapshot = await eventsUntil(`${name}.public.m_only`, "r:2");
    expect(summary(snapshot)).toEqual(["r:1", "r:2"]);
    expect(snapshot.map((e) => e.value!.payload.source.snapshot)).toEqual(["first", "last"]);
    // A streaming connector on the same table is the witness that the insert was decoded and handed on.
    await start(witness, { "snapshot.mode": "no_data", "table.include.list": "public.m_only" });
    pg.psql("INSERT INTO m_only VALUES (3, 'three')");
    await eventsUntil(`${witness}.public.m_only`, "c:3");
    // The negative check relies on two things: the witness got the insert (it was in the WAL and
    // decodable), and initial_only holds no replication slot at all (as Debezium, which sets up
    // neither slot nor publication when it will not stream), so it has no way to receive the
    // insert, now or later. A slot that nobody reads would also keep the server's WAL forever.
    expect(slotCount(name)).toBe("0");
    expect(pg.psql(`SELECT count(*) FROM pg_publication WHERE pubname = '${name}_pub'`)).toBe("0");
    expect(summary(await events(`${name}.public.m_only`))).toEqual(["r:1", "r:2"]);
    const status = (await api().get(`/connectors/${name}/status`)).body;
    expect(status.tasks[0].state).toBe("RUNNING");
  });

  test("snapshot.mode always: a restarted connector takes the snapshot again", async () => {
    const name = nameOf("always");
    const topic = `${name}.public.m_always`;
    pg.psql(
      "CREATE TABLE m_always (id int PRIMARY KEY, name text); INSERT INTO m_always VALUES (1, 'one'), (2, 'two')",
    );
    await start(name, { "snapshot.mode": "always", "table.include.list": "public.m_always" });
    await eventsUntil(topic, "r:2");
    pg.psql("INSERT INTO m_always VALUES (3, 'three')");
    await eventsUntil(topic, "c:3");
    const restarted = await api().post(`/connectors/${name}/restart?includeTasks=true`);
    expect(restarted.status).toBeLessThan(300);
    await eventsUntil(topic, "r:3");
    pg.psql("INSERT INTO m_always VALUES (4, 'four')");
    const all = await eventsUntil(topic, "c:4");
    // Snapshot again (with the row streamed in between), then streaming from the new snapshot on: nothing twice.
    expect(summary(all)).toEqual(["r:1", "r:2", "c:3", "r:1", "r:2", "r:3", "c:4"]);
    expect(all[3]!.value!.payload.source.snapshot).toBe("first");
  });

  test("snapshot.fetch.size: the snapshot's markers are Debezium's across fetches and tables, also when a table ends on a full fetch", async () => {
    const name = nameOf("fetch_size");
    const schema = `fetch_${run}`;
    // Fetches of 2 rows: a has 4 (its last fetch is full, the next one empty), b has 3.
    pg.psql(
      `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.a (id int PRIMARY KEY); CREATE TABLE ${schema}.b (id int PRIMARY KEY);
       INSERT INTO ${schema}.a SELECT generate_series(1, 4); INSERT INTO ${schema}.b SELECT generate_series(1, 3)`,
    );
    await start(name, { "schema.include.list": schema, "snapshot.fetch.size": "2", "max.batch.size": "3" });
    const markers = async (table: string, last: string) =>
      (await eventsUntil(`${name}.${schema}.${table}`, last)).map((e) => e.value!.payload.source.snapshot);
    expect(await markers("a", "r:4")).toEqual(["first", "true", "true", "last_in_data_collection"]);
    expect(await markers("b", "r:3")).toEqual(["first_in_data_collection", "true", "last"]);
  });

  test("snapshot.max.threads: tables read at once in one snapshot; each table whole and in order, one first and one last of all", async () => {
    const name = nameOf("threads");
    const schema = `threads_${run}`;
    const tables = ["t1", "t2", "t3"];
    pg.psql(
      [`CREATE SCHEMA ${schema}`]
        .concat(
          tables.map(
            (t) =>
              `CREATE TABLE ${schema}.${t} (id int PRIMARY KEY); INSERT INTO ${schema}.${t} SELECT generate_series(1, 5)`,
          ),
        )
        .join("; "),
    );
    const notes = `${name}_notes`;
    await start(name, {
      "schema.include.list": schema,
      "snapshot.max.threads": "3",
      "snapshot.fetch.size": "2",
      "max.batch.size": "2",
      "notification.enabled.channels": "sink",
      "notification.sink.topic.name": notes,
    });
    const markers: string[] = [];
    for (const t of tables) {
      const all = await eventsUntil(`${name}.${schema}.${t}`, "r:5");
      expect(summary(all)).toEqual(["r:1", "r:2", "r:3", "r:4", "r:5"]);
      const marks = all.map((e) => e.value!.payload.source.snapshot as string);
      expect(["first", "first_in_data_collection"]).toContain(marks[0]!);
      expect(marks.slice(1, 4)).toEqual(["true", "true", "true"]);
      expect(["last", "last_in_data_collection"]).toContain(marks[4]!);
      markers.push(...marks);
    }
    expect(markers.filter((m) => m === "first")).toHaveLength(1);
    expect(markers.filter((m) => m === "last")).toHaveLength(1);
    // Read at once: each of the three readers starts its table before any table is done.
    const types = await waitFor("the snapshot's notifications", async () => {
      const all = (await events(notes)).map((e) => (e.value!.payload as unknown as { type: string }).type);
      return all.at(-1) === "COMPLETED" ? all : undefined;
    });
    expect(types.slice(0, 5)).toEqual([
      "STARTED",
      "DATA_COLLECTIONS_RESOLVED",
      "IN_PROGRESS",
      "IN_PROGRESS",
      "IN_PROGRESS",
    ]);
    expect(types.filter((t) => t === "TABLE_SCAN_COMPLETED")).toHaveLength(3);
  });

  // In a schema of its own per case, `<schema>.items` matches items only, not items_archive: the
  // patterns are anchored. The left-out table would come second in the snapshot (name order), and its
  // insert comes first in the WAL, before the captured table's insert that is the marker.
  test.each([
    ["include", (schema: string) => ({ "table.include.list": `${schema}.items` }), "items", "items_archive"],
    [
      "exclude",
      (schema: string) => ({ "schema.include.list": schema, "table.exclude.list": `${schema}.items` }),
      "items_archive",
      "items",
    ],
  ] as const)("table.%s.list", async (kind, settings, captured, left) => {
    const name = nameOf(`table_${kind}`);
    const schema = `inv_${kind}`;
    pg.psql(
      `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id int PRIMARY KEY); CREATE TABLE ${schema}.items_archive (id int PRIMARY KEY)`,
    );
    pg.psql(`INSERT INTO ${schema}.items VALUES (1); INSERT INTO ${schema}.items_archive VALUES (1)`);
    await start(name, settings(schema));
    await eventsUntil(`${name}.${schema}.${captured}`, "r:1");
    pg.psql(`INSERT INTO ${schema}.${left} VALUES (2); INSERT INTO ${schema}.${captured} VALUES (2)`);
    expect(summary(await eventsUntil(`${name}.${schema}.${captured}`, "c:2"))).toEqual(["r:1", "c:2"]);
    expect(await worker.connect.broker.describeTopic(`${name}.${schema}.${left}`)).toBeUndefined();
  });

  // `<table>.secret` leaves secret_hint in: the patterns are anchored.
  test.each([
    ["include", (table: string) => ({ "column.include.list": `public\\.${table}\\.(id|name)` }), ["id", "name"]],
    [
      "exclude",
      (table: string) => ({ "column.exclude.list": `public.${table}.secret` }),
      ["id", "name", "secret_hint"],
    ],
  ] as const)("column.%s.list", async (kind, settings, columns) => {
    const name = nameOf(`column_${kind}`);
    const table = `cols_${kind}`;
    const topic = `${name}.public.${table}`;
    pg.psql(
      `CREATE TABLE ${table} (id int PRIMARY KEY, name text, secret text, secret_hint text); INSERT INTO ${table} VALUES (1, 'one', 's1', 'h1')`,
    );
    await start(name, { "table.include.list": `public.${table}`, ...settings(table) });
    await eventsUntil(topic, "r:1");
    pg.psql(`INSERT INTO ${table} VALUES (2, 'two', 's2', 'h2')`);
    const all = await eventsUntil(topic, "c:2");
    expect(summary(all)).toEqual(["r:1", "c:2"]);
    // Both paths: the snapshot (columns from the catalog) and streaming (from the Relation message).
    for (const event of all) {
      expect(Object.keys(event.value!.payload.after!)).toEqual([...columns]);
      expect(afterFields(event).map((f) => f.field)).toEqual([...columns]);
    }
    expect(all[1]!.value!.payload.after).toMatchObject({ id: 2, name: "two" });
  });

  test("a key column left out by column.exclude.list stays in the key, as Debezium keeps it", async () => {
    const name = nameOf("column_key");
    const topic = `${name}.public.cols_key`;
    pg.psql("CREATE TABLE cols_key (id int PRIMARY KEY, name text); INSERT INTO cols_key VALUES (1, 'one')");
    await start(name, { "table.include.list": "public.cols_key", "column.exclude.list": "public.cols_key.id" });
    pg.psql("INSERT INTO cols_key VALUES (2, 'two')");
    const all = await waitFor("the snapshot row and the insert", async () => {
      const got = await events(topic).catch(() => []);
      return got.length >= 2 ? got : undefined;
    });
    expect(all.map((e) => [e.value!.payload.op, e.key!.payload, e.value!.payload.after])).toEqual([
      ["r", { id: 1 }, { name: "one" }],
      ["c", { id: 2 }, { name: "two" }],
    ]);
    expect(afterFields(all[1]!).map((f) => f.field)).toEqual(["name"]);
  });

  describe("publication.autocreate.mode", () => {
    const publicationTables = (publication: string) =>
      pg.psql(
        `SELECT string_agg(schemaname || '.' || tablename, ',' ORDER BY tablename) FROM pg_publication_tables WHERE pubname = '${publication}'`,
      );
    beforeAll(() => {
      for (const table of ["pub_a", "pub_b", "pub_all", "pub_c", "pub_none"])
        pg.psql(`CREATE TABLE ${table} (id int PRIMARY KEY); INSERT INTO ${table} VALUES (1)`);
    });

    test("disabled: a missing publication fails the task; an existing one is used as it is", async () => {
      const missing = nameOf("pub_missing");
      await create(
        missing,
        configOf(missing, {
          "publication.autocreate.mode": "disabled",
          "publication.name": `${missing}_pub`,
          "table.include.list": "public.pub_a",
        }),
      );
      const task = await waitFor("the task FAILED", async () => {
        const status = (await api().get(`/connectors/${missing}/status`)).body;
        return status?.tasks?.[0]?.state === "FAILED" ? status.tasks[0] : undefined;
      });
      expect(task.trace).toContain(`Publication '${missing}_pub' does not exist`);
      expect(slotCount(missing)).toBe("0");

      const name = nameOf("pub_disabled");
      const publication = `${name}_pub`;
      pg.psql(`CREATE PUBLICATION ${publication} FOR TABLE pub_a`);
      // The filters take both tables, the test's publication only pub_a.
      await start(name, {
        "publication.autocreate.mode": "disabled",
        "publication.name": publication,
        "snapshot.mode": "no_data",
        "table.include.list": "public\\.pub_.*",
      });
      pg.psql("INSERT INTO pub_b VALUES (10); INSERT INTO pub_a VALUES (10)");
      expect(summary(await eventsUntil(`${name}.public.pub_a`, "c:10"))).toEqual(["c:10"]);
      // pgoutput sent only what the publication holds (pub_b's earlier insert is not there), and the
      // connector did not change the publication.
      expect(await worker.connect.broker.describeTopic(`${name}.public.pub_b`)).toBeUndefined();
      expect(publicationTables(publication)).toBe("public.pub_a");
    });

    test("all_tables: the connector creates the publication FOR ALL TABLES", async () => {
      const name = nameOf("pub_all");
      const publication = `${name}_pub`;
      await start(name, {
        "publication.autocreate.mode": "all_tables",
        "publication.name": publication,
        "table.include.list": "public.pub_all",
      });
      expect(pg.psql(`SELECT puballtables FROM pg_publication WHERE pubname = '${publication}'`)).toBe("t");
      pg.psql("INSERT INTO pub_all VALUES (20)");
      expect(summary(await eventsUntil(`${name}.public.pub_all`, "c:20"))).toEqual(["r:1", "c:20"]);
    });

    test("filtered: the connector creates the publication for the captured tables only", async () => {
      const name = nameOf("pub_filtered");
      const publication = `${name}_pub`;
      await start(name, {
        "publication.autocreate.mode": "filtered",
        "publication.name": publication,
        "table.include.list": "public.pub_c",
      });
      expect(pg.psql(`SELECT puballtables FROM pg_publication WHERE pubname = '${publication}'`)).toBe("f");
      expect(publicationTables(publication)).toBe("public.pub_c");
      pg.psql("INSERT INTO pub_c VALUES (30)");
      expect(summary(await eventsUntil(`${name}.public.pub_c`, "c:30"))).toEqual(["r:1", "c:30"]);
    });

    test("no_tables: the connector creates an empty publication; a table added to it by hand then streams", async () => {
      const name = nameOf("pub_none");
      const publication = `${name}_pub`;
      const topic = `${name}.public.pub_none`;
      await start(name, {
        "publication.autocreate.mode": "no_tables",
        "publication.name": publication,
        "table.include.list": "public.pub_none",
      });
      expect(pg.psql(`SELECT puballtables FROM pg_publication WHERE pubname = '${publication}'`)).toBe("f");
      expect(publicationTables(publication)).toBe("");
      await eventsUntil(topic, "r:1"); // the snapshot does not depend on the publication
      pg.psql(`ALTER PUBLICATION ${publication} ADD TABLE pub_none`);
      pg.psql("INSERT INTO pub_none VALUES (40)");
      expect(summary(await eventsUntil(topic, "c:40"))).toEqual(["r:1", "c:40"]);
    });
  });

  test("slot.drop.on.stop: deleting the connector drops its slot", async () => {
    const name = nameOf("drop_slot");
    pg.psql("CREATE TABLE drop_slot (id int PRIMARY KEY)");
    await start(name, { "slot.drop.on.stop": "true", "table.include.list": "public.drop_slot" });
    expect(slotCount(name)).toBe("1");
    expect((await api().delete(`/connectors/${name}`)).status).toBe(204);
    started.splice(started.indexOf(name), 1);
    await waitFor("the slot dropped by the stopping task", () => slotCount(name) === "0" || undefined);
  });

  test("tombstones.on.delete=false: a delete is not followed by a tombstone", async () => {
    const name = nameOf("no_tombstones");
    const topic = `${name}.public.tomb`;
    pg.psql("CREATE TABLE tomb (id int PRIMARY KEY); INSERT INTO tomb VALUES (1)");
    await start(name, { "tombstones.on.delete": "false", "table.include.list": "public.tomb" });
    await eventsUntil(topic, "r:1");
    // The insert after the delete is the marker: a tombstone would sit between the two.
    pg.psql("DELETE FROM tomb WHERE id = 1");
    pg.psql("INSERT INTO tomb VALUES (2)");
    const all = await eventsUntil(topic, "c:2");
    expect(summary(all)).toEqual(["r:1", "d:1", "c:2"]);
    expect(all[1]!.key!.payload).toEqual({ id: 1 });
    expect(all.every((e) => e.value !== null)).toBe(true);
  });

  test.each([
    ["string", "12.50", "0.10"],
    ["double", 12.5, 0.1],
  ] as const)("decimal.handling.mode=%s: numeric(10,2) in JSON", async (mode, snapshotValue, streamedValue) => {
    const name = nameOf(`decimal_${mode}`);
    const table = `dec_${mode}`;
    pg.psql(`CREATE TABLE ${table} (id int PRIMARY KEY, price numeric(10,2)); INSERT INTO ${table} VALUES (1, 12.50)`);
    await start(name, { "decimal.handling.mode": mode, "table.include.list": `public.${table}` });
    await eventsUntil(`${name}.public.${table}`, "r:1");
    pg.psql(`INSERT INTO ${table} VALUES (2, 0.10)`);
    const [snapshot, insert] = await eventsUntil(`${name}.public.${table}`, "c:2");
    expect(snapshot!.value!.payload.after).toEqual({ id: 1, price: snapshotValue });
    expect(insert!.value!.payload.after).toEqual({ id: 2, price: streamedValue });
    // The Connect type: string, or float64 (JsonConverter's "double").
    expect(afterFields(insert!).find((f) => f.field === "price")!.type).toBe(mode);
  });

  test("heartbeat.interval.ms: heartbeats arrive on __debezium-heartbeat.<prefix> while the table is quiet", async () => {
    const name = nameOf("heartbeat");
    pg.psql("CREATE TABLE quiet (id int PRIMARY KEY)");
    await start(name, { "heartbeat.interval.ms": "200", "table.include.list": "public.quiet" });
    const beats = await waitFor(
      "two heartbeats",
      async () => {
        const all = await events(`__debezium-heartbeat.${name}`);
        return all.length >= 2 ? all : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    for (const beat of beats) {
      expect(beat.key!.payload).toEqual({ serverName: name });
      expect(typeof (beat.value!.payload as unknown as { ts_ms: unknown }).ts_ms).toBe("number");
      expect(beat.value!.schema.name).toBe("io.debezium.connector.common.Heartbeat");
    }
  });

  test("database.server.name in place of topic.prefix names the topics", async () => {
    const name = nameOf("server_name");
    pg.psql("CREATE TABLE legacy (id int PRIMARY KEY); INSERT INTO legacy VALUES (1)");
    const { "topic.prefix": _, ...config } = configOf(name, {
      "database.server.name": name,
      "table.include.list": "public.legacy",
    });
    await start(name, {}, config);
    const [event] = await eventsUntil(`${name}.public.legacy`, "r:1");
    expect(event!.value!.schema.name).toBe(`${name}.public.legacy.Envelope`);
    expect(event!.value!.payload.source.name).toBe(name);
  });
});
