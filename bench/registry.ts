// Registry benchmark (not a test). Prints ratios against baselines measured in the same run:
//  1. GET /schemas/ids/{id} (cached reads) driven by wrk (`wrk -t2 -c64 -d<seconds>s`, the Debian
//     package, installed with apt-get when missing and running as root), vs a minimal Bun server
//     returning the same fixed JSON body (the ceiling). wrk, in C, saturates neither server; a
//     JavaScript load generator saturated before either did and hid the difference.
//  2. Registrations per second on Kafka vs a raw KafkaBroker produce-and-read-back loop (the ceiling).
// Usage: bun bench/registry.ts [seconds]   (uses KAFKA_BOOTSTRAP_SERVERS or starts a local broker)
// Run it on a quiet machine, without nice: both servers share the process and the machine with wrk.
import { spawn } from "bun";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { encoder } from "#src/broker/broker.ts";
import { aptInstall } from "../test/fixtures/debian.ts";
import { startKafka } from "../test/fixtures/kafka.ts";
import { startTestRegistry, client } from "../test/fixtures/registry.ts";
import { freePort } from "../test/fixtures/wait.ts";

const seconds = Number(process.argv[2] ?? 5);
const connections = 64;

interface Load {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

if (!Bun.which("wrk")) aptInstall("wrk");
if (!Bun.which("wrk")) throw new Error("wrk is not installed and could not be (apt-get install wrk, as root)");

const toMs = (value: string, unit: string) =>
  Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

/** wrk's summary: requests, Requests/sec, the 50% and 99% latencies, non-2xx answers and socket errors. */
async function load(url: string, duration = seconds): Promise<Load> {
  const proc = spawn(
    [
      "wrk",
      "-t2",
      `-c${connections}`,
      `-d${duration}s`,
      "--latency",
      "-H",
      "Accept: application/vnd.schemaregistry.v1+json",
      url,
    ],
    { stdout: "pipe" },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`wrk failed:\n${out}`);
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const latency = (q: string) => {
    const m = new RegExp(`^\\s*${q}%\\s+([\\d.]+)(us|ms|s)$`, "m").exec(out);
    if (!m) throw new Error(`no ${q}% latency in wrk's output:\n${out}`);
    return toMs(m[1]!, m[2]!);
  };
  const socketErrors =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(out)
      ?.slice(1)
      .reduce((a, b) => a + Number(b), 0) ?? 0;
  return {
    requests: num(/(\d+) requests in/),
    errors: num(/Non-2xx or 3xx responses: (\d+)/) + socketErrors,
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50: latency("50"),
    p99: latency("99"),
  };
}

const kafka = await startKafka();
const place = { kind: "kafka" as const, bootstrap: kafka.bootstrap, topic: `_schemas_bench_${Date.now()}` };
const sr = await startTestRegistry(place, { "schema.compatibility.level": "NONE" });
const api = client(sr.url);
const schema = {
  type: "record",
  name: "Bench",
  fields: [
    { name: "a", type: "string" },
    { name: "b", type: "long" },
  ],
};
const { id } = (await api.register("bench-value", schema)).body as { id: number };
const body = JSON.stringify({ schema: JSON.stringify(schema) });

// --- 1. cached reads vs a bare Bun server with the same body ---
const port = freePort();
const bare = Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch: () => new Response(body, { headers: { "content-type": "application/vnd.schemaregistry.v1+json" } }),
});
await load(`http://127.0.0.1:${port}/`, 2); // warm-up (JIT)
await load(`${sr.url}/schemas/ids/${id}`, 2);
// The two take turns over three rounds; each figure is the median of its rounds (a shared machine's
// other work swings single runs by ±20%).
const ceilingRounds: Load[] = [];
const ourRounds: Load[] = [];
for (let round = 0; round < 3; round++) {
  ceilingRounds.push(await load(`http://127.0.0.1:${port}/`));
  ourRounds.push(await load(`${sr.url}/schemas/ids/${id}`));
}
const medianOf = (rounds: Load[]) => rounds.toSorted((a, b) => a.rps - b.rps)[1]!;
const ceilingReads = medianOf(ceilingRounds);
const ourReads = medianOf(ourRounds);
bare.stop(true);

// --- 2. registrations vs raw produce-and-read-back ---
const n = 300;
const broker = new KafkaBroker({ bootstrapServers: [kafka.bootstrap] });
await broker.connect();
const rawTopic = `bench_raw_${Date.now()}`;
await broker.createTopic({
  name: rawTopic,
  partitions: 1,
  replicationFactor: 1,
  config: { "cleanup.policy": "compact" },
});
let t = performance.now();
for (let i = 0; i < n; i++) {
  const [pos] = await broker.produce(rawTopic, [
    { key: encoder.encode(`k${i}`), value: encoder.encode(body), partition: 0 },
  ]);
  let seen = false;
  while (!seen) seen = (await broker.fetch(rawTopic, 0, pos!.offset, { maxWaitMs: 100 })).length > 0;
}
const rawPerSecond = n / ((performance.now() - t) / 1000);
t = performance.now();
for (let i = 0; i < n; i++) {
  const r = await api.register("bench-value", {
    ...schema,
    fields: [...schema.fields, { name: `f${i}`, type: "int", default: 0 }],
  });
  if (r.status !== 200) throw new Error(`registration failed: ${r.text}`);
}
const regPerSecond = n / ((performance.now() - t) / 1000);
await broker.close();
await sr.stop();
await kafka.stop();

const f = (x: number, d = 0) => x.toFixed(d);
console.log(`GET /schemas/ids/{id}, wrk -t2 -c${connections} -d${seconds}s, median of 3 alternating rounds:`);
const rates = (rounds: Load[]) => rounds.map((r) => f(r.rps)).join(", ");
console.log(`  rounds: ceiling ${rates(ceilingRounds)} req/s; sluice ${rates(ourRounds)} req/s`);
console.log(
  `  bare Bun server (ceiling): ${f(ceilingReads.rps)} req/s, p50 / p99 ${f(ceilingReads.p50, 2)} / ${f(ceilingReads.p99, 2)} ms`,
);
console.log(
  `  sluice registry:           ${f(ourReads.rps)} req/s, p50 / p99 ${f(ourReads.p50, 2)} / ${f(ourReads.p99, 2)} ms, errors ${ourReads.errors}`,
);
console.log(`  ratio: ${(ourReads.rps / ceilingReads.rps).toFixed(2)} (target >= 0.9)`);
console.log(`Registrations on Kafka, ${n} sequential:`);
console.log(`  raw KafkaBroker produce + read back (ceiling): ${f(rawPerSecond)} /s`);
console.log(`  sluice POST /subjects/{s}/versions:        ${f(regPerSecond)} /s`);
console.log(`  ratio: ${(regPerSecond / rawPerSecond).toFixed(2)}`);
process.exit(0);
