// Multi-task connect benchmark: a CPU-bound pipeline, SequenceSource (plugins/sequence-source.ts) →
// a 2-partition Kafka topic → FileStreamSink, on `dist/sluice connect-standalone` (its own process, as in
// bench/connect.ts), once with tasks.max=1 and once with tasks.max=2 on both connectors. JsonConverter
// (with schemas) for values, StringConverter for keys: the work per record is conversion and the Kafka
// client, not I/O. The same number of records either way (with 2 tasks, each task writes half: its key is
// its task id, and the keys "0" and "1" land in partitions 0 and 1, so each sink task reads one partition;
// checked. As JsonConverter envelopes both keys fell in partition 0, leaving the second sink task idle.)
// Two phases per run, each connector alone, so tasks.max=1 is one task on one thread and tasks.max=2 two
// tasks on two: the source until the topic holds every record (end offsets), then the sink until its file
// holds every number (then checked: each number exactly once per task). Each phase: records/s and the
// worker's CPU time over its wall time (how many cores it used), the same for the whole machine (with the
// broker on the same cores, whether two tasks had a second core to run on); and the worker's peak RSS. The ratio
// 2 tasks / 1 task per connector is the target's figure (≥ 1.7× on 2 cores).
// Usage: bun bench/connect-tasks.ts [records=1000000] [timeoutSeconds=600]
// SLUICE_BIN overrides the Sluice executable (default dist/sluice, built with `bun run build` if missing).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { CONNECT_FILE_JAR } from "../test/fixtures/connect.ts";
import { startKafka } from "../test/fixtures/kafka.ts";
import { freePort } from "../test/fixtures/wait.ts";
import { cpuSeconds, createConnector, sluiceBinary, startWorkerProcess } from "./lib/worker-process.ts";
import { standaloneWorkerProperties } from "./lib/worker-properties.ts";

const records = Number(process.argv[2] ?? 1_000_000);
const timeoutMs = Number(process.argv[3] ?? 600) * 1000;
const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "sluice-bench-tasks-"));
const PARTITIONS = 2;

/** One phase (the source alone, then the sink alone) at one tasks.max. */
interface Phase {
  seconds: number;
  recordsPerSecond: number;
  /** CPU seconds of the worker process per wall second, over the phase. */
  cores: number;
  /** Of the whole machine (worker, broker, this bench): how many cores were busy. */
  machineCores: number;
}

/** Seconds of CPU the machine has spent busy (not idle, not waiting for I/O), over all its cores. */
function machineBusySeconds(): number {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/);
  const jiffies = fields.map(Number);
  const total = jiffies.reduce((a, b) => a + b, 0);
  return (total - jiffies[3]! - jiffies[4]!) / 100;
}

interface Result {
  tasks: number;
  source: Phase;
  sink: Phase;
  peakRssMiB: number;
}

/** Bytes FileStreamSink writes for the numbers 0 … perTask−1 of each of `tasks` tasks ("n\n" each). */
function expectedBytes(tasks: number, perTask: number): number {
  let bytes = 0;
  for (let digits = 1, low = 0; low < perTask; digits++) {
    const high = Math.min(perTask, 10 ** digits);
    bytes += (high - low) * (digits + 1);
    low = high;
  }
  return bytes * tasks;
}

/** Throws unless the file holds each of 0 … perTask−1 exactly `tasks` times. */
function checkNumbers(file: string, tasks: number, perTask: number): void {
  const seen = new Uint8Array(perTask);
  const lines = readFileSync(file, "utf8").split("\n");
  lines.pop(); // after the last newline
  for (const line of lines) {
    const n = Number(line);
    if (!Number.isInteger(n) || n < 0 || n >= perTask || ++seen[n]! > tasks)
      throw new Error(`unexpected line in the sink file: ${JSON.stringify(line)}`);
  }
  if (lines.length !== tasks * perTask)
    throw new Error(`the sink file holds ${lines.length} lines, expected ${tasks * perTask}`);
}

