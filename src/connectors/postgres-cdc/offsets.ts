// Source offsets in Debezium's layout (PostgresOffsetContext), so offsets written by Debezium and by
// Sluice can take each other's place: partition {server: <topic.prefix>}; offset {lsn, txId, ts_usec,
// lsn_proc, lsn_commit, messageType, lsn_events_processed} while streaming (with provide.transaction.metadata
// also the open transaction's keys, transaction-metadata.ts), {lsn, txId, ts_usec, snapshot,
// last_snapshot_record} while snapshotting. Numbers are stored as numbers (Java longs in Debezium's JSON).

export function sourcePartition(topicPrefix: string): Record<string, unknown> {
  return { server: topicPrefix };
}

export type MessageType = "BEGIN" | "COMMIT" | "INSERT" | "UPDATE" | "DELETE" | "TRUNCATE";

export interface StreamingPosition {
  /** End of the last transaction whose records all came before: streaming may restart there. */
  readonly lsnCommit: bigint;
  /** The change's own LSN. */
  readonly lsn: bigint;
  readonly txId: bigint | null;
  /** Commit time, Unix microseconds. */
  readonly tsUsec: bigint;
  readonly messageType?: MessageType;
  /**
   * lsn_events_processed: the changes at `lsn` handed on so far, this one included (a COPY's multi-insert
   * gives many rows one LSN); Debezium writes it while a transaction's changes go, 0 (left out) otherwise.
   */
  readonly eventsAtLsn?: number;
}

export function streamingOffset(p: StreamingPosition): Record<string, unknown> {
  return {
    lsn_proc: Number(p.lsn),
    lsn_commit: Number(p.lsnCommit),
    lsn: Number(p.lsn),
    txId: p.txId === null ? null : Number(p.txId),
    ts_usec: Number(p.tsUsec),
    ...(p.messageType ? { messageType: p.messageType } : {}),
    ...(p.eventsAtLsn ? { lsn_events_processed: p.eventsAtLsn } : {}),
  };
}

export function snapshotOffset(lsn: bigint, txId: bigint, tsUsec: bigint, last: boolean): Record<string, unknown> {
  return { lsn: Number(lsn), txId: Number(txId), ts_usec: Number(tsUsec), snapshot: true, last_snapshot_record: last };
}

export interface StoredOffset {
  /** A snapshot was under way and did not reach its last record: it has to be taken again. */
  readonly snapshotIncomplete: boolean;
  /** Where streaming resumes (changes of transactions committed earlier were all handed on). */
  readonly resumeLsn: bigint;
  /**
   * The last change handed on, to skip up to when its transaction is sent again: at `lsn` itself the first
   * `eventsAtLsn` changes when that is more than 1, else all (as Debezium's WalPositionLocator). None
   * after a BEGIN: none of its transaction's changes went yet.
   */
  readonly lastChange: { readonly txId: bigint; readonly lsn: bigint; readonly eventsAtLsn: number } | null;
  /** lsn_commit as stored (null when there is none, as after a snapshot). */
  readonly lastCommitLsn: bigint | null;
}

/** Reads an offset written by Sluice or Debezium; null when there is none (or it has no LSN). */
export function readOffset(offset: Record<string, unknown> | null): StoredOffset | null {
  if (offset === null) return null;
  const lsn = bigintOf(offset.lsn);
  if (lsn === null) return null;
  const snapshot = offset.snapshot === true || offset.snapshot === "true";
  const lastSnapshotRecord = offset.last_snapshot_record === true || offset.last_snapshot_record === "true";
  const txId = bigintOf(offset.txId);
  return {
    snapshotIncomplete: snapshot && !lastSnapshotRecord,
    resumeLsn: bigintOf(offset.lsn_commit) ?? lsn,
    lastChange:
      !snapshot && txId !== null && offset.messageType !== "BEGIN"
        ? { txId, lsn, eventsAtLsn: Number(bigintOf(offset.lsn_events_processed) ?? 0n) }
        : null,
    lastCommitLsn: bigintOf(offset.lsn_commit),
  };
}

function bigintOf(value: unknown): bigint | null {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  return null;
}
