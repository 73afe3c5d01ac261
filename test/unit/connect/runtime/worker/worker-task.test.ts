// The lifecycle every task shares (WorkerTask): its statuses through start, pause, resume and stop, and
// a failure anywhere becoming FAILED with a trace, on a task whose rounds the test scripts.
import { describe, expect, test } from "bun:test";
import { traceOf, WorkerTask } from "#src/connect/runtime/worker/worker-task.ts";
import { StatusLog } from "./status-log.ts";

/** A task whose steps record themselves; a step given an error throws it. */
class ScriptedTask extends WorkerTask {
  readonly calls: string[] = [];
  rounds = 0;
  failIn: Partial<Record<"initialize" | "iterate" | "shutdown", Error>> = {};
  /** Set to hold the current round until released. */
  hold?: Promise<void>;
  /** Called at the end of each round (e.g. to pause or stop the task from inside it). */
  afterRound?: (round: number) => void;

  protected async initialize(): Promise<void> {
    this.calls.push("initialize");
    if (this.failIn.initialize) throw this.failIn.initialize;
  }

  protected async iterate(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.hold;
    if (this.failIn.iterate) throw this.failIn.iterate;
    this.rounds++;
    this.afterRound?.(this.rounds);
  }

  protected async onPause(): Promise<void> {
    this.calls.push("onPause");
  }

  protected async shutdown(failed: boolean): Promise<void> {
    this.calls.push(`shutdown(${failed})`);
    if (this.failIn.shutdown) throw this.failIn.shutdown;
  }
}

function scripted(startPaused = false) {
  const log = new StatusLog();
  const task = new ScriptedTask("c-0", "worker-1", startPaused, log.listener);
  return { task, log };
}

describe("WorkerTask lifecycle", () => {
  test("runs rounds until stopped, then shuts down cleanly and reports UNASSIGNED", async () => {
    const { task, log } = scripted();
    expect(task.status).toEqual({ state: "UNASSIGNED", workerId: "worker-1" });
    task.afterRound = (round) => void (round === 3 && task.stop(5000));
    task.start();
    await log.reached("UNASSIGNED");
    expect(log.states).toEqual(["RUNNING", "UNASSIGNED"]);
    expect(task.rounds).toBe(3);
    expect(task.calls).toEqual(["initialize", "shutdown(false)"]);
    expect(log.statuses.every((s) => s.workerId === "worker-1" && s.trace === undefined)).toBe(true);
  });

  test("started paused: commits (onPause), reports PAUSED and runs no round until resumed", async () => {
    const { task, log } = scripted(true);
    task.start();
    await log.reached("PAUSED");
    expect(task.calls).toEqual(["initialize", "onPause"]);
    expect(task.rounds).toBe(0);
    task.afterRound = () => void task.stop(5000);
    task.resume();
    await log.reached("UNASSIGNED");
    // PAUSED once: a task started paused reported it twice (after its start, and again from the pause).
    expect(log.states).toEqual(["PAUSED", "RUNNING", "UNASSIGNED"]);
    expect(task.rounds).toBe(1);
  });

  test("a pause takes effect after the current round; a stop while paused ends it without running again", async () => {
    const { task, log } = scripted();
    task.afterRound = (round) => void (round === 2 && task.pause());
    task.start();
    await log.reached("PAUSED");
    expect(task.rounds).toBe(2);
    await task.stop(5000);
    expect(log.states).toEqual(["RUNNING", "PAUSED", "UNASSIGNED"]);
    expect(task.calls).toEqual(["initialize", "onPause", "shutdown(false)"]);
    expect(task.rounds).toBe(2);
  });

  test("a failing start is FAILED with its trace; shutdown still runs, told it failed", async () => {
    const { task, log } = scripted();
    task.failIn.initialize = new Error("cannot connect to the database");
    task.start();
    const failed = await log.reached("FAILED");
    expect(failed.trace).toStartWith("Error: cannot connect to the database");
    await task.stop(5000);
    expect(log.states).toEqual(["FAILED"]);
    expect(task.calls).toEqual(["initialize", "shutdown(true)"]);
  });

  test("a failing round is FAILED with the whole cause chain in its trace, and is never reported UNASSIGNED", async () => {
    const { task, log } = scripted();
    task.failIn.iterate = new Error("Tolerance exceeded in error handler", { cause: new TypeError("bad bytes") });
    task.start();
    const failed = await log.reached("FAILED");
    expect(failed.trace).toContain("Error: Tolerance exceeded in error handler");
    expect(failed.trace).toContain("Caused by: TypeError: bad bytes");
    await task.stop(5000);
    expect(log.states).toEqual(["RUNNING", "FAILED"]);
    expect(task.calls).toEqual(["initialize", "shutdown(true)"]);
  });

  test("a task failing while it stops is FAILED, not UNASSIGNED", async () => {
    const { task, log } = scripted();
    task.failIn.shutdown = new Error("flush failed");
    task.afterRound = () => void task.stop(5000);
    task.start();
    const failed = await log.reached("FAILED");
    expect(failed.trace).toStartWith("Error: flush failed");
    expect(log.states).toEqual(["RUNNING", "FAILED"]);
  });

  test("stop gives up waiting after its timeout; the abandoned round still ends the task later", async () => {
    const { task, log } = scripted();
    let release!: () => void;
    task.hold = new Promise<void>((resolve) => (release = resolve));
    task.start();
    await log.reached("RUNNING");
    await task.stop(10);
    expect(log.states).toEqual(["RUNNING"]);
    release();
    await log.reached("UNASSIGNED");
    expect(task.calls).toEqual(["initialize", "shutdown(false)"]);
  });
});

describe("traceOf", () => {
  test("the stack of each error in the cause chain, then a thrown non-error as text", () => {
    const error = new Error("outer", { cause: new RangeError("inner", { cause: "a string" }) });
    const lines = traceOf(error).split("\n");
    expect(lines[0]).toBe("Error: outer");
    expect(lines.filter((l) => l.startsWith("Caused by: "))).toEqual(["Caused by: RangeError: inner"]);
    expect(traceOf("just text")).toBe("just text");
    expect(traceOf(undefined)).toBe("undefined");
  });
});
