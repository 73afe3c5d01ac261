// MirrorMaker 2's MirrorSourceConnector, Sluice against Apache Kafka Connect 4.1.1 with Kafka's connect-mirror.
// Two local Kafka 4.1.1 clusters, source and target. The source topic `bench` is filled once with `records`
// records (8-byte keys, 100-byte values) over `partitions` partitions; then each run starts one distributed
// worker on the target cluster (its own process and group): `dist/sluice connect-distributed`, or
// ConnectDistributed with the JVM options of Kafka's scripts and connect-mirror on its classpath, and POSTs a
// MirrorSourceConnector with the same settings on both (ByteArrayConverter, replication factor 1, ACL sync
// off, offset syncs on as by default). Each run has source and target aliases of its own, so it replicates
// `bench` from the start into a remote topic and offset-syncs topic of its own.
// 1. Throughput: POST /connectors → the remote topic's end offsets add up to `records` (acks=all writes on the
//    target), per tasks.max in `tasks`; then every partition's end offset and its first and last record
//    (key, value, timestamp) are checked against the source's.
// 2. Lag (in the runs with the first tasks.max only, after the throughput phase, on the same connector):
//    `rate` records/s produced to a topic of its own on the source for `lagSeconds` (after `WARMUP_S` not
//    counted), read on the target by a long-polling reader; lag = the time a record is read on the target −
//    its timestamp (set when the bench produces it on the source; MM2 keeps it). Before the first run the same
//    load is produced and read back on each broker alone: it warms the brokers, and its lag is the floor.
// The runs alternate (Sluice, Kafka Connect per tasks.max, in reverse order every other round); figures are
// medians over the rounds. RSS: the worker process's peak (VmHWM) over the run. CPU: its user + system time
// over the throughput phase. The bench, both brokers and the worker share the machine's cores.
// Usage: bun bench/mirror-maker.ts [records=500000] [partitions=4] [tasks=1,4] [rounds=2] [lagSeconds=15]
//        [rate=10000] [timeoutSeconds=600] [sides=sluice,kafka]
// (sides: one of them alone, e.g. for a profile: no ratios then)
// SLUICE_BIN overrides the Sluice executable (default dist/sluice, built with `bun run build` if missing).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { FetchedRecord, PartitionRead } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { kafkaConnectClasspath } from "../test/fixtures/kafka-connect.ts";
import { startKafka } from "../test/fixtures/kafka.ts";
import { kafkaMirrorClasspath } from "../test/fixtures/kafka-mirror.ts";
import { freePort } from "../test/fixtures/wait.ts";
import { lineText } from "./lib/line-file.ts";
import {
  checkNoFailure,
  cpuSeconds,
  createConnectorWhenReady,
  KAFKA_CONNECT_JVM_OPTIONS,
  sluiceBinary,
  startWorkerProcess,
  type WorkerProcess,
} from "./lib/worker-process.ts";
import { distributedWorkerProperties } from "./lib/worker-properties.ts";

const records = Number(process.argv[2] ?? 500_000);
const partitions = Number(process.argv[3] ?? 4);
const taskCounts = (process.argv[4] ?? "1,4").split(",").map(Number);
const rounds = Number(process.argv[5] ?? 2);
const lagSeconds = Number(process.argv[6] ?? 15);
const rate = Number(process.argv[7] ?? 10_000);
const timeoutMs = Number(process.argv[8] ?? 600) * 1000;
const sides = (process.argv[9] ?? "sluice,kafka").split(",");
/** Seconds of the lag phase's load before its records count: the connector has just finished a backlog. */
const WARMUP_S = 3;
const TOPIC = "bench";
const BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter";
const work = mkdtempSync(join(tmpdir(), "sluice-bench-mm2-"));

type Side = "sluice" | "kafka";
interface Kind {
  key: string;
  side: Side;
  tasks: number;
}
const kinds: Kind[] = taskCounts.flatMap((tasks) =>
  (["sluice", "kafka"] as const)
    .filter((side) => sides.includes(side))
    .map((side) => ({ key: `${side}-${tasks}`, side, tasks })),
);
if (kinds.length === 0) throw new Error("sides: sluice, kafka or both");
const label = (k: Kind) => `${k.side === "sluice" ? "Sluice" : "Kafka Connect 4.1.1"}, tasks.max=${k.tasks}`;

