// dist/sluice on a damaged embedded log, as a user meets it: damage before the end of a log refuses
// start-up naming the file, the byte and the way out, and leaves the file as it was; only a torn last
// frame (a crash mid-append) is cut, its bytes kept beside the log; `sluice repair-log` recovers knowingly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync, type Subprocess } from "bun";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { client } from "../../fixtures/registry.ts";
import { install, type Install } from "../../fixtures/sluice-process.ts";
import { freePort } from "../../fixtures/wait.ts";

const SCHEMAS = 300;
let installed: Install;
let dir: string;
let bin: string;
/** A data directory whose _schemas log holds SCHEMAS registrations; each test works on a copy. */
let pristine: string;
const ids: number[] = [];

const env = () => ({ PATH: process.env.PATH ?? "", HOME: dir, SLUICE_LOG_LEVEL: "warn" });
const logOf = (data: string) => join(data, "topics", "_schemas", "0.log");
const schema = (i: number) => ({ type: "record", name: `R${i}`, fields: [{ name: "f", type: "int" }] });

async function startRegistry(data: string): Promise<{ proc: Subprocess; url: string }> {
  const url = `http://127.0.0.1:${freePort()}`;
  const { proc } = await installed.serve(["registry", "--data-dir", data, "--listeners", url], { readyUrl: url });
  return { proc, url };
}

async function stop(proc: Subprocess): Promise<void> {
  proc.kill("SIGTERM");
  await proc.exited;
}

/** Starts the registry on a data directory it must refuse; returns its exit code and stderr. */
const refusedStart = (data: string) =>
  installed.exits(["registry", "--data-dir", data, "--listeners", `http://127.0.0.1:${freePort()}`], {
    env: { SLUICE_LOG_LEVEL: "warn" },
  });

function copyOfPristine(name: string): string {
  const data = join(dir, name);
  cpSync(pristine, data, { recursive: true });
  return data;
}

beforeAll(async () => {
  installed = install("sluice-damage-");
  ({ dir, bin } = installed);
  pristine = join(dir, "pristine");
  const sr = await startRegistry(pristine);
  for (let i = 0; i < SCHEMAS; i++) {
    const r = await client(sr.url).register(`s${i}`, schema(i), {});
    expect(r.status).toBe(200);
    ids.push(r.body.id);
  }
  await stop(sr.proc);
}, 180_000);
afterAll(() => installed.remove());

describe("dist/sluice on a damaged embedded log", () => {
  test("one flipped byte in the middle refuses start-up, names file and byte, and leaves the file as it was", async () => {
    const data = copyOfPristine("flipped");
    const bytes = readFileSync(logOf(data));
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] ^= 0x01;
    writeFileSync(logOf(data), bytes);

    const { code, stderr } = await refusedStart(data);
    expect(code).not.toBe(0);
    expect(stderr).toContain(logOf(data));
    expect(stderr).toMatch(/damaged at byte \d+/);
    expect(stderr).toContain("sluice repair-log");
    expect(readFileSync(logOf(data)).equals(bytes)).toBe(true);
    expect(readdirSync(join(data, "topics", "_schemas")).sort()).toEqual(["0.log", "meta.json"]);
  });

  test("a log replaced by garbage refuses start-up and is kept byte for byte", async () => {
    const data = copyOfPristine("garbage");
    const garbage = new Uint8Array(readFileSync(logOf(data)).length);
    crypto.getRandomValues(garbage.subarray(0, 65536));
    for (let at = 65536; at < garbage.length; at += 65536)
      garbage.copyWithin(at, 0, Math.min(65536, garbage.length - at));
    writeFileSync(logOf(data), garbage);

    const { code, stderr } = await refusedStart(data);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`${logOf(data)} is damaged at byte 0`);
    expect(readFileSync(logOf(data)).equals(garbage)).toBe(true);
  });

  test("a torn last frame is cut, its bytes kept beside the log, and everything before it is served", async () => {
    const data = copyOfPristine("torn");
    const whole = readFileSync(logOf(data));
    const torn = whole.subarray(0, whole.length - 5);
    writeFileSync(logOf(data), torn);

    const sr = await startRegistry(data);
    try {
      const kept = readdirSync(join(data, "topics", "_schemas")).filter((f) => f.startsWith("0.log.torn-"));
      expect(kept).toHaveLength(1);
      const cut = readFileSync(join(data, "topics", "_schemas", kept[0]!));
      const log = readFileSync(logOf(data));
      expect(log.length + cut.length).toBe(torn.length);
      expect(Buffer.concat([log, cut]).equals(torn)).toBe(true);
      // The torn frame was the last registration; every one before it is served.
      for (const id of ids.slice(0, -1)) expect((await client(sr.url).get(`/schemas/ids/${id}`)).status).toBe(200);
    } finally {
      await stop(sr.proc);
    }
  });

  test("sluice repair-log keeps the damaged file, salvages the intact records around the damage, and the registry reuses no id", async () => {
    const data = copyOfPristine("repaired");
    const bytes = readFileSync(logOf(data));
    bytes[Math.floor(bytes.length / 2)] ^= 0x01;
    writeFileSync(logOf(data), bytes);

    const repair = spawnSync([bin, "repair-log", logOf(data)], {
      cwd: dir,
      env: env(),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(repair.exitCode).toBe(0);
    expect(repair.stdout.toString()).toMatch(/skipped \d+ damaged bytes/);
    const aside = readdirSync(join(data, "topics", "_schemas")).filter((f) => f.startsWith("0.log.damaged-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(data, "topics", "_schemas", aside[0]!)).equals(bytes)).toBe(true);

    const sr = await startRegistry(data);
    try {
      let served = 0;
      for (const id of ids) if ((await client(sr.url).get(`/schemas/ids/${id}`)).status === 200) served++;
      // One flipped byte costs one record, not everything after it.
      expect(served).toBeGreaterThanOrEqual(SCHEMAS - 1);
      const fresh = await client(sr.url).register("after-repair", schema(SCHEMAS), {});
      expect(fresh.status).toBe(200);
      expect(ids).not.toContain(fresh.body.id);
    } finally {
      await stop(sr.proc);
    }
  });
});
