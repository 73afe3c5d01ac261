// Connect pipeline benchmark: FileStreamSource → Kafka → FileStreamSink, once with Apache Kafka Connect
// 4.1.1 standalone (Maven jars, the JVM options of Kafka's connect-standalone.sh) and once with Sluice
// (`dist/sluice connect-standalone`), each as its own process on the same local Kafka broker, with the
// same worker settings and connector files. Measures, per side:
// - start-up: process spawn → REST answering, and → the first task RUNNING (GET /connectors/src/status);
// - end to end: spawn → the sink file holds every line (and records/s over that time, and over the
//   time from the first RUNNING task, which leaves start-up out);
// - peak RSS of the worker process (VmHWM from /proc/<pid>/status, sampled every 100 ms).
// Usage: bun bench/connect.ts [lines=1000000] [timeoutSeconds=600]
// SLUICE_BIN overrides the Sluice executable (default dist/sluice, built with `bun run build` if missing).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kafkaConnectClasspath } from "../test/fixtures/kafka-connect.ts";
import { startKafka } from "../test/fixtures/kafka.ts";
import { CONNECT_FILE_JAR } from "../test/fixtures/connect.ts";
import { freePort } from "../test/fixtures/wait.ts";
import { writeLines } from "./lib/line-file.ts";
import { KAFKA_CONNECT_JVM_OPTIONS, sluiceBinary, startWorkerProcess } from "./lib/worker-process.ts";
import { properties, standaloneWorkerProperties } from "./lib/worker-properties.ts";

const lines = Number(process.argv[2] ?? 1_000_000);
const timeoutMs = Number(process.argv[3] ?? 600) * 1000;
const work = mkdtempSync(join(tmpdir(), "sluice-bench-connect-"));

interface Result {
  name: string;
  restMs: number;
  runningMs: number;
  doneMs: number;
  peakRssMiB: number;
  recordsPerSecond: number;
  recordsPerSecondAfterStart: number;
}

async function runSide(
  name: string,
  command: (dir: string, workerFile: string, connectors: string[]) => string[],
  bootstrap: string,
  input: string,
  inputBytes: number,
): Promise<Result> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const port = freePort();
  const output = join(dir, "out.txt");
  const workerFile = join(dir, "worker.properties");
  const topic = `bench-${name}-${Date.now()}`;
  await Bun.write(
    workerFile,
    standaloneWorkerProperties(
      { bootstrap, port, dir, converter: "org.apache.kafka.connect.storage.StringConverter" },
      // Sluice: no plugin modules, the FileStream connectors enabled as Kafka's quickstart does (Kafka
      // Connect: plugin.path unset, the classpath has the connectors).
      name === "sluice"
        ? {
            "plugin.path": `${join(dir, "plugins")},${join(dir, "libs", CONNECT_FILE_JAR)}`,
            "data.dir": join(dir, "data"),
          }
        : {},
    ),
  );
  mkdirSync(join(dir, "plugins"), { recursive: true });
  const source = join(dir, "source.properties");
  const sink = join(dir, "sink.properties");
  // Own connector names per side: the sink's consumer group (connect-<name>) must not be shared.
  await Bun.write(
    source,
    properties({ name: `${name}-src`, "connector.class": "FileStreamSource", file: input, topic, "tasks.max": "1" }),
  );
  await Bun.write(
    sink,
    properties({
      name: `${name}-sink`,
      "connector.class": "FileStreamSink",
      file: output,
      topics: topic,
      "tasks.max": "1",
    }),
  );
  const worker = await startWorkerProcess(name, command(dir, workerFile, [source, sink]), {
    cwd: dir,
    port,
    logFile: join(dir, "worker.log"),
    timeoutMs,
    readyPath: "/",
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      worker.check(deadline);
      const res = await fetch(`${worker.url}/connectors/${name}-src/status`).catch(() => undefined);
      const body = res?.status === 200 ? ((await res.json()) as { tasks?: { state: string }[] }) : undefined;
      if (body?.tasks?.some((t) => t.state === "RUNNING")) break;
      await Bun.sleep(20);
    }
    const runningMs = performance.now() - worker.started;
    while (!existsSync(output) || statSync(output).size < inputBytes) {
      worker.check(deadline);
      await Bun.sleep(20);
    }
    const doneMs = performance.now() - worker.started;
    const peakRssMiB = worker.rss.peakMiB();
    const written = readFileSync(output);
    if (!written.equals(readFileSync(input)))
      throw new Error(`${name}: the sink file differs from the input (${written.length} bytes)`);
    return {
      name,
      restMs: worker.restMs,
      runningMs,
      doneMs,
      peakRssMiB,
      recordsPerSecond: lines / (doneMs / 1000),
      recordsPerSecondAfterStart: lines / ((doneMs - runningMs) / 1000),
    };
  } finally {
    await worker.stop();
  }
}

const kafka = await startKafka();
try {
  const input = join(work, "input.txt");
  const inputBytes = writeLines(input, lines);
  console.log(`input: ${lines} lines, ${(inputBytes / 1e6).toFixed(1)} MB; broker ${kafka.bootstrap}`);
  const classpath = kafkaConnectClasspath();
  const sluice = sluiceBinary();
  const results: Result[] = [];
  results.push(
    await runSide(
      "kafka-connect",
      (_dir, worker, connectors) => [
        "java",
        ...KAFKA_CONNECT_JVM_OPTIONS,
        "-cp",
        classpath,
        "org.apache.kafka.connect.cli.ConnectStandalone",
        worker,
        ...connectors,
      ],
      kafka.bootstrap,
      input,
      inputBytes,
    ),
  );
  results.push(
    await runSide(
      "sluice",
      (_dir, worker, connectors) => [sluice, "connect-standalone", worker, ...connectors],
      kafka.bootstrap,
      input,
      inputBytes,
    ),
  );
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US").replace(/,/g, " ");
  console.log(
    "\n| Worker | REST up | First task RUNNING | All lines in the sink | Records/s (from spawn) | Records/s (from RUNNING) | Peak RSS |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const r of results) {
    console.log(
      `| ${r.name} | ${(r.restMs / 1000).toFixed(2)} s | ${(r.runningMs / 1000).toFixed(2)} s | ${(r.doneMs / 1000).toFixed(2)} s | ${fmt(r.recordsPerSecond)} | ${fmt(r.recordsPerSecondAfterStart)} | ${fmt(r.peakRssMiB)} MiB |`,
    );
  }
  const [k, s] = results as [Result, Result];
  console.log(
    `\nthroughput ratio (Sluice / Kafka Connect, from spawn): ${(s.recordsPerSecond / k.recordsPerSecond).toFixed(2)}`,
  );
  console.log(
    `throughput ratio (Sluice / Kafka Connect, from RUNNING): ${(s.recordsPerSecondAfterStart / k.recordsPerSecondAfterStart).toFixed(2)}`,
  );
  console.log(`peak RSS ratio (Sluice / Kafka Connect): ${(s.peakRssMiB / k.peakRssMiB).toFixed(2)}`);
  console.log(
    `start-up to first RUNNING task: Kafka Connect ${(k.runningMs / 1000).toFixed(2)} s, Sluice ${(s.runningMs / 1000).toFixed(2)} s`,
  );
} finally {
  await kafka.stop();
  rmSync(work, { recursive: true, force: true });
}
