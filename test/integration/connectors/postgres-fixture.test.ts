// The PostgreSQL fixture the CDC tests build on. Without a server it is skipped, except in CI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";

describe("PostgreSQL fixture", () => {
  let pg: PostgresServer;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await pg?.stop();
  });

  test("answers SELECT 1 over its socket, with logical WAL for CDC", () => {
    expect(pg.psql("SELECT 1")).toBe("1");
    expect(pg.psql("SHOW wal_level")).toBe("logical");
    expect(pg.psql("SHOW server_encoding")).toBe("UTF8");
    expect(pg.port).toBeGreaterThan(0);
  });
});
