// Long snapshots show progress: a 50,000-row table snapshotted with a short progress interval logs
// rows exported of the estimate (pg_class.reltuples) with rate, the table's and the snapshot's end and
// the start of streaming; the worker's /metrics carries Debezium's snapshot and streaming figures.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { captureLogs, logLines, type LogLine } from "../../fixtures/logs.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { scrape, valueOf } from "../../fixtures/prometheus.ts";
import { waitFor } from "../../fixtures/wait.ts";

const ROWS = 50_000;

describe("PostgreSQL CDC snapshot progress", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  let logs: ReturnType<typeof captureLogs>;
  const prefix = `progress${Date.now()}`;
  const json = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
  };
  const cdcLines = (): LogLine[] => logLines(logs.text()).filter((line) => line.logger === "postgres-cdc");
  const server = () => ({ context: "snapshot", server: prefix });

  beforeAll(async () => {
    pg = await startPostgres();
    pg.psql("CREATE TABLE bulk (id int PRIMARY KEY, payload text NOT NULL)");
    pg.psql(`INSERT INTO bulk SELECT i, repeat('x', 100) FROM generate_series(1, ${ROWS}) AS i`);
    pg.psql("ANALYZE bulk"); // the estimate comes from pg_class.reltuples, as Debezium's does
    // Tasks on this thread: the test reads the task's log lines through captureLogs (a spy of this thread).
    worker = await startTestConnect("kafka", { ...json, "task.threads": "0" });
    logs = captureLogs();
  }, 180_000);
  afterAll(async () => {
    logs?.stop();
    await worker?.stop();
    removeConnectDir(worker);
    await pg?.stop();
  }, 60_000);

  test("logs progress and completion, and /metrics shows Debezium's snapshot and streaming figures", async () => {
    const api = connectClient(worker.url);
    const created = await api.post("/connectors", {
      name: "progress",
      config: {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        ...cdcConnection(pg),
        "topic.prefix": prefix,
        "table.include.list": "public.bulk",
        "slot.name": "sluice_progress",
        "publication.autocreate.mode": "filtered",
        "snapshot.fetch.size": "1000",
        "max.batch.size": "500",
        "snapshot.progress.interval.ms": "1",
        ...json,
      },
    });
    expect(created.status).toBe(201);

    const streaming = await waitFor(
      "the streaming-started line",
      () => cdcLines().find((l) => l.msg.startsWith("streaming started")),
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    expect(streaming).toMatchObject({ slot: "sluice_progress" });
    expect(String(streaming.lsn)).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);

    const lines = cdcLines();
    const progress = lines.filter((l) => l.msg.startsWith("snapshot of public.bulk:"));
    expect(progress.length).toBeGreaterThan(0);
    const first = progress[0]!;
    expect(first).toMatchObject({ table: "public.bulk", estimate: ROWS });
    expect(first.rows as number).toBeGreaterThan(0);
    expect(first.rows as number).toBeLessThan(ROWS);
    expect(typeof first.rowsPerSecond).toBe("number");
    expect(first.msg).toMatch(/of ~50,000 rows \(\d+%\), [\d,]+ rows\/s/);
    expect(lines.find((l) => l.msg.startsWith("snapshot of public.bulk done"))).toMatchObject({
      table: "public.bulk",
      rows: ROWS,
      remainingTables: 0,
    });
    expect(lines.find((l) => l.msg.startsWith("snapshot completed"))).toMatchObject({ rows: ROWS, tables: 1 });

    const samples = await scrape(worker.url);
    expect(valueOf(samples, "debezium_metrics_rows_scanned", { ...server(), table: "public.bulk" })).toBe(ROWS);
    expect(valueOf(samples, "debezium_metrics_total_table_count", server())).toBe(1);
    expect(valueOf(samples, "debezium_metrics_remaining_table_count", server())).toBe(0);
    expect(valueOf(samples, "debezium_metrics_snapshot_running", server())).toBe(0);
    expect(valueOf(samples, "debezium_metrics_snapshot_completed", server())).toBe(1);
    expect(valueOf(samples, "debezium_metrics_snapshot_duration_in_seconds", server())).toBeGreaterThanOrEqual(0);

    const stream = { context: "streaming", server: prefix };
    const seenBefore = valueOf(samples, "debezium_metrics_total_number_of_events_seen", stream) ?? 0;
    pg.psql("INSERT INTO bulk VALUES (0, 'new')");
    await waitFor(
      "events seen to grow after an insert",
      async () =>
        (valueOf(await scrape(worker.url), "debezium_metrics_total_number_of_events_seen", stream) ?? 0) > seenBefore
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(
      valueOf(await scrape(worker.url), "debezium_metrics_milli_seconds_behind_source", stream),
    ).toBeGreaterThanOrEqual(0);
  }, 240_000);
});
