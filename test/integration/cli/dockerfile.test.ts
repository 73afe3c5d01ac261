// No Docker engine runs here (nor can podman or buildah pull base images: Docker Hub is out of reach), so
// the Dockerfile is exercised step by step instead. Its build stage runs as `docker build` would on a
// fresh clone: the build context is a `git clone` of this checkout (its commit: what is not committed is
// not there) less what .dockerignore excludes; its
// COPYs and RUNs (npm ci, the build) run there. The image stage then takes the binary the build stage
// chose for the target architecture into an otherwise empty root: its WORKDIR and ENV, its ENTRYPOINT +
// CMD started there (no node_modules anywhere near), its HEALTHCHECK command, and what it declares
// (non-root user, ports, volume). Paths of the images are mapped under temp dirs; the listeners' ports
// onto free ones.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Glob, spawn, spawnSync, type Subprocess } from "bun";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "../../fixtures/binary.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";
import pkg from "../../../package.json" with { type: "json" };

const temp = mkdtempSync(join(tmpdir(), "sluice-docker-"));
let proc: Subprocess | undefined;
afterAll(async () => {
  proc?.kill("SIGTERM");
  await proc?.exited;
  rmSync(temp, { recursive: true, force: true });
}, 60_000);

interface Copy {
  from?: string;
  sources: string[];
  target: string;
}

/** One stage: its instructions in order (ARGs substituted as they stand at each), and what it declares. */
interface Stage {
  image: string;
  name?: string;
  platform?: string;
  steps: ({ run: string; args: Record<string, string> } | { copy: Copy } | { workdir: string })[];
  user: string;
  workdir: string;
  volumes: string[];
  env: Record<string, string>;
  expose: string[];
  healthcheck: string[];
  entrypoint: string[];
  cmd: string[];
}

/** The stages of the Dockerfile, `buildArgs` standing for --build-arg and the automatic platform ARGs. */
function parse(text: string, buildArgs: Record<string, string>): Stage[] {
  const stages: Stage[] = [];
  const globalArgs: Record<string, string> = {};
  let args: Record<string, string> = globalArgs;
  const lines = text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((l) => l.trim() && !l.trim().startsWith("#"));
  const sub = (s: string) => s.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => args[name] ?? whole);
  for (const line of lines) {
    const [, instruction, rest] = /^(\w+)\s+(.*)$/.exec(line.trim())!;
    const stage = stages.at(-1)!;
    if (instruction === "ARG") {
      const [name, dflt] = rest!.split("=") as [string, string | undefined];
      args[name] = buildArgs[name] ?? globalArgs[name] ?? dflt ?? "";
      continue;
    }
    if (instruction === "RUN") {
      // A RUN sees the ARGs in its environment: the shell expands them.
      stage.steps.push({ run: rest!, args: { ...args } });
      continue;
    }
    const value = sub(rest!);
    switch (instruction) {
      case "FROM": {
        const [, platform, image, name] = /^(?:--platform=(\S+)\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(value)!;
        stages.push({
          image: image!,
          name,
          platform,
          steps: [],
          user: "root",
          workdir: "/",
          volumes: [],
          env: {},
          expose: [],
          healthcheck: [],
          entrypoint: [],
          cmd: [],
        });
        args = {};
        break;
      }
      case "COPY": {
        const words = value.split(/\s+/);
        const from = words[0]!.startsWith("--from=") ? words.shift()!.slice("--from=".length) : undefined;
        stage.steps.push({ copy: { from, sources: words.slice(0, -1), target: words.at(-1)! } });
        break;
      }
      case "WORKDIR":
        stage.workdir = value;
        stage.steps.push({ workdir: value });
        break;
      case "USER":
        stage.user = value;
        break;
      case "VOLUME":
        stage.volumes.push(...(JSON.parse(value) as string[]));
        break;
      case "ENV":
        for (const [, k, v] of value.matchAll(/(\w+)=(\S+)/g)) stage.env[k!] = v!;
        break;
      case "EXPOSE":
        stage.expose.push(...value.split(/\s+/));
        break;
      case "HEALTHCHECK":
        stage.healthcheck = JSON.parse(value.slice(value.indexOf("CMD") + 3)) as string[];
        break;
      case "ENTRYPOINT":
        stage.entrypoint = JSON.parse(value) as string[];
        break;
      case "CMD":
        stage.cmd = JSON.parse(value) as string[];
        break;
      default:
        throw new Error(`an instruction this test does not exercise: ${instruction}`);
    }
  }
  return stages;
}

