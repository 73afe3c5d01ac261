// Exactly-once sources (KIP-618): the throughput cost of exactly-once delivery, Sluice against Apache Kafka
// Connect 4.1.1. FileStreamSource reads a pre-written file of `lines` ~100-byte lines into a topic of one
// partition, on one distributed worker (its own process and group, started for the run), four ways:
// - at-least-once: the worker without exactly-once source support (`exactly.once.source.support` unset);
// - exactly-once: `exactly.once.source.support=enabled` on the worker and `exactly.once.support=required` on
//   the connector (transaction.boundary poll, the default: one transaction per poll),
// for Sluice (`dist/sluice connect-distributed`) and Kafka Connect (ConnectDistributed, the JVM options of
// Kafka's scripts), on the same local Kafka broker with the same worker and connector settings.
// Time = POST /connectors → the topic holds every line as a committed record, counted by a read_committed
// reader (records of aborted transactions and transaction markers are not counted), then checked line by
// line. The four runs alternate within each round (the order reversed every other round, so drift and a
// warming broker fall on all of them); the medians over the rounds give records/s, and each side's
// exactly-once / at-least-once ratio is its throughput kept under exactly-once. CPU: the worker process's
// user + system time over the run, and this process's (mostly the count), which shares the same cores.
// Usage: bun bench/exactly-once.ts [lines=500000] [rounds=3] [timeoutSeconds=600] [runs=all]
// (runs: a comma-separated subset of sluice-alo, sluice-eos, kafka-alo, kafka-eos)
// SLUICE_BIN overrides the Sluice executable (default dist/sluice, built with `bun run build` if missing).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { CONNECT_FILE_JAR } from "../test/fixtures/connect.ts";
import { kafkaConnectClasspath } from "../test/fixtures/kafka-connect.ts";
import { startKafka } from "../test/fixtures/kafka.ts";
import { freePort } from "../test/fixtures/wait.ts";
import { lineText, writeLines } from "./lib/line-file.ts";
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

const lines = Number(process.argv[2] ?? 500_000);
const rounds = Number(process.argv[3] ?? 3);
const timeoutMs = Number(process.argv[4] ?? 600) * 1000;
const work = mkdtempSync(join(tmpdir(), "sluice-bench-eos-"));

type Side = "sluice" | "kafka";
interface Kind {
  key: string;
  side: Side;
  eos: boolean;
}
const ALL_KINDS: Kind[] = [
  { key: "sluice-alo", side: "sluice", eos: false },
  { key: "sluice-eos", side: "sluice", eos: true },
  { key: "kafka-alo", side: "kafka", eos: false },
  { key: "kafka-eos", side: "kafka", eos: true },
];
const chosen = process.argv[5]?.split(",") ?? ALL_KINDS.map((k) => k.key);
const kinds = ALL_KINDS.filter((k) => chosen.includes(k.key));
if (kinds.length === 0) throw new Error(`runs: pick from ${ALL_KINDS.map((k) => k.key).join(", ")}`);

const LABEL: Record<string, string> = {
  "sluice-alo": "Sluice, at-least-once",
  "sluice-eos": "Sluice, exactly-once",
  "kafka-alo": "Kafka Connect 4.1.1, at-least-once",
  "kafka-eos": "Kafka Connect 4.1.1, exactly-once",
};

interface Run {
  kind: string;
  round: number;
  /** POST /connectors → every line committed, ms. */
  doneMs: number;
  /** POST /connectors → the first committed record, ms. */
  firstMs: number;
  recordsPerSecond: number;
  /** Over the time from the first committed record: leaves task start-up (and fencing) out. */
  recordsPerSecondAfterFirst: number;
  /** The worker's user + system CPU over the run, in seconds. */
  workerCpuS: number;
  /** This process's CPU over the run (mostly the committed-record count, on the same cores), in seconds. */
  readerCpuS: number;
  /** Offsets in the partition that hold no record: transaction markers (one per committed transaction). */
  markers: number;
}

/**
 * Counts the topic's committed records as they come (read_committed: a record counts once its transaction
 * is committed, never when aborted; markers are skipped); resolves the times of the first and the last.
 */
