// Debezium's signals: requests to a running connector (execute-snapshot, stop-snapshot, pause-snapshot,
// resume-snapshot, log), whichever channel brought them (signal.enabled.channels).

export type SignalChannelName = "source" | "kafka" | "file";

/** One signal as every channel hands it on: its id, its type and its data (the JSON text parsed; null when absent). */
export interface Signal {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown> | null;
  readonly channel: SignalChannelName;
}

/** A channel the task reads signals from between batches (the source channel instead sees them in the WAL). */
export interface SignalChannel {
  readonly name: SignalChannelName;
  /** The signals that arrived since the last call; [] when none (never waits). */
  read(): Promise<Signal[]>;
  close(): Promise<void>;
}
