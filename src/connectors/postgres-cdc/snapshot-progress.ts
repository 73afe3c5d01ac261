// What a running snapshot has done, told two ways: log lines (per table at most every interval, when a
// table and when the snapshot ends) and the figures of Debezium's snapshot metrics MBean
// (context=snapshot) as gauges on the worker's /metrics.
import type { Logger } from "../../platform/log.ts";
import type { PluginMetrics } from "../../connect/api/connector.ts";
import { formatCount, formatDuration, progressMessage, rowsPerSecond } from "./progress-format.ts";
import type { EstimateBasis } from "./row-estimate.ts";

export interface EstimatedTable {
  /** schema.table, as Debezium names tables in its metrics. */
  readonly name: string;
  /** Rows at the snapshot's start (row-estimate.ts); null when unknown. */
  readonly estimate: number | null;
  /** Where the estimate comes from: the statistics (reltuples, as Debezium's) or, never analysed, the table's size. */
  readonly basis?: EstimateBasis;
}

/** The snapshot side of what snapshotRows() reports as it reads. */
export interface SnapshotListener {
  tables(tables: readonly EstimatedTable[]): void;
  /** Before a table's first row (also of a table without rows). */
  tableStarted(table: string): void;
  row(table: string): void;
  tableDone(table: string): void;
  done(): void;
}

export class SnapshotProgress implements SnapshotListener {
  private estimates = new Map<string, number | null>();
  private fromSize = new Set<string>();
  private readonly scanned = new Map<string, number>();
  private readonly finished = new Set<string>();
  private running = false;
  private completed = false;
  private startedAt = 0;
  private endedAt: number | null = null;
  /** The tables being read (several with snapshot.max.threads): when each started and was last logged. */
  private readonly reading = new Map<string, { startedAt: number; loggedAt: number }>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly metrics: PluginMetrics | undefined,
    private readonly server: string,
    private readonly now: () => number = Date.now,
  ) {
    const labels = { context: "snapshot", server };
    const gauge = (name: string, help: string, read: () => number) =>
      metrics?.gauge(`debezium_metrics_${name}`, help, labels, read);
    gauge("total_table_count", "Tables in the snapshot (Debezium's TotalTableCount).", () => this.estimates.size);
    gauge("remaining_table_count", "Tables the snapshot has not copied yet (RemainingTableCount).", () =>
      this.remainingTables(),
    );
    gauge("snapshot_running", "1 while the snapshot runs (SnapshotRunning).", () => Number(this.running));
    gauge("snapshot_completed", "1 once the snapshot completed (SnapshotCompleted).", () => Number(this.completed));
    gauge(
      "snapshot_duration_in_seconds",
      "Seconds the snapshot has taken so far, or took (SnapshotDurationInSeconds).",
      () => this.durationMs() / 1000,
    );
    gauge("total_number_of_events_seen", "Events the snapshot has read (TotalNumberOfEventsSeen).", () =>
      this.totalRows(),
    );
  }

  tables(tables: readonly EstimatedTable[]): void {
    this.estimates = new Map(tables.map((t) => [t.name, t.estimate]));
    this.fromSize = new Set(tables.filter((t) => t.basis === "size").map((t) => t.name));
    this.scanned.clear();
    this.finished.clear();
    for (const { name, basis } of tables) {
      this.scanned.set(name, 0);
      this.metrics?.gauge(
        "debezium_metrics_rows_scanned",
        "Rows scanned per table of the snapshot (RowsScanned).",
        { context: "snapshot", server: this.server, table: name },
        () => this.scanned.get(name) ?? 0,
      );
      // Sluice's: what percent and time left are reckoned against (NaN when unknown).
      this.metrics?.gauge(
        "sluice_postgres_cdc_snapshot_estimated_rows",
        "Rows the snapshot expects per table: from the statistics (basis=statistics, pg_class.reltuples) or, for a table never analysed, from its size on disk (basis=size).",
        { server: this.server, table: name, basis: basis ?? "statistics" },
        () => this.estimates.get(name) ?? Number.NaN,
      );
    }
    this.running = true;
    this.completed = false;
    this.startedAt = this.now();
    this.endedAt = null;
    this.reading.clear();
    const estimated = tables.reduce((sum, t) => sum + (t.estimate ?? 0), 0);
    const unknown = tables.filter((t) => t.estimate === null).length;
    const without = unknown === 0 ? "" : ` (${unknown} without an estimate)`;
    this.log.info(
      { tables: tables.length, estimate: estimated },
      `snapshot started: ${tables.length} table(s), ~${formatCount(estimated)} rows estimated${without}`,
    );
    if (this.fromSize.size > 0) {
      const names = [...this.fromSize];
      this.log.info(
        { tables: names, hint: `ANALYZE ${names.join(", ")}` },
        `no statistics for ${names.join(", ")} (never analysed): their row estimates come from their size on disk and may be far off; run ANALYZE ${names.join(", ")} for a close one`,
      );
    }
  }

  tableStarted(table: string): void {
    const now = this.now();
    this.reading.set(table, { startedAt: now, loggedAt: now });
  }

  row(table: string): void {
    const rows = (this.scanned.get(table) ?? 0) + 1;
    this.scanned.set(table, rows);
    const reading = this.reading.get(table);
    if (reading === undefined) return;
    const now = this.now();
    if (now - reading.loggedAt >= this.intervalMs) {
      reading.loggedAt = now;
      const progress = {
        table,
        rows,
        estimate: this.estimates.get(table) ?? null,
        elapsedMs: now - reading.startedAt,
        fromSize: this.fromSize.has(table),
      };
      this.log.info(
        { table, rows, estimate: progress.estimate, rowsPerSecond: rowsPerSecond(rows, progress.elapsedMs) },
        progressMessage(progress),
      );
    }
  }

  tableDone(table: string): void {
    const rows = this.scanned.get(table) ?? 0;
    const started = this.reading.get(table)?.startedAt;
    const elapsedMs = started === undefined ? 0 : this.now() - started;
    this.reading.delete(table);
    this.finished.add(table);
    const remainingTables = this.remainingTables();
    this.log.info(
      { table, rows, durationMs: elapsedMs, remainingTables },
      `snapshot of ${table} done: ${formatCount(rows)} rows in ${formatDuration(elapsedMs)}; ${remainingTables} of ${this.estimates.size} table(s) left`,
    );
  }

  done(): void {
    this.running = false;
    this.completed = true;
    this.endedAt = this.now();
    const rows = this.totalRows();
    const durationMs = this.durationMs();
    this.log.info(
      { rows, tables: this.estimates.size, durationMs },
      `snapshot completed: ${formatCount(rows)} rows of ${this.estimates.size} table(s) in ${formatDuration(durationMs)}`,
    );
  }

  private remainingTables(): number {
    return this.estimates.size - this.finished.size;
  }

  private totalRows(): number {
    let total = 0;
    for (const rows of this.scanned.values()) total += rows;
    return total;
  }

  private durationMs(): number {
    if (!this.running && !this.completed) return 0;
    return (this.endedAt ?? this.now()) - this.startedAt;
  }
}
