// A connect worker as its own process for the benchmarks that compare Sluice with Apache Kafka Connect:
// `dist/sluice connect-standalone` or the JVM's ConnectStandalone, its log in a file, its peak RSS
// (VmHWM from /proc/<pid>/status) sampled while it runs, so both sides are measured the same way.
import { spawn, spawnSync, type Subprocess } from "bun";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** The heap and GC flags of Kafka's bin/connect-standalone.sh and kafka-run-class.sh (the JVM as shipped). */
export const KAFKA_CONNECT_JVM_OPTIONS = [
  "-Xms256M",
  "-Xmx2G",
  "-server",
  "-XX:+UseG1GC",
  "-XX:MaxGCPauseMillis=20",
  "-XX:InitiatingHeapOccupancyPercent=35",
  "-XX:+ExplicitGCInvokesConcurrent",
  "-XX:MaxInlineLevel=15",
  "-Djava.awt.headless=true",
];

/** dist/sluice (built with `bun run build` when missing), or SLUICE_BIN. */
export function sluiceBinary(): string {
  const given = process.env.SLUICE_BIN;
  if (given) return given;
  const bin = join(root, "dist", "sluice");
  if (!existsSync(bin)) {
    const build = spawnSync([process.execPath, "run", "build"], { cwd: root, stdout: "inherit", stderr: "inherit" });
    if (build.exitCode !== 0) throw new Error("bun run build failed");
  }
  return bin;
}

/** Peak RSS of a process (VmHWM), sampled until stopped. */
export function rssSampler(pid: number) {
  let peakKiB = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peakKiB = Math.max(peakKiB, hwm, rss);
    } catch {
      // the process is gone
    }
  };
  const timer = setInterval(sample, 100);
  return {
    /** The peak so far, in MiB. */
    peakMiB: () => (sample(), peakKiB / 1024),
    stop: () => {
      sample();
      clearInterval(timer);
      return peakKiB / 1024;
    },
  };
}

export async function httpOk(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

export interface WorkerProcess {
  proc: Subprocess;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Spawn → REST answering, in ms. */
  restMs: number;
  /** Performance.now() at spawn. */
  started: number;
  rss: ReturnType<typeof rssSampler>;
  log(): string;
  /** Throws when the process exited or `deadline` (Date.now() ms) has passed: for polling loops. */
  check(deadline?: number): void;
  /** SIGTERM (SIGKILL after 15 s); returns the peak RSS in MiB. */
  stop(): Promise<number>;
}

/**
 * Spawns a worker (`command`, which listens on `port`) with its output in `logFile`, and waits until its
 * REST API answers `readyPath` (GET / answers once the REST server is up, /connectors once the herder is).
 */
export async function startWorkerProcess(
  name: string,
  command: string[],
  options: { cwd: string; port: number; logFile: string; timeoutMs: number; readyPath?: string },
): Promise<WorkerProcess> {
  const started = performance.now();
  // One descriptor for both streams: two of the file, each writing from its own offset, overwrote each other.
  const out = openSync(options.logFile, "a");
  const proc = spawn(command, { cwd: options.cwd, stdout: out, stderr: out });
  closeSync(out);
  // A worker must not outlive this process (a crashed or interrupted bench).
  const cleanupOnExit = () => proc.kill("SIGKILL");
  process.once("exit", cleanupOnExit);
  const rss = rssSampler(proc.pid);
  const url = `http://127.0.0.1:${options.port}`;
  const log = () => (existsSync(options.logFile) ? readFileSync(options.logFile, "utf8") : "");
  const check = (deadline?: number) => {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}: ${log().slice(-3000)}`);
    if (deadline !== undefined && Date.now() > deadline) throw new Error(`${name}: timed out`);
  };
  const stop = async () => {
    const peak = rss.stop();
    process.off("exit", cleanupOnExit);
    if (proc.exitCode === null) {
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 15000);
      await proc.exited;
      clearTimeout(killer);
    }
    return peak;
  };
  try {
    const deadline = Date.now() + options.timeoutMs;
    while (!(await httpOk(url + (options.readyPath ?? "/connectors")))) {
      check(deadline);
      await Bun.sleep(20);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { proc, url, restMs: performance.now() - started, started, rss, log, check, stop };
}

/** User + system CPU time of a process so far, in seconds (/proc/<pid>/stat, clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Creates the connector, retrying while the worker answers that it cannot yet (409 during a rebalance, 5xx). */
export async function createConnectorWhenReady(
  worker: WorkerProcess,
  name: string,
  config: Record<string, string>,
  deadline: number,
): Promise<void> {
  for (;;) {
    worker.check(deadline);
    const res = await fetch(`${worker.url}/connectors`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, config }),
    });
    if (res.status === 201) return;
    const body = await res.text();
    if (res.status !== 409 && res.status < 500) throw new Error(`creating ${name}: ${res.status} ${body}`);
    await Bun.sleep(50); // poll interval: the worker's answer decides
  }
}

/** POSTs a connector; throws with the answer unless it is created. */
export async function createConnector(base: string, name: string, config: Record<string, string>): Promise<void> {
  const res = await fetch(`${base}/connectors`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, config }),
  });
  if (res.status !== 201) throw new Error(`creating ${name}: ${res.status} ${await res.text()}`);
}

/** DELETEs a connector (and waits for the answer: its tasks are stopped by then). */
export async function deleteConnector(base: string, name: string): Promise<void> {
  const res = await fetch(`${base}/connectors/${name}`, { method: "DELETE" });
  if (res.status !== 204 && res.status !== 200) throw new Error(`deleting ${name}: ${res.status} ${await res.text()}`);
}

/** Throws with the trace of the first FAILED connector or task of the worker at `base`, if any. */
export async function checkNoFailure(base: string): Promise<void> {
  const res = await fetch(`${base}/connectors?expand=status`).catch(() => undefined);
  if (res?.status !== 200) return;
  type State = { state: string; trace?: string };
  const all = (await res.json()) as Record<string, { status?: { connector: State; tasks: State[] } }>;
  for (const [name, { status }] of Object.entries(all)) {
    if (!status) continue; // no status yet (a connector just created): the worker leaves it out
    const failed = [status.connector, ...status.tasks].find((s) => s.state === "FAILED");
    if (failed) throw new Error(`${name} FAILED: ${failed.trace?.slice(0, 3000) ?? "(no trace)"}`);
  }
}
