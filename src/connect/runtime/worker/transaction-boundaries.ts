// Where an exactly-once source task's transactions end (KIP-618's transaction.boundary): after every
// poll, every interval, or where the connector asks through its TransactionContext. Pure: tested directly.
import { ConnectException, type TransactionContext } from "../../api/connector.ts";
import type { SourceRecord } from "../../api/records.ts";

export type TransactionBoundary = "poll" | "interval" | "connector";

export type TransactionEnd = "commit" | "abort";

/** One piece of a poll's records and how the transaction ends after it (undefined: it stays open). */
export interface PollSegment {
  records: SourceRecord[];
  end?: TransactionEnd;
}

/** The connector's requests, as Kafka's WorkerTransactionContext keeps them until the records are sent. */
export class ConnectorTransactionRequests implements TransactionContext {
  private readonly commits = new Set<SourceRecord>();
  private readonly aborts = new Set<SourceRecord>();
  private batch?: TransactionEnd;

  commitTransaction(record?: SourceRecord): void {
    if (record) this.commits.add(record);
    else this.batch = this.batch ?? "commit";
  }

  abortTransaction(record?: SourceRecord): void {
    if (record) this.aborts.add(record);
    else this.batch = "abort";
  }

  /** The poll's records cut where the connector asked a transaction to end; the requests are used up. */
  segments(records: SourceRecord[]): PollSegment[] {
    const out: PollSegment[] = [];
    let current: SourceRecord[] = [];
    for (const record of records) {
      current.push(record);
      const commit = this.commits.delete(record);
      const abort = this.aborts.delete(record);
      if (commit && abort)
        throw new ConnectException(
          "Connector requested both commit and abort of the same record; a record's transaction can only end one way",
        );
      if (commit || abort) {
        out.push({ records: current, end: abort ? "abort" : "commit" });
        current = [];
      }
    }
    const batch = this.batch;
    this.batch = undefined;
    if (current.length > 0 || batch) out.push({ records: current, end: batch });
    // Requests for records that were not in this poll are dropped, as Kafka's are once the poll is sent.
    this.commits.clear();
    this.aborts.clear();
    return out;
  }
}

/** When the open transaction ends after a poll, for the boundaries the runtime defines. */
export function endAfterPoll(
  boundary: Exclude<TransactionBoundary, "connector">,
  polled: number,
  openSinceMs: number | undefined,
  intervalMs: number,
  now: number,
): TransactionEnd | undefined {
  if (boundary === "poll") return polled > 0 ? "commit" : undefined;
  return openSinceMs !== undefined && now - openSinceMs >= intervalMs ? "commit" : undefined;
}
