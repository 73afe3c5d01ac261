// A CDC set-up's first refusals by PostgreSQL, met as a user meets them (dist/sluice dev; a role without
// the rights the connector needs, a slot another connector reads): the task's trace gives the server's
// words and the fix.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connectClient } from "../../fixtures/connect.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { freeListener, install, type Install, type SluiceProcess } from "../../fixtures/sluice-process.ts";
import { waitFor } from "../../fixtures/wait.ts";

let pg: PostgresServer;
let sluice: Install;
let dev: SluiceProcess;
const connect = freeListener();
const worker = { url: connect };
const run = Date.now().toString(36);

beforeAll(async () => {
  pg = await startPostgres();
  sluice = install("sluice-cdc-fixes-");
  dev = await sluice.serve(["dev", "--registry-listeners", freeListener(), "--connect-listeners", connect], {
    readyUrl: `${connect}/connectors`,
  });
  pg.psql(
    `CREATE ROLE fix_repl LOGIN REPLICATION; CREATE ROLE fix_plain LOGIN;
     CREATE TABLE fix_owned (id int PRIMARY KEY); ALTER TABLE fix_owned OWNER TO fix_plain;
     CREATE TABLE fix_shared (id int PRIMARY KEY);`,
  );
}, 180_000);
afterAll(async () => {
  await dev?.stop();
  await sluice?.remove();
  await pg?.stop();
}, 60_000);

/** Creates a CDC connector and answers its task's trace once it FAILED. */
async function failedTrace(name: string, config: Record<string, string>): Promise<string> {
  const api = connectClient(worker.url);
  const created = await api.post("/connectors", {
    name,
    config: {
      "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      ...cdcConnection(pg),
      "topic.prefix": name,
      "slot.name": name,
      ...config,
    },
  });
  expect(created.status).toBe(201);
  return waitFor(
    `${name}'s task to fail`,
    async () => {
      const task = (await api.get(`/connectors/${name}/status`)).body?.tasks?.[0];
      return task?.state === "FAILED" ? (task.trace as string) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

test("a role that may not create a publication in the database is told to GRANT CREATE", async () => {
  const trace = await failedTrace(`fix_${run}_db`, { "database.user": "fix_repl" });
  expect(trace).toContain("permission denied for database postgres");
  expect(trace).toContain("GRANT CREATE ON DATABASE postgres TO <database.user>;");
});

test("a role that may not create a publication FOR ALL TABLES is told to set publication.autocreate.mode=filtered", async () => {
  pg.psql("GRANT CREATE ON DATABASE postgres TO fix_repl, fix_plain");
  const trace = await failedTrace(`fix_${run}_all`, { "database.user": "fix_repl" });
  expect(trace).toContain("must be superuser to create FOR ALL TABLES publication");
  expect(trace).toContain("set publication.autocreate.mode=filtered");
});

test("a role without REPLICATION is told to ALTER ROLE … REPLICATION", async () => {
  const trace = await failedTrace(`fix_${run}_repl`, {
    "database.user": "fix_plain",
    "publication.autocreate.mode": "filtered",
    "table.include.list": "public.fix_owned",
  });
  expect(trace).toContain(
    "the connector's user needs the REPLICATION attribute: ALTER ROLE <database.user> REPLICATION;",
  );
});

test("a slot another connector reads is named, with the reader's PID", async () => {
  const api = connectClient(worker.url);
  const slot = `fix_${run}_slot`;
  const shared = {
    "slot.name": slot,
    "table.include.list": "public.fix_shared",
    "publication.autocreate.mode": "filtered",
  };
  const first = await api.post("/connectors", {
    name: `${slot}_a`,
    config: {
      "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      ...cdcConnection(pg),
      "topic.prefix": `${slot}_a`,
      ...shared,
    },
  });
  expect(first.status).toBe(201);
  await api.waitForState(`${slot}_a`, "RUNNING", 1);
  await waitFor(
    "the first connector reading its slot",
    () => pg.psql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${slot}'`).trim() === "t" || undefined,
  );
  const trace = await failedTrace(`${slot}_b`, shared);
  expect(trace).toMatch(new RegExp(`another client \\(PID \\d+\\) is reading slot ${slot}: stop it`));
}, 90_000); // two connectors start and one fails: over the 5 s default on a loaded machine (seen at 5–10 s)
