// Distributed mode with real processes: three dist/sluice workers on real Kafka form one cluster,
// forward REST writes to their leader, and lose nothing when a worker is killed (-9), stopped
// (SIGTERM), or when the whole cluster restarts. SequenceSource (plugins/) writes numbers per task; the
// dump sink (test fixture plugin) writes what it receives to a file; both are checked number by number.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConnectCluster, sequenceReport, type Status } from "../../fixtures/connect-cluster.ts";
import { waitFor } from "../../fixtures/wait.ts";

const TASKS = 6;
const cluster = new ConnectCluster();

beforeAll(() => cluster.setUp(3), 120_000);
afterAll(() => cluster.tearDown());

/** A write retried while the group rebalances (409), as Kafka Connect's clients do. */
function retried(what: string, call: () => Promise<{ status: number; body: unknown }>) {
  return waitFor(
    what,
    async () => {
      const r = await call();
      return r.status === 409 ? undefined : r;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

async function create(
  via: number,
  body: { name: string; config: Record<string, string>; initial_state?: string },
): Promise<void> {
  expect((await retried(`${body.name} created`, () => cluster.client(via).post("/connectors", body))).status).toBe(201);
}

/** A source writing `max` numbers per task at ~1,000/s per task, and a sink dumping them to a file. */
async function pipeline(name: string, max: number, via: number, extra: Record<string, string> = {}) {
  const topic = `${cluster.group}-${name}`;
  await cluster.createTopic(topic, TASKS);
  const dump = join(cluster.dir, `${name}.dump`);
  const source = {
    "connector.class": "SequenceSource",
    topic,
    "tasks.max": String(TASKS),
    "sequence.max": String(max),
    "sequence.interval.ms": "100",
    ...extra,
  };
  await create(via, { name, config: source });
  const sink = { "connector.class": "test.DumpSinkConnector", topics: topic, file: dump, "tasks.max": "3" };
  await create(via, { name: `${name}-sink`, config: sink });
  return {
    topic,
    dumped: () =>
      existsSync(dump)
        ? readFileSync(dump, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { key: string; value: string })
        : [],
  };
}

/** Waits until every task committed `max` and the sink received every number. */
async function waitDone(name: string, max: number, dumped: () => { key: string; value: string }[]) {
  await waitFor(
    `${name}: every number committed and delivered to the sink`,
    async () => {
      const offsets = (await cluster.client(cluster.runningIndex()).get(`/connectors/${name}/offsets`)).body as {
        offsets: { offset: { next: number } }[];
      };
      const committed = offsets.offsets.filter((o) => o.offset.next >= max).length === TASKS;
      return committed && sequenceReport(dumped(), TASKS, max).lost === 0;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}

function workersOf(status: Status): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of status.tasks) counts.set(t.worker_id, (counts.get(t.worker_id) ?? 0) + 1);
  return counts;
}

describe("a cluster of three dist/sluice workers", () => {
  test("the workers form one group: connectors and tasks are spread over all three", async () => {
    const { topic } = await pipeline("spread", 200, 0);
    const status = await cluster.waitRunning("spread", TASKS);
    // Balanced: 6 tasks on 3 workers, 2 each.
    await waitFor("tasks balanced over the three workers", async () => {
      const s = await cluster.waitRunning("spread", TASKS);
      const counts = workersOf(s);
      return counts.size === 3 && [...counts.values()].every((n) => n === 2) ? s : undefined;
    });
    expect(status.tasks.map((t) => t.id)).toEqual([0, 1, 2, 3, 4, 5]);
    // Every worker answers for every connector (it follows the same topics).
    for (const w of cluster.workers) {
      await waitFor(
        `worker ${w.index} to know both connectors`,
        async () =>
          JSON.stringify((await cluster.client(w.index).get("/connectors")).body) === '["spread","spread-sink"]',
      );
      expect(((await cluster.client(w.index).get("/connectors/spread/tasks")).body as unknown[]).length).toBe(TASKS);
    }
    expect(topic).toContain("spread");
  });

  test("a write sent to a follower lands on the leader; a write during a rebalance gets 409 and succeeds when retried", async () => {
    const first = cluster.leader();
    const follower = cluster.workers.find((w) => w.index !== first)!.index;
    const config = { "connector.class": "SequenceSource", topic: `${cluster.group}-forwarded`, "sequence.max": "1" };
    await create(follower, { name: "forwarded", config });
    // Only the leader wrote it to the config topic. The leader is read again from the logs: a rebalance
    // still settling after the previous test may have handed the role on since it was read above.
    const writers = () =>
      cluster.workers
        .filter((w) => cluster.entries(w.index).some((e) => e.msg === "connector forwarded created"))
        .map((w) => w.index);
    await waitFor("a worker to log the creation", async () => writers().length > 0);
    const leader = cluster.leader();
    expect(writers()).toEqual([leader]);
    const other = cluster.workers.find((w) => w.index !== leader && w.index !== follower)!.index;
    for (const w of cluster.workers)
      await waitFor(
        `worker ${w.index} to read the config`,
        async () => (await cluster.client(w.index).get("/connectors/forwarded/config")).status === 200,
      );

    // Once the group is settled, a paused worker holds the next rebalance open until its session
    // expires (10 s): a write waits 3 s for a rebalance to end, then gets 409.
    await cluster.waitRunning("forwarded", 1);
    cluster.signal(other, "SIGSTOP");
    try {
      const trigger = await cluster
        .client(leader)
        .post("/connectors", { name: "trigger", config: { ...config, topic: `${cluster.group}-trigger` } });
      expect(trigger.status).toBe(201);
      const conflict = await waitFor(
        "a 409 while the group rebalances",
        async () => {
          const r = await cluster.client(follower).put("/connectors/during/config", config);
          expect(r.status).not.toBe(500);
          return r.status === 409 ? r : undefined;
        },
        { timeoutMs: 9_000, intervalMs: 20 },
      );
      expect(conflict.body).toEqual({
        error_code: 409,
        message: expect.stringContaining("Cannot complete request momentarily"),
      });
    } finally {
      cluster.signal(other, "SIGCONT");
    }
    const retry = await retried("the write to succeed once the rebalance is over", () =>
      cluster.client(follower).put("/connectors/during/config", config),
    );
    expect(retry.status === 201 || retry.status === 200).toBe(true);
    expect((retry.body as { name: string }).name).toBe("during");
    for (const name of ["forwarded", "trigger", "during"])
      expect(
        (await retried(`${name} deleted`, () => cluster.client(leader).delete(`/connectors/${name}`))).status,
      ).toBe(204);
  }, 90_000);

  test("pause, resume, stop, offsets, restarts and delete apply cluster-wide, whichever worker is asked", async () => {
    const topic = `${cluster.group}-lifecycle`;
    await cluster.createTopic(topic, TASKS);
    await create(0, {
      name: "life",
      config: { "connector.class": "SequenceSource", topic, "tasks.max": String(TASKS), "sequence.max": "100" },
    });
    await cluster.waitRunning("life", TASKS);
    const states = async (via: number) => {
      const s = (await cluster.client(via).get("/connectors/life/status")).body as Status;
      return [s.connector.state, ...s.tasks.map((t) => t.state)];
    };
    const every = (state: string, via: number) =>
      waitFor(`life ${state}`, async () => (await states(via)).every((x) => x === state) || undefined);

    expect((await cluster.client(1).put("/connectors/life/pause")).status).toBe(202);
    await every("PAUSED", 2);
    expect((await cluster.client(2).put("/connectors/life/resume")).status).toBe(202);
    await every("RUNNING", 0);

    // Stop: no tasks; then the offsets API, asked of any worker, works on the stopped connector.
    expect((await retried("stop", () => cluster.client(1).put("/connectors/life/stop"))).status).toBe(204);
    await waitFor("life STOPPED without tasks", async () => {
      const s = (await cluster.client(2).get("/connectors/life/status")).body as Status;
      return s.connector.state === "STOPPED" && s.tasks.length === 0;
    });
    const offsets = (await cluster.client(2).get("/connectors/life/offsets")).body as {
      offsets: { partition: { task: string }; offset: { next: number } }[];
    };
    expect(offsets.offsets.length).toBe(TASKS);
    const altered = await retried("alter offsets", () =>
      cluster
        .client(2)
        .patch("/connectors/life/offsets", { offsets: [{ partition: { task: "0" }, offset: { next: 42 } }] }),
    );
    expect(altered.body).toEqual({
      message:
        "The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.",
    });
    await waitFor("the altered offset on every worker", async () => {
      for (const w of cluster.workers) {
        const o = (await cluster.client(w.index).get("/connectors/life/offsets")).body as typeof offsets;
        if (o.offsets.find((x) => x.partition.task === "0")?.offset.next !== 42) return false;
      }
      return true;
    });
    // Offsets of a running connector cannot be changed.
    expect((await retried("resume", () => cluster.client(0).put("/connectors/life/resume"))).status).toBe(202);
    await cluster.waitRunning("life", TASKS, 1);
    const refused = await retried("alter while running", () =>
      cluster
        .client(1)
        .patch("/connectors/life/offsets", { offsets: [{ partition: { task: "0" }, offset: { next: 1 } }] }),
    );
    expect(refused.status).toBe(400);
    // Task 0 resumed from the altered offset: numbers 42.. are written again.
    await waitFor(
      "task 0 writing from 42 again",
      async () =>
        (await cluster.readTopic(topic)).filter((r) => r.key === "0" && r.value === "42").length === 2 || undefined,
      { intervalMs: 200 },
    );

    // Restarts: the whole connector (202 with the plan), and one task through a worker that does not run it.
    const planned = await retried("restart", () =>
      cluster.client(2).post("/connectors/life/restart?includeTasks=true"),
    );
    expect(planned.status).toBe(202);
    expect((planned.body as Status).tasks.every((t) => t.state === "RESTARTING")).toBe(true);
    await cluster.waitRunning("life", TASKS, 0);
    const status = await cluster.waitRunning("life", TASKS, 0);
    const owner = status.tasks[0]!.worker_id;
    const elsewhere = cluster.workers.find((w) => w.workerId !== owner)!.index;
    expect(
      (await retried("task restart", () => cluster.client(elsewhere).post("/connectors/life/tasks/0/restart"))).status,
    ).toBe(204);
    expect((await cluster.client(elsewhere).post("/connectors/life/tasks/9/restart")).status).toBe(404);

    expect((await retried("delete", () => cluster.client(1).delete("/connectors/life"))).status).toBe(204);
    for (const w of cluster.workers) {
      await waitFor(
        `life gone from worker ${w.index}`,
        async () => (await cluster.client(w.index).get("/connectors/life/status")).status === 404,
      );
    }
  }, 120_000);

  /**
   * Runs a pipeline of `max` numbers per task, stops the worker running the most source tasks with
   * `signal` mid-run, and waits until its tasks run elsewhere and every number is through.
   */
  async function stopWorkerMidRun(name: string, max: number, via: number, signal: "SIGKILL" | "SIGTERM") {
    const { topic, dumped } = await pipeline(name, max, via);
    const status = await cluster.waitRunning(name, TASKS);
    await waitFor("numbers flowing", async () => (await cluster.readTopic(topic)).length > 1000 || undefined, {
      intervalMs: 200,
    });
    const [victimId] = [...workersOf(status)].sort((a, b) => b[1] - a[1])[0]!;
    const victim = cluster.workers.find((w) => w.workerId === victimId)!.index;
    const stoppedAt = Date.now();
    await cluster.kill(victim, signal);
    await waitFor(
      `${name}: the stopped worker's tasks RUNNING elsewhere`,
      async () => {
        const s = await cluster.waitRunning(name, TASKS);
        return (s.connector.worker_id !== victimId && !workersOf(s).has(victimId)) || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const moveMs = Date.now() - stoppedAt;
    await waitDone(name, max, dumped);
    const produced = sequenceReport(await cluster.readTopic(topic), TASKS, max);
    const delivered = sequenceReport(dumped(), TASKS, max);
    console.log(
      `${signal}: tasks RUNNING elsewhere after ${moveMs} ms (session.timeout.ms 10000); lost ${produced.lost}, duplicates in Kafka ${produced.duplicates}, in the sink ${delivered.duplicates}`,
    );
    await cluster.start(victim);
    return { produced, delivered };
  }

  test("kill -9 of a worker mid-run: its tasks move to the others and no number is lost", async () => {
    const { produced, delivered } = await stopWorkerMidRun("killed", 20000, 0, "SIGKILL");
    // Numbers sent after the last offset commit are sent again by the new owner: counted, not lost.
    expect(produced.lost).toBe(0);
    expect(delivered.lost).toBe(0);
  }, 240_000);

  test("SIGTERM: the worker stops its tasks gracefully, they move, and nothing is lost or repeated", async () => {
    const { produced, delivered } = await stopWorkerMidRun("stopped", 15000, 1, "SIGTERM");
    expect(produced).toMatchObject({ lost: 0, duplicates: 0 });
    expect(delivered).toMatchObject({ lost: 0, duplicates: 0 });
  }, 240_000);

  test("whole-cluster restart: connectors, target states and offsets come back from the topics", async () => {
    const max = 15000;
    const { topic, dumped } = await pipeline("restarted", max, 2);
    const config = { "connector.class": "SequenceSource", topic: `${cluster.group}-paused`, "sequence.max": "10" };
    await create(0, { name: "paused", config, initial_state: "PAUSED" });
    await cluster.waitRunning("restarted", TASKS);
    await waitFor("numbers flowing", async () => (await cluster.readTopic(topic)).length > 1000 || undefined, {
      intervalMs: 200,
    });
    await Promise.all(cluster.workers.map((w) => cluster.kill(w.index, "SIGTERM")));
    const before = (await cluster.readTopic(topic)).length;
    expect(before).toBeLessThan(max * TASKS);
    for (const w of cluster.workers) await cluster.start(w.index);
    const names = (await cluster.client(1).get("/connectors")).body as string[];
    expect(names).toEqual(
      expect.arrayContaining(["restarted", "restarted-sink", "paused", "killed", "stopped", "spread"]),
    );
    await waitFor("the paused connector PAUSED again", async () => {
      const s = (await cluster.client(2).get("/connectors/paused/status")).body as Status | undefined;
      return s?.connector.state === "PAUSED" && s.connector.worker_id !== undefined;
    });
    await waitDone("restarted", max, dumped);
    const produced = sequenceReport(await cluster.readTopic(topic), TASKS, max);
    console.log(
      `whole-cluster restart: ${before} numbers before the stop; lost ${produced.lost}, duplicates ${produced.duplicates}`,
    );
    expect(produced).toMatchObject({ lost: 0, duplicates: 0 });
    expect(sequenceReport(dumped(), TASKS, max)).toMatchObject({ lost: 0, duplicates: 0 });
  }, 240_000);
});
