// Debezium's signals: requests to a running connector (execute-snapshot, stop-snapshot, pause-snapshot,
// resume-snapshot, log), whichever channel brought them (signal.enabled.channels).

export type SignalChannelName = "source" | "kafka" | "file";

/** One signal as every channel hands it on: its id, its type and its data (the JSON text parsed; null when absent). */
export interface Signal {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown> | null;
  readonly channel: SignalChannelName;
  /** The kafka channel's: the record's offset on the signal topic (Debezium's channelOffset, for KafkaSignalChannel.seek). */
  readonly channelOffset?: number;
}

/** A channel the task reads signals from between batches (the source channel instead sees them in the WAL). */
export interface SignalChannel {
  readonly name: SignalChannelName;
  /** The signals that arrived since the last call; [] when none (never waits). */
  read(): Promise<Signal[]>;
  close(): Promise<void>;
}

/**
 * A signal from the JSON object a channel received (`{"id", "type", "data"}`); a string saying what is
 * wrong when it is not one. `data` may be an object or, as the signalling table holds it, JSON text.
 */
export function signalOf(json: unknown, channel: SignalChannelName): Signal | string {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return "a signal must be a JSON object";
  const { id, type, data } = json as Record<string, unknown>;
  if (typeof id !== "string" && typeof id !== "number") return "a signal needs an id";
  if (typeof type !== "string" || type === "") return "a signal needs a type";
  const parsed = typeof data === "string" && data.trim() !== "" ? parseObject(data) : (data ?? null);
  if (parsed !== null && (typeof parsed !== "object" || Array.isArray(parsed)))
    return "a signal's data must be a JSON object";
  return { id: String(id), type, data: parsed as Record<string, unknown> | null, channel };
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not an object: refused by the caller
  }
}
