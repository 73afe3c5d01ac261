// Both APIs of `dist/sluice dev` (embedded broker) against their own OpenAPI documents: each document
// is valid OpenAPI 3.1 (openapi-spec-validator), and schemathesis, a property-based API fuzzer, finds no
// 5xx, no status code or body its document does not describe, and no crash (the process is still up and
// answers afterwards). The 5xx Sluice answers on purpose, because Kafka Connect or Confluent does, are
// listed with their reasons in ./openapi_checks.py. Bounded: at most EXAMPLES cases per operation and
// SECONDS per API, one worker (with two, schemathesis once failed inside CPython 3.11's ast module:
// "AST constructor recursion depth mismatch", its bug, not Sluice's).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { interopPython } from "../fixtures/python.ts";
import { freePort } from "../fixtures/wait.ts";
import { install, type Install, type Running } from "../fixtures/sluice-process.ts";

const EXAMPLES = 10;
const SECONDS = 75;
const CHECKS = [
  "not_a_server_error_unless_pinned",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
];

let sluice: Install;
let dev: Running;
const urls = { registry: "", connect: "" };

beforeAll(async () => {
  interopPython();
  sluice = install();
  urls.registry = `http://127.0.0.1:${freePort()}`;
  urls.connect = `http://127.0.0.1:${freePort()}`;
  dev = await sluice.start(["dev", "--registry-listeners", urls.registry, "--connect-listeners", urls.connect]);
}, 120_000);
afterAll(async () => sluice?.remove());

async function run(cmd: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  // In the install's directory: schemathesis keeps its cache (.schemathesis/) where it runs.
  const proc = spawn(cmd, { cwd: sluice.dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, out: out + err };
}

describe.each(["registry", "connect"] as const)("the %s API", (api) => {
  test("serves a valid OpenAPI 3.1 document at /openapi.json", async () => {
    const response = await fetch(`${urls[api]}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const doc = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/openapi.json");
    const file = join(sluice.dir, `${api}-openapi.json`);
    writeFileSync(file, JSON.stringify(doc));
    const validated = await run([interopPython(), "-m", "openapi_spec_validator", file]);
    expect(validated.out).toContain(": OK");
    expect(validated.code).toBe(0);
  });

  test(
    "fuzzed by schemathesis: no 5xx, every answer as documented, still up afterwards",
    async () => {
      const st = join(dirname(interopPython()), "st");
      const fuzz = await run(
        [
          st,
          "run",
          `${urls[api]}/openapi.json`,
          "--checks",
          CHECKS.join(","),
          "--max-examples",
          String(EXAMPLES),
          "--max-time",
          String(SECONDS),
          "--workers",
          "1",
          "--suppress-health-check",
          "filter_too_much",
          "--no-color",
        ],
        { SCHEMATHESIS_HOOKS: "openapi_checks", PYTHONPATH: import.meta.dir },
      );
      if (fuzz.code !== 0) console.log(fuzz.out.slice(-20_000));
      expect(fuzz.out).toMatch(/\d+ generated, \d+ passed/);
      expect(fuzz.code).toBe(0);
      expect(dev.proc.exitCode).toBeNull();
      expect((await fetch(`${urls[api]}/health`)).status).toBe(200);
    },
    (SECONDS + 60) * 1000,
  );
});
