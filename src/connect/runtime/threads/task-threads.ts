// The worker's task threads (main-thread side). Each task runs on one of up to `task.threads` threads
// (the least busy; a thread starts when needed or ahead of a starting connector's tasks, and ends when
// its last task stops). Only control, statuses, metrics and offsets cross; on the embedded broker,
// broker calls too (remote-broker.ts).
// A thread that exits, or does not let its task stop in time, fails the tasks it still held.
import type { Broker } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import type { ConnectMetrics, TaskMetrics } from "../metrics.ts";
import type { OffsetEntry, OffsetStore } from "../storage/offset-store.ts";
import type { TaskSpec } from "../worker/task-factory.ts";
import type { Status, StatusListener } from "../status.ts";
import {
  answer,
  PendingCalls,
  type FromThread,
  type OffsetSnapshot,
  type ThreadInit,
  type ToThread,
} from "./protocol.ts";
import { BrokerCalls } from "./remote-broker.ts";

const log = logger("task threads");
/** How long past its graceful timeout a stopping task's thread is given to answer before it is ended. */
const STOP_GRACE_MS = 2000;
/** How long a thread started ahead of tasks (prepare()) waits for its first one before it ends. */
const PREPARED_IDLE_MS = 60_000;

/** A task as the worker drives it, wherever it runs. */
export interface RunningTask {
  pause(): void;
  resume(): void;
  stop(timeoutMs: number): Promise<void>;
}

export interface TaskThreadsOptions {
  /** The thread's entry module (src/task-thread.ts: it knows the built-in plugins). */
  entry: string;
  max: number;
  init: ThreadInit;
  broker: Broker;
  offsets: OffsetStore;
  metrics: ConnectMetrics;
  /** How long a prepared thread waits for a task (default one minute). */
  preparedIdleMs?: number;
}

export interface TaskCallbacks {
  onStatus: StatusListener;
  onTopic: (topic: string) => void;
}

export class TaskThreads {
  private readonly threads = new Set<TaskThread>();

  constructor(private readonly options: TaskThreadsOptions) {}

  /** Threads running (or waiting for tasks). */
  get size(): number {
    return this.threads.size;
  }

  start(spec: TaskSpec, offsets: OffsetSnapshot, callbacks: TaskCallbacks): RunningTask {
    let thread = [...this.threads].sort((a, b) => a.size - b.size)[0];
    if (!thread || (thread.size > 0 && this.threads.size < this.options.max)) thread = this.newThread();
    return thread.start(spec, offsets, callbacks);
  }

  /**
   * Starts a thread ahead of tasks expected soon (a connector starting here), when there is none: a
   * thread takes 0.1 s to be ready on an idle machine (its bundle evaluated, its client connected), and
   * several times that on a busy one, which the first task would otherwise wait. Unused, it ends after a
   * while.
   */
  prepare(): void {
    if (this.threads.size > 0) return;
    this.newThread().endUnlessStartedWithin(this.options.preparedIdleMs ?? PREPARED_IDLE_MS);
  }

  private newThread(): TaskThread {
    const thread: TaskThread = new TaskThread(this.options, () => this.threads.delete(thread));
    this.threads.add(thread);
    return thread;
  }

  /** Ends every thread (after the worker stopped their tasks). */
  close(): void {
    for (const thread of this.threads) thread.end("the worker stopped");
  }
}

interface Hosted {
  callbacks: TaskCallbacks;
  metrics: TaskMetrics;
  spec: TaskSpec;
  status?: Status;
  stopped?: () => void;
}

