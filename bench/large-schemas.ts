// Large-schema benchmark (not a test): cached GETs while schemas filling the 4 MiB request body
// register. `sluice dev` (embedded broker) runs as its own process; a separate load process
// (bench/load.ts) keeps `clients` GET /schemas/ids/{id} in flight. Prints, per shape, the POST's
// time and the GETs' p50/p99 during it, against the same GET load with no registration running
// (the baseline, measured in the same run).
// Usage: bun bench/large-schemas.ts [clients=8]   (SLUICE_BIN: the binary; default dist/sluice)
import { spawn } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LARGE_SHAPES, largeSchemaOfBody, registrationBody } from "../test/fixtures/large-schemas.ts";
import { freePort, waitFor } from "../test/fixtures/wait.ts";

const clients = Number(process.argv[2] ?? 8);
const bin = process.env.SLUICE_BIN ?? join(import.meta.dir, "..", "dist", "sluice");
const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-large-"));
const url = `http://127.0.0.1:${freePort()}`;
const server = spawn(
  [
    bin,
    "dev",
    "--data-dir",
    dataDir,
    "--registry-listeners",
    url,
    "--connect-listeners",
    `http://127.0.0.1:${freePort()}`,
  ],
  {
    env: { ...process.env, SLUICE_LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  },
);

interface Load {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

/** GET load for `seconds`, as its own process so the server's pauses are not hidden by ours. */
async function load(getUrl: string, seconds: number): Promise<Load> {
  const proc = spawn([process.execPath, join(import.meta.dir, "load.ts"), getUrl, String(clients), String(seconds)], {
    stdout: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out) as Load;
}

const post = async (subject: string, body: string) => {
  const res = await fetch(`${url}/subjects/${subject}/versions`, {
    method: "POST",
    body,
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
  });
  return { status: res.status, text: await res.text() };
};

try {
  await waitFor("the registry", () => fetch(`${url}/subjects`).then((r) => r.ok));
  const { id } = JSON.parse((await post("small", JSON.stringify({ schema: '"string"' }))).text) as { id: number };
  const getUrl = `${url}/schemas/ids/${id}`;
  await load(getUrl, 2); // warm-up
  const baseline = await load(getUrl, 5);
  const f = (x: number) => x.toFixed(2);
  console.log(`GET /schemas/ids/{id}, ${clients} clients (bench/load.ts), sluice dev on the embedded broker`);
  console.log(
    `  no registration running:   p50 ${f(baseline.p50)} ms, p99 ${f(baseline.p99)} ms, ${baseline.requests} requests`,
  );
  let worst = 0;
  for (const shape of LARGE_SHAPES) {
    // Nesting is capped where protobufjs (and so the registry) stops accepting it.
    const schema = largeSchemaOfBody(shape, undefined, shape === "protobuf-nested" ? 31 : Infinity);
    // Trailing blank lines make each POST's text new, so no parse cache answers it.
    const bodyOf = (n: number) => registrationBody({ ...schema, schema: schema.schema + "\n".repeat(n % 200) });
    // Registrations back to back for as long as the GET load runs, so every GET overlaps one.
    const loadRun = load(getUrl, 6);
    let finished = false;
    void loadRun.then(() => (finished = true));
    const statuses = new Set<number>();
    let posts = 0;
    const started = performance.now();
    while (!finished) statuses.add((await post(`${shape}-${posts}`, bodyOf(posts++))).status);
    const postMs = (performance.now() - started) / posts;
    const run = await loadRun;
    worst = Math.max(worst, run.p99);
    console.log(
      `  ${shape.padEnd(16)} body ${(bodyOf(0).length / 1048576).toFixed(2)} MiB: ${posts} POSTs, ${postMs.toFixed(0)} ms each (status ${[...statuses].join(",")}); ` +
        `GETs p50 ${f(run.p50)} ms, p99 ${f(run.p99)} ms, errors ${run.errors}`,
    );
  }
  console.log(
    `  worst p99 during registrations: ${f(worst)} ms (target <= 50 ms); ratio to the baseline p99: ${(worst / baseline.p99).toFixed(1)}`,
  );
} finally {
  server.kill();
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
