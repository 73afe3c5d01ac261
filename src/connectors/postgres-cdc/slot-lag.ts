// How much WAL the connector's replication slot holds back, as gauges on the worker's /metrics (and the
// console's connector page): from restart_lsn, what PostgreSQL must keep on disk for the slot, and from
// confirmed_flush_lsn, what the topics do not hold yet. Read every slot.lag.interval.ms on the task's SQL
// connection (never the replication stream's), also while the connector is paused: that is when the
// figure grows.
import type { Sql } from "postgres";
import type { PluginMetrics } from "../../connect/api/connector.ts";
import type { Logger } from "../../platform/log.ts";

export interface SlotLagSample {
  /** Bytes of WAL from the slot's restart_lsn to the server's current position. */
  readonly retainedBytes: number;
  /** Bytes from the slot's confirmed_flush_lsn to the server's current position. */
  readonly confirmedFlushLagBytes: number;
}

/** The slot's lag now; null when there is no such slot. On a standby, against the WAL replayed so far. */
export async function readSlotLag(sql: Sql, slot: string): Promise<SlotLagSample | null> {
  const [row] = await sql<{ retained: number | null; flush_lag: number | null }[]>`
    WITH here AS (
      SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END AS lsn
    )
    SELECT pg_wal_lsn_diff(here.lsn, s.restart_lsn)::float8 AS retained,
           pg_wal_lsn_diff(here.lsn, s.confirmed_flush_lsn)::float8 AS flush_lag
      FROM pg_replication_slots s, here
     WHERE s.slot_name = ${slot}`;
  if (row === undefined) return null;
  return { retainedBytes: Math.max(0, row.retained ?? 0), confirmedFlushLagBytes: Math.max(0, row.flush_lag ?? 0) };
}

export class SlotLag {
  private last: SlotLagSample | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private reading = false;

  constructor(
    metrics: PluginMetrics | undefined,
    server: string,
    private readonly slot: string,
    private readonly log: Logger,
  ) {
    const labels = { server, slot };
    // NaN until the first reading, and while the slot is missing: unknown is not "no lag".
    metrics?.gauge(
      "sluice_postgres_cdc_slot_retained_wal_bytes",
      "Bytes of WAL PostgreSQL keeps for the connector's replication slot (current WAL position - restart_lsn).",
      labels,
      () => this.last?.retainedBytes ?? Number.NaN,
    );
    metrics?.gauge(
      "sluice_postgres_cdc_slot_confirmed_flush_lag_bytes",
      "Bytes of WAL written since the slot's confirmed_flush_lsn (current WAL position - confirmed_flush_lsn).",
      labels,
      () => this.last?.confirmedFlushLagBytes ?? Number.NaN,
    );
  }

  /** Reads now and every `intervalMs` through `sql()` (null while the task has no connection). */
  start(sql: () => Sql | null, intervalMs: number): void {
    this.stop();
    const read = async () => {
      const connection = sql();
      if (this.reading || connection === null) return; // a slow reading is not queued behind by another
      this.reading = true;
      try {
        this.last = await readSlotLag(connection, this.slot);
      } catch (err) {
        // A lost database is the task's to report; the gauges keep the last figure until it is back.
        this.log.debug(
          { slot: this.slot, err: err instanceof Error ? err.message : String(err) },
          "could not read the slot's lag",
        );
      } finally {
        this.reading = false;
      }
    };
    void read();
    this.timer = setInterval(read, intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
