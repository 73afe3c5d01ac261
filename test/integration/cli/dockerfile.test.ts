// No Docker engine runs here, so the Dockerfile is exercised step by step instead: its COPY of the
// release binary into an otherwise empty root, its WORKDIR and ENV, its ENTRYPOINT + CMD started there
// (no node_modules anywhere near), its HEALTHCHECK command, and what it declares (non-root user, ports,
// volume). Paths of the image are mapped under a temp dir; the listeners' ports onto free ones.
import { afterAll, expect, test } from "bun:test";
import { spawn, spawnSync, type Subprocess } from "bun";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { builtBinary, root } from "../../fixtures/binary.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const image = mkdtempSync(join(tmpdir(), "sluice-image-"));
let proc: Subprocess | undefined;
afterAll(async () => {
  proc?.kill("SIGTERM");
  await proc?.exited;
  rmSync(image, { recursive: true, force: true });
});

interface Dockerfile {
  args: Record<string, string>;
  user: string;
  run: string[];
  copies: [string, string][];
  workdir: string;
  volumes: string[];
  env: Record<string, string>;
  expose: string[];
  healthcheck: string[];
  entrypoint: string[];
  cmd: string[];
}

/** The instructions this Dockerfile uses, with ${ARG} substituted. */
function parse(text: string): Dockerfile {
  const d: Dockerfile = { args: {}, user: "root", run: [], copies: [], workdir: "/", volumes: [], env: {}, expose: [], healthcheck: [], entrypoint: [], cmd: [] };
  const lines = text.replace(/\\\n\s*/g, " ").split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  const sub = (s: string) => s.replace(/\$\{(\w+)\}/g, (_, name: string) => d.args[name] ?? "");
  for (const line of lines) {
    const [, instruction, rest] = /^(\w+)\s+(.*)$/.exec(line.trim())!;
    const value = sub(rest!);
    switch (instruction) {
      case "ARG": {
        const [name, dflt] = value.split("=");
        d.args[name!] = dflt ?? "";
        break;
      }
      case "RUN": d.run.push(value); break;
      case "COPY": d.copies.push(value.split(/\s+/) as [string, string]); break;
      case "USER": d.user = value; break;
      case "WORKDIR": d.workdir = value; break;
      case "VOLUME": d.volumes.push(...(JSON.parse(value) as string[])); break;
      case "ENV": for (const [, k, v] of value.matchAll(/(\w+)=(\S+)/g)) d.env[k!] = v!; break;
      case "EXPOSE": d.expose.push(...value.split(/\s+/)); break;
      case "HEALTHCHECK": d.healthcheck = JSON.parse(value.slice(value.indexOf("CMD") + 3)) as string[]; break;
      case "ENTRYPOINT": d.entrypoint = JSON.parse(value) as string[]; break;
      case "CMD": d.cmd = JSON.parse(value) as string[]; break;
      case "FROM": break;
      default: throw new Error(`an instruction this test does not exercise: ${instruction}`);
    }
  }
  return d;
}

test("the Dockerfile's image: the release binary, as a non-root user, serves both APIs and passes its health check", async () => {
  builtBinary();
  const d = parse(readFileSync(join(root, "Dockerfile"), "utf8"));
  expect(d.user).not.toBe("root");
  expect(d.run.join(" ")).toContain(`useradd`);
  expect(d.run.join(" ")).toContain(` ${d.user}`);
  expect(d.expose.sort()).toEqual(["8081", "8083"]);
  expect(d.volumes).toContain(d.workdir);

  const inImage = (path: string) => join(image, path);
  for (const [source, target] of d.copies) {
    expect(existsSync(join(root, source))).toBe(true); // what `bun run build` wrote
    mkdirSync(dirname(inImage(target)), { recursive: true });
    copyFileSync(join(root, source), inImage(target));
    chmodSync(inImage(target), 0o755);
  }
  mkdirSync(inImage(d.workdir), { recursive: true });
  // The image's environment, its paths under the temp root and its ports on free ones.
  const env: Record<string, string> = { PATH: `${inImage("/usr/local/bin")}:/usr/bin:/bin`, HOME: inImage(d.workdir) };
  const ports = new Map<string, string>();
  for (const [k, v] of Object.entries(d.env)) {
    env[k] = v.startsWith("/") ? inImage(v) : v.replace(/:(\d+)$/, (_, port: string) => `:${ports.get(port) ?? ports.set(port, String(freePort())).get(port)}`);
  }
  const [command, ...args] = [...d.entrypoint, ...d.cmd];
  proc = spawn([command!, ...args], { cwd: inImage(d.workdir), env: { ...env, SLUICE_LOG_LEVEL: "warn" }, stdout: "pipe", stderr: "pipe" });

  const health = () => spawnSync(d.healthcheck, { cwd: inImage(d.workdir), env }).exitCode;
  await waitFor("the image's health check to pass", () => {
    if (proc!.exitCode !== null) throw new Error(`sluice exited with ${proc!.exitCode}`);
    return health() === 0;
  }, { timeoutMs: 30_000, intervalMs: 200 });
  const registry = `http://127.0.0.1:${ports.get("8081")}`;
  const connect = `http://127.0.0.1:${ports.get("8083")}`;
  const registered = await fetch(`${registry}/subjects/image-value/versions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ schema: '"string"' }) });
  expect(registered.status).toBe(200);
  expect((await fetch(`${connect}/connectors`)).status).toBe(200);
  // State lives in the volume.
  expect(existsSync(join(inImage(d.workdir), "data"))).toBe(true);

  proc.kill("SIGTERM");
  await proc.exited;
  proc = undefined;
  expect(health()).toBe(1);
}, 120_000);
