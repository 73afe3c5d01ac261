// Slot hygiene of the PostgreSQL CDC connector against a real PostgreSQL: deleting a connector (REST
// DELETE, on a standalone and on a distributed worker) drops its replication slot with
// slot.drop.on.stop=true, and otherwise leaves it with exactly one warning that names it and gives the
// SQL to drop it. The WAL a slot holds back is a gauge on /metrics: it grows while the connector is
// paused and WAL is written, and falls once it is resumed and has caught up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalog } from "#src/catalog.ts";
import { startConnectDistributed, type RunningConnect } from "#src/connect/runtime/server.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { captureLogs, logLines } from "../../fixtures/logs.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { scrape, valueOf } from "../../fixtures/prometheus.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const TASK_THREAD = new URL("../../../src/task-thread.ts", import.meta.url).href;

describe("PostgreSQL CDC replication slots of deleted connectors", () => {
  let pg: PostgresServer;
  let standalone: TestConnect;
  let distributed: RunningConnect;
  const distributedDir = mkdtempSync(join(tmpdir(), "sluice-slots-"));
  let logs: ReturnType<typeof captureLogs>;
  const run = Date.now().toString(36);
  const json = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
  };
  const slotCount = (slot: string) => pg.psql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
  const publicationCount = (publication: string) =>
    pg.psql(`SELECT count(*) FROM pg_publication WHERE pubname = '${publication}'`);
  const warningsAbout = (slot: string) =>
    logLines(logs.text()).filter((l) => l.level === "warn" && l.logger === "postgres-cdc" && l.slot === slot);

  beforeAll(async () => {
    pg = await startPostgres();
    pg.psql("CREATE TABLE kept (id int PRIMARY KEY)");
    standalone = await startTestConnect("kafka", json);
    const raw: Record<string, string> = {
      listeners: `http://127.0.0.1:${freePort()}`,
      "data.dir": join(distributedDir, "data"),
      "group.id": "slots",
      "config.storage.topic": "slots-configs",
      "offset.storage.topic": "slots-offsets",
      "status.storage.topic": "slots-status",
      "config.storage.replication.factor": "1",
      "offset.storage.replication.factor": "1",
      "status.storage.replication.factor": "1",
      "offset.flush.interval.ms": "500",
      ...json,
    };
    distributed = await startConnectDistributed({
      settings: workerSettings.parse(raw).values,
      workerConfig: raw,
      catalog,
      taskThreadEntry: TASK_THREAD,
    });
    // The connector (not its task) warns at a delete, on the worker's own thread: a spy there sees it.
    logs = captureLogs();
  }, 180_000);
  afterAll(async () => {
    logs?.stop();
    await standalone?.stop();
    removeConnectDir(standalone);
    await distributed?.stop();
    rmSync(distributedDir, { recursive: true, force: true });
    await pg?.stop();
  }, 60_000);

  const workers = () => ({ standalone: standalone.url, distributed: distributed.urls[0]! });

  for (const kind of ["standalone", "distributed"] as const) {
    const createRunning = async (name: string, extra: Record<string, string>) => {
      const api = connectClient(workers()[kind]);
      const config = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        ...cdcConnection(pg),
        "topic.prefix": name,
        "slot.name": name,
        "publication.name": `${name}_pub`,
        "publication.autocreate.mode": "filtered",
        "table.include.list": "public.kept",
        ...json,
        ...extra,
      };
      const created = await waitFor(
        `${name} created (409 while a distributed worker joins its group)`,
        async () => {
          const r = await api.post("/connectors", { name, config });
          return r.status === 409 ? undefined : r;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(created.status).toBe(201);
      await api.waitForState(name, "RUNNING", 1);
      expect(slotCount(name)).toBe("1");
      return api;
    };

    test(`${kind}: with slot.drop.on.stop=true a delete drops the slot, and nothing is warned`, async () => {
      const name = `drop_${kind}_${run}`;
      const api = await createRunning(name, { "slot.drop.on.stop": "true" });
      expect((await api.delete(`/connectors/${name}`)).status).toBe(204);
      await waitFor(`slot ${name} dropped`, () => slotCount(name) === "0" || undefined, { timeoutMs: 30_000 });
      expect(warningsAbout(name)).toEqual([]);
    }, 120_000);

    test(`${kind}: without slot.drop.on.stop the slot stays, and one warning names it with the SQL that drops it`, async () => {
      const name = `keep_${kind}_${run}`;
      const api = await createRunning(name, {});
      expect((await api.delete(`/connectors/${name}`)).status).toBe(204);
      const [warning] = await waitFor(
        `the warning about slot ${name}`,
        () => (warningsAbout(name).length > 0 ? warningsAbout(name) : undefined),
        { timeoutMs: 30_000 },
      );
      const sql = `SELECT pg_drop_replication_slot('${name}'); DROP PUBLICATION "${name}_pub";`;
      expect(warning).toMatchObject({ connector: name, slot: name, sql });
      expect(warning!.msg).toContain(`replication slot ${name} and publication ${name}_pub stay behind`);
      expect(warning!.msg).toContain(sql);
      expect(slotCount(name)).toBe("1");
      // The SQL does what it says, once the walsender of the stopped task has gone.
      await waitFor(
        `slot ${name} no longer active`,
        () => pg.psql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${name}'`) === "f" || undefined,
      );
      expect(warningsAbout(name)).toHaveLength(1);
      pg.psql(sql);
      expect(slotCount(name)).toBe("0");
      expect(publicationCount(`${name}_pub`)).toBe("0");
    }, 120_000);

    test(`${kind}: a connector stopped (PUT /stop) before its delete warns all the same`, async () => {
      const name = `stopped_${kind}_${run}`;
      const api = await createRunning(name, {});
      expect((await api.put(`/connectors/${name}/stop`)).status).toBe(204);
      await api.waitForState(name, "STOPPED");
      expect(warningsAbout(name)).toEqual([]);
      expect((await api.delete(`/connectors/${name}`)).status).toBe(204);
      const [warning] = await waitFor(
        `the warning about slot ${name}`,
        () => (warningsAbout(name).length > 0 ? warningsAbout(name) : undefined),
        { timeoutMs: 30_000 },
      );
      expect(warning).toMatchObject({ connector: name, slot: name });
      expect(warningsAbout(name)).toHaveLength(1);
      pg.psql(String(warning!.sql));
      expect(slotCount(name)).toBe("0");
    }, 120_000);
  }

  test("a connector whose database is down at its delete warns that its slot may stay, with the SQL", async () => {
    const name = `unreachable_${run}`;
    const gone = await startPostgres(); // a database of its own, stopped before the delete
    try {
      gone.psql("CREATE TABLE kept (id int PRIMARY KEY)");
      const api = connectClient(standalone.url);
      const config = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        ...cdcConnection(gone),
        "topic.prefix": name,
        "slot.name": name,
        "table.include.list": "public.kept",
        ...json,
      };
      expect((await api.post("/connectors", { name, config })).status).toBe(201);
      await api.waitForState(name, "RUNNING", 1);
      await gone.stop();
      expect((await api.delete(`/connectors/${name}`)).status).toBe(204);
      const [warning] = await waitFor(`the warning about slot ${name}`, () =>
        warningsAbout(name).length > 0 ? warningsAbout(name) : undefined,
      );
      expect(warning).toMatchObject({
        connector: name,
        slot: name,
        sql: `SELECT pg_drop_replication_slot('${name}');`,
      });
      expect(warning!.msg).toContain("may stay behind");
      expect(warningsAbout(name)).toHaveLength(1);
    } finally {
      await gone.stop();
    }
  }, 120_000);

  test("slot lag: the WAL the slot retains grows while the connector is paused and falls after it resumed", async () => {
    const name = `lag_${run}`;
    pg.psql("CREATE TABLE lag_rows (id int PRIMARY KEY, payload text)");
    const api = await (async () => {
      const client = connectClient(standalone.url);
      const config = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        ...cdcConnection(pg),
        "topic.prefix": name,
        "slot.name": name,
        "publication.name": `${name}_pub`,
        "publication.autocreate.mode": "filtered",
        "table.include.list": "public.lag_rows",
        "slot.drop.on.stop": "true",
        "slot.lag.interval.ms": "200",
        // A transaction's last change is not past its commit: what moves the slot past it on a quiet table.
        "heartbeat.interval.ms": "500",
        ...json,
      };
      expect((await client.post("/connectors", { name, config })).status).toBe(201);
      await client.waitForState(name, "RUNNING", 1);
      return client;
    })();
    const labels = { server: name, slot: name };
    const lag = async () => {
      const samples = await scrape(standalone.url);
      return {
        retained: valueOf(samples, "sluice_postgres_cdc_slot_retained_wal_bytes", labels),
        flush: valueOf(samples, "sluice_postgres_cdc_slot_confirmed_flush_lag_bytes", labels),
      };
    };
    const first = await waitFor("a first slot lag reading", async () => {
      const l = await lag();
      return Number.isFinite(l.retained) && Number.isFinite(l.flush) ? l : undefined;
    });
    expect(first.retained!).toBeGreaterThanOrEqual(first.flush!);

    expect((await api.put(`/connectors/${name}/pause`)).status).toBe(202);
    await api.waitForState(name, "PAUSED", 1);
    const MB = 1024 * 1024;
    pg.psql(`INSERT INTO lag_rows SELECT i, repeat('x', 200) FROM generate_series(1, 20000) AS i`);
    const grown = await waitFor(
      "the lag to grow by the WAL written while paused",
      async () => {
        const l = await lag();
        return l.flush! > first.flush! + 2 * MB && l.retained! > first.retained! + 2 * MB ? l : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    expect((await api.put(`/connectors/${name}/resume`)).status).toBe(202);
    // The slot's restart_lsn moves at the next record of running transactions: a checkpoint writes one.
    const fallen = await waitFor(
      "the lag to fall once the connector has caught up",
      async () => {
        pg.psql("CHECKPOINT");
        const l = await lag();
        return l.flush! < MB && l.retained! < grown.retained! - 2 * MB ? l : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(fallen.retained!).toBeGreaterThanOrEqual(fallen.flush!);
    expect((await api.delete(`/connectors/${name}`)).status).toBe(204);
    await waitFor(`slot ${name} dropped`, () => slotCount(name) === "0" || undefined, { timeoutMs: 30_000 });
  }, 120_000);
});