class TaskThread {
  private readonly worker: Worker;
  private readonly tasks = new Map<string, Hosted>();
  private readonly pending = new PendingCalls();
  private readonly brokerCalls: BrokerCalls;
  private ended = false;
  private idle?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly options: TaskThreadsOptions,
    private readonly onEnd: () => void,
  ) {
    this.brokerCalls = new BrokerCalls(options.broker);
    // The environment as it is now (a Bun thread otherwise gets the process's environment at its start):
    // tasks read KAFKA_OPTS and the env: config provider as the worker's own thread does.
    this.worker = new Worker(options.entry, { env: process.env as Record<string, string> });
    this.worker.onmessage = (event: MessageEvent<FromThread>) => this.receive(event.data);
    this.worker.onerror = (event) => log.error({ err: event.message }, "task thread error");
    this.worker.addEventListener("close", () => this.end("the task thread exited"));
    this.post({ type: "init", init: options.init });
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Ends the thread unless a task started on it within `ms`. */
  endUnlessStartedWithin(ms: number): void {
    this.idle = setTimeout(() => {
      if (this.tasks.size === 0) this.end("");
    }, ms);
    this.idle.unref(); // (a process about to exit does not wait for it)
  }

  start(spec: TaskSpec, offsets: OffsetSnapshot, callbacks: TaskCallbacks): RunningTask {
    clearTimeout(this.idle);
    const id = `${spec.connector}-${spec.index}`;
    this.tasks.set(id, { callbacks, spec, metrics: this.options.metrics.task(spec.connector, spec.index) });
    this.post({ type: "start", task: id, spec, offsets });
    return {
      pause: () => this.post({ type: "pause", task: id }),
      resume: () => this.post({ type: "resume", task: id }),
      stop: (timeoutMs) => this.stop(id, timeoutMs),
    };
  }

  private async stop(id: string, timeoutMs: number): Promise<void> {
    const task = this.tasks.get(id);
    if (!task) return;
    const stopped = new Promise<boolean>((resolve) => (task.stopped = () => resolve(true)));
    this.post({ type: "stop", task: id, timeoutMs });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answered = await Promise.race([
      stopped,
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs + STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    this.tasks.delete(id);
    if (!answered) {
      // Its code holds the thread (a loop that never yields): only ending the thread stops it.
      log.warn({ task: id, timeoutMs }, "task did not stop in time and holds its thread; ending the thread");
      this.end(`task ${id} did not stop within ${timeoutMs} ms and its thread was ended`);
    } else if (this.tasks.size === 0) this.end("");
  }

  /** Ends the thread; tasks still on it are FAILED with `reason` (none when it ends idle). */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idle);
    this.worker.terminate();
    this.pending.failAll(new Error(reason || "task thread ended"));
    void this.brokerCalls.close();
    for (const [id, task] of this.tasks) {
      task.stopped?.();
      if (task.status?.state === "FAILED" || task.status?.state === "UNASSIGNED") continue;
      task.callbacks.onStatus({
        state: "FAILED",
        workerId: this.options.init.workerId,
        trace: `org.apache.kafka.connect.errors.ConnectException: ${reason}\n\ttask ${id}`,
      });
    }
    this.tasks.clear();
    this.onEnd();
  }

  private post(message: ToThread): void {
    if (!this.ended) this.worker.postMessage(message);
  }

  private receive(message: FromThread): void {
    if (message.type === "reply") return this.pending.settle(message);
    if (message.type === "call") {
      const { offsets } = this.options;
      void answer(
        message.id,
        () =>
          message.target === "broker"
            ? this.brokerCalls.serve(message.method, message.args)
            : message.method === "stored"
              ? offsets.stored?.(message.args[0] as string, message.args[1] as OffsetEntry[])
              : offsets.set(message.args[0] as string, message.args[1] as OffsetEntry[]),
        (reply) => this.post(reply),
      );
      return;
    }
    const task = this.tasks.get(message.task);
    if (!task) return;
    switch (message.type) {
      case "status":
        task.status = message.status;
        task.callbacks.onStatus(message.status);
        return;
      case "topic":
        task.callbacks.onTopic(message.topic);
        return;
      case "stopped":
        task.stopped?.();
        return;
      case "metric":
        applyMetric(task.metrics, message.metric, message.value);
        return;
      case "plugin-gauge": {
        const { key } = message;
        const read = () =>
          (this.pending.call((id) => this.post({ type: "gauge", id, key })) as Promise<number>).catch(() => Number.NaN);
        this.options.metrics
          .plugin(task.spec.connector, task.spec.index)
          .gauge(message.name, message.help, message.labels, read);
        return;
      }
    }
  }
}

function applyMetric(
  metrics: TaskMetrics,
  metric: Extract<FromThread, { type: "metric" }>["metric"],
  value: number,
): void {
  if (metric === "recordError") metrics.recordError(value === 1);
  else if (metric === "commitSeconds") metrics.committed(value);
  else metrics[metric](value);
}
