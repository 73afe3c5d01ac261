// PostgreSQL going away under a running CDC task, as Debezium's task handles it: the task logs the loss,
// stays RUNNING and reconnects after retriable.restart.connector.wait.ms, resuming from the committed
// offset — every change, made before or after the outage, reaches Kafka. With errors.max.retries=0 the
// loss fails the task instead, with the reason in its trace.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { captureLogs } from "../../fixtures/logs.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

describe("PostgreSQL CDC connector when PostgreSQL goes away", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  const run = Date.now().toString(36);
  const json = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
  };
  const api = () => connectClient(worker.url);

  const create = async (name: string, table: string, extra: Record<string, string>) => {
    const created = await api().post("/connectors", {
      name,
      config: {
        "connector.class": "PostgresCdc",
        ...cdcConnection(pg),
        "topic.prefix": name,
        "slot.name": name,
        "table.include.list": `public.${table}`,
        "retriable.restart.connector.wait.ms": "300",
        ...extra,
      },
    });
    expect(created.status).toBe(201);
    await api().waitForState(name, "RUNNING", 1);
  };
  /** The ids of the topic's change events, in order, once `id` is among them. */
  const idsUntil = (topic: string, id: number) =>
    waitFor(
      `id ${id} on ${topic}`,
      async () => {
        const fetched = await worker.connect.broker.fetch(topic, 0, 0, { maxBytes: 16 * 1024 * 1024 }).catch(() => []);
        const ids = fetched.flatMap((r) =>
          r.value === null ? [] : [JSON.parse(Buffer.from(r.value).toString("utf8")).payload.after.id as number],
        );
        return ids.includes(id) ? ids : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  const taskStatus = async (name: string) =>
    (await api().get(`/connectors/${name}/status`)).body.tasks[0] as { state: string; trace?: string };

  beforeAll(async () => {
    pg = await startPostgres();
    // Tasks on this thread: the test reads the task's log lines through captureLogs (a spy of this thread).
    worker = await startTestConnect("kafka", { ...json, "task.threads": "0" });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await pg?.stop();
  }, 60_000);

  test("the task reconnects when the server is back and no change is lost", async () => {
    const name = `o${run}_back`;
    pg.psql("CREATE TABLE back (id int PRIMARY KEY)");
    pg.psql("INSERT INTO back VALUES (1)");
    await create(name, "back", {});
    const topic = `${name}.public.back`;
    await idsUntil(topic, 1);
    pg.psql("INSERT INTO back VALUES (2)");
    await idsUntil(topic, 2);

    const logs = captureLogs();
    try {
      await pg.halt();
      // The loss is logged by the worker (the task's poll failed with a RetriableException) ...
      await waitFor(
        "the lost connection in the log",
        () => /Lost the connection to PostgreSQL/.test(logs.text()) || undefined,
        { timeoutMs: 30_000 },
      );
      // ... and the task is not failed: it goes on trying.
      expect((await taskStatus(name)).state).toBe("RUNNING");
      await pg.start();
      await waitFor("the reconnection in the log", () => /reconnected to PostgreSQL/.test(logs.text()) || undefined, {
        timeoutMs: 30_000,
      });
    } finally {
      logs.stop();
    }
    pg.psql("INSERT INTO back VALUES (3)");
    pg.psql("BEGIN; INSERT INTO back VALUES (4); INSERT INTO back VALUES (5); COMMIT");
    const ids = await idsUntil(topic, 5);
    // At least once: the changes after the last committed offset may come twice, none is missing, and
    // the changes come in commit order.
    expect(new Set(ids)).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(ids.slice(-3)).toEqual([3, 4, 5]);
    expect((await taskStatus(name)).state).toBe("RUNNING");
  });

  test("with errors.max.retries=0 the lost connection fails the task, saying why", async () => {
    const name = `o${run}_fail`;
    pg.psql("CREATE TABLE fail (id int PRIMARY KEY)");
    pg.psql("INSERT INTO fail VALUES (1)");
    await create(name, "fail", { "errors.max.retries": "0" });
    await idsUntil(`${name}.public.fail`, 1);
    await pg.halt();
    try {
      const failed = await waitFor("the task to fail", async () => {
        const status = await taskStatus(name);
        return status.state === "FAILED" ? status : undefined;
      });
      expect(failed.trace).toContain(
        "Lost the connection to PostgreSQL and gave up after 0 reconnection attempt(s) (errors.max.retries)",
      );
    } finally {
      await pg.start();
    }
  });
});
