// The messages between the worker (main thread) and its task threads. Only control, statuses, metrics
// and offsets cross, plus, on the embedded broker (one process's files, served by the main thread), the
// broker calls. Errors cross as their name, message and stack, and come back as the same classes.
import { BrokerError, GroupError, ProducerFencedError } from "../../../broker/broker.ts";
import type { BrokerChoice } from "../../../broker/index.ts";
import type { LogFormat, LogLevel } from "../../../platform/log.ts";
import type { SettingsSnapshot } from "../../../platform/settings.ts";
import type { TaskSpec } from "../worker/task-factory.ts";
import type { Status } from "../status.ts";

export interface ThreadInit {
  workerId: string;
  settings: SettingsSnapshot;
  log: { level: LogLevel; format: LogFormat };
  /** Kafka: the thread connects its own client; embedded: it calls the main thread's broker. */
  broker: { kind: "kafka"; choice: BrokerChoice } | { kind: "embedded" };
}

/** Calls a task thread makes to the main thread, answered by a `reply`. */
export type CallTarget = "broker" | "offsets";

export type ToThread =
  | { type: "init"; init: ThreadInit }
  | { type: "start"; task: string; spec: TaskSpec; offsets: OffsetSnapshot }
  | { type: "pause" | "resume"; task: string }
  | { type: "stop"; task: string; timeoutMs: number }
  | { type: "gauge"; id: number; key: string }
  | Reply;

export type FromThread =
  | { type: "status"; task: string; status: Status }
  | { type: "topic"; task: string; topic: string }
  | { type: "metric"; task: string; metric: MetricName; value: number }
  | { type: "plugin-gauge"; task: string; name: string; help: string; labels: Record<string, string>; key: string }
  | { type: "stopped"; task: string }
  | { type: "call"; id: number; target: CallTarget; method: string; args: unknown[] }
  | Reply;

export type Reply = { type: "reply"; id: number; value?: unknown; error?: CrossedError };

/** The TaskMetrics calls, by name; recordError's value is 1 when tolerated. */
export type MetricName =
  | "polled"
  | "written"
  | "read"
  | "put"
  | "recordError"
  | "commitSeconds"
  | "lag"
  | "transaction";

/** A source connector's offsets as the task starts: its reader answers from these (and what it commits). */
export type OffsetSnapshot = { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];

export interface CrossedError {
  name: string;
  message: string;
  stack?: string;
  retriable?: boolean;
  kind?: "rejoin" | "reset";
  transactionalId?: string;
}

export function crossError(err: unknown): CrossedError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err) };
  const crossed: CrossedError = { name: err.name, message: err.message, stack: err.stack };
  if (err instanceof BrokerError) crossed.retriable = err.retriable;
  if (err instanceof GroupError) crossed.kind = err.kind;
  if (err instanceof ProducerFencedError) crossed.transactionalId = err.transactionalId;
  return crossed;
}

export function uncrossError(crossed: CrossedError): Error {
  const err =
    crossed.name === "BrokerError"
      ? new BrokerError(crossed.message, crossed.retriable ?? false)
      : crossed.name === "ProducerFencedError"
        ? new ProducerFencedError(crossed.transactionalId ?? "", crossed.message)
        : crossed.name === "GroupError"
          ? new GroupError(crossed.message, crossed.kind ?? "rejoin")
          : new Error(crossed.message);
  if (crossed.stack) err.stack = crossed.stack;
  return err;
}

/** Calls awaiting their reply on one side of a thread boundary. */
export class PendingCalls {
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private nextId = 0;

  /** Sends a call through `send` with a fresh id; resolves with its reply. */
  call(send: (id: number) => void): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      send(id);
    });
  }

  settle(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.error) pending.reject(uncrossError(reply.error));
    else pending.resolve(reply.value);
  }

  failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

/** Answers a call with what `work` returns or throws. */
export async function answer(id: number, work: () => unknown, post: (reply: Reply) => void): Promise<void> {
  try {
    post({ type: "reply", id, value: await work() });
  } catch (err) {
    post({ type: "reply", id, error: crossError(err) });
  }
}
