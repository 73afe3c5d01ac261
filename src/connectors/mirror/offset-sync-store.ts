// How MirrorCheckpointConnector translates a source group's offset into the target's, as Kafka 4.1's
// OffsetSyncStore does (KAFKA-14666's conservative translation). Per source partition it keeps 64 offset
// syncs, newest first, spaced out exponentially: slot i holds a sync at least 2^i - 1 upstream offsets
// behind the newest (invariant B), and neighbouring slots are at least 2^max(i-2,0) apart (invariant C).
// A group's offset translates through the newest sync at or before it: exactly when it is that sync's
// upstream offset, else to one past the sync's downstream offset (never further, so a consumer that
// fails over may re-read records but never skips any). An offset before every kept sync cannot be
// translated (-1: no checkpoint), and nothing is translated before the topic was read to its end once.

/** The two offsets of an offset sync (offset-sync.ts) that translation needs. */
export interface SyncPoint {
  readonly upstreamOffset: number;
  readonly downstreamOffset: number;
}

export const SYNCS_PER_PARTITION = 64;

export class OffsetSyncStore {
  private readonly syncs = new Map<string, SyncPoint[]>();
  private readToEnd = false;
  private mustReadToEnd = true;

  /**
   * Before the first read to the end: `initializationMustReadToEnd` (Kafka: the checkpoints could not be
   * read back) keeps only the newest sync of each partition while catching up, so no checkpoint goes
   * behind one written before a restart.
   */
  starting(initializationMustReadToEnd: boolean): void {
    this.mustReadToEnd = initializationMustReadToEnd;
  }

  /** The offset-syncs topic was read to its end once: translation may begin. */
  markReadToEnd(): void {
    this.readToEnd = true;
  }

  get ready(): boolean {
    return this.readToEnd;
  }

  /** Takes in one record of the offset-syncs topic. */
  add(topic: string, partition: number, sync: SyncPoint): void {
    const key = partitionKey(topic, partition);
    const current = this.syncs.get(key);
    if (!current) {
      this.syncs.set(key, new Array<SyncPoint>(SYNCS_PER_PARTITION).fill(sync));
      return;
    }
    const next = current.slice();
    this.update(next, current, sync);
    this.syncs.set(key, next);
  }

  /**
   * The target offset for a source offset: undefined when it cannot be translated yet (no sync for the
   * partition, or the topic not read to its end); -1 when every sync kept is ahead of it.
   */
  translateDownstream(topic: string, partition: number, upstreamOffset: number): number | undefined {
    if (!this.readToEnd) return undefined;
    const syncs = this.syncs.get(partitionKey(topic, partition));
    if (!syncs) return undefined;
    const sync = syncs.find((s) => s.upstreamOffset <= upstreamOffset) ?? syncs[SYNCS_PER_PARTITION - 1]!;
    if (sync.upstreamOffset > upstreamOffset) return -1;
    return sync.downstreamOffset + (sync.upstreamOffset === upstreamOffset ? 0 : 1);
  }

  /** The syncs kept for a partition, newest first (for tests and diagnostics). */
  syncsOf(topic: string, partition: number): readonly SyncPoint[] | undefined {
    return this.syncs.get(partitionKey(topic, partition));
  }

  /**
   * Puts `sync` in slot 0 and moves older syncs down only as far as the invariants need: each slot takes
   * the oldest earlier value that still keeps it within reach of the slot before it, and the walk stops
   * at the first slot that already does.
   */
  private update(syncs: SyncPoint[], original: readonly SyncPoint[], sync: SyncPoint): void {
    const onlyLatest = !this.readToEnd && this.mustReadToEnd;
    // A rewind upstream (the topic was recreated or truncated) makes every older sync meaningless.
    if (onlyLatest || sync.upstreamOffset < syncs[0]!.upstreamOffset) {
      syncs.fill(sync);
      return;
    }
    let replacement = sync;
    let from = 0; // the next slot of `original` that may move down
    syncs[0] = sync;
    for (let slot = 1; slot < SYNCS_PER_PARTITION; slot++) {
      const previous = slot - 1;
      let skip: boolean;
      do {
        const candidate = original[from]!;
        const recent = invariantB(syncs[previous]!, candidate, previous, slot);
        const apartFromPrevious = invariantC(syncs[previous]!, candidate, previous);
        const apartFromNext = slot + 1 >= SYNCS_PER_PARTITION || invariantC(candidate, syncs[slot + 1]!, slot);
        const duplicate = from + 1 < SYNCS_PER_PARTITION && candidate === original[from + 1];
        const promote = recent && apartFromPrevious && apartFromNext;
        if (promote) replacement = candidate;
        skip = duplicate || !apartFromPrevious;
        if (promote || skip) from++;
      } while (from < slot && skip);
      if (invariantB(syncs[previous]!, syncs[slot]!, previous, slot)) break;
      syncs[slot] = replacement;
    }
  }
}

/** Slot i's sync is within 2^j - 2^i upstream offsets of slot j's (j > i). */
function invariantB(iSync: SyncPoint, jSync: SyncPoint, i: number, j: number): boolean {
  const bound = jSync.upstreamOffset + 2 ** j - 2 ** i;
  return iSync === jSync || bound < 0 || iSync.upstreamOffset <= bound;
}

/** Slot i's sync is at least 2^max(i-2,0) upstream offsets past slot i+1's. */
function invariantC(iSync: SyncPoint, jSync: SyncPoint, i: number): boolean {
  const bound = jSync.upstreamOffset + 2 ** Math.max(i - 2, 0);
  return iSync === jSync || (bound >= 0 && iSync.upstreamOffset >= bound);
}

function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
