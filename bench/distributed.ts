// Distributed mode at scale: clusters of 1, 3 and 5 dist/sluice workers on one Kafka broker, with 1, 10
// and 100 connectors (SequenceSource, one task each, idle after 10 numbers). Per cluster size and
// connector count, on a fresh group:
// - create: time from the first POST /connectors (all sent at once, retried on 409) to every connector
//   and task RUNNING;
// - fail-over: kill -9 of the worker running most tasks → every task RUNNING on the others;
// - the group's traffic: the leader's assignment bytes per rebalance, and the config and status topics'
//   record counts.
// Then side by side with Apache Kafka Connect 4.1.1 (Maven jars, ConnectDistributed): 3 workers each,
// 10 FileStreamSource connectors, the same measures, and the workers' peak RSS; ratios Sluice / Kafka.
// Usage: bun bench/distributed.ts [workers=1,3,5] [connectors=1,10,100] [session.timeout.ms=10000]
// (workers "0": only the side-by-side part)
// It uses the worker defaults of Kafka Connect (heartbeat.interval.ms 3000) except
// scheduled.rebalance.max.delay.ms=0 (a killed worker's tasks move at once, not after 5 minutes).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient } from "../test/fixtures/connect.ts";
import { ConnectCluster, type Status } from "../test/fixtures/connect-cluster.ts";
import { startKafkaConnect, type KafkaConnect } from "../test/fixtures/kafka-connect.ts";
import { sharedKafka, stopSharedKafka } from "../test/fixtures/kafka.ts";
import { waitFor } from "../test/fixtures/wait.ts";

const counts = (arg: string | undefined, all: string) =>
  (arg ?? all)
    .split(",")
    .map(Number)
    .filter((n) => n > 0);
const workerCounts = counts(process.argv[2], "1,3,5");
const connectorCounts = counts(process.argv[3], "1,10,100");
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

/** Waits until every connector and its one task are RUNNING (away from `avoid`), asking the worker at `url()`. */
async function allRunning(url: () => string, names: string[], avoid?: string): Promise<Map<string, Status>> {
  return waitFor(
    `${names.length} connectors RUNNING${avoid ? ` away from ${avoid}` : ""}`,
    async () => {
      const all = (await connectClient(url()).get("/connectors?expand=status")).body as Record<
        string,
        { status?: Status }
      >;
      const out = new Map<string, Status>();
      for (const name of names) {
        const s = all[name]?.status;
        if (s?.connector.state !== "RUNNING" || s.tasks.length !== 1 || s.tasks[0]!.state !== "RUNNING")
          return undefined;
        if (avoid && (s.connector.worker_id === avoid || s.tasks[0]!.worker_id === avoid)) return undefined;
        out.set(name, s);
      }
      return out;
    },
    { timeoutMs: 600_000, intervalMs: 100 },
  );
}

/** Timings start from a formed group: every worker healthy (it completed start-up and joined). */
async function formed(urls: string[]): Promise<void> {
  for (const url of urls)
    await waitFor(`${url} healthy`, async () => (await fetch(`${url}/health`).catch(() => undefined))?.status === 200, {
      timeoutMs: 180_000,
      intervalMs: 100,
    });
}

