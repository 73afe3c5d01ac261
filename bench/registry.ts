// Registry benchmark (not a test). Prints ratios against baselines measured in the same run:
//  1. GET /schemas/ids/{id} (cached reads), 64 keep-alive connections, vs a minimal Bun server
//     returning the same fixed JSON body (the ceiling).
//  2. Registrations per second on Kafka vs a raw kafkajs produce-and-read-back loop (the ceiling).
// Usage: bun bench/registry.ts [seconds]   (uses KAFKA_BOOTSTRAP_SERVERS or starts a local broker)
import { spawn } from "bun";
import { join } from "node:path";
import { KafkaBroker } from "../src/broker/kafka/index.ts";
import { encoder } from "../src/broker/broker.ts";
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

async function load(url: string): Promise<Load> {
  const proc = spawn([process.execPath, join(import.meta.dir, "load.ts"), url, String(connections), String(seconds)], { stdout: "pipe" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out) as Load;
}

const kafka = await startKafka();
const place = { kind: "kafka" as const, bootstrap: kafka.bootstrap, topic: `_schemas_bench_${Date.now()}` };
const sr = await startTestRegistry(place, { "schema.compatibility.level": "NONE" });
const api = client(sr.url);
const schema = { type: "record", name: "Bench", fields: [{ name: "a", type: "string" }, { name: "b", type: "long" }] };
const { id } = (await api.register("bench-value", schema)).body as { id: number };
const body = JSON.stringify({ schema: JSON.stringify(schema) });

// --- 1. cached reads vs a bare Bun server with the same body ---
const port = freePort();
const bare = Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch: () => new Response(body, { headers: { "content-type": "application/vnd.schemaregistry.v1+json" } }),
});
await load(`http://127.0.0.1:${port}/`); // warm-up
await load(`${sr.url}/schemas/ids/${id}`);
const ceilingReads = await load(`http://127.0.0.1:${port}/`);
const ourReads = await load(`${sr.url}/schemas/ids/${id}`);
bare.stop(true);

// --- 2. registrations vs raw produce-and-read-back ---
const n = 300;
const broker = new KafkaBroker({ bootstrapServers: [kafka.bootstrap] });
await broker.connect();
const rawTopic = `bench_raw_${Date.now()}`;
await broker.createTopic({ name: rawTopic, partitions: 1, replicationFactor: 1, config: { "cleanup.policy": "compact" } });
let t = performance.now();
for (let i = 0; i < n; i++) {
  const [pos] = await broker.produce(rawTopic, [{ key: encoder.encode(`k${i}`), value: encoder.encode(body), partition: 0 }]);
  let seen = false;
  while (!seen) seen = (await broker.fetch(rawTopic, 0, pos!.offset, { maxWaitMs: 100 })).length > 0;
}
const rawPerSecond = n / ((performance.now() - t) / 1000);
t = performance.now();
for (let i = 0; i < n; i++) {
  const r = await api.register("bench-value", { ...schema, fields: [...schema.fields, { name: `f${i}`, type: "int", default: 0 }] });
  if (r.status !== 200) throw new Error(`registration failed: ${r.text}`);
}
const regPerSecond = n / ((performance.now() - t) / 1000);
await broker.close();
await sr.stop();
await kafka.stop();

const f = (x: number, d = 0) => x.toFixed(d);
console.log(`GET /schemas/ids/{id}, ${connections} connections, ${seconds} s each:`);
console.log(`  bare Bun server (ceiling): ${f(ceilingReads.rps)} req/s, p99 ${f(ceilingReads.p99, 2)} ms`);
console.log(`  sluice registry:           ${f(ourReads.rps)} req/s, p99 ${f(ourReads.p99, 2)} ms, errors ${ourReads.errors}`);
console.log(`  ratio: ${(ourReads.rps / ceilingReads.rps).toFixed(2)} (target >= 0.8)`);
console.log(`Registrations on Kafka, ${n} sequential:`);
console.log(`  raw kafkajs produce + read back (ceiling): ${f(rawPerSecond)} /s`);
console.log(`  sluice POST /subjects/{s}/versions:        ${f(regPerSecond)} /s`);
console.log(`  ratio: ${(regPerSecond / rawPerSecond).toFixed(2)}`);
process.exit(0);