interface Lag {
  p50: number;
  p99: number;
  max: number;
  /** The measured records over the time from the window's start to the last one read on the target, per second. */
  delivered: number;
}

interface Run {
  kind: string;
  round: number;
  /** POST /connectors → every record on the target, ms. */
  doneMs: number;
  /** POST /connectors → the first record on the target, ms. */
  firstMs: number;
  recordsPerSecond: number;
  /** Over the time from the first record: leaves the connector's start (topic creation, task start) out. */
  recordsPerSecondAfterFirst: number;
  /** The worker's user + system CPU over the throughput phase, in seconds. */
  workerCpuS: number;
  /** Peak RSS of the worker over the throughput phase, MiB. */
  throughputRssMiB: number;
  /** Peak RSS of the worker over the whole run (with the lag phase), MiB. */
  peakRssMiB: number;
  lag?: Lag;
}

const encoder = new TextEncoder();
const keyOf = (i: number) => encoder.encode(String(i).padStart(8, "0"));

/** Fills `bench` on the source: record i in partition i % partitions, in sends of 5 000. */
async function fill(source: KafkaBroker): Promise<void> {
  await source.createTopic({ name: TOPIC, partitions, replicationFactor: 1 });
  const batch = 5000;
  const pending: Promise<unknown>[] = [];
  for (let start = 0; start < records; start += batch) {
    const chunk = [];
    for (let i = start; i < Math.min(records, start + batch); i++)
      chunk.push({ key: keyOf(i), value: encoder.encode(lineText(i)), partition: i % partitions });
    pending.push(source.produce(TOPIC, chunk));
    if (pending.length >= 4) await pending.shift();
  }
  await Promise.all(pending);
}

/** Sum of a topic's end offsets, or -1 while the topic is not there yet. */
async function endTotal(broker: KafkaBroker, topic: string): Promise<number> {
  try {
    return (await broker.endOffsets(topic)).reduce((a, b) => a + b, 0);
  } catch {
    return -1;
  }
}

/** Waits until the remote topic holds `records`; the times of the first and the last, from `started`. */
async function waitReplicated(
  target: KafkaBroker,
  topic: string,
  started: number,
  worker: WorkerProcess,
  deadline: number,
): Promise<{ firstMs: number; doneMs: number }> {
  let firstMs = 0;
  let lastCheck = 0;
  for (;;) {
    const total = await endTotal(target, topic);
    const now = performance.now();
    if (total > 0 && firstMs === 0) firstMs = now - started;
    if (total >= records) return { firstMs, doneMs: now - started };
    if (now - lastCheck > 1000) {
      lastCheck = now;
      worker?.check(deadline);
      await checkNoFailure(worker.url);
    }
    await Bun.sleep(10); // poll interval of the end offsets (a request to the target each time)
  }
}

const sameBytes = (a: Uint8Array | null, b: Uint8Array | null) =>
  a === b || (a !== null && b !== null && Buffer.from(a).equals(Buffer.from(b)));

/** Every partition's end offset as the source's, and its first and last record the source's. */
async function verify(source: KafkaBroker, target: KafkaBroker, remote: string): Promise<void> {
  const [want, got] = [await source.endOffsets(TOPIC), await target.endOffsets(remote)];
  if (JSON.stringify(want) !== JSON.stringify(got))
    throw new Error(`${remote}: end offsets ${JSON.stringify(got)}, source ${JSON.stringify(want)}`);
  for (let p = 0; p < partitions; p++) {
    for (const offset of [0, want[p]! - 1]) {
      const [a] = await source.fetch(TOPIC, p, offset, { maxBytes: 4096 });
      const [b] = await target.fetch(remote, p, offset, { maxBytes: 4096 });
      if (!a || !b || !sameBytes(a.key, b.key) || !sameBytes(a.value, b.value) || a.timestamp !== b.timestamp)
        throw new Error(`${remote}-${p}@${offset} differs from the source's record`);
    }
  }
}

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;

