// The snapshot's row estimate against a real PostgreSQL: from the statistics once a table is analysed
// (as Debezium's, pg_class.reltuples), and for a table never analysed (reltuples = -1 on PostgreSQL 14+)
// from its size on disk, which the snapshot's log says, with the hint to ANALYZE.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Sql } from "postgres";
import { parsePostgresCdcConfig } from "#src/connectors/postgres-cdc/config.ts";
import { estimateRows } from "#src/connectors/postgres-cdc/row-estimate.ts";
import { SnapshotProgress } from "#src/connectors/postgres-cdc/snapshot-progress.ts";
import { connectSql } from "#src/connectors/postgres-cdc/sql-connection.ts";
import { logger } from "#src/platform/log.ts";
import { captureLogs, logLines } from "../../fixtures/logs.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";

const ROWS = 20_000;

describe("PostgreSQL CDC snapshot row estimates", () => {
  let pg: PostgresServer;
  let sql: Sql;
  const table = { schema: "public", table: "unanalysed" };

  beforeAll(async () => {
    pg = await startPostgres();
    // Autovacuum would analyse it sooner or later: this table stays as a fresh one is.
    pg.psql("CREATE TABLE unanalysed (id int PRIMARY KEY, payload text) WITH (autovacuum_enabled = false)");
    pg.psql(`INSERT INTO unanalysed SELECT i, repeat('x', 20) FROM generate_series(1, ${ROWS}) AS i`);
    sql = await connectSql(parsePostgresCdcConfig({ ...cdcConnection(pg), "topic.prefix": "estimate" }), 1);
  }, 120_000);
  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await pg?.stop();
  }, 60_000);

  test("never analysed: estimated from the table's size, near the real count, and the log says to ANALYZE", async () => {
    expect(pg.psql("SELECT reltuples FROM pg_class WHERE relname = 'unanalysed'")).toBe("-1");
    const estimate = await estimateRows(sql, table);
    expect(estimate.basis).toBe("size");
    // int4 + text guessed at 32 bytes where the rows hold 21: within a factor of two either way.
    expect(estimate.rows!).toBeGreaterThan(ROWS / 2);
    expect(estimate.rows!).toBeLessThan(ROWS * 2);

    const logs = captureLogs();
    try {
      const progress = new SnapshotProgress(logger("postgres-cdc"), 1, undefined, "estimate", () => 0);
      progress.tables([{ name: "public.unanalysed", estimate: estimate.rows, basis: estimate.basis }]);
    } finally {
      logs.stop();
    }
    const hint = logLines(logs.text()).find((l) => l.msg.startsWith("no statistics for public.unanalysed"));
    expect(hint).toMatchObject({ tables: ["public.unanalysed"], hint: "ANALYZE public.unanalysed" });
    expect(hint!.msg).toContain("run ANALYZE public.unanalysed");
  });

  test("analysed: the statistics, as Debezium's", async () => {
    pg.psql("ANALYZE unanalysed");
    expect(await estimateRows(sql, table)).toEqual({ rows: ROWS, basis: "statistics" });
  });

  test("an empty table is 0 rows, a missing one unknown", async () => {
    pg.psql("CREATE TABLE empty_one (id int)");
    expect(await estimateRows(sql, { schema: "public", table: "empty_one" })).toEqual({ rows: 0, basis: "statistics" });
    expect((await estimateRows(sql, { schema: "public", table: "missing" })).rows).toBeNull();
  });
});
