// A connector's or task's status, one shape for the whole runtime: tasks report it, herders keep and
// show it, stores hold it. The status topic's `worker_id` form exists only where records are encoded.

export type State = "UNASSIGNED" | "RUNNING" | "PAUSED" | "STOPPED" | "FAILED" | "RESTARTING";

export interface Status {
  state: State;
  trace?: string;
  workerId: string;
}

export type StatusListener = (status: Status) => void;
