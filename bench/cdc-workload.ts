// The CDC benchmarks' workload and measures (bench/cdc.ts, bench/cdc-peers.ts): the `bench` table of
// ~100-byte rows, the COPY ceiling, waiting for a target to hold the rows, and the streaming-latency
// measure (rows carry the source's clock_timestamp() at insert; the target is polled).
import { pipeline } from "node:stream/promises";
import postgres from "postgres";
import type { PostgresServer } from "../test/fixtures/postgres.ts";
import { waitFor } from "../test/fixtures/wait.ts";

export type Sql = ReturnType<typeof postgres>;

/** A key, an int, a text and the float8 commit-time column the latency measure uses. */
export const BENCH_COLUMNS =
  "id bigint PRIMARY KEY, n int NOT NULL, payload text NOT NULL, committed_at float8 NOT NULL";

/** A JDBC sink's settings for upserting `topic` into `database` of `pg` (both Confluent's sink and Sluice's). */
export function upsertSink(pg: PostgresServer, topic: string, database: string): Record<string, string> {
  return {
    topics: topic,
    "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/${database}`,
    "connection.user": pg.user,
    "insert.mode": "upsert",
    "pk.mode": "record_key",
    "delete.enabled": "true",
    "auto.create": "true",
  };
}

/** One connection to `database` of `pg`. */
export function connectTo(pg: PostgresServer, database: string): Sql {
  return postgres({ host: "127.0.0.1", port: pg.port, database, username: pg.user, max: 1, onnotice: () => {} });
}

/** Creates and fills `bench` with ids 1 … rows. */
export async function createBenchTable(sql: Sql, rows: number): Promise<void> {
  await sql.unsafe(`CREATE TABLE bench (${BENCH_COLUMNS})`);
  await sql.unsafe(
    `INSERT INTO bench SELECT i, i % 1000, md5(i::text) || md5((i + 1)::text), 0 FROM generate_series(1, ${rows}) i`,
  );
  await sql.unsafe("VACUUM ANALYZE bench");
}

/**
 * The ceiling: the rows of `bench`, server to server through this process, with PostgreSQL's bulk path
 * (`COPY … TO STDOUT` piped into `COPY … FROM STDIN`) into a new database `copy_target`. Rows/s.
 */
export async function copyCeiling(pg: PostgresServer, rows: number): Promise<number> {
  pg.psql("CREATE DATABASE copy_target");
  const copyTarget = connectTo(pg, "copy_target");
  await copyTarget.unsafe(`CREATE TABLE bench (${BENCH_COLUMNS})`);
  // A connection of its own for COPY TO: postgres.js left the one it streamed from unusable after large copies.
  const copySource = connectTo(pg, "postgres");
  const start = performance.now();
  await pipeline(
    await copySource.unsafe("COPY bench TO STDOUT").readable(),
    await copyTarget.unsafe("COPY bench FROM STDIN").writable(),
  );
  const seconds = (performance.now() - start) / 1000;
  await copySource.end({ timeout: 1 });
  await copyTarget.end();
  const ceiling = rows / seconds;
  console.log(`COPY ceiling: ${rows} rows in ${seconds.toFixed(2)} s = ${Math.round(ceiling)} rows/s`);
  return ceiling;
}

export async function countRows(target: Sql): Promise<number> {
  return Number((await target`SELECT count(*)::int AS c FROM bench`)[0]!.c);
}

/** Waits until the target's `bench` holds `rows` rows (it may not exist yet); `check` throws to give up. */
export type Check = () => void | Promise<void>;

export async function waitForRows(target: Sql, rows: number, check: Check = () => {}, intervalMs = 200): Promise<void> {
  await waitFor(
    `${rows} rows in the target`,
    async () => {
      await check();
      try {
        return (await countRows(target)) === rows || undefined;
      } catch {
        return undefined; // the sink has not created the table yet
      }
    },
    { timeoutMs: 3_600_000, intervalMs },
  );
}

/**
 * Prepares a target that a snapshot has just filled with `rows` rows for latency measures: analyses
 * it, then sends one marker row (id rows + 1) through the pipeline. Returns the seconds the marker took.
 */
export async function catchUp(source: Sql, target: Sql, rows: number, check: Check = () => {}): Promise<number> {
  // The target table was filled by the sink and never analysed: without statistics the poller's
  // `id > $1 ORDER BY id` may be planned as a scan of the whole table, which would be measured as latency.
  await target.unsafe("ANALYZE bench");
  // Catch-up: the slot starts streaming at the snapshot's start, and logical decoding must first read all
  // WAL written since — here the sink's writes into the target database of the same server. One marker
  // row through the pipeline shows when streaming has caught up; steady-state latency is measured after.
  const start = performance.now();
  await source.unsafe(`INSERT INTO bench VALUES (${rows + 1}, 0, 'marker', 0)`);
  await waitForRows(target, rows + 1, check, 20);
  return (performance.now() - start) / 1000;
}

export interface Latency {
  changes: number;
  /** The insert rate achieved, changes/s. */
  achieved: number;
  /**
   * Changes over the time from the first insert until the last change was seen in the target: below
   * `achieved`, the pipeline did not keep up and the latencies measure its backlog.
   */
  delivered: number;
  p50: number;
  p99: number;
  max: number;
}

const TICK_MS = 10;

/**
 * Streaming latency: inserts ids after `lastId` at `changesPerSecond` for `seconds` (one transaction
 * every 10 ms); each row carries clock_timestamp() at insert (its transaction commits right after), and
 * the target is polled every ~2 ms: latency = first poll that sees the row − that timestamp (one machine,
 * one clock). The target must already hold every id up to `lastId`; `check` throws to give up.
 */
export async function measureLatency(
  source: Sql,
  target: Sql,
  lastId: number,
  changesPerSecond: number,
  seconds: number,
  check: Check = () => {},
): Promise<Latency> {
  const perTick = Math.max(1, Math.round((changesPerSecond * TICK_MS) / 1000));
  const total = Math.floor((seconds * 1000) / TICK_MS) * perTick;
  let nextId = lastId + 1;
  const latencies: number[] = [];
  let polling = true;
  let lastSeen = 0;
  const poller = (async () => {
    let seen = lastId;
    while (polling || seen < lastId + total) {
      await check();
      const fresh = await target`SELECT id, committed_at FROM bench WHERE id > ${seen} ORDER BY id`;
      const now = Date.now();
      if (fresh.length > 0) lastSeen = performance.now();
      for (const row of fresh) {
        latencies.push(now - Number(row.committed_at));
        seen = Math.max(seen, Number(row.id));
      }
      await Bun.sleep(2); // poll interval: the resolution of the measurement
    }
  })();
  const streamStart = performance.now();
  for (let tick = 0; nextId <= lastId + total; tick++) {
    const first = nextId;
    nextId += perTick;
    await source.unsafe(
      `INSERT INTO bench SELECT i, i % 1000, md5(i::text), extract(epoch FROM clock_timestamp()) * 1000 FROM generate_series(${first}, ${nextId - 1}) i`,
    );
    const due = streamStart + (tick + 1) * TICK_MS;
    await Bun.sleep(Math.max(0, due - performance.now())); // pacing of the load, not synchronisation
  }
  const achieved = total / ((performance.now() - streamStart) / 1000);
  polling = false;
  await poller;
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    changes: total,
    achieved,
    delivered: total / ((lastSeen - streamStart) / 1000),
    p50: quantile(0.5),
    p99: quantile(0.99),
    max: latencies.at(-1)!,
  };
}
