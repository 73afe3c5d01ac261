// The window of a read-only incremental snapshot's chunk (read.only=true), as Debezium's PostgreSQL
// connector keeps it: nothing is written to the database; the open (low) and close (high) watermarks are
// pg_current_snapshot() taken before and after the chunk's query, and the transaction ids of what the
// stream brings say where the window is. A change of a transaction at or above the low watermark's xmin
// opens it (older ones were committed before the chunk was read: the chunk saw them); while it is open,
// changed keys drop their rows from the chunk; it closes on a change of a transaction above both
// watermarks' xmax (begun after the chunk was read), on the commit of the transaction whose id is the
// high watermark's xmax, or, on a commit or while the stream is idle, once the last transaction streamed
// is at or below the high watermark's xmin (the stream has caught up with the chunk's read).
//
// Unlike Debezium's, the open watermark is taken again until it sees every transaction the stream has
// already brought: a walsender sends a commit once its WAL is flushed, which can be before the committing
// session has left the proc array, so a chunk read right after the commit streamed (at the commit that
// closes a window) could miss that transaction's changes, and its rows, older than the changes streamed
// before them, would win.

/** What pg_current_snapshot() answers: `xmin:xmax:xip,…` (64-bit transaction ids). */
export interface PgSnapshot {
  readonly xmin: bigint;
  readonly xmax: bigint;
  readonly xip: readonly bigint[];
}

export function parsePgSnapshot(text: string): PgSnapshot {
  const match = /^(\d+):(\d+):([\d,]*)$/.exec(text.trim());
  if (match === null) throw new Error(`Unable to parse the result of pg_current_snapshot(): ${text}`);
  return {
    xmin: BigInt(match[1]!),
    xmax: BigInt(match[2]!),
    xip: match[3] === "" ? [] : match[3]!.split(",").map(BigInt),
  };
}

const sameSnapshot = (a: PgSnapshot | null, b: PgSnapshot | null) =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.xmin === b.xmin &&
    a.xmax === b.xmax &&
    a.xip.length === b.xip.length &&
    a.xip.every((x) => b.xip.includes(x)));

const XID_SPAN = 1n << 32n;
/** Transactions streamed are remembered up to this many (older ones are long visible). */
const STREAMED_KEPT = 10_000;

/**
 * The 64-bit id (epoch and xid, as pg_current_snapshot() names transactions) of the 32-bit `xid` a
 * pgoutput Begin carries, taken as the one nearest to `reference` (a recent 64-bit id): a transaction
 * the stream brings is less than 2^31 transactions away from any recent snapshot.
 */
export function fullXid(xid: bigint, reference: bigint): bigint {
  let delta = (xid - (reference % XID_SPAN) + XID_SPAN) % XID_SPAN;
  if (delta >= XID_SPAN / 2n) delta -= XID_SPAN;
  return reference + delta;
}

export class ReadOnlyWindow {
  private low: PgSnapshot | null = null;
  private high: PgSnapshot | null = null;
  private previousLow: PgSnapshot | null = null;
  private previousHigh: PgSnapshot | null = null;
  private opened = false;
  /** 32-bit ids of the transactions streamed since the last open watermark that saw them all. */
  private readonly streamedXids = new Set<number>();

  /** Before the chunk's query. */
  setLow(snapshot: PgSnapshot): void {
    this.low = snapshot;
  }

  /** After the chunk's query. */
  setHigh(snapshot: PgSnapshot): void {
    this.high = snapshot;
  }

  /** A streamed change of 32-bit transaction `xid`: opens the window at the low watermark, closes it past the high one. */
  changeOf(xid: bigint): void {
    const low = this.low;
    if (low === null) return;
    const txId = fullXid(xid, low.xmax);
    if (!this.opened && txId >= low.xmin) this.opened = true;
    const high = this.high;
    if (this.opened && high !== null && txId > high.xmax && txId > low.xmax) this.close();
  }

  /** Not open: a change now either came before the window (the chunk saw it) or after it. */
  get closed(): boolean {
    return !this.opened;
  }

  /** Open: a changed key's row is dropped from the chunk. */
  get deduplicating(): boolean {
    return this.opened;
  }

  close(): void {
    this.opened = false;
    this.previousLow = this.low;
    this.previousHigh = this.high;
    this.low = null;
    this.high = null;
  }

  /** A transaction the stream brought (committed on the server): a chunk read from now on must see it. */
  streamed(xid: bigint): void {
    this.streamedXids.add(Number(xid));
    if (this.streamedXids.size > STREAMED_KEPT)
      this.streamedXids.delete(this.streamedXids.values().next().value as number);
  }

  /** Whether a snapshot (an open watermark) sees every transaction the stream has brought; if so they are forgotten. */
  seesStreamed(snapshot: PgSnapshot): boolean {
    for (const xid of this.streamedXids) {
      const full = fullXid(BigInt(xid), snapshot.xmax);
      if (full >= snapshot.xmax || snapshot.xip.includes(full)) return false;
    }
    this.streamedXids.clear();
    return true;
  }

  /** Forgets the window (the snapshot was stopped). */
  reset(): void {
    this.close();
    this.previousLow = this.previousHigh = null;
  }

  /** The transaction the high watermark saw as the next to begin has committed. */
  maxInProgressCommitted(xid: bigint): boolean {
    return this.high !== null && fullXid(xid, this.high.xmax) === this.high.xmax;
  }

  /** Transaction `xid` (the last one streamed) is at or below the high watermark's xmin: the stream caught up. */
  caughtUp(xid: bigint | null): boolean {
    if (this.high === null) return false;
    return xid === null || fullXid(xid, this.high.xmax) <= this.high.xmin;
  }

  /** The watermarks of the chunk just read differ from the last closed window's: the database is not idle. */
  watermarksChanged(): boolean {
    return !sameSnapshot(this.previousLow, this.low) || !sameSnapshot(this.previousHigh, this.high);
  }
}
