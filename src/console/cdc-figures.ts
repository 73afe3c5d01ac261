// A PostgreSQL CDC connector's figures for its page, from connect's /metrics: the WAL its replication
// slot holds back and its snapshot's progress (rows of the estimate, percent, time left). The series
// carry the connector's topic prefix as `server` (Debezium's MBean key), not its name.
import type { PromSample } from "./prometheus.ts";

export const CDC_CLASSES = new Set(["io.debezium.connector.postgresql.PostgresConnector", "PostgresCdc"]);

export interface SlotFigures {
  slot: string;
  retainedBytes: number;
  confirmedFlushLagBytes: number;
}

export interface SnapshotFigures {
  running: boolean;
  completed: boolean;
  rows: number;
  /** Sum of the tables' estimates; null when a table has none. */
  estimate: number | null;
  /** Of the estimate, at most 100; null without one. */
  percent: number | null;
  /** At the rate so far; null when it cannot be told (no estimate, not running, past the estimate). */
  timeLeftMs: number | null;
  /** Tables whose estimate comes from their size, never analysed. */
  estimatedFromSize: string[];
}

export interface CdcFigures {
  slot: SlotFigures | null;
  snapshot: SnapshotFigures | null;
}

/** The topic prefix a CDC connector's metrics are labelled with (Debezium's older name as a fallback). */
export function serverOf(config: Record<string, string>): string | undefined {
  return config["topic.prefix"] ?? config["database.server.name"];
}

export function cdcFigures(samples: readonly PromSample[], server: string): CdcFigures {
  const mine = samples.filter((s) => s.labels.server === server);
  const one = (name: string, labels: Record<string, string> = {}) =>
    mine.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  const retained = one("sluice_postgres_cdc_slot_retained_wal_bytes");
  const flush = one("sluice_postgres_cdc_slot_confirmed_flush_lag_bytes");
  const slot =
    retained && Number.isFinite(retained.value)
      ? {
          slot: retained.labels.slot ?? "",
          retainedBytes: retained.value,
          confirmedFlushLagBytes: flush && Number.isFinite(flush.value) ? flush.value : 0,
        }
      : null;

  const snapshotOf = { context: "snapshot" };
  const tableCount = one("debezium_metrics_total_table_count", snapshotOf);
  if (tableCount === undefined) return { slot, snapshot: null };
  const running = one("debezium_metrics_snapshot_running", snapshotOf)?.value === 1;
  const completed = one("debezium_metrics_snapshot_completed", snapshotOf)?.value === 1;
  const seconds = one("debezium_metrics_snapshot_duration_in_seconds", snapshotOf)?.value ?? 0;
  const rows = mine
    .filter((s) => s.name === "debezium_metrics_rows_scanned" && s.labels.context === "snapshot")
    .reduce((sum, s) => sum + s.value, 0);
  const estimates = mine.filter((s) => s.name === "sluice_postgres_cdc_snapshot_estimated_rows");
  const known = estimates.length > 0 && estimates.every((s) => Number.isFinite(s.value));
  const estimate = known ? estimates.reduce((sum, s) => sum + s.value, 0) : null;
  const percent = estimate === null ? null : estimate > 0 ? Math.min(100, Math.floor((rows * 100) / estimate)) : 100;
  const elapsedMs = seconds * 1000;
  const timeLeftMs =
    running && estimate !== null && rows > 0 && rows < estimate && elapsedMs > 0
      ? Math.round(((estimate - rows) * elapsedMs) / rows)
      : null;
  const estimatedFromSize = estimates.filter((s) => s.labels.basis === "size").map((s) => s.labels.table ?? "");
  return { slot, snapshot: { running, completed, rows, estimate, percent, timeLeftMs, estimatedFromSize } };
}

/** "512 B", "3.4 MiB", "1.2 GiB": WAL sizes as an operator reads them. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "2h05m", "3m07s", "12s": as the connector's log says it. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}
