// dist/sluice as a person runs it: copied into an empty directory (no node_modules beside it), started
// with the arguments the README, --help and the Dockerfile show, its output collected as it comes.
import { spawn, spawnSync, type Subprocess } from "bun";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtBinary } from "../fixtures/binary.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";

export interface Install {
  dir: string;
  bin: string;
  /** Runs a command to its end. */
  run(args: string[], env?: Record<string, string>): { exitCode: number; stdout: string; stderr: string };
  /** Starts a service and waits until it says it listens. */
  start(args: string[], env?: Record<string, string>): Promise<Running>;
  remove(): Promise<void>;
}

export interface Running {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** stdout and stderr so far. */
  output(): string;
}

export function install(): Install {
  const dir = mkdtempSync(join(tmpdir(), "sluice-journey-"));
  const bin = join(dir, "sluice");
  copyFileSync(builtBinary(), bin);
  const envOf = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? "", HOME: dir, ...env });
  const started: Running[] = [];
  return {
    dir,
    bin,
    run(args, env = {}) {
      const r = spawnSync([bin, ...args], { cwd: dir, env: envOf(env), stdout: "pipe", stderr: "pipe" });
      return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
    },
    async start(args, env = {}) {
      const proc = spawn([bin, ...args], { cwd: dir, env: envOf(env), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      let text = "";
      const collect = async (stream: ReadableStream<Uint8Array>) => {
        const decoder = new TextDecoder();
        for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
      };
      const done = Promise.all([collect(proc.stdout), collect(proc.stderr)]);
      const running = { proc, output: () => text };
      started.push(running);
      await waitFor(`sluice ${args[0]} to listen`, async () => {
        if (proc.exitCode !== null) {
          await done;
          throw new Error(`sluice exited with ${proc.exitCode}: ${text}`);
        }
        return /listening on/.test(text) || undefined;
      }, { timeoutMs: 60000 });
      return running;
    },
    async remove() {
      for (const { proc } of started) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The lines of a service's output that contain `text`. */
export const linesWith = (output: string, text: string) => output.split("\n").filter((l) => l.includes(text));

/** A listener on a port nothing uses, for a service's --listeners. */
export const freeListener = () => `http://127.0.0.1:${freePort()}`;
