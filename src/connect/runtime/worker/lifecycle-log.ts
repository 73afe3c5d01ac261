// The lifecycle lines a person reads at INFO: each change of a connector's or task's state, said once,
// and a failure with its reason. Every status a worker reports passes through here.
import { logger } from "../../../platform/log.ts";
import type { State, Status } from "../status.ts";

const log = logger("worker");

/** What a change of state means to a reader, or undefined when it is no news (the same state again). */
export function lifecycleEvent(previous: State | undefined, next: State): string | undefined {
  if (previous === next) return undefined;
  switch (next) {
    case "RUNNING":
      return previous === "PAUSED" ? "resumed" : "started";
    case "PAUSED":
      return previous === "RUNNING" ? "paused" : "started paused";
    case "FAILED":
      return "failed";
    case "RESTARTING":
      return "restarting";
    // A task's loop ending, or a stop: the herder's stop is what the log says (see logStopped).
    case "UNASSIGNED":
    case "STOPPED":
      return undefined;
  }
}

/** The first line of a trace: the exception and its message. */
export function traceReason(trace: string | undefined): string | undefined {
  return trace?.split("\n", 1)[0]?.trim() || undefined;
}

const subject = (connector: string, task?: number) =>
  task === undefined ? `connector ${connector}` : `task ${connector}-${task}`;
const fields = (connector: string, task?: number) => (task === undefined ? { connector } : { connector, task });

/** Logs a reported status when it changes what the connector or task is doing. */
export function logStatusChange(
  connector: string,
  task: number | undefined,
  previous: State | undefined,
  status: Status,
): void {
  const event = lifecycleEvent(previous, status.state);
  if (!event) return;
  if (status.state === "FAILED") {
    const reason = traceReason(status.trace);
    log.error(
      { ...fields(connector, task), reason },
      `${subject(connector, task)} failed${reason ? `: ${reason}` : ""}`,
    );
  } else log.info(fields(connector, task), `${subject(connector, task)} ${event}`);
}

export function logStopped(connector: string, task?: number): void {
  log.info(fields(connector, task), `${subject(connector, task)} stopped`);
}
