// How snapshot progress reads in the log: counts with thousands separators, rate and time left from
// the rows so far and the estimate. The estimate is pg_class.reltuples, which can be stale or unknown,
// so the figures never promise more than it allows: no percentage or time left without an estimate,
// and none left once the count passed it.

export interface TableProgress {
  readonly table: string;
  readonly rows: number;
  /** Estimated rows of the table; null when PostgreSQL has none (never analysed). */
  readonly estimate: number | null;
  readonly elapsedMs: number;
  /** The estimate comes from the table's size, not its statistics (never analysed). */
  readonly fromSize?: boolean;
}

/** Rows per second so far (0 before any time passed). */
export function rowsPerSecond(rows: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((rows * 1000) / elapsedMs) : 0;
}

/** Milliseconds left at the rate so far; null when that cannot be told. */
export function timeLeftMs(p: TableProgress): number | null {
  if (p.estimate === null || p.rows === 0 || p.elapsedMs <= 0 || p.rows >= p.estimate) return null;
  return Math.round(((p.estimate - p.rows) * p.elapsedMs) / p.rows); // the exact rate: a rounded one skews slow tables
}

/** "2h05m", "3m07s", "12s", "0.4s": enough precision to plan by, no more. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** e.g. "snapshot of public.t: 25,000 of ~50,000 rows (50%), 12,500 rows/s, about 2s left" */
export function progressMessage(p: TableProgress): string {
  const rate = `${formatCount(rowsPerSecond(p.rows, p.elapsedMs))} rows/s`;
  if (p.estimate === null) return `snapshot of ${p.table}: ${formatCount(p.rows)} rows (no estimate), ${rate}`;
  const percent = p.estimate > 0 ? Math.min(100, Math.floor((p.rows * 100) / p.estimate)) : 100;
  const left = timeLeftMs(p);
  const basis = p.fromSize ? " estimated from its size" : "";
  return `snapshot of ${p.table}: ${formatCount(p.rows)} of ~${formatCount(p.estimate)} rows${basis} (${percent}%), ${rate}${left === null ? "" : `, about ${formatDuration(left)} left`}`;
}
