// slot.failover=true against a real PostgreSQL 17 (fetched by postgres17.ts where the machine's is
// older): the connector creates its slot as a failover slot, snapshots and streams through it. (On an
// older server the task refuses: postgres-cdc-debezium-columns.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { postgres17BinDir } from "../../fixtures/postgres17.ts";
import { waitFor } from "../../fixtures/wait.ts";

describe("PostgreSQL CDC failover slots (PostgreSQL 17)", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  const ids = async (topic: string) =>
    (await worker.connect.broker.fetch(topic, 0, 0, { maxBytes: 1024 * 1024 }).catch(() => [])).map((r) => {
      const value = JSON.parse(Buffer.from(r.value!).toString("utf8"));
      return `${value.payload.op}:${value.payload.after.id}`;
    });

  beforeAll(async () => {
    pg = await startPostgres({ serverBin: postgres17BinDir() });
    pg.psql("CREATE TABLE items (id int PRIMARY KEY, name text)");
    pg.psql("INSERT INTO items VALUES (1, 'one')");
    worker = await startTestConnect("kafka", {
      "key.converter": "org.apache.kafka.connect.json.JsonConverter",
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    });
  }, 600_000);
  afterAll(async () => {
    await worker?.stop();
    if (worker) removeConnectDir(worker);
    await pg?.stop();
  });

  test("slot.failover=true creates a failover slot, through which the connector snapshots and streams", async () => {
    expect(pg.psql("SELECT current_setting('server_version_num')::int / 10000")).toBe("17");
    const created = await connectClient(worker.url).post("/connectors", {
      name: "failover",
      config: {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        ...cdcConnection(pg),
        "topic.prefix": "failover",
        "slot.name": "failover_slot",
        "table.include.list": "public.items",
        "slot.failover": "true",
      },
    });
    expect(created.status).toBe(201);
    await waitFor("the snapshot", async () => (await ids("failover.public.items")).includes("r:1"), {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    expect(pg.psql("SELECT failover FROM pg_replication_slots WHERE slot_name = 'failover_slot'")).toBe("t");
    pg.psql("INSERT INTO items VALUES (2, 'two')");
    const all = await waitFor(
      "the streamed insert",
      async () => {
        const seen = await ids("failover.public.items");
        return seen.includes("c:2") ? seen : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(all).toEqual(["r:1", "c:2"]);
  }, 120_000);
});