async function countCommitted(
  broker: KafkaBroker,
  topic: string,
  started: number,
  worker: WorkerProcess,
  deadline: number,
): Promise<{ firstMs: number; doneMs: number }> {
  let next = 0;
  let count = 0;
  let firstMs = 0;
  let lastCheck = 0;
  while (count < lines) {
    const records = await broker.fetch(topic, 0, next, { maxWaitMs: 100, maxBytes: 16 << 20 });
    if (records.length > 0) {
      if (count === 0) firstMs = performance.now() - started;
      count += records.length;
      next = records[records.length - 1]!.offset + 1;
    } else {
      // Nothing committed past `next` (or only a marker there, which the broker answers at once).
      await Bun.sleep(10);
    }
    if (performance.now() - lastCheck > 1000) {
      lastCheck = performance.now();
      worker.check(deadline);
      await checkNoFailure(worker.url);
    }
  }
  return { firstMs, doneMs: performance.now() - started };
}

/** Reads the whole topic again: every line once, in order, and how many offsets are markers. */
async function verify(broker: KafkaBroker, topic: string): Promise<number> {
  const [end] = await broker.endOffsets(topic);
  const decoder = new TextDecoder();
  let next = 0;
  let index = 0;
  while (next < end!) {
    const records = await broker.fetch(topic, 0, next, { maxBytes: 16 << 20 });
    if (records.length === 0) break;
    for (const r of records) {
      const value = r.value ? decoder.decode(r.value) : "";
      if (value !== lineText(index))
        throw new Error(`${topic}: record ${index} (offset ${r.offset}) is ${JSON.stringify(value.slice(0, 30))}`);
      index++;
    }
    next = records[records.length - 1]!.offset + 1;
  }
  if (index !== lines) throw new Error(`${topic}: ${index} committed records, ${lines} lines`);
  return end! - lines;
}

