// Exactly-once PostgreSQL CDC (KIP-618) under kill -9: three distributed dist/sluice workers with
// exactly.once.source.support=enabled run the CDC task while small transactions of inserts, updates and
// deletes keep coming; the task's worker is killed with SIGKILL five times at random moments and
// started again. A read_committed reader then sees every change exactly once, in commit order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { ConnectCluster, type Status } from "../../fixtures/connect-cluster.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

const cluster = new ConnectCluster({
  settings: {
    "exactly.once.source.support": "enabled",
    // The broker's least session timeout: a killed worker's task moves sooner.
    "session.timeout.ms": "6000",
    "heartbeat.interval.ms": "500",
  },
});
let pg: PostgresServer;

beforeAll(async () => {
  pg = await startPostgres();
  await cluster.setUp(3);
}, 180_000);

afterAll(async () => {
  await cluster.tearDown();
  await pg?.stop();
}, 60_000);

/** One change as the workload made it: `seq` is the row's value after it (before it, for a delete). */
interface Change {
  id: number;
  op: "c" | "u" | "d";
  seq: number;
}

const decoder = new TextDecoder();

/**
 * The change events of a topic (partition 0) as a read_committed reader sees them, in order. What such
 * a reader has seen does not change (it reads up to the last stable offset), so each call reads on from
 * where the last one stopped.
 */
function committedReader(topic: string) {
  const seen: Change[] = [];
  let position = 0;
  return async (): Promise<Change[]> => {
    const [end = 0] = await cluster.broker!.endOffsets(topic);
    while (position < end) {
      const records = await cluster.broker!.fetch(topic, 0, position, {
        isolationLevel: "read_committed",
        maxBytes: 16 * 1024 * 1024,
      });
      if (records.length === 0) break;
      for (const r of records) {
        if (r.value === null) continue;
        const event = JSON.parse(decoder.decode(r.value)) as {
          op: Change["op"];
          before: { id: number; seq: number } | null;
          after: { id: number; seq: number } | null;
        };
        const row = event.op === "d" ? event.before! : event.after!;
        seen.push({ id: row.id, op: event.op, seq: row.seq });
      }
      position = records.at(-1)!.offset + 1;
    }
    return seen;
  };
}

/** A REST call retried while the group rebalances (409) or a worker is starting. */
async function status(name: string): Promise<Status> {
  return waitFor(`${name}'s status`, async () => {
    for (const w of cluster.workers.filter((w) => w.proc)) {
      const answer = await cluster.client(w.index).get(`/connectors/${name}/status`);
      if (answer.status === 200) return answer.body as Status;
    }
    return undefined;
  });
}

/**
 * Small transactions of inserts, updates and deletes over a few keys (one in twenty larger than the task's
 * batches, so that Kafka transactions also end inside one), one after another on one connection, until
 * stopped: the changes in commit order, as committed.
 */
function workload(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const changes: Change[] = [];
  const rows = new Map<number, number>();
  let seq = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const made: Change[] = [];
      const after = new Map(rows);
      await sql.begin(async (tx) => {
        const size = Math.random() < 0.05 ? 60 + Math.floor(Math.random() * 60) : 1 + Math.floor(Math.random() * 3);
        for (let n = size; n > 0; n--) {
          const id = 1 + Math.floor(Math.random() * 20);
          const current = after.get(id);
          if (current === undefined) {
            await tx`INSERT INTO items (id, seq) VALUES (${id}, ${++seq})`;
            made.push({ id, op: "c", seq });
            after.set(id, seq);
          } else if (Math.random() < 0.7) {
            await tx`UPDATE items SET seq = ${++seq} WHERE id = ${id}`;
            made.push({ id, op: "u", seq });
            after.set(id, seq);
          } else {
            await tx`DELETE FROM items WHERE id = ${id}`;
            made.push({ id, op: "d", seq: current });
            after.delete(id);
          }
        }
      });
      changes.push(...made);
      rows.clear();
      for (const [k, v] of after) rows.set(k, v);
      await Bun.sleep(10); // pacing of the workload (under a hundred transactions a second), not synchronisation
    }
  })();
  return {
    changes,
    async stop() {
      stopped = true;
      await running;
      await sql.end();
    },
  };
}

