// What every running task shares: its status, the pause/resume/stop lifecycle and the loop that
// drives it. A failure moves the task to FAILED with its trace; it never reaches the worker.
import { logger, type Logger } from "../../../platform/log.ts";
import type { State, Status, StatusListener } from "../status.ts";

export abstract class WorkerTask {
  status: Status;
  protected readonly log: Logger;
  protected stopping = false;
  private paused: boolean;
  private resumed?: () => void;
  private loop?: Promise<void>;
  /** Failed from outside its loop (see fail). */
  private failedOutside = false;

  constructor(
    readonly id: string,
    workerId: string,
    startPaused: boolean,
    private readonly onStatus: StatusListener,
  ) {
    this.status = { state: "UNASSIGNED", workerId };
    this.paused = startPaused;
    this.log = logger(`task ${id}`);
  }

  /** Starts the task in the background; its status tells how it goes. */
  start(): void {
    this.loop = this.run();
  }

  /** Pauses after the current round; what that round fetched but did not deliver is fetched again on resume. */
  pause(): void {
    this.paused = true;
  }

  protected get isPaused(): boolean {
    return this.paused;
  }

  resume(): void {
    this.paused = false;
    this.resumed?.();
  }

  /** Stops the task, waiting up to `timeoutMs` for it to finish its current work and commit. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.resumed?.();
    const finished = await Promise.race([this.loop?.then(() => true), Bun.sleep(timeoutMs).then(() => false)]);
    if (!finished) this.log.warn({ timeoutMs }, "task did not stop in time; abandoning it");
  }

  /**
   * Fails the task from outside its loop: its code threw where none of its awaits catches it (a timer,
   * a callback). FAILED at once, since the loop may be waiting for what the failed code was to do.
   */
  fail(error: unknown): void {
    if (this.failedOutside || this.status.state === "FAILED") return;
    this.failedOutside = true;
    this.stopping = true;
    this.setStatus("FAILED", traceOf(error));
    this.resumed?.();
  }

  /** Set up (start the connector's task, open resources). */
  protected abstract initialize(): Promise<void>;
  /** One round of work (poll and send, or fetch and put). */
  protected abstract iterate(): Promise<void>;
  /** Called when paused, before waiting: commit what is done. */
  protected abstract onPause(): Promise<void>;
  /** Last commit and the connector task's stop(), also after a failure. */
  protected abstract shutdown(failed: boolean): Promise<void>;

  private async run(): Promise<void> {
    let failed = false;
    try {
      await this.initialize();
      // A task started paused says so once, from the loop's pause (as Kafka's: onPause, then PAUSED).
      if (!this.paused) this.setStatus("RUNNING");
      while (!this.stopping) {
        if (this.paused) {
          await this.onPause();
          this.setStatus("PAUSED");
          if (this.paused && !this.stopping) await new Promise<void>((resolve) => (this.resumed = resolve));
          this.resumed = undefined;
          if (!this.stopping) this.setStatus("RUNNING");
          continue;
        }
        await this.iterate();
      }
    } catch (err) {
      failed = true;
      if (!this.failedOutside) this.setStatus("FAILED", traceOf(err));
    }
    failed ||= this.failedOutside;
    try {
      await this.shutdown(failed);
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, "task failed while stopping");
      if (!failed) this.setStatus("FAILED", traceOf(err));
      failed = true;
    }
    if (!failed) this.setStatus("UNASSIGNED");
  }

  protected setStatus(state: State, trace?: string): void {
    this.status = { state, workerId: this.status.workerId, ...(trace ? { trace } : {}) };
    this.onStatus(this.status);
  }
}

/** A stack-trace-like text for a task's or connector's status (Kafka shows the Java trace). */
export function traceOf(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  let first = true;
  while (current instanceof Error) {
    const stack = current.stack ?? `${current.name}: ${current.message}`;
    lines.push(first ? stack : `Caused by: ${stack}`);
    first = false;
    current = current.cause;
  }
  if (lines.length === 0) lines.push(String(error));
  return lines.join("\n");
}
