// Distributed mode at scale: clusters of 1, 3 and 5 dist/sluice workers on one Kafka broker, with 1, 10
// and 100 connectors (SequenceSource, one task each, idle after 10 numbers). Per cluster size and
// connector count, on a fresh group:
// - create: time from the first POST /connectors (all sent at once, retried on 409) to every connector
//   and task RUNNING;
// - fail-over: kill -9 of the worker running most tasks → every task RUNNING on the others (with one
//   worker: the worker restarted → everything RUNNING again);
// - the group's traffic: the leader's assignment bytes per rebalance, and the config and status topics'
//   record counts.
// Usage: bun bench/distributed.ts [workers=1,3,5] [connectors=1,10,100] [session.timeout.ms=10000]
// It uses the worker defaults of Kafka Connect (heartbeat.interval.ms 3000) except
// scheduled.rebalance.max.delay.ms=0 (a killed worker's tasks move at once, not after 5 minutes).
import { ConnectCluster, type Status } from "../test/fixtures/connect-cluster.ts";
import { stopSharedKafka } from "../test/fixtures/kafka.ts";
import { waitFor } from "../test/fixtures/wait.ts";

const workerCounts = (process.argv[2] ?? "1,3,5").split(",").map(Number);
const connectorCounts = (process.argv[3] ?? "1,10,100").split(",").map(Number);
const sessionTimeoutMs = Number(process.argv[4] ?? 10000);

interface Row {
  workers: number;
  connectors: number;
  createMs: number;
  failoverMs: number;
  rebalances: number;
  assignmentBytes: number;
  configRecords: number;
  statusRecords: number;
}

async function allRunning(cluster: ConnectCluster, names: string[], avoid?: string): Promise<Map<string, Status>> {
  return waitFor(
    `${names.length} connectors RUNNING${avoid ? ` away from ${avoid}` : ""}`,
    async () => {
      const via = cluster.runningIndex();
      const all = (await cluster.client(via).get("/connectors?expand=status")).body as Record<string, { status?: Status }>;
      const out = new Map<string, Status>();
      for (const name of names) {
        const s = all[name]?.status;
        if (!s || s.connector.state !== "RUNNING" || s.tasks.length !== 1 || s.tasks[0]!.state !== "RUNNING") return undefined;
        if (avoid && (s.connector.worker_id === avoid || s.tasks[0]!.worker_id === avoid)) return undefined;
        out.set(name, s);
      }
      return out;
    },
    { timeoutMs: 600_000, intervalMs: 100 },
  );
}

async function measure(workers: number, connectors: number): Promise<Row> {
  const cluster = new ConnectCluster({ settings: { "heartbeat.interval.ms": "3000", "session.timeout.ms": String(sessionTimeoutMs) } });
  await cluster.setUp(workers);
  try {
    const names = Array.from({ length: connectors }, (_, i) => `seq-${i}`);
    const started = Date.now();
    await Promise.all(
      names.map((name, i) =>
        waitFor(`${name} created`, async () => {
          const r = await cluster.client(i % workers).post("/connectors", { name, config: { "connector.class": "SequenceSource", topic: `${cluster.group}-numbers`, "sequence.max": "10" } });
          return r.status === 201 || undefined;
        }, { timeoutMs: 600_000, intervalMs: 200 }),
      ),
    );
    const statuses = await allRunning(cluster, names);
    const createMs = Date.now() - started;

    const load = new Map<string, number>();
    for (const s of statuses.values()) load.set(s.tasks[0]!.worker_id, (load.get(s.tasks[0]!.worker_id) ?? 0) + 1);
    const [victimId] = [...load].sort((a, b) => b[1] - a[1])[0]!;
    const victim = cluster.workers.find((w) => w.workerId === victimId)!.index;
    const killedAt = Date.now();
    await cluster.kill(victim, "SIGKILL");
    if (workers === 1) await cluster.start(victim);
    await allRunning(cluster, names, workers === 1 ? undefined : victimId);
    const failoverMs = Date.now() - killedAt;

    const leaderLog = cluster.workers.flatMap((w) => cluster.entries(w.index)).filter((e) => e.msg === "assigned connectors and tasks");
    const ends = async (topic: string) => (await cluster.broker!.endOffsets(topic)).reduce((a, b) => a + b, 0);
    return {
      workers,
      connectors,
      createMs,
      failoverMs,
      rebalances: leaderLog.length,
      assignmentBytes: Math.max(...leaderLog.map((e) => Number(e.assignmentBytes ?? 0))),
      configRecords: await ends(`${cluster.group}-configs`),
      statusRecords: await ends(`${cluster.group}-status`),
    };
  } finally {
    await cluster.tearDown();
  }
}

const rows: Row[] = [];
for (const w of workerCounts) {
  for (const c of connectorCounts) {
    const row = await measure(w, c);
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
console.log(`\nsession.timeout.ms ${sessionTimeoutMs}, heartbeat.interval.ms 3000\n`);
console.log("| Workers | Connectors (1 task each) | Create all → RUNNING | kill -9 → all RUNNING elsewhere | Rebalances | Largest assignment (all members) | Config topic records | Status topic records |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const failover = r.workers === 1 ? `${(r.failoverMs / 1000).toFixed(1)} s (restart)` : `${(r.failoverMs / 1000).toFixed(1)} s`;
  console.log(`| ${r.workers} | ${r.connectors} | ${(r.createMs / 1000).toFixed(1)} s | ${failover} | ${r.rebalances} | ${r.assignmentBytes} B | ${r.configRecords} | ${r.statusRecords} |`);
}
await stopSharedKafka();
process.exit(0);
