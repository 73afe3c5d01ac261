// The errant record reporter (KIP-610) through the JDBC sink, on a worker over real Kafka into a real
// PostgreSQL: a row the database refuses does not fail the batch when errors.tolerance is all (it goes
// to the dead letter queue, as read, with Kafka's error headers); with tolerance none it is reported and
// then fails the task, as Kafka Connect's executeFailed does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decoder, encoder, type RecordHeader } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

const FIELDS = [
  { field: "id", type: "int32", optional: false },
  { field: "qty", type: "int32", optional: false },
];
const row = (id: number, qty: number) =>
  encoder.encode(JSON.stringify({ schema: { type: "struct", optional: false, fields: FIELDS }, payload: { id, qty } }));

describe("errant record reporter in the JDBC sink", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;

  beforeAll(async () => {
    pg = await startPostgres();
    worker = await startTestConnect("kafka");
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await pg?.stop();
  });

  /** A table whose CHECK refuses a negative qty, and a topic of `count` rows of which the one at `bad` breaks it. */
  async function setUp(name: string, count: number, bad: number) {
    const topic = `${name}_${Date.now()}`;
    pg.psql(`CREATE TABLE "${topic}" (id int PRIMARY KEY, qty int NOT NULL CHECK (qty >= 0))`);
    const broker = worker.connect.broker;
    await broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    await broker.produce(
      topic,
      Array.from({ length: count }, (_, i) => ({ key: null, value: row(i, i === bad ? -1 : i), partition: 0 })),
    );
    const config = (extra: Record<string, string>) => ({
      "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
      topics: topic,
      "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/postgres`,
      "connection.user": pg.user,
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      "insert.mode": "insert",
      "max.retries": "0",
      "errors.deadletterqueue.topic.name": `${topic}_dlq`,
      "errors.deadletterqueue.topic.replication.factor": "1",
      "errors.deadletterqueue.context.headers.enable": "true",
      ...extra,
    });
    return { topic, dlq: `${topic}_dlq`, config };
  }

  const header = (headers: readonly RecordHeader[], name: string) => {
    const value = headers.find((h) => h.key === `__connect.errors.${name}`)?.value;
    return value && decoder.decode(value);
  };

  test("tolerance all: 1 bad row of 1,000 → 999 rows and one DLQ record with the error headers", async () => {
    const { topic, dlq, config } = await setUp("errant_all", 1000, 417);
    const connector = `jdbc-${topic}`;
    expect(
      (await api.post("/connectors", { name: connector, config: config({ "errors.tolerance": "all" }) })).status,
    ).toBe(201);
    const broker = worker.connect.broker;
    await waitFor("every offset committed", async () => {
      const committed = (await broker.committedOffsets(`connect-${connector}`, topic)).get(0);
      return committed === 1000 || undefined;
    });
    expect(pg.psql(`SELECT count(*), sum(qty) FROM "${topic}"`).trim()).toBe(`999|${(999 * 1000) / 2 - 417}`);
    expect(pg.psql(`SELECT count(*) FROM "${topic}" WHERE id = 417`).trim()).toBe("0");

    const dead = await broker.fetch(dlq, 0, 0);
    expect(dead).toHaveLength(1);
    const [record] = dead;
    // The record as it was read from the topic, byte for byte.
    expect(decoder.decode(record!.value!)).toBe(decoder.decode(row(417, -1)));
    const h = record!.headers;
    expect(header(h, "topic")).toBe(topic);
    expect(header(h, "partition")).toBe("0");
    expect(header(h, "offset")).toBe("417");
    expect(header(h, "connector.name")).toBe(connector);
    expect(header(h, "stage")).toBe("TASK_PUT");
    expect(header(h, "class.name")).toBe("org.apache.kafka.connect.sink.SinkTask");
    expect(header(h, "exception.class.name")).toBe("java.sql.SQLException");
    expect(header(h, "exception.message")).toContain("check constraint");
    expect((await api.get(`/connectors/${connector}/status`)).body.tasks[0].state).toBe("RUNNING");
    await api.delete(`/connectors/${connector}`);
  });

  test("tolerance none: the bad row is reported, then the task fails and commits nothing of the batch", async () => {
    const { topic, dlq, config } = await setUp("errant_none", 20, 7);
    const connector = `jdbc-${topic}`;
    await api.post("/connectors", { name: connector, config: config({ "errors.tolerance": "none" }) });
    const status = await waitFor("the task to fail", async () => {
      const s = (await api.get(`/connectors/${connector}/status`)).body;
      return s?.tasks?.[0]?.state === "FAILED" ? s : undefined;
    });
    expect(status.tasks[0].trace).toContain("Tolerance exceeded in error handler");
    const dead = await worker.connect.broker.fetch(dlq, 0, 0);
    expect(dead.map((r) => header(r.headers, "offset"))).toEqual(["7"]);
    const committed = (await worker.connect.broker.committedOffsets(`connect-${connector}`, topic)).get(0) ?? 0;
    expect(committed).toBeLessThanOrEqual(7);
    await api.delete(`/connectors/${connector}`);
  });
});