/**
 * `rate` records/s to `topic` on the source for WARMUP_S + lagSeconds (each send stamped when it is made),
 * read from `remote` on the target as they arrive; the lags of the records sent after the warm-up.
 */
async function measureLag(
  source: KafkaBroker,
  target: KafkaBroker,
  topic: string,
  remote: string,
  worker: WorkerProcess | undefined,
  deadline: number,
): Promise<Lag> {
  const reads: PartitionRead[] = Array.from({ length: partitions }, (_, partition) => ({
    topic: remote,
    partition,
    offset: 0,
  }));
  const value = encoder.encode(lineText(0));
  const start = Date.now();
  const measureFrom = start + WARMUP_S * 1000;
  const end = measureFrom + lagSeconds * 1000;
  let sent = 0;
  let measuredSent = 0;
  let producing = true;
  // Sends every 10 ms what the rate owes by then (so a slow send is caught up, not dropped).
  const producer = (async () => {
    const sends: Promise<unknown>[] = [];
    for (let now = Date.now(); now < end; now = Date.now()) {
      const due = Math.floor(((now - start) / 1000) * rate);
      if (due > sent) {
        const batch = [];
        for (; sent < due; sent++)
          batch.push({ key: keyOf(sent), value, partition: sent % partitions, timestamp: now });
        if (now >= measureFrom) measuredSent += batch.length;
        sends.push(source.produce(topic, batch));
      }
      await Bun.sleep(10);
    }
    await Promise.all(sends);
    producing = false;
  })();
  const lags: number[] = [];
  let lastMeasuredRead = measureFrom;
  let read = 0;
  let lastCheck = 0;
  while (producing || read < sent) {
    const batch: FetchedRecord[] = await target.fetchMany(reads, { maxWaitMs: 100 });
    const now = Date.now();
    for (const r of batch) {
      const position = reads[r.partition]!;
      if (r.offset < position.offset) continue;
      position.offset = r.offset + 1;
      read++;
      if (r.timestamp >= measureFrom) {
        lags.push(now - r.timestamp);
        lastMeasuredRead = now;
      }
    }
    if (now - lastCheck > 1000) {
      lastCheck = now;
      worker?.check(deadline);
      if (!producing && now > end + 60_000)
        throw new Error(`lag phase: ${read} of ${sent} records on the target a minute after the last send`);
    }
  }
  await producer;
  if (lags.length !== measuredSent) throw new Error(`lag phase: ${lags.length} measured, ${measuredSent} sent`);
  lags.sort((a, b) => a - b);
  return {
    p50: percentile(lags, 0.5),
    p99: percentile(lags, 0.99),
    max: lags[lags.length - 1] ?? Number.NaN,
    delivered: lags.length / ((lastMeasuredRead - measureFrom) / 1000),
  };
}

