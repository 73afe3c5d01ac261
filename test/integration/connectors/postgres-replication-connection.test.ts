// The replication connection against a real PostgreSQL: every authentication method it speaks, the
// replication commands, and the CopyBoth stream feeding the pgoutput decoder; flushed LSNs reach the slot.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseLsn } from "#src/connectors/postgres-cdc/lsn.ts";
import { decodePgOutput, type PgOutputMessage } from "#src/connectors/postgres-cdc/pgoutput.ts";
import { PostgresError, ReplicationConnection } from "#src/connectors/postgres-cdc/replication-connection.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

describe("PostgreSQL replication connection", () => {
  let pg: PostgresServer;
  const open = (user: string, password = "") =>
    ReplicationConnection.open({ host: "127.0.0.1", port: pg.port, user, password, database: "postgres" });

  beforeAll(async () => {
    pg = await startPostgres();
    pg.psql("CREATE ROLE scram_user LOGIN REPLICATION PASSWORD 'scram-secret'");
    pg.psql("SET password_encryption = 'md5'; CREATE ROLE md5_user LOGIN REPLICATION PASSWORD 'md5-secret'");
    pg.psql("CREATE ROLE clear_user LOGIN REPLICATION PASSWORD 'clear-secret'");
    // First match wins: these lines go before initdb's trust lines. A logical replication connection
    // matches by database name (`replication` in pg_hba.conf is for physical replication only).
    const hba = join(pg.socketDir, "data", "pg_hba.conf");
    const lines = ["scram_user scram-sha-256", "md5_user md5", "clear_user password"].map(
      (l) => `host all ${l.split(" ")[0]} 127.0.0.1/32 ${l.split(" ")[1]}`,
    );
    writeFileSync(hba, lines.join("\n") + "\n" + readFileSync(hba, "utf8"));
    pg.psql("SELECT pg_reload_conf()");
    pg.psql("CREATE TABLE items (id int PRIMARY KEY, name text)");
    pg.psql("CREATE PUBLICATION pub FOR TABLE items");
  });
  afterAll(async () => {
    await pg?.stop();
  });

  test.each([
    ["scram_user", "scram-secret"],
    ["md5_user", "md5-secret"],
    ["clear_user", "clear-secret"],
    ["postgres", ""],
  ])("authenticates %s and identifies the system", async (user, password) => {
    const connection = await open(user, password);
    const system = await connection.identifySystem();
    expect(system.database).toBe("postgres");
    expect(system.timeline).toBe(1);
    expect(system.walPosition).toBeGreaterThan(0n);
    connection.close();
  });

  test("a wrong password is refused with the server's error", async () => {
    const refused = await open("scram_user", "wrong").catch((e) => e);
    expect(refused).toBeInstanceOf(PostgresError);
    expect(refused.code).toBe("28P01");
  });

  test("streams a transaction through pgoutput and moves the slot's flush LSN", async () => {
    const connection = await open("postgres");
    const slot = await connection.createSlot("conn_test", true);
    expect(slot.snapshotName).toMatch(/^[0-9A-F-]+$/);
    pg.psql("INSERT INTO items VALUES (1, 'one')");
    await connection.startReplication("conn_test", slot.consistentPoint, "pub");
    const messages: PgOutputMessage[] = [];
    await waitFor("a committed transaction", async () => {
      const x = await connection.receive(200);
      if (x) messages.push(decodePgOutput(x.data));
      return messages.at(-1)?.type === "commit" || undefined;
    });
    expect(messages.map((m) => m.type)).toEqual(["begin", "relation", "insert", "commit"]);
    const insert = messages[2]!;
    expect(insert.type === "insert" && insert.newTuple).toEqual(["1", "one"]);
    const commit = messages[3]!;
    if (commit.type !== "commit") throw new Error("expected a commit");
    connection.confirmFlushed(commit.endLsn);
    await waitFor(
      "the slot's confirmed flush LSN",
      () =>
        parseLsn(pg.psql("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'conn_test'")) ===
          commit.endLsn || undefined,
    );
    connection.close();
  });
});