async function runOnce(kind: Kind, round: number, ctx: { bootstrap: string; broker: KafkaBroker; input: string }) {
  const dir = join(work, `${kind.key}-${round}`);
  mkdirSync(join(dir, "plugins"), { recursive: true });
  const group = `eos-bench-${kind.key}-${round}-${Date.now()}`;
  const topic = `${group}-lines`;
  await ctx.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
  const port = freePort();
  const workerFile = join(dir, "worker.properties");
  await Bun.write(
    workerFile,
    distributedWorkerProperties(
      { bootstrap: ctx.bootstrap, port, group, converter: "org.apache.kafka.connect.storage.StringConverter" },
      {
        ...(kind.eos ? { "exactly.once.source.support": "enabled" } : {}),
        // Sluice: no plugin modules, the FileStream connectors enabled as Kafka's quickstart does (Kafka
        // Connect: plugin.path unset, the classpath has them).
        ...(kind.side === "sluice"
          ? { "plugin.path": `${join(dir, "plugins")},${join(dir, "libs", CONNECT_FILE_JAR)}` }
          : {}),
      },
    ),
  );
  const command =
    kind.side === "sluice"
      ? [sluiceBinary(), "connect-distributed", workerFile]
      : [
          "java",
          ...KAFKA_CONNECT_JVM_OPTIONS,
          "-cp",
          kafkaConnectClasspath(),
          "org.apache.kafka.connect.cli.ConnectDistributed",
          workerFile,
        ];
  // Healthy: the worker joined its group and read the config topic; the clock starts at the POST.
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
    const ownBefore = process.cpuUsage();
    const started = performance.now();
    await createConnectorWhenReady(
      worker,
      "lines",
      {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        file: ctx.input,
        topic,
        "tasks.max": "1",
        ...(kind.eos ? { "exactly.once.support": "required" } : {}),
      },
      deadline,
    );
    const { firstMs, doneMs } = await countCommitted(ctx.broker, topic, started, worker, deadline);
    const workerCpuS = cpuSeconds(worker.proc.pid) - cpuBefore;
    const own = process.cpuUsage(ownBefore);
    await worker.stop();
    const markers = await verify(ctx.broker, topic);
    return {
      kind: kind.key,
      round,
      doneMs,
      firstMs,
      recordsPerSecond: lines / (doneMs / 1000),
      recordsPerSecondAfterFirst: lines / ((doneMs - firstMs) / 1000),
      workerCpuS,
      readerCpuS: (own.user + own.system) / 1e6,
      markers,
    } satisfies Run;
  } catch (err) {
    throw new Error(
      `${kind.key}, round ${round}: ${err instanceof Error ? err.message : err}\n${worker.log().slice(-3000)}`,
    );
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
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const kafka = await startKafka();
const broker = new KafkaBroker({ bootstrapServers: [kafka.bootstrap], clientId: "eos-bench" });
try {
  await broker.connect();
  const input = join(work, "input.txt");
  const inputBytes = writeLines(input, lines);
  console.log(
    `input: ${lines} lines, ${(inputBytes / 1e6).toFixed(1)} MB; ${rounds} rounds; broker ${kafka.bootstrap}; load average ${load()}`,
  );
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const kind of round % 2 ? kinds : [...kinds].reverse()) {
      const run = await runOnce(kind, round, { bootstrap: kafka.bootstrap, broker, input });
      runs.push(run);
      console.log(JSON.stringify({ ...run, load: load() }));
    }
  }

  const summary = new Map(
    kinds.map((k) => {
      const mine = runs.filter((r) => r.kind === k.key);
      return [
        k.key,
        {
          perRound: mine.map((r) => fmt(r.recordsPerSecond)).join(", "),
          recordsPerSecond: median(mine.map((r) => r.recordsPerSecond)),
          afterFirst: median(mine.map((r) => r.recordsPerSecondAfterFirst)),
          firstMs: median(mine.map((r) => r.firstMs)),
          cpuS: median(mine.map((r) => r.workerCpuS)),
          readerCpuS: median(mine.map((r) => r.readerCpuS)),
          markers: median(mine.map((r) => r.markers)),
        },
      ];
    }),
  );
  console.log(`\n${lines} lines, ${rounds} rounds (medians); load average at the end ${load()}\n`);
  console.log(
    "| Run | Records/s per round | Records/s (median) | First record committed | Records/s from the first record | Worker CPU | Reader CPU | Transaction markers |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [key, s] of summary) {
    console.log(
      `| ${LABEL[key]} | ${s.perRound} | ${fmt(s.recordsPerSecond)} | ${(s.firstMs / 1000).toFixed(2)} s | ${fmt(s.afterFirst)} | ${s.cpuS.toFixed(1)} s | ${s.readerCpuS.toFixed(1)} s | ${fmt(s.markers)} |`,
    );
  }
  const ratio = (side: Side, field: "recordsPerSecond" | "afterFirst") => {
    const alo = summary.get(`${side}-alo`)?.[field];
    const eos = summary.get(`${side}-eos`)?.[field];
    return alo && eos ? eos / alo : undefined;
  };
  const sluiceRatio = ratio("sluice", "recordsPerSecond");
  const kafkaRatio = ratio("kafka", "recordsPerSecond");
  for (const [side, name] of [
    ["sluice", "Sluice"],
    ["kafka", "Kafka Connect"],
  ] as const) {
    const r = ratio(side, "recordsPerSecond");
    const f = ratio(side, "afterFirst");
    const alo = summary.get(`${side}-alo`);
    const eos = summary.get(`${side}-eos`);
    if (r === undefined || f === undefined || !alo || !eos) continue;
    // The cost is a time per transaction (its requests to the coordinator), not per record: it shows as
    // the time exactly-once adds over the at-least-once run, once the first record is in, per transaction.
    const addedMs = ((lines / eos.afterFirst - lines / alo.afterFirst) * 1000) / eos.markers;
    console.log(
      `${name}: exactly-once / at-least-once throughput ${r.toFixed(2)} (from the first record ${f.toFixed(2)}; ${addedMs.toFixed(0)} ms added per transaction)`,
    );
  }
  if (sluiceRatio !== undefined && kafkaRatio !== undefined)
    console.log(
      `cost of exactly-once: Sluice ${((1 - sluiceRatio) * 100).toFixed(0)}%, Kafka Connect ${((1 - kafkaRatio) * 100).toFixed(0)}% of its at-least-once throughput: Sluice's ≤ Kafka Connect's: ${sluiceRatio >= kafkaRatio ? "yes" : "NO"}`,
    );
} finally {
  await broker.close();
  await kafka.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
