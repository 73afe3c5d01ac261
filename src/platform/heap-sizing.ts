// How far the JavaScript heaps grow before they collect. JavaScriptCore lets each heap (the main thread's,
// each task thread's, the schema thread's) grow from what it holds by a factor chosen from the machine's
// RAM as it reads it (sysinfo, not the container's limit): twice what it holds while that is under a
// quarter of the RAM. It reads its options once, from BUN_JSC_* variables, before any code runs. On a
// 24 GiB machine a MirrorMaker worker's task threads held ~45 MiB each and grew to ~150 MiB between
// collections. A service therefore restarts itself once, in the same process (execve), with the RAM taken
// as at most 2 GiB (what Kafka Connect's scripts give its JVM, -Xmx2G) and small heaps grown by half of
// what they hold, not by all of it: Sluice's heaps are many and small. A value the environment already
// sets is kept.
// cli.ts imports this module first, so the restart happens before the other modules are evaluated: after
// them, it would cost their ~0.1 s twice.
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { isMainThread } from "node:worker_threads";

export const PLANNED_HEAP_RAM = 2 * 1024 ** 3;
/** JavaScriptCore's factor for a heap under a quarter of the RAM is 2; 1.5 is its factor for medium heaps. */
const SMALL_HEAP_GROWTH = "1.5";

/** The RAM the heaps are sized for: 2 GiB, or less where the machine or its cgroup has less. */
export function heapRamBytes(machineBytes: number, cgroupLimit: string | undefined): number {
  const limit = cgroupLimit === undefined ? Number.NaN : Number(cgroupLimit.trim());
  const bounds = [PLANNED_HEAP_RAM, machineBytes, ...(Number.isSafeInteger(limit) && limit > 0 ? [limit] : [])];
  return Math.min(...bounds);
}

/** cgroup v2's memory.max, else v1's limit; undefined outside a cgroup that says ("max" reads as no limit). */
function cgroupMemoryLimit(): string | undefined {
  for (const file of ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]) {
    try {
      return readFileSync(file, "utf8");
    } catch {}
  }
  return undefined;
}

/**
 * The commands that start services; the others end soon and keep the defaults. Named here, not taken from
 * usage.ts's COMMANDS: this module runs before any other is evaluated.
 */
const SERVICES = new Set(["dev", "registry", "connect-standalone", "connect-distributed"]);

/**
 * Replaces this process with itself, the heaps sized as above, when it is sluice starting a service and a
 * variable is not set already (by the user, or by this restart). Does nothing where the runtime cannot exec.
 */
function sizeHeaps(): void {
  // A compiled binary's argv[1] is its bundled entry, which it runs anyway; from source it is the script.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") ?? false;
  const entry = compiled || Bun.main.endsWith("/src/cli.ts");
  const [command, ...rest] = process.argv.slice(2);
  if (!entry || !isMainThread || !SERVICES.has(command ?? "") || rest.includes("--help") || rest.includes("-h")) return;
  if (typeof process.execve !== "function") return;
  const options: Record<string, () => string> = {
    BUN_JSC_forceRAMSize: () => String(heapRamBytes(totalmem(), cgroupMemoryLimit())),
    BUN_JSC_smallHeapGrowthFactor: () => SMALL_HEAP_GROWTH,
  };
  const missing = Object.keys(options).filter((name) => process.env[name] === undefined);
  if (missing.length === 0) return;
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  const env = { ...process.env };
  for (const name of missing) env[name] = options[name]!();
  process.execve(process.execPath, [process.execPath, ...args], env);
}

sizeHeaps();