describe("PostgreSQL CDC with exactly-once delivery", () => {
  test("kill -9 of the task's worker five times under inserts, updates and deletes: every change once, in order", async () => {
    const started = Date.now();
    const name = "eos-cdc";
    const topic = `${name}.public.items`;
    pg.psql("CREATE TABLE items (id int PRIMARY KEY, seq int NOT NULL)");
    // The whole old row in a delete's before (its seq identifies the event).
    pg.psql("ALTER TABLE items REPLICA IDENTITY FULL");
    // One partition: the read_committed reader's order is the task's order.
    await cluster.createTopic(topic, 1);
    const created = await cluster.client(0).put(`/connectors/${name}/config`, {
      "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      ...cdcConnection(pg),
      "topic.prefix": name,
      "slot.name": "eos_cdc",
      "table.include.list": "public.items",
      "snapshot.mode": "no_data",
      "tombstones.on.delete": "false",
      // Polls (each one Kafka transaction) smaller than the larger database transactions: a restarted
      // task resumes inside a database transaction too, skipping the changes committed before.
      "max.batch.size": "50",
      "exactly.once.support": "required",
      "key.converter": "org.apache.kafka.connect.json.JsonConverter",
      "key.converter.schemas.enable": "false",
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      "value.converter.schemas.enable": "false",
    });
    expect(created.status).toBe(201);
    await cluster.waitRunning(name, 1).catch(async (err: Error) => {
      // The status says why (a failed task's trace).
      throw new Error(`${err.message}: ${JSON.stringify(await status(name))}`);
    });
    // The slot exists once the task streams: changes from here on are captured.
    await waitFor("the replication slot", () => pg.psql("SELECT count(*) FROM pg_replication_slots") === "1");

    const committedChanges = committedReader(topic);
    /** Waits until the task (wherever it runs now) commits changes. */
    const flowing = async (what: string) => {
      const before = (await committedChanges()).length;
      await waitFor(what, async () => (await committedChanges()).length > before || undefined, {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
    };
    const work = workload(pg.url);
    try {
      await flowing("changes flowing");
      for (let kill = 1; kill <= 5; kill++) {
        await Bun.sleep(Math.floor(Math.random() * 2000)); // a random moment in the task's run, not synchronisation
        const owner = (await status(name)).tasks[0]!.worker_id;
        const victim = cluster.workers.find((w) => w.workerId === owner)!.index;
        await cluster.kill(victim, "SIGKILL");
        // The task moves to another worker, whose producer fences the killed one's, and goes on there.
        await flowing(`changes flowing after kill ${kill}`);
        await cluster.start(victim);
        // The restarted worker rejoins the group, which may move the task once more.
        await flowing(`changes flowing after worker ${victim} came back`);
      }
    } finally {
      await work.stop();
    }

    const expected = work.changes;
    const seen = await waitFor(
      `all ${expected.length} changes committed`,
      async () => {
        const changes = await committedChanges();
        return changes.length >= expected.length ? changes : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const key = (c: Change) => `${c.op}:${c.id}:${c.seq}`;
    const counts = new Map<string, number>();
    for (const c of seen) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1);
    const duplicates = [...counts.values()].filter((n) => n > 1).length;
    const lost = expected.filter((c) => !counts.has(key(c))).length;
    // Where the task started: once, and again after each kill.
    const starts = cluster.workers.map(
      (w) => cluster.entries(w.index, true).filter((e) => e.msg === `task ${name}-0 started`).length,
    );
    console.log(
      `${expected.length} changes in ${Math.round((Date.now() - started) / 1000)} s over 5 kills: ${lost} lost, ${duplicates} duplicated; task starts per worker ${starts.join("/")}`,
    );
    expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
    // It started six times at least, not always on the same worker.
    expect(starts.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(6);
    expect(starts.filter((n) => n > 0).length).toBeGreaterThan(1);
    // Each key's changes in commit order, and the whole stream too (one partition, one task).
    expect(seen.map(key)).toEqual(expected.map(key));
  }, 240_000);
});
