// An operator snapshots a 50,000-row PostgreSQL table with dist/sluice connect-distributed on Kafka, the
// worker started from a worker.properties file as the README's distributed mode shows and the CDC
// connector created through REST. While the snapshot runs the worker's output says, per table, how many
// rows of the estimate (pg_class.reltuples, so the table is ANALYZEd) are exported, at what rate and how
// long is left; then that the table and the snapshot are done and that streaming started (slot, LSN).
// The worker's /metrics carries the same figures under Debezium's snapshot MBean names.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient } from "../fixtures/connect.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../fixtures/postgres.ts";
import { scrape, valueOf } from "../fixtures/prometheus.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";
import { logLines, type LogLine } from "../fixtures/logs.ts";
import { install, type Install } from "../fixtures/sluice-process.ts";

const ROWS = 50_000;
/** Short, so that a snapshot of a few seconds logs progress more than once (the default is 5 s). */
const INTERVAL_MS = 20;

let sluice: Install | undefined;
let pg: PostgresServer | undefined;
afterAll(async () => {
  await sluice?.remove();
  await pg?.stop();
}, 60_000);

/** The JSON log lines of the CDC connector in a service's output, in the order written. */
const cdcLines = (output: string): LogLine[] => logLines(output).filter((line) => line.logger === "postgres-cdc");