async function run(tasks: number, bootstrap: string, admin: KafkaBroker, sluice: string): Promise<Result> {
  const dir = join(work, `tasks-${tasks}`);
  mkdirSync(join(dir, "plugins"), { recursive: true });
  copyFileSync(join(root, "plugins", "sequence-source.ts"), join(dir, "plugins", "sequence-source.ts"));
  const port = freePort();
  const workerFile = join(dir, "worker.properties");
  await Bun.write(
    workerFile,
    standaloneWorkerProperties(
      { bootstrap, port, dir, converter: "org.apache.kafka.connect.json.JsonConverter" },
      {
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        // The example plugin, and the FileStream connectors enabled as Kafka's quickstart does.
        "plugin.path": `${join(dir, "plugins")},${join(dir, "libs", CONNECT_FILE_JAR)}`,
        "data.dir": join(dir, "data"),
      },
    ),
  );
  const topic = `bench-tasks-${tasks}-${Date.now()}`;
  await admin.createTopic({ name: topic, partitions: PARTITIONS, replicationFactor: 1 });
  const perTask = Math.floor(records / tasks);
  const output = join(dir, "out.txt");
  const bytes = expectedBytes(tasks, perTask);
  const worker = await startWorkerProcess(`sluice (tasks.max=${tasks})`, [sluice, "connect-standalone", workerFile], {
    cwd: dir,
    port,
    logFile: join(dir, "worker.log"),
    timeoutMs,
  });
  try {
    const deadline = Date.now() + timeoutMs;
    const total = tasks * perTask;
    // Each phase alone, so tasks.max=1 is one task on one thread and tasks.max=2 two tasks on two.
    const phase = async (create: () => Promise<void>, done: () => Promise<boolean>): Promise<Phase> => {
      const cpuBefore = cpuSeconds(worker.proc.pid);
      const machineBefore = machineBusySeconds();
      const start = performance.now();
      await create();
      while (!(await done())) {
        worker.check(deadline);
        await Bun.sleep(20);
      }
      const seconds = (performance.now() - start) / 1000;
      return {
        seconds,
        recordsPerSecond: total / seconds,
        cores: (cpuSeconds(worker.proc.pid) - cpuBefore) / seconds,
        machineCores: (machineBusySeconds() - machineBefore) / seconds,
      };
    };
    const source = await phase(
      () =>
        createConnector(worker.url, "seq", {
          "connector.class": "SequenceSource",
          topic,
          "tasks.max": String(tasks),
          "sequence.max": String(perTask),
        }),
      async () => (await admin.endOffsets(topic)).reduce((a, b) => a + b, 0) >= total,
    );
    const split = await admin.endOffsets(topic);
    if (tasks === PARTITIONS && split.some((count) => count !== perTask))
      throw new Error(`each source task's records should fill one partition; the partitions hold ${split.join(", ")}`);
    const sink = await phase(
      () =>
        createConnector(worker.url, "sink", {
          "connector.class": "FileStreamSink",
          topics: topic,
          file: output,
          "tasks.max": String(tasks),
        }),
      async () => existsSync(output) && statSync(output).size >= bytes,
    );
    checkNumbers(output, tasks, perTask);
    return { tasks, source, sink, peakRssMiB: worker.rss.peakMiB() };
  } finally {
    await worker.stop();
  }
}

const kafka = await startKafka();
const admin = new KafkaBroker({ bootstrapServers: kafka.bootstrap.split(",") });
try {
  await admin.connect();
  const sluice = sluiceBinary();
  console.log(`${records} records per run, topic of ${PARTITIONS} partitions; broker ${kafka.bootstrap}`);
  const results: Result[] = [];
  for (const tasks of [1, 2]) {
    const r = await run(tasks, kafka.bootstrap, admin, sluice);
    const says = (p: Phase) =>
      `${Math.round(p.recordsPerSecond)} records/s (${p.seconds.toFixed(2)} s, ${p.cores.toFixed(2)} cores, machine ${p.machineCores.toFixed(2)})`;
    console.log(
      `tasks.max=${tasks}: source ${says(r.source)}; sink ${says(r.sink)}; peak RSS ${Math.round(r.peakRssMiB)} MiB`,
    );
    results.push(r);
  }
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US").replace(/,/g, " ");
  console.log("\n| tasks.max | Connector | Records | Seconds | Records/s | CPU (cores) | Machine busy (cores) |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of results) {
    for (const [name, p] of [
      ["SequenceSource", r.source],
      ["FileStreamSink", r.sink],
    ] as const) {
      console.log(
        `| ${r.tasks} | ${name} | ${fmt(p.recordsPerSecond * p.seconds)} | ${p.seconds.toFixed(2)} | ${fmt(p.recordsPerSecond)} | ${p.cores.toFixed(2)} | ${p.machineCores.toFixed(2)} |`,
      );
    }
  }
  const [one, two] = results as [Result, Result];
  console.log(
    `\nratio tasks.max=2 / tasks.max=1 (target ≥ 1.7 on 2 cores): source ${(two.source.recordsPerSecond / one.source.recordsPerSecond).toFixed(2)}, sink ${(two.sink.recordsPerSecond / one.sink.recordsPerSecond).toFixed(2)}`,
  );
} finally {
  await admin.close();
  await kafka.stop();
  rmSync(work, { recursive: true, force: true });
}