const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const ignored = readFileSync(join(root, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const dockerArch = process.arch === "arm64" ? "arm64" : "amd64";
const [build, image] = parse(dockerfile, { TARGETARCH: dockerArch });
const buildRoot = join(temp, "build");
const imageRoot = join(temp, "image");
/** A path of a stage's file system, under its temp root. */
const inRoot = (fsRoot: string, path: string, workdir = "/") =>
  join(fsRoot, path.startsWith("/") ? path : join(workdir, path));

/** The context `docker build .` sends from a fresh clone: the clone less what .dockerignore excludes. */
function buildContext(): string {
  const context = join(temp, "context");
  const clone = spawnSync(["git", "clone", "--quiet", root, context], { stderr: "pipe" });
  if (clone.exitCode !== 0) throw new Error(`git clone failed: ${clone.stderr.toString()}`);
  for (const pattern of ignored) {
    for (const path of [...new Glob(pattern).scanSync({ cwd: context, dot: true, onlyFiles: false })])
      rmSync(join(context, path), { recursive: true, force: true });
  }
  return context;
}

/** A PATH with this machine's tools but git, as in the build stage's node image (which has no git). */
function pathWithoutGit(): string {
  const bin = join(temp, "node-image-bin");
  mkdirSync(bin);
  for (const tool of readdirSync("/usr/bin")) if (tool !== "git") symlinkSync(join("/usr/bin", tool), join(bin, tool));
  return bin;
}

/**
 * Runs a stage's steps: COPY from the context (or an earlier stage's root), WORKDIR, and with `run` its
 * RUNs in its WORKDIR (not the image stage's: they would create users on this machine).
 */
function runStage(
  stage: Stage,
  fsRoot: string,
  context: string,
  stageRoots: Record<string, string>,
  run: boolean,
): void {
  let workdir = "/";
  const path = run ? pathWithoutGit() : "";
  for (const step of stage.steps) {
    if ("workdir" in step) {
      workdir = step.workdir;
      mkdirSync(inRoot(fsRoot, workdir), { recursive: true });
    } else if ("copy" in step) {
      const { from, sources, target } = step.copy;
      const sourceRoot = from ? stageRoots[from]! : context;
      for (const source of sources) {
        const to = inRoot(fsRoot, target, workdir);
        const into =
          target.endsWith("/") || target === "." ? join(to, source === "." ? "" : source.split("/").at(-1)!) : to;
        mkdirSync(dirname(into), { recursive: true });
        cpSync(from ? inRoot(sourceRoot, source) : join(context, source), into, { recursive: true });
      }
    } else if (run) {
      const result = spawnSync(["sh", "-c", step.run], {
        cwd: inRoot(fsRoot, workdir),
        env: { PATH: path, HOME: process.env.HOME ?? "", ...step.args },
        stdout: "pipe",
        stderr: "pipe",
      });
      if (result.exitCode !== 0)
        throw new Error(`RUN ${step.run} failed (${result.exitCode}): ${result.stderr.toString().slice(-3000)}`);
    }
  }
}

/** The CPU an ELF executable is for, from its e_machine field. */
function elfMachine(path: string): string {
  const header = Buffer.alloc(20);
  readSync(openSync(path, "r"), header, 0, 20, 0);
  return ({ 0x3e: "amd64", 0xb7: "arm64" } as Record<number, string>)[header.readUInt16LE(18)] ?? "unknown";
}

test("the image stage takes the binary the build stage built; the build stage is the builder's platform on a base that meets engines", () => {
  expect(build!.name).toBeTruthy();
  expect(build!.platform).toBe("$BUILDPLATFORM"); // Bun cross-compiles: no emulation for other targets
  expect(Number(/^node:(\d+)/.exec(build!.image)?.[1])).toBeGreaterThanOrEqual(
    Number(/(\d+)/.exec(pkg.engines.node)![1]),
  );
  const fromBuild = image!.steps.flatMap((s) => ("copy" in s ? [s.copy] : []));
  expect(fromBuild).toEqual([{ from: build!.name, sources: [expect.any(String)], target: "/usr/local/bin/sluice" }]);
});

test(".dockerignore keeps the checkout's own installs, builds, data and history out of the build context", () => {
  for (const path of [".git", "node_modules", "dist", "data", "connect.log"])
    expect(ignored.some((p) => new Glob(p).match(path))).toBe(true);
  expect(ignored.some((p) => new Glob(p).match("src/connect/api/data"))).toBe(false); // sources named data stay
});

beforeAll(() => {
  // The build stage on a fresh clone, then the image stage on its output.
  const context = buildContext();
  runStage(build!, buildRoot, context, {}, true);
  runStage(image!, imageRoot, context, { [build!.name!]: buildRoot }, false);
}, 600_000);

test("the build stage builds the binary of the target architecture: amd64 and arm64", () => {
  const choose = build!.steps.filter((s) => "run" in s && s.run.includes("TARGETARCH"));
  expect(choose).toHaveLength(1);
  for (const arch of ["amd64", "arm64"]) {
    const step = choose[0] as { run: string; args: Record<string, string> };
    const workdir = join(buildRoot, build!.workdir, `arch-${arch}`);
    mkdirSync(workdir);
    cpSync(join(buildRoot, build!.workdir, "dist"), join(workdir, "dist"), { recursive: true });
    expect(
      spawnSync(["sh", "-c", step.run], {
        cwd: workdir,
        env: { PATH: process.env.PATH ?? "", ...step.args, TARGETARCH: arch },
      }).exitCode,
    ).toBe(0);
    expect(elfMachine(join(workdir, "sluice"))).toBe(arch);
  }
}, 60_000);

test("the image: the release binary, as a non-root user, serves both APIs and passes its health check", async () => {
  const d = image!;
  expect(d.user).not.toBe("root");
  const runs = d.steps.flatMap((s) => ("run" in s ? [s.run] : []));
  expect(runs.join(" ")).toContain(`useradd`);
  expect(runs.join(" ")).toContain(` ${d.user}`);
  expect(d.expose.sort()).toEqual(["8081", "8083"]);
  expect(d.volumes).toContain(d.workdir);
  chmodSync(inRoot(imageRoot, "/usr/local/bin/sluice"), 0o755);
  mkdirSync(inRoot(imageRoot, d.workdir), { recursive: true });

  // The image's environment, its paths under the temp root and its ports on free ones.
  const env: Record<string, string> = {
    PATH: `${inRoot(imageRoot, "/usr/local/bin")}:/usr/bin:/bin`,
    HOME: inRoot(imageRoot, d.workdir),
  };
  const ports = new Map<string, string>();
  for (const [k, v] of Object.entries(d.env)) {
    env[k] = v.startsWith("/")
      ? inRoot(imageRoot, v)
      : v.replace(
          /:(\d+)$/,
          (_, port: string) => `:${ports.get(port) ?? ports.set(port, String(freePort())).get(port)}`,
        );
  }
  const [command, ...args] = [...d.entrypoint, ...d.cmd];
  proc = spawn([command!, ...args], {
    cwd: inRoot(imageRoot, d.workdir),
    env: { ...env, SLUICE_LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "pipe",
  });

  const health = () => spawnSync(d.healthcheck, { cwd: inRoot(imageRoot, d.workdir), env }).exitCode;
  await waitFor(
    "the image's health check to pass",
    () => {
      if (proc!.exitCode !== null) throw new Error(`sluice exited with ${proc!.exitCode}`);
      return health() === 0;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const registry = `http://127.0.0.1:${ports.get("8081")}`;
  const connect = `http://127.0.0.1:${ports.get("8083")}`;
  const registered = await fetch(`${registry}/subjects/image-value/versions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ schema: '"string"' }),
  });
  expect(registered.status).toBe(200);
  expect((await fetch(`${connect}/connectors`)).status).toBe(200);
  // State lives in the volume.
  expect(existsSync(join(inRoot(imageRoot, d.workdir), "data"))).toBe(true);

  proc.kill("SIGTERM");
  await proc.exited;
  proc = undefined;
  expect(health()).toBe(1);

  // A container running one service, on listeners its command line gives: its health check asks that
  // service there, not both services at the image's listeners.
  const own = `http://127.0.0.1:${freePort()}`;
  proc = spawn([...d.entrypoint, "registry", "--listeners", own], {
    cwd: inRoot(imageRoot, d.workdir),
    env: { ...env, SLUICE_LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor(
    "the registry-only container's health check to pass",
    () => {
      if (proc!.exitCode !== null) throw new Error(`sluice exited with ${proc!.exitCode}`);
      return health() === 0;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const said = spawnSync(d.healthcheck, { cwd: inRoot(imageRoot, d.workdir), env }).stdout.toString();
  expect(said.trim()).toBe(`registry ${own}/: 200`);
  proc.kill("SIGTERM");
  await proc.exited;
  proc = undefined;
  expect(health()).toBe(1);
}, 120_000);