async function measure(workers: number, connectors: number): Promise<Row> {
  const cluster = new ConnectCluster({
    settings: { "heartbeat.interval.ms": "3000", "session.timeout.ms": String(sessionTimeoutMs) },
  });
  await cluster.setUp(workers);
  try {
    const names = Array.from({ length: connectors }, (_, i) => `seq-${i}`);
    await formed(cluster.workers.map((w) => w.url));
    const started = Date.now();
    await Promise.all(
      names.map((name, i) =>
        waitFor(
          `${name} created`,
          async () => {
            const r = await cluster.client(i % workers).post("/connectors", {
              name,
              config: {
                "connector.class": "SequenceSource",
                topic: `${cluster.group}-numbers`,
                "sequence.max": "10",
              },
            });
            return r.status === 201 || undefined;
          },
          { timeoutMs: 600_000, intervalMs: 200 },
        ),
      ),
    );
    const statuses = await allRunning(() => cluster.workers[cluster.runningIndex()]!.url, names);
    const createMs = Date.now() - started;

    const load = new Map<string, number>();
    for (const s of statuses.values()) load.set(s.tasks[0]!.worker_id, (load.get(s.tasks[0]!.worker_id) ?? 0) + 1);
    const [victimId] = [...load].sort((a, b) => b[1] - a[1])[0]!;
    const victim = cluster.workers.find((w) => w.workerId === victimId)!.index;
    // With one worker there is nowhere to move to.
    let failoverMs = Number.NaN;
    if (workers > 1) {
      const killedAt = Date.now();
      await cluster.kill(victim, "SIGKILL");
      await allRunning(() => cluster.workers[cluster.runningIndex()]!.url, names, victimId);
      failoverMs = Date.now() - killedAt;
    }

    const leaderLog = cluster.workers
      .flatMap((w) => cluster.entries(w.index, true))
      .filter((e) => e.msg === "assigned connectors and tasks");
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
if (rows.length > 0) console.log(`\nsession.timeout.ms ${sessionTimeoutMs}, heartbeat.interval.ms 3000\n`);
console.log(
  "| Workers | Connectors (1 task each) | Create all → RUNNING | kill -9 → all RUNNING elsewhere | Rebalances | Largest assignment (all members) | Config topic records | Status topic records |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const failover = Number.isNaN(r.failoverMs) ? "—" : `${(r.failoverMs / 1000).toFixed(1)} s`;
  console.log(
    `| ${r.workers} | ${r.connectors} | ${(r.createMs / 1000).toFixed(1)} s | ${failover} | ${r.rebalances} | ${r.assignmentBytes} B | ${r.configRecords} | ${r.statusRecords} |`,
  );
}

// ---- side by side with Apache Kafka Connect ----

interface Side {
  createMs: number;
  failoverMs: number;
  rssMb: number;
}

const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** Creates `count` FileStreamSource connectors on empty files, then kills the busiest worker. */
async function scenario(
  urls: string[],
  workerIds: string[],
  kill: (index: number) => Promise<void>,
  pids: () => number[],
  count: number,
  topic: string,
): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-bench-files-"));
  const names = Array.from({ length: count }, (_, i) => `file-${i}`);
  const alive = new Set(urls.map((_, i) => i));
  const anyUrl = () => urls[[...alive][0]!]!;
  await formed(urls);
  const started = Date.now();
  await Promise.all(
    names.map((name, i) => {
      const file = join(dir, `${name}.txt`);
      writeFileSync(file, "");
      return waitFor(
        `${name} created`,
        async () =>
          (
            await connectClient(urls[i % urls.length]!).post("/connectors", {
              name,
              config: { "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", file, topic },
            })
          ).status === 201 || undefined,
        { timeoutMs: 600_000, intervalMs: 200 },
      );
    }),
  );
  const statuses = await allRunning(anyUrl, names);
  const createMs = Date.now() - started;
  const rssMb = pids().reduce((sum, pid) => sum + peakRssMb(pid), 0);
  const load = new Map<string, number>();
  for (const st of statuses.values()) load.set(st.tasks[0]!.worker_id, (load.get(st.tasks[0]!.worker_id) ?? 0) + 1);
  const [victimId] = [...load].sort((a, b) => b[1] - a[1])[0]!;
  const victim = workerIds.indexOf(victimId);
  if (victim < 0) throw new Error(`worker ${victimId} is not one of ${workerIds.join(", ")}`);
  const killedAt = Date.now();
  await kill(victim);
  alive.delete(victim);
  await allRunning(anyUrl, names, victimId);
  return { createMs, failoverMs: Date.now() - killedAt, rssMb };
}

const SIDE_WORKERS = 3;
const SIDE_CONNECTORS = 10;
const group = (name: string) => ({
  "group.id": name,
  "config.storage.topic": `${name}-configs`,
  "offset.storage.topic": `${name}-offsets`,
  "status.storage.topic": `${name}-status`,
  "config.storage.replication.factor": "1",
  "offset.storage.replication.factor": "1",
  "status.storage.replication.factor": "1",
  "offset.storage.partitions": "5",
  "session.timeout.ms": String(sessionTimeoutMs),
  "heartbeat.interval.ms": "3000",
  "scheduled.rebalance.max.delay.ms": "0",
  "key.converter": "org.apache.kafka.connect.storage.StringConverter",
  "value.converter": "org.apache.kafka.connect.storage.StringConverter",
});

const bootstrap = (await sharedKafka()).bootstrap;
const kafkaSide = await (async () => {
  const workers: KafkaConnect[] = await Promise.all(
    Array.from({ length: SIDE_WORKERS }, () =>
      startKafkaConnect({ bootstrap, distributed: true, worker: group("kc-bench"), timeoutMs: 180_000 }),
    ),
  );
  try {
    return await scenario(
      workers.map((w) => w.url),
      workers.map((w) => `127.0.0.1:${w.port}`),
      async (i) => {
        workers[i]!.proc.kill("SIGKILL");
        await workers[i]!.proc.exited;
      },
      () => workers.filter((w) => w.proc.exitCode === null).map((w) => w.proc.pid),
      SIDE_CONNECTORS,
      "kc-bench-lines",
    );
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
})();
const sluiceSide = await (async () => {
  const cluster = new ConnectCluster({
    settings: { "heartbeat.interval.ms": "3000", "session.timeout.ms": String(sessionTimeoutMs) },
  });
  await cluster.setUp(SIDE_WORKERS);
  try {
    return await scenario(
      cluster.workers.map((w) => w.url),
      cluster.workers.map((w) => w.workerId),
      (i) => cluster.kill(i, "SIGKILL"),
      () => cluster.workers.filter((w) => w.proc).map((w) => w.proc!.pid),
      SIDE_CONNECTORS,
      `${cluster.group}-lines`,
    );
  } finally {
    await cluster.tearDown();
  }
})();
console.log(`\n${SIDE_WORKERS} workers, ${SIDE_CONNECTORS} FileStreamSource connectors, side by side\n`);
console.log("| | Create all → RUNNING | kill -9 → all RUNNING elsewhere | Peak RSS, all workers |");
console.log("|---|---|---|---|");
const row = (name: string, x: Side) =>
  console.log(
    `| ${name} | ${(x.createMs / 1000).toFixed(1)} s | ${(x.failoverMs / 1000).toFixed(1)} s | ${x.rssMb.toFixed(0)} MB |`,
  );
row("Apache Kafka Connect 4.1.1", kafkaSide);
row("Sluice", sluiceSide);
console.log(
  `| ratio Sluice / Kafka | ${(sluiceSide.createMs / kafkaSide.createMs).toFixed(2)} | ${(sluiceSide.failoverMs / kafkaSide.failoverMs).toFixed(2)} | ${(sluiceSide.rssMb / kafkaSide.rssMb).toFixed(2)} |`,
);

await stopSharedKafka();
process.exit(0);
