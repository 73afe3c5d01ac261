// The JDBC sink end to end on a standalone worker over real Kafka, into a real PostgreSQL and a real
// MariaDB: JSON-with-schema records produced by the test become rows (insert, upsert of the same key,
// delete on tombstone, auto.create, auto.evolve), offsets are committed only for rows already visible,
// and a schema change it cannot apply fails the task with a clear message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encoder } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { captureLogs } from "../../fixtures/logs.ts";
import { startMariaDb, type MariaDbServer } from "../../fixtures/mariadb.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

interface Target {
  name: string;
  url(): string;
  user(): string;
  /** Rows of a query, each as its columns' text (NULL as "NULL"). */
  rows(sql: string): string[][];
  /** The server: halt() kills it keeping its data, start() brings it back. */
  server(): { halt(): Promise<void>; start(): Promise<void> };
}

type FieldSpec = { field: string; type: string; optional: boolean };
const ID: FieldSpec = { field: "id", type: "int32", optional: false };
const NAME: FieldSpec = { field: "name", type: "string", optional: false };
const QTY: FieldSpec = { field: "qty", type: "int32", optional: true };
const COLOR: FieldSpec = { field: "color", type: "string", optional: true };

function struct(fields: FieldSpec[], payload: Record<string, unknown>): Uint8Array {
  return encoder.encode(JSON.stringify({ schema: { type: "struct", optional: false, fields }, payload }));
}
const key = (id: number) => struct([ID], { id });

