// KIP-745's restart request: which of a connector and its tasks a request restarts, and the plan the
// REST answer shows. One rule for the herder answering and the workers carrying it out.

export interface RestartRequest {
  includeTasks: boolean;
  onlyFailed: boolean;
}

/** Whether the request restarts a connector (or, `task`, one of its tasks) now in `state`. */
export function restarts(request: RestartRequest, what: "connector" | "task", state: string | undefined): boolean {
  if (what === "task" && !request.includeTasks) return false;
  return !request.onlyFailed || state === "FAILED";
}

/** The answer's plan: what the request restarts shows RESTARTING, keeping its last trace. */
export function restartPlan<S extends { state: string }, T extends { state: string }>(
  current: { connector: S; tasks: T[] },
  request: RestartRequest,
): { connector: S; tasks: T[] } {
  const planned = <V extends { state: string }>(status: V, what: "connector" | "task"): V =>
    restarts(request, what, status.state) ? { ...status, state: "RESTARTING" } : status;
  return { connector: planned(current.connector, "connector"), tasks: current.tasks.map((t) => planned(t, "task")) };
}
