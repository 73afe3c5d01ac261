// HTTP load generator run as its own process: `bun bench/load.ts <url> <connections> <seconds>`.
export {};
// Keeps `connections` requests in flight over keep-alive connections; prints JSON
// { requests, errors, seconds, rps, p50, p99 } (latencies in ms).
const [url, connections = "64", seconds = "5"] = process.argv.slice(2);
if (!url) throw new Error("usage: load.ts <url> <connections> <seconds>");
const until = performance.now() + Number(seconds) * 1000;
const latencies: number[] = [];
let errors = 0;

async function worker(): Promise<void> {
  while (performance.now() < until) {
    const start = performance.now();
    try {
      const res = await fetch(url!, { headers: { accept: "application/vnd.schemaregistry.v1+json" } });
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - start);
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, worker));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(
  JSON.stringify({
    requests: latencies.length,
    errors,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
  }),
);