describe("JDBC sink into PostgreSQL and MariaDB", () => {
  let pg: PostgresServer;
  let maria: MariaDbServer;
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;

  beforeAll(async () => {
    [pg, maria] = await Promise.all([startPostgres(), startMariaDb()]);
    // Tasks on this thread: the test reads the task's log lines through captureLogs (a spy of this thread).
    worker = await startTestConnect("kafka", { "task.threads": "0" });
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await Promise.all([pg?.stop(), maria?.stop()]);
  });

  const targets: Target[] = [
    {
      name: "postgresql",
      url: () => `jdbc:postgresql://127.0.0.1:${pg.port}/postgres`,
      user: () => pg.user,
      rows: (sql) =>
        pg
          .psql(sql)
          .split("\n")
          .filter(Boolean)
          .map((line) => line.split("|").map((v) => (v === "" ? "NULL" : v))),
      server: () => pg,
    },
    {
      name: "mariadb",
      url: () => `jdbc:mariadb://127.0.0.1:${maria.port}/${maria.database}`,
      user: () => maria.user,
      rows: (sql) =>
        maria
          .query(sql.replaceAll('"', "`"))
          .split("\n")
          .filter(Boolean)
          .map((line) => line.split("\t")),
      server: () => maria,
    },
  ];

  const sinkConfig = (target: Target, topic: string, extra: Record<string, string> = {}) => ({
    "connector.class": "JdbcSink",
    topics: topic,
    "connection.url": target.url(),
    "connection.user": target.user(),
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "insert.mode": "upsert",
    "pk.mode": "record_key",
    "delete.enabled": "true",
    "auto.create": "true",
    "auto.evolve": "true",
    ...extra,
  });

  async function newTopic(name: string): Promise<string> {
    const topic = `${name}_${Date.now()}`;
    await worker.connect.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    return topic;
  }

  test.each(targets.map((t) => [t.name, t] as const))(
    "%s: insert, upsert, delete, auto.create, auto.evolve; offsets follow the rows",
    async (_, target) => {
      const topic = await newTopic(`jdbc_${target.name}`);
      const connector = `jdbc-${topic}`;
      const broker = worker.connect.broker;
      const count = 200;
      const logs = captureLogs();
      await broker.produce(
        topic,
        Array.from({ length: count }, (_, i) => ({
          key: key(i),
          value: struct([ID, NAME, QTY], { id: i, name: `item ${i}`, qty: i % 3 === 0 ? null : i }),
          partition: 0,
        })),
      );
      expect((await api.post("/connectors", { name: connector, config: sinkConfig(target, topic) })).status).toBe(201);

      // Every committed offset must already be a visible row: read the offset first, then the rows.
      const countRows = () => Number(target.rows(`SELECT COUNT(*) FROM "${topic}"`)[0]?.[0] ?? 0);
      await waitFor(`${count} rows with their offsets committed`, async () => {
        const committed = (await broker.committedOffsets(`connect-${connector}`, topic)).get(0) ?? 0;
        let rows = 0;
        try {
          rows = countRows();
        } catch {
          // the table is not created yet
        }
        expect(rows).toBeGreaterThanOrEqual(committed);
        return committed === count || undefined;
      });
      expect(target.rows(`SELECT id, name, qty FROM "${topic}" WHERE id IN (1, 3) ORDER BY id`)).toEqual([
        ["1", "item 1", "1"],
        ["3", "item 3", "NULL"],
      ]);

      // Upsert of an existing key, a tombstone, and a record with a new optional field (auto.evolve).
      await broker.produce(topic, [
        { key: key(1), value: struct([ID, NAME, QTY], { id: 1, name: "renamed", qty: 10 }), partition: 0 },
        { key: key(2), value: null, partition: 0 },
        {
          key: key(500),
          value: struct([ID, NAME, QTY, COLOR], { id: 500, name: "new", qty: 5, color: "red" }),
          partition: 0,
        },
      ]);
      await waitFor("the upsert, the delete and the evolved row", () => {
        try {
          return target.rows(`SELECT COUNT(*) FROM "${topic}" WHERE id = 500`)[0]?.[0] === "1" || undefined;
        } catch {
          return undefined;
        }
      });
      expect(target.rows(`SELECT id, name, qty, color FROM "${topic}" WHERE id IN (1, 2, 4, 500) ORDER BY id`)).toEqual(
        [
          ["1", "renamed", "10", "NULL"],
          ["4", "item 4", "4", "NULL"],
          ["500", "new", "5", "red"],
        ],
      );
      expect(countRows()).toBe(count);
      await waitFor(
        "all offsets committed",
        async () => (await broker.committedOffsets(`connect-${connector}`, topic)).get(0) === count + 3 || undefined,
      );
      expect((await api.delete(`/connectors/${connector}`)).status).toBe(204);
      // The DDL auto.create and auto.evolve ran is in the log at INFO, statement and all.
      const ddl = logs
        .text()
        .split("\n")
        .filter((l) => l.includes('"logger":"jdbc-sink"') && l.includes("ran DDL") && l.includes(topic));
      logs.stop();
      expect(ddl.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(["info", "info"]);
      expect(ddl[0]).toContain("ran DDL: CREATE TABLE");
      expect(ddl[1]).toContain("ran DDL: ALTER TABLE");
      expect(ddl[1]).toContain("color");
    },
  );

  test.each(targets.map((t) => [t.name, t] as const))(
    "%s: a required field without a default cannot be added, and the task says so",
    async (_, target) => {
      const topic = await newTopic(`jdbc_fail_${target.name}`);
      const connector = `jdbc-${topic}`;
      await worker.connect.broker.produce(topic, [
        { key: key(1), value: struct([ID, NAME], { id: 1, name: "a" }), partition: 0 },
        {
          key: key(2),
          value: struct([ID, NAME, { field: "sku", type: "string", optional: false }], { id: 2, name: "b", sku: "x" }),
          partition: 0,
        },
      ]);
      await api.post("/connectors", { name: connector, config: sinkConfig(target, topic) });
      const status = await waitFor("the task to fail", async () => {
        const s = (await api.get(`/connectors/${connector}/status`)).body;
        return s?.tasks?.[0]?.state === "FAILED" ? s : undefined;
      });
      expect(status.tasks[0].trace).toContain(
        `Cannot ALTER TABLE ${topic} to add missing field sku, as it is not optional and does not have a default value`,
      );
      // Nothing from the failed put was committed: the first row arrived in an earlier put or not at all.
      expect(Number(target.rows(`SELECT COUNT(*) FROM "${topic}" WHERE id = 2`)[0]?.[0])).toBe(0);
      expect((await api.delete(`/connectors/${connector}`)).status).toBe(204);
    },
  );

  test("TLS the server does not offer: Connector/J's default PREFERRED and pgjdbc's prefer go on in plain text; modes that require it refuse", async () => {
    const validate = async (url: string, user: string) => {
      const config = {
        name: "tls-check",
        "connector.class": "JdbcSink",
        topics: "tls-check",
        "connection.url": url,
        "connection.user": user,
      };
      const r = await api.put("/connector-plugins/JdbcSinkConnector/config/validate", config);
      return (r.body as { configs: { value: { name: string; errors: string[] } }[] }).configs.find(
        (c) => c.value.name === "connection.url",
      )!.value.errors;
    };
    expect(await validate(`jdbc:mysql://127.0.0.1:${maria.port}/${maria.database}`, maria.user)).toEqual([]);
    expect(await validate(`jdbc:postgresql://127.0.0.1:${pg.port}/postgres`, pg.user)).toEqual([]);
    expect(
      (await validate(`jdbc:mysql://127.0.0.1:${maria.port}/${maria.database}?sslMode=REQUIRED`, maria.user))[0],
    ).toContain("sslMode=REQUIRED: the server does not accept TLS connections");
    expect(
      (await validate(`jdbc:mariadb://127.0.0.1:${maria.port}/${maria.database}?sslMode=trust`, maria.user))[0],
    ).toContain("sslMode=trust: the server does not accept TLS connections");
    expect((await validate(`jdbc:postgresql://127.0.0.1:${pg.port}/postgres?sslmode=require`, pg.user))[0]).toContain(
      "sslmode=require: the server does not accept TLS connections",
    );
  });

  test.each(targets.map((t) => [t.name, t] as const))(
    "%s: the database going away: the batch is retried (logged) until it is back, nothing lost",
    async (_, target) => {
      const topic = await newTopic(`jdbc_outage_${target.name}`);
      const connector = `jdbc-${topic}`;
      const broker = worker.connect.broker;
      const records = (from: number, to: number) =>
        Array.from({ length: to - from }, (_, i) => ({
          key: key(from + i),
          value: struct([ID, NAME], { id: from + i, name: `row ${from + i}` }),
          partition: 0,
        }));
      const committed = async () => (await broker.committedOffsets(`connect-${connector}`, topic)).get(0) ?? 0;
      const config = sinkConfig(target, topic, { "retry.backoff.ms": "200", "max.retries": "300" });
      await broker.produce(topic, records(0, 50));
      expect((await api.post("/connectors", { name: connector, config })).status).toBe(201);
      await waitFor("the first 50 rows committed", async () => (await committed()) === 50 || undefined);

      const logs = captureLogs();
      try {
        await target.server().halt();
        await broker.produce(topic, records(50, 100));
        await waitFor(
          "a failed write in the log",
          () => /write failed; retrying the batch/.test(logs.text()) || undefined,
          { timeoutMs: 30_000 },
        );
        expect((await api.get(`/connectors/${connector}/status`)).body.tasks[0].state).toBe("RUNNING");
        expect(await committed()).toBe(50); // nothing written, nothing committed
        await target.server().start();
      } finally {
        logs.stop();
      }
      await waitFor("all 100 offsets committed", async () => (await committed()) === 100 || undefined, {
        timeoutMs: 60_000,
      });
      expect(target.rows(`SELECT COUNT(*), MIN(id), MAX(id) FROM "${topic}"`)).toEqual([["100", "0", "99"]]);
      expect((await api.get(`/connectors/${connector}/status`)).body.tasks[0].state).toBe("RUNNING");
      expect((await api.delete(`/connectors/${connector}`)).status).toBe(204);
    },
  );
});
