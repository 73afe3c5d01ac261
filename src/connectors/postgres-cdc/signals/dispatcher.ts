// Reads the enabled signal channels between batches (at most every signal.poll.interval.ms) and hands
// each signal to the handler the task registered for its type, as Debezium's SignalProcessor does: an
// unknown type and a failing handler are warnings, never the task's failure.
import type { Logger } from "../../../platform/log.ts";
import type { Signal, SignalChannel } from "./signal.ts";

export type SignalHandler = (signal: Signal) => void | Promise<void>;

export class SignalDispatcher {
  private readonly handlers = new Map<string, SignalHandler>();
  /** When the channels are read next; 0: at the first poll, as Debezium's schedule starts at once. */
  private nextRead = 0;

  constructor(
    private readonly channels: readonly SignalChannel[],
    private readonly pollIntervalMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers the handler of one signal type (a later one replaces it). */
  on(type: string, handler: SignalHandler): this {
    this.handlers.set(type, handler);
    return this;
  }

  /** Reads every channel when signal.poll.interval.ms has passed since the last read, and dispatches what came. */
  async poll(): Promise<void> {
    if (this.channels.length === 0 || this.now() < this.nextRead) return;
    this.nextRead = this.now() + this.pollIntervalMs;
    for (const channel of this.channels) {
      let signals: Signal[];
      try {
        signals = await channel.read();
      } catch (err) {
        this.log.warn(
          { channel: channel.name, err: messageOf(err) },
          `could not read the ${channel.name} signal channel`,
        );
        continue;
      }
      for (const signal of signals) await this.dispatch(signal);
    }
  }

  /** Hands one signal to its handler (the source channel calls this for signals it sees in the WAL). */
  async dispatch(signal: Signal): Promise<void> {
    this.log.debug({ id: signal.id, type: signal.type, data: signal.data }, "received a signal");
    const handler = this.handlers.get(signal.type);
    if (!handler) {
      this.log.warn(`Signal '${signal.id}' has been received but the type '${signal.type}' is not recognized`);
      return;
    }
    try {
      await handler(signal);
    } catch (err) {
      this.log.warn(
        { err: messageOf(err) },
        `Action ${signal.type} failed. The signal ${describe(signal)} may not have been processed.`,
      );
    }
  }

  async close(): Promise<void> {
    for (const channel of this.channels)
      await channel
        .close()
        .catch((err: unknown) =>
          this.log.warn({ channel: channel.name, err: messageOf(err) }, "could not close a signal channel"),
        );
  }
}

/**
 * Debezium's `log` signal: its `message` at INFO in the connector's log, the first `{}` in it replaced by
 * the connector's current offset (`<none>` when there is none yet).
 */
export function logSignalHandler(log: Logger, offset: () => Record<string, unknown> | null): SignalHandler {
  return (signal) => {
    const message = signal.data?.message;
    if (typeof message !== "string" || message === "") {
      log.warn(
        `Logging signal '${describe(signal)}' has arrived but the requested field 'message' is missing from data`,
      );
      return;
    }
    const current = offset();
    log.info(message.replace("{}", () => (current === null ? "<none>" : javaMap(current))));
  };
}

export type SnapshotType = "incremental" | "blocking";

export interface AdditionalCondition {
  /** The table it applies to (`schema.table`), as the signal names it. */
  readonly dataCollection: string;
  /** Incremental: a WHERE condition; blocking: the whole SELECT the table is read with. */
  readonly filter: string;
}

export interface SnapshotRequest {
  readonly type: SnapshotType;
  /** Regular expressions matching `schema.table` of the tables to snapshot. */
  readonly dataCollections: readonly string[];
  readonly additionalConditions: readonly AdditionalCondition[];
  /** The column chunks are keyed on instead of the primary key (incremental); "" for the primary key. */
  readonly surrogateKey: string;
  readonly signal: Signal;
}

/**
 * Debezium's `execute-snapshot`: checks the data as Debezium does (each problem is its warning and
 * the signal is skipped), then hands the request to the handler of its type (default incremental).
 */
export function executeSnapshotHandler(
  log: Logger,
  handlers: Record<SnapshotType, (request: SnapshotRequest) => void | Promise<void>>,
): SignalHandler {
  return async (signal) => {
    const request = snapshotRequestOf(signal, log);
    if (request === null) return;
    const conditions = request.additionalConditions.map(
      (c) => `AdditionalCondition{dataCollection=${c.dataCollection}, filter='${c.filter}'}`,
    );
    log.info(
      `Requested '${request.type.toUpperCase()}' snapshot of data collections '[${request.dataCollections.join(", ")}]' with additional conditions '[${conditions.join(", ")}]' and surrogate key '${request.surrogateKey || "PK of table will be used"}'`,
    );
    await handlers[request.type](request);
  };
}

/** The request an execute-snapshot signal makes; null (after Debezium's warning) when it cannot be acted on. */
export function snapshotRequestOf(signal: Signal, log: Logger): SnapshotRequest | null {
  const data = signal.data ?? {};
  const collections = data["data-collections"];
  if (!Array.isArray(collections) || collections.length === 0) {
    log.warn(
      `Execute snapshot signal '${JSON.stringify(data)}' has arrived but the requested field 'data-collections' is missing from data or is empty`,
    );
    return null;
  }
  if (collections.some((c) => typeof c !== "string")) {
    log.warn(
      `Execute snapshot signal '${JSON.stringify(data)}' has arrived but the requested field 'data-collections' contains a non-string data collection`,
    );
    return null;
  }
  const typeName = typeof data.type === "string" ? data.type : "incremental";
  const type = typeName.toLowerCase();
  if (type !== "incremental" && type !== "blocking") {
    log.warn(`Detected an unexpected snapshot type '${typeName}'. Signal will be skipped.`);
    return null;
  }
  const additionalConditions: AdditionalCondition[] = [];
  const given = data["additional-conditions"];
  for (const entry of Array.isArray(given) ? given : []) {
    const condition = entry as Record<string, unknown> | null;
    if (typeof condition?.["data-collection"] !== "string" || typeof condition.filter !== "string") {
      log.warn(
        `Execute snapshot signal '${JSON.stringify(data)}' has arrived but an additional condition lacks its 'data-collection' or 'filter'`,
      );
      return null;
    }
    additionalConditions.push({ dataCollection: condition["data-collection"], filter: condition.filter });
  }
  const surrogateKey = typeof data["surrogate-key"] === "string" ? data["surrogate-key"].trim() : "";
  return {
    type,
    dataCollections: (collections as string[]).map((c) => c.trim()),
    additionalConditions,
    surrogateKey,
    signal,
  };
}

/** As Java prints a map: `{key=value, key=value}`. */
function javaMap(map: Record<string, unknown>): string {
  return `{${Object.entries(map)
    .map(([k, v]) => `${k}=${v === null || typeof v !== "object" ? String(v) : JSON.stringify(v)}`)
    .join(", ")}}`;
}

/** As Debezium prints a signal in its warnings. */
function describe(signal: Signal): string {
  return `SignalRecord{id='${signal.id}', type='${signal.type}', data='${signal.data === null ? "" : JSON.stringify(signal.data)}'}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
