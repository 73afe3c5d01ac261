// When MirrorSourceTask writes an offset sync, as Kafka 4.1's OffsetSyncWriter decides it: at once for a
// partition's first record in the task's life, after a gap upstream (compaction, a transaction's
// markers), when the target offset went back, or when the last sync is offset.lag.max records behind;
// otherwise the latest is kept and written at the next offset commit (so a quiet topic is not left
// behind). At most 10 syncs are in flight; the rest wait, newest per partition.
import type { OffsetSync } from "./offset-sync.ts";
import { PartitionTable } from "./partition-table.ts";

const MAX_OUTSTANDING_OFFSET_SYNCS = 10;

/** One partition's position in the decision (Kafka's PartitionState). */
class PartitionState {
  private previousUpstream = -1;
  private previousDownstream = -1;
  private lastSyncDownstream = -1;
  private shouldSync = false;

  constructor(private readonly maxOffsetLag: number) {}

  /** True when a sync should be written now. */
  update(upstream: number, downstream: number): boolean {
    const noSyncYet = this.lastSyncDownstream === -1;
    // A checkpoint translates to one past the last sync, hence the +1.
    const tooStale = downstream - (this.lastSyncDownstream + 1) >= this.maxOffsetLag;
    const skippedUpstream = upstream - this.previousUpstream !== 1;
    const truncatedDownstream = downstream < this.previousDownstream;
    if (noSyncYet || tooStale || skippedUpstream || truncatedDownstream) {
      this.lastSyncDownstream = downstream;
      this.shouldSync = true;
    }
    this.previousUpstream = upstream;
    this.previousDownstream = downstream;
    return this.shouldSync;
  }

  reset(): void {
    this.shouldSync = false;
  }
}

export class OffsetSyncWriter {
  private readonly states = new PartitionTable<PartitionState>();
  /** Held until the next commit(). */
  private readonly delayed = new Map<string, OffsetSync>();
  /** To be written as soon as fewer than the maximum are in flight. */
  private readonly pending = new Map<string, OffsetSync>();
  private outstanding = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly maxOffsetLag: number,
    /** Writes one sync; a failure is logged by the caller's `onError`, as Kafka's producer callback logs it. */
    private readonly send: (sync: OffsetSync) => Promise<void>,
    private readonly onError: (err: unknown, sync: OffsetSync) => void,
  ) {}

  /** A record of `topic`/`partition` at `upstream` was written at `downstream` on the target. */
  maybeQueue(topic: string, partition: number, upstream: number, downstream: number): void {
    const key = this.states.key(topic, partition);
    let state = this.states.get(topic, partition);
    if (!state) this.states.set(topic, partition, (state = new PartitionState(this.maxOffsetLag)));
    const sync: OffsetSync = { topic, partition, upstreamOffset: upstream, downstreamOffset: downstream };
    if (state.update(upstream, downstream)) {
      this.delayed.delete(key);
      this.pending.set(key, sync);
      state.reset();
    } else {
      this.delayed.set(key, sync);
    }
  }

  /** At each offset commit: the held syncs are written too. */
  promoteDelayed(): void {
    for (const [key, sync] of this.delayed) this.pending.set(key, sync);
    this.delayed.clear();
  }

  /** Writes pending syncs, oldest partition first, while fewer than the maximum are in flight. */
  firePending(): void {
    for (const [key, sync] of this.pending) {
      if (this.outstanding >= MAX_OUTSTANDING_OFFSET_SYNCS) return;
      this.pending.delete(key);
      this.outstanding++;
      const sent: Promise<void> = this.send(sync)
        .catch((err: unknown) => this.onError(err, sync))
        .finally(() => {
          this.outstanding--;
          this.inFlight.delete(sent);
        });
      this.inFlight.add(sent);
    }
  }

  /** Waits for the syncs in flight (a stopping task, as Kafka's producer close does). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** For tests and status: what waits. */
  queued(): { pending: OffsetSync[]; delayed: OffsetSync[] } {
    return { pending: [...this.pending.values()], delayed: [...this.delayed.values()] };
  }
}
