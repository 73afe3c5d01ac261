// Registry soak benchmark (not a test): does memory and registration cost stay flat as schemas pile up?
// Drives dist/sluice (`bun run build` first): registers `count` distinct Avro schemas, spread over
// subjects (each subject a chain of BACKWARD-compatible versions), with reads mixed in (one
// GET /schemas/ids/{id} and one GET /subjects/{s}/versions/latest of earlier schemas per registration).
// Every 1,000 registrations it samples the process's RSS (/proc/<pid>/status VmRSS) and the median
// registration latency. Then it stops the process, starts a fresh one on the same data and reads its
// RSS once it has loaded (and both processes' RSS again after 10 s idle, when the allocator has
// handed freed pages back), and prints the two ratios the registry is held to:
//   RSS after `count` registrations / RSS of a fresh process on the same schemas   (target <= 1.3)
//   median registration latency of the last 1,000 / of the first 1,000             (target <= 1.2)
// Usage: bun bench/registry-soak.ts [count=20000] [embedded|kafka]   (kafka: KAFKA_BOOTSTRAP_SERVERS or a local
// broker; SLUICE_BIN=<path> measures another build)
import { spawn, type Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKafka, type KafkaCluster } from "../test/fixtures/kafka.ts";
import { freePort, waitFor } from "../test/fixtures/wait.ts";

const count = Number(process.argv[2] ?? 20000);
const store = process.argv[3] ?? "embedded";
const versionsPerSubject = 20;
const binary = process.env.SLUICE_BIN ?? join(import.meta.dir, "..", "dist", "sluice");

let kafka: KafkaCluster | undefined;
const dataDir = mkdtempSync(join(tmpdir(), "sluice-soak-"));
const topic = `_schemas_soak_${Date.now()}`;
const storeFlags =
  store === "kafka"
    ? ["--bootstrap-servers", (kafka = await startKafka()).bootstrap, "--kafkastore.topic.replication.factor", "1"]
    : ["--data-dir", dataDir];

interface Running {
  proc: Subprocess;
  url: string;
}

async function startRegistry(): Promise<Running> {
  const port = freePort();
  const proc = spawn(
    [
      binary,
      "registry",
      "--listeners",
      `http://127.0.0.1:${port}`,
      "--kafkastore.topic",
      topic,
      "--log.level",
      "warn",
      ...storeFlags,
    ],
    {
      stdout: "ignore",
      stderr: "inherit",
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor("the registry to answer", async () => (await fetch(`${url}/subjects`).catch(() => undefined))?.ok, {
    timeoutMs: 120_000,
    intervalMs: 100,
  });
  return { proc, url };
}

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** Version `v` of subject `s`: the same fields, another doc, so versions are distinct, compatible and alike in size. */
function schemaOf(s: number, v: number): string {
  const fields = [
    { name: "id", type: "long" },
    { name: "name", type: "string", default: "" },
    { name: "tags", type: { type: "array", items: "string" }, default: [] },
    { name: "amount", type: ["null", "double"], default: null },
  ];
  return JSON.stringify({ type: "record", name: `Soak${s}`, namespace: "bench.soak", doc: `version ${v}`, fields });
}

async function call(url: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const first = await startRegistry();
const subjects = Math.ceil(count / versionsPerSubject);
const samples: { schemas: number; rss: number; p50: number }[] = [{ schemas: 0, rss: rssMiB(first.proc.pid), p50: 0 }];
let latencies: number[] = [];
let reads = 0;
for (let i = 0; i < count; i++) {
  // Subjects advance in rounds, so every subject gains versions throughout the run.
  const s = i % subjects;
  const v = Math.floor(i / subjects) + 1;
  const started = performance.now();
  const { id } = (await call(`${first.url}/subjects/soak-${s}-value/versions`, {
    method: "POST",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schema: schemaOf(s, v) }),
  })) as { id: number };
  latencies.push(performance.now() - started);
  if (id !== i + 1) throw new Error(`registration ${i + 1} got id ${id}`);
  const earlier = Math.floor(Math.random() * (i + 1));
  await call(`${first.url}/schemas/ids/${earlier + 1}`);
  await call(`${first.url}/subjects/soak-${earlier % subjects}-value/versions/latest`);
  reads += 2;
  if ((i + 1) % 1000 === 0) {
    samples.push({ schemas: i + 1, rss: rssMiB(first.proc.pid), p50: median(latencies) });
    latencies = [];
    console.log(
      `${i + 1} schemas: RSS ${samples.at(-1)!.rss.toFixed(0)} MiB, registration p50 ${samples.at(-1)!.p50.toFixed(2)} ms`,
    );
  }
}
const soaked = rssMiB(first.proc.pid);
// The allocator hands freed pages back to the system in the background: the same process once idle.
await Bun.sleep(10_000);
const idle = rssMiB(first.proc.pid);
first.proc.kill("SIGTERM");
await first.proc.exited;

const fresh = await startRegistry();
// Loaded: the fresh process answers for the last schema registered.
await call(`${fresh.url}/schemas/ids/${count}`);
const freshRss = rssMiB(fresh.proc.pid);
await Bun.sleep(10_000);
const freshIdle = rssMiB(fresh.proc.pid);
fresh.proc.kill("SIGTERM");
await fresh.proc.exited;
await kafka?.stop();
rmSync(dataDir, { recursive: true, force: true });

const firstBlock = samples[1]!.p50;
const lastBlock = samples.at(-1)!.p50;
console.log(`\nstore: ${store}; ${count} registrations over ${subjects} subjects, ${reads} reads`);
console.log(
  `RSS at start ${samples[0]!.rss.toFixed(0)} MiB, after ${count} registrations ${soaked.toFixed(0)} MiB; fresh process on the same schemas ${freshRss.toFixed(0)} MiB`,
);
console.log(`  ratio soaked / fresh: ${(soaked / freshRss).toFixed(2)} (target <= 1.3)`);
console.log(
  `after 10 s idle: soaked ${idle.toFixed(0)} MiB, fresh ${freshIdle.toFixed(0)} MiB, ratio ${(idle / freshIdle).toFixed(2)}`,
);
console.log(`registration p50: first 1,000 ${firstBlock.toFixed(2)} ms, last 1,000 ${lastBlock.toFixed(2)} ms`);
console.log(`  ratio last / first: ${(lastBlock / firstBlock).toFixed(2)} (target <= 1.2)`);
process.exit(0);
