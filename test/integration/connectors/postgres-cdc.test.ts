// The PostgreSQL CDC connector end to end: a real PostgreSQL, a real Kafka broker and a standalone
// worker. Snapshot rows (op r), then inserts, updates, deletes (with tombstones) and truncates arrive
// as Debezium's JSON events; a column added later shows in later events; and changes made while the
// worker is down arrive after it starts again, none lost.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

interface Event {
  key: { payload: Record<string, unknown> } | null;
  value: { schema: { name: string; fields: { field: string }[] }; payload: Envelope } | null;
}
interface Envelope {
  op: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  source: Record<string, unknown>;
}

describe("PostgreSQL CDC connector on Kafka", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  const prefix = `pg${Date.now()}`;
  const topic = `${prefix}.public.items`;
  const json = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
  };

  const createConnector = async () => {
    const api = connectClient(worker.url);
    const created = await api.post("/connectors", {
      name: "pg",
      config: {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        ...cdcConnection(pg),
        "topic.prefix": prefix,
        "table.include.list": "public.items",
        "slot.name": "sluice_cdc",
        "publication.autocreate.mode": "filtered",
        "skipped.operations": "none",
        ...json,
      },
    });
    expect(created.status).toBe(201);
    await api.waitForState("pg", "RUNNING", 1);
  };

  const events = async (): Promise<Event[]> => {
    const fetched = await worker.connect.broker.fetch(topic, 0, 0, { maxBytes: 16 * 1024 * 1024 });
    const parse = (bytes: Uint8Array | null) =>
      bytes === null ? null : JSON.parse(Buffer.from(bytes).toString("utf8"));
    return fetched.map((r) => ({ key: parse(r.key), value: parse(r.value) }));
  };
  const eventsUntil = (what: string, count: number) =>
    waitFor(
      what,
      async () => {
        const all = await events().catch(() => []);
        return all.length >= count ? all : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

  beforeAll(async () => {
    pg = await startPostgres();
    pg.psql("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
    pg.psql(`CREATE TABLE items (
      id int PRIMARY KEY, name text NOT NULL, price numeric(10,2), qty smallint, big bigint, flag boolean,
      made timestamp(3), seen timestamptz, day date, doc jsonb, tags text[], feeling mood, uid uuid)`);
    pg.psql(`INSERT INTO items VALUES
      (1, 'one', 12.50, 3, 9007199254740993, true, '2024-05-06 07:08:09.123', '2024-05-06 07:08:09+02', '2024-05-06', '{"a": 1}', '{x,y}', 'happy', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
      (2, 'two', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
    worker = await startTestConnect("kafka", json);
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await pg?.stop();
  }, 60_000);

  test("snapshot rows arrive as op r with Debezium's source block", async () => {
    await createConnector();
    const [first, second] = await eventsUntil("two snapshot events", 2);
    expect(first!.key!.payload).toEqual({ id: 1 });
    expect(first!.value!.schema.name).toBe(`${topic}.Envelope`);
    const envelope = first!.value!.payload;
    expect(envelope.op).toBe("r");
    expect(envelope.before).toBeNull();
    expect(envelope.after).toEqual({
      id: 1,
      name: "one",
      price: Buffer.from([0x04, 0xe2]).toString("base64"), // 1250 unscaled, scale 2
      qty: 3,
      // biome-ignore lint/correctness/noPrecisionLoss: the value the row holds; JSON.parse reads it as this literal does.
      big: 9007199254740993,
      flag: true,
      made: 1714979289123,
      seen: "2024-05-06T05:08:09.000000Z",
      day: 19849,
      doc: '{"a": 1}',
      tags: ["x", "y"],
      feeling: "happy",
      uid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    });
    expect(envelope.source).toMatchObject({
      connector: "postgresql",
      name: prefix,
      db: "postgres",
      schema: "public",
      table: "items",
      snapshot: "first",
    });
    expect(typeof envelope.source.lsn).toBe("number");
    expect(second!.value!.payload.source.snapshot).toBe("last");
    expect(second!.value!.payload.after).toMatchObject({ id: 2, name: "two", price: null, tags: null });
  });

  test("insert, update, delete (with tombstone) and truncate stream in order", async () => {
    pg.psql("INSERT INTO items (id, name, qty) VALUES (3, 'three', 7)");
    pg.psql("UPDATE items SET name = 'THREE' WHERE id = 3");
    pg.psql("DELETE FROM items WHERE id = 1");
    pg.psql("TRUNCATE items");
    const all = await eventsUntil("c, u, d, tombstone, t", 7);
    const streamed = all.slice(2);
    expect(streamed.map((e) => e.value?.payload.op ?? "tombstone")).toEqual(["c", "u", "d", "tombstone", "t"]);
    const [insert, update, remove, tombstone, truncate] = streamed;
    expect(insert!.value!.payload.after).toMatchObject({ id: 3, name: "three", qty: 7 });
    expect(insert!.value!.payload.source).toMatchObject({
      connector: "postgresql",
      name: prefix,
      db: "postgres",
      schema: "public",
      table: "items",
      snapshot: "false",
    });
    expect(typeof insert!.value!.payload.source.txId).toBe("number");
    expect(update!.value!.payload.before).toBeNull(); // REPLICA IDENTITY DEFAULT and an unchanged key
    expect(update!.value!.payload.after).toMatchObject({ id: 3, name: "THREE" });
    expect(remove!.key!.payload).toEqual({ id: 1 });
    expect(remove!.value!.payload.before).toMatchObject({ id: 1 });
    expect(remove!.value!.payload.after).toBeNull();
    expect(tombstone!.key!.payload).toEqual({ id: 1 });
    expect(tombstone!.value).toBeNull();
    expect(truncate!.key).toBeNull();
    expect(truncate!.value!.payload.source).toMatchObject({ table: "items" });
  });

  test("a column added later shows in later events", async () => {
    pg.psql("ALTER TABLE items ADD COLUMN note text");
    pg.psql("INSERT INTO items (id, name, note) VALUES (4, 'four', 'added')");
    const all = await eventsUntil("the insert after ADD COLUMN", 8);
    const event = all[7]!.value!;
    expect(event.payload.after).toMatchObject({ id: 4, name: "four", note: "added" });
    expect(event.schema.fields.map((f) => f.field)).toContain("after");
  });

  test("changes made while the worker is down arrive after it starts again, none lost", async () => {
    const lastLsn = (await events())[7]!.value!.payload.source.lsn;
    const api = connectClient(worker.url);
    await waitFor(
      "the last event's offset committed",
      async () => (await api.get("/connectors/pg/offsets")).body.offsets[0]?.offset.lsn === lastLsn || undefined,
    );
    await worker.stop();
    pg.psql("INSERT INTO items (id, name) VALUES (5, 'five')");
    pg.psql(
      "BEGIN; INSERT INTO items (id, name) VALUES (6, 'six'); UPDATE items SET note = 'changed' WHERE id = 4; COMMIT",
    );
    pg.psql("DELETE FROM items WHERE id = 5");
    worker = await worker.restart();
    await createConnector();
    const all = await eventsUntil("the changes made while down", 13);
    const after = all
      .slice(8)
      .map((e) =>
        e.value === null
          ? "tombstone"
          : `${e.value.payload.op}:${(e.value.payload.after ?? e.value.payload.before)!.id}`,
      );
    expect(after).toEqual(["c:5", "c:6", "u:4", "d:5", "tombstone"]);
    expect(all[10]!.value!.payload.after).toMatchObject({ id: 4, note: "changed" });
    // Nothing twice (no snapshot again, no change repeated): the next change comes right after.
    pg.psql("INSERT INTO items (id, name) VALUES (7, 'seven')");
    const final = await eventsUntil("one more insert", 14);
    expect(final.length).toBe(14);
    expect(final[13]!.value!.payload.after).toMatchObject({ id: 7 });
  });
});
