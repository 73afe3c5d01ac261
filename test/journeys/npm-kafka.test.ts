// `npm run kafka` as the README's next step: it starts a local broker and prints a command to try; that
// command must work as printed (the built binary once `npm run build` has made it, npm's script before).
import { afterAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtBinary, root } from "../fixtures/binary.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";

const running: ChildProcess[] = [];
/** `args` in the repository, in a process group of its own: npm does not pass its signals on to its script. */
function start(args: readonly string[], stdout: "pipe" | "ignore"): ChildProcess {
  const proc = spawn(args[0]!, args.slice(1), { cwd: root, stdio: ["ignore", stdout, "ignore"], detached: true });
  running.push(proc);
  return proc;
}
afterAll(async () => {
  for (const p of running.reverse()) {
    if (p.exitCode !== null) continue;
    const exited = new Promise((resolve) => p.once("exit", resolve));
    process.kill(-p.pid!, "SIGTERM");
    await exited;
  }
});

/** Starts `args` in the repository and collects its output until `what` appears in it. */
async function startUntil(args: string[], what: RegExp): Promise<RegExpMatchArray> {
  const proc = start(args, "pipe");
  let out = "";
  proc.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return waitFor(`${args.join(" ")} to print ${what}`, () => out.match(what) ?? undefined, {
    timeoutMs: 120_000,
    intervalMs: 100,
  });
}

test("npm run kafka prints a command that works at that point, and it serves the registry", async () => {
  builtBinary();
  expect(existsSync(join(root, "dist/sluice"))).toBe(true);
  const [, command] = await startUntil(["npm", "run", "kafka"], /Try: (\S.*?)\s*(\(|\n)/);
  expect(command).toStartWith("dist/sluice registry --bootstrap-servers ");
  // Run as printed (on a free port rather than 8081); and the form printed before a build.
  const bootstrap = command!.split(" ").at(-1)!;
  for (const [label, args] of [
    ["printed", command!.split(" ")],
    ["before a build", ["npm", "run", "registry", "--", "--bootstrap-servers", bootstrap]],
  ] as const) {
    const port = freePort();
    start([...args, "--listeners", `http://127.0.0.1:${port}`], "ignore");
    const subjects = await waitFor(
      `the registry started ${label}`,
      async () => (await fetch(`http://127.0.0.1:${port}/subjects`).catch(() => undefined))?.json(),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(subjects, label).toEqual([]);
  }
}, 240_000);