test("connect-distributed logs a CDC snapshot's progress per table, its end and the start of streaming; /metrics has Debezium's snapshot figures", async () => {
  const kafka = await sharedKafka();
  pg = await startPostgres();
  pg.psql("CREATE TABLE bulk (id int PRIMARY KEY, payload text NOT NULL)");
  pg.psql(`INSERT INTO bulk SELECT i, repeat('x', 100) FROM generate_series(1, ${ROWS}) AS i`);
  pg.psql("ANALYZE bulk");
  expect(Number(pg.psql("SELECT reltuples FROM pg_class WHERE relname = 'bulk'"))).toBe(ROWS);

  sluice = install();
  const run = Date.now();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  // Kafka's connect-distributed.properties for a one-broker cluster, with names of this run's own.
  const worker = join(sluice.dir, "worker.properties");
  writeFileSync(
    worker,
    [
      `bootstrap.servers=${kafka.bootstrap}`,
      `group.id=cdc-progress-${run}`,
      `config.storage.topic=cdc-progress-configs-${run}`,
      `offset.storage.topic=cdc-progress-offsets-${run}`,
      `status.storage.topic=cdc-progress-status-${run}`,
      "config.storage.replication.factor=1",
      "offset.storage.replication.factor=1",
      "status.storage.replication.factor=1",
      "key.converter=org.apache.kafka.connect.json.JsonConverter",
      "value.converter=org.apache.kafka.connect.json.JsonConverter",
      `listeners=${url}`,
      "",
    ].join("\n"),
  );
  const started = Date.now();
  const connect = await sluice.start(["connect-distributed", worker]);
  const api = connectClient(url);

  const prefix = `progress${run}`;
  const slot = `progress_${run}`;
  const created = await waitFor(
    "the worker to take the connector (409 while it joins its group)",
    async () => {
      const r = await api.post("/connectors", {
        name: "bulk-cdc",
        config: {
          "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
          ...cdcConnection(pg!),
          "topic.prefix": prefix,
          "table.include.list": "public.bulk",
          "slot.name": slot,
          "publication.autocreate.mode": "filtered",
          "snapshot.fetch.size": "500",
          "snapshot.progress.interval.ms": String(INTERVAL_MS),
        },
      });
      return r.status === 409 ? undefined : r;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(created.status).toBe(201);

  const streaming = await waitFor(
    "the streaming-started line",
    () => {
      if (connect.proc.exitCode !== null)
        throw new Error(`sluice exited with ${connect.proc.exitCode}: ${connect.output()}`);
      return cdcLines(connect.output()).find((l) => l.msg.startsWith("streaming started"));
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; sluice's output:\n${connect.output().slice(-6000)}`);
  });
  const snapshotSeconds = (Date.now() - started) / 1000;
  expect(streaming.msg).toBe(`streaming started from slot ${slot} at ${String(streaming.lsn)}`);
  expect(streaming.slot).toBe(slot);
  expect(String(streaming.lsn)).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);

  const lines = cdcLines(connect.output());
  const at = (line: LogLine | undefined) => (line === undefined ? -1 : lines.findIndex((l) => l.msg === line.msg));
  const snapshotStarted = lines.find((l) => l.msg.startsWith("snapshot started"));
  expect(snapshotStarted?.msg).toBe("snapshot started: 1 table(s), ~50,000 rows estimated");

  // Progress: rows of the estimate with the percentage, rate and time left.
  const progress = lines.filter((l) => l.msg.startsWith("snapshot of public.bulk:"));
  expect(progress.length).toBeGreaterThan(1);
  const first = progress[0]!;
  expect(first).toMatchObject({ table: "public.bulk", estimate: ROWS });
  expect(first.rows as number).toBeGreaterThan(0);
  expect(first.rows as number).toBeLessThan(ROWS);
  expect(first.rowsPerSecond as number).toBeGreaterThan(0);
  expect(first.msg).toMatch(
    /^snapshot of public\.bulk: [\d,]+ of ~50,000 rows \(\d+%\), [\d,]+ rows\/s, about [\dhms.]+ left$/,
  );
  expect(first.msg).toContain(`${(first.rows as number).toLocaleString("en-US")} of ~50,000 rows`);
  const counts = progress.map((l) => l.rows as number);
  expect(counts).toEqual([...counts].sort((a, b) => a - b));

  // The table's end, the snapshot's, then streaming: in that order, after the progress.
  const tableDone = lines.find((l) => l.msg.startsWith("snapshot of public.bulk done"));
  expect(tableDone).toMatchObject({ table: "public.bulk", rows: ROWS, remainingTables: 0 });
  // At most one progress line per interval: each comes 20 ms or more after the table's start or the last.
  expect(progress.length * INTERVAL_MS).toBeLessThanOrEqual(tableDone!.durationMs as number);
  expect(tableDone!.msg).toMatch(/^snapshot of public\.bulk done: 50,000 rows in [\dhms.]+; 0 of 1 table\(s\) left$/);
  const completed = lines.find((l) => l.msg.startsWith("snapshot completed"));
  expect(completed).toMatchObject({ rows: ROWS, tables: 1 });
  expect(completed!.msg).toMatch(/^snapshot completed: 50,000 rows of 1 table\(s\) in [\dhms.]+$/);
  const order = [snapshotStarted, first, progress[progress.length - 1], tableDone, completed, streaming].map(at);
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));

  // The same figures on the worker's REST port, as Debezium's snapshot MBean attributes.
  const snapshot = { context: "snapshot", server: prefix };
  const samples = await scrape(url);
  expect(valueOf(samples, "debezium_metrics_rows_scanned", { ...snapshot, table: "public.bulk" })).toBe(ROWS);
  expect(valueOf(samples, "debezium_metrics_total_table_count", snapshot)).toBe(1);
  expect(valueOf(samples, "debezium_metrics_remaining_table_count", snapshot)).toBe(0);
  expect(valueOf(samples, "debezium_metrics_snapshot_running", snapshot)).toBe(0);
  expect(valueOf(samples, "debezium_metrics_snapshot_completed", snapshot)).toBe(1);
  expect(valueOf(samples, "debezium_metrics_total_number_of_events_seen", snapshot)).toBe(ROWS);
  const duration = valueOf(samples, "debezium_metrics_snapshot_duration_in_seconds", snapshot);
  expect(duration).toBeGreaterThan(0);
  expect(duration!).toBeLessThanOrEqual(snapshotSeconds);

  // Streaming: a change after the snapshot is counted under context="streaming".
  const stream = { context: "streaming", server: prefix };
  const seenBefore = valueOf(samples, "debezium_metrics_total_number_of_events_seen", stream) ?? 0;
  pg.psql("INSERT INTO bulk VALUES (0, 'after the snapshot')");
  await waitFor(
    "streaming events seen to grow after an insert",
    async () =>
      (valueOf(await scrape(url), "debezium_metrics_total_number_of_events_seen", stream) ?? 0) > seenBefore
        ? true
        : undefined,
    { timeoutMs: 60_000, intervalMs: 200 },
  );

  // Stopped as an operator stops it.
  connect.proc.kill("SIGTERM");
  expect(await connect.proc.exited).toBe(0);
}, 300_000);
