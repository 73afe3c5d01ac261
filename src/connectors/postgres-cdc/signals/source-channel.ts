// The `source` signal channel: rows inserted into the signalling table (signal.data.collection), seen in
// the WAL like any change. As Debezium's, only inserts are signals, the table's first three columns are
// id, type and data whatever their names, and the table's changes still reach its topic as records.
import { logger } from "../../../platform/log.ts";
import type { Row } from "../envelope.ts";
import type { Signal, SignalChannel } from "./signal.ts";

const log = logger("postgres-cdc");

/**
 * The signal a row of the signalling table holds (its values in the order of `columns`); null (with a
 * warning) for one that holds none.
 */
export function signalOfRow(columns: readonly string[], row: Row): Signal | null {
  if (columns.length !== 3) {
    log.warn({ columns }, "the signalling table must have 3 columns (id, type, data); row ignored");
    return null;
  }
  const [id, type, data] = row;
  if (typeof id !== "string" || typeof type !== "string") {
    log.warn({ id, type }, "a signal needs a text id and type; row ignored");
    return null;
  }
  let parsed: Record<string, unknown> | null = null;
  if (typeof data === "string" && data.trim() !== "") {
    try {
      const value: unknown = JSON.parse(data);
      if (value !== null && typeof value === "object" && !Array.isArray(value))
        parsed = value as Record<string, unknown>;
    } catch {
      log.warn({ id, type, data }, "the signal's data is not JSON; signal ignored");
      return null;
    }
  }
  return { id, type, data: parsed, channel: "source" };
}

/**
 * Signals found in the stream wait here for the task, which acts on each before handing on the
 * signalling table's record that brought it (so the offsets saved with it already hold its effect).
 */
export class SourceSignalChannel implements SignalChannel {
  readonly name = "source" as const;
  private readonly queue: Signal[] = [];

  push(signal: Signal): void {
    this.queue.push(signal);
  }

  async read(): Promise<Signal[]> {
    return this.queue.splice(0);
  }

  async close(): Promise<void> {
    this.queue.length = 0;
  }
}