async function runOnce(
  kind: Kind,
  round: number,
  ctx: { source: KafkaBroker; target: KafkaBroker; bootstraps: [string, string] },
) {
  const id = `${kind.key}-${round}`;
  const dir = join(work, id);
  mkdirSync(dir, { recursive: true });
  const [sourceBootstrap, targetBootstrap] = ctx.bootstraps;
  // Aliases of the run's own: a fresh remote topic (`<alias>.bench`) and offset-syncs topic each run.
  const sourceAlias = `src-${id}`;
  const targetAlias = `dst-${id}`;
  const remote = `${sourceAlias}.${TOPIC}`;
  const withLag = kind.tasks === taskCounts[0];
  const lagTopic = `lag-${id}`;
  if (withLag) await ctx.source.createTopic({ name: lagTopic, partitions, replicationFactor: 1 });
  const group = `mm2-bench-${id}-${Date.now()}`;
  const port = freePort();
  const workerFile = join(dir, "worker.properties");
  await Bun.write(
    workerFile,
    distributedWorkerProperties({ bootstrap: targetBootstrap, port, group, converter: BYTE_ARRAY }),
  );
  const kafkaJars = kafkaConnectClasspath();
  const known = new Set(kafkaJars.split(":"));
  const mirrorJars = kafkaMirrorClasspath()
    .split(":")
    .filter((jar) => !known.has(jar));
  const command =
    kind.side === "sluice"
      ? [sluiceBinary(), "connect-distributed", workerFile]
      : [
          "java",
          ...KAFKA_CONNECT_JVM_OPTIONS,
          "-cp",
          [kafkaJars, ...mirrorJars].join(":"),
          "org.apache.kafka.connect.cli.ConnectDistributed",
          workerFile,
        ];
  const worker = await startWorkerProcess(kind.key, command, {
    cwd: dir,
    port,
    logFile: join(dir, "worker.log"),
    timeoutMs,
    readyPath: "/health",
  });
  const deadline = Date.now() + timeoutMs;
  try {
    const cpuBefore = cpuSeconds(worker.proc.pid);
    const started = performance.now();
    await createConnectorWhenReady(
      worker,
      "mm2-source",
      {
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        "tasks.max": String(kind.tasks),
        "source.cluster.alias": sourceAlias,
        "target.cluster.alias": targetAlias,
        "source.cluster.bootstrap.servers": sourceBootstrap,
        "target.cluster.bootstrap.servers": targetBootstrap,
        topics: withLag ? `${TOPIC},${lagTopic}` : TOPIC,
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "sync.topic.acls.enabled": "false",
        "key.converter": BYTE_ARRAY,
        "value.converter": BYTE_ARRAY,
        "header.converter": BYTE_ARRAY,
      },
      deadline,
    );
    const { firstMs, doneMs } = await waitReplicated(ctx.target, remote, started, worker, deadline);
    const workerCpuS = cpuSeconds(worker.proc.pid) - cpuBefore;
    const throughputRssMiB = worker.rss.peakMiB();
    await verify(ctx.source, ctx.target, remote);
    const lag = withLag
      ? await measureLag(ctx.source, ctx.target, lagTopic, `${sourceAlias}.${lagTopic}`, worker, deadline)
      : undefined;
    const peakRssMiB = await worker.stop();
    return {
      kind: kind.key,
      round,
      doneMs,
      firstMs,
      recordsPerSecond: records / (doneMs / 1000),
      recordsPerSecondAfterFirst: records / ((doneMs - firstMs) / 1000),
      workerCpuS,
      throughputRssMiB,
      peakRssMiB,
      lag,
    } satisfies Run;
  } catch (err) {
    throw new Error(`${id}: ${err instanceof Error ? err.message : err}\n${worker.log().slice(-3000)}`);
  } finally {
    await worker.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString("en-US").replace(/,/g, " ");
const ms = (n: number) => `${n.toFixed(1)} ms`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const [sourceKafka, targetKafka] = await Promise.all([startKafka(), startKafka()]);
const source = new KafkaBroker({ bootstrapServers: [sourceKafka.bootstrap], clientId: "mm2-bench-source" });
const target = new KafkaBroker({ bootstrapServers: [targetKafka.bootstrap], clientId: "mm2-bench-target" });
try {
  await Promise.all([source.connect(), target.connect()]);
  const filled = performance.now();
  await fill(source);
  console.log(
    `source: ${records} records of 8 + 100 bytes over ${partitions} partitions (filled in ${((performance.now() - filled) / 1000).toFixed(1)} s); tasks.max ${taskCounts.join(", ")}; ${rounds} rounds; lag at ${rate}/s for ${lagSeconds} s; load average ${load()}`,
  );
  // The lag phase with no worker, produced and read back on one broker, one broker after the other. It warms
  // the JVM brokers and this process's clients, which otherwise are cold in the first run measured alone (the
  // source's acknowledgements took up to 240 ms there), and gives the floor under both sides' lag.
  const floors: Lag[] = [];
  for (const [i, broker] of [source, target].entries()) {
    const topic = `round-trip-${i}`;
    await broker.createTopic({ name: topic, partitions, replicationFactor: 1 });
    floors.push(await measureLag(broker, broker, topic, topic, undefined, Date.now() + timeoutMs));
  }
  console.log(
    `round trip on one broker at ${rate}/s (no worker), p50 / p99 / max: ${floors.map((l) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}`).join(" (source); ")} (target)`,
  );
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const kind of round % 2 ? kinds : [...kinds].reverse()) {
      const run = await runOnce(kind, round, {
        source,
        target,
        bootstraps: [sourceKafka.bootstrap, targetKafka.bootstrap],
      });
      runs.push(run);
      console.log(JSON.stringify({ ...run, load: load() }));
    }
  }

  const summary = new Map(
    kinds.map((k) => {
      const mine = runs.filter((r) => r.kind === k.key);
      const lags = mine.flatMap((r) => (r.lag ? [r.lag] : []));
      return [
        k.key,
        {
          kind: k,
          perRound: mine.map((r) => fmt(r.recordsPerSecond)).join(", "),
          recordsPerSecond: median(mine.map((r) => r.recordsPerSecond)),
          afterFirst: median(mine.map((r) => r.recordsPerSecondAfterFirst)),
          firstMs: median(mine.map((r) => r.firstMs)),
          cpuS: median(mine.map((r) => r.workerCpuS)),
          rssMiB: median(mine.map((r) => r.throughputRssMiB)),
          peakRssMiB: median(mine.map((r) => r.peakRssMiB)),
          lag:
            lags.length > 0
              ? {
                  p50: median(lags.map((l) => l.p50)),
                  p99: median(lags.map((l) => l.p99)),
                  max: median(lags.map((l) => l.max)),
                  delivered: median(lags.map((l) => l.delivered)),
                  perRound: lags.map((l) => l.p99.toFixed(0)).join(", "),
                }
              : undefined,
        },
      ];
    }),
  );
  console.log(`\n${records} records, ${rounds} rounds (medians); load average at the end ${load()}\n`);
  console.log(
    "| Run | Records/s per round | Records/s (median) | First record | Records/s from the first record | Worker CPU | Peak RSS (throughput) | Peak RSS (run) | Lag p50 / p99 / max (delivered/s) | p99 per round |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const s of summary.values()) {
    const lag = s.lag ? `${ms(s.lag.p50)} / ${ms(s.lag.p99)} / ${ms(s.lag.max)} (${fmt(s.lag.delivered)})` : "—";
    console.log(
      `| ${label(s.kind)} | ${s.perRound} | ${fmt(s.recordsPerSecond)} | ${(s.firstMs / 1000).toFixed(2)} s | ${fmt(s.afterFirst)} | ${s.cpuS.toFixed(1)} s | ${fmt(s.rssMiB)} MiB | ${fmt(s.peakRssMiB)} MiB | ${lag} | ${s.lag?.perRound ?? "—"} |`,
    );
  }
  console.log("");
  for (const tasks of taskCounts) {
    const s = summary.get(`sluice-${tasks}`);
    const k = summary.get(`kafka-${tasks}`);
    if (!s || !k) continue;
    const throughput = s.recordsPerSecond / k.recordsPerSecond;
    const rss = s.peakRssMiB / k.peakRssMiB;
    console.log(
      `tasks.max=${tasks}: Sluice / Kafka Connect records/s ${throughput.toFixed(2)} (from the first record ${(s.afterFirst / k.afterFirst).toFixed(2)}; target ≥ 2: ${throughput >= 2 ? "yes" : "NO"}), peak RSS ${rss.toFixed(2)} (target ≤ 0.3: ${rss <= 0.3 ? "yes" : "NO"}), worker CPU ${(s.cpuS / k.cpuS).toFixed(2)}`,
    );
    if (s.lag && k.lag)
      console.log(
        `lag p99 at ${rate}/s: Sluice ${ms(s.lag.p99)}, Kafka Connect ${ms(k.lag.p99)} (target below: ${s.lag.p99 < k.lag.p99 ? "yes" : "NO"})`,
      );
  }
} finally {
  await Promise.all([source.close(), target.close()]);
  await Promise.all([sourceKafka.stop(), targetKafka.stop()]);
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
