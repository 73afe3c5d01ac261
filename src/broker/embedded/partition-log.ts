// One partition: a single append-only file, an in-memory sparse index, group-committed appends and
// long-poll waiters. Only records that are fsynced are visible to fetch and endOffsets (the "high
// watermark"), so a consumer never acts on a record that a crash could still take back.
// A transaction reserves offsets (reserve()): appends after it wait in line until it commits (its records
// are written in their turn) or aborts (its offsets stay unused, a gap as compaction leaves). A committed
// transaction's records, once written, stay invisible (with what was written after them) until its gate
// says they are visible, which transactions.ts decides for all its partitions at once.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../platform/log.ts";
import { BrokerError } from "../broker.ts";
import { compactionTempFile, compactSegment, type CompactionResult } from "./compaction.ts";
import { openReadWrite, writeFully } from "../../platform/files.ts";
import { FrameCorruption, readFrames } from "./frame-reader.ts";
import { keyId, type KeyState } from "./key-id.ts";
import { Mutex } from "./mutex.ts";
import {
  decodeFrame,
  encodeFrame,
  FRAME_HEADER_BYTES,
  type FrameRecord,
  frameOffset,
  summarizeFrame,
} from "./record-frame.ts";
import { recoverLog } from "./recovery.ts";
import { INDEX_INTERVAL_BYTES, SparseIndex } from "./sparse-index.ts";
import { Segment } from "./segment.ts";

export interface CompactionSettings {
  /** Tombstones older than this (by record timestamp) are dropped by compaction (`delete.retention.ms`). */
  deleteRetentionMs: number;
  /** Compaction starts by itself once this share of records is superseded (`min.cleanable.dirty.ratio`). */
  minCleanableDirtyRatio: number;
  /** ...and the log holds at least this many bytes, so small logs are left alone. */
  minBytes: number;
}

export interface PartitionLogOptions {
  dir: string;
  partition: number;
  /** Present for topics whose cleanup.policy includes "compact". */
  compaction?: CompactionSettings;
  log: Logger;
}

export type AppendRecord = Omit<FrameRecord, "offset">;

interface PendingAppend {
  frames: Uint8Array[];
  offsets: number[];
  records: AppendRecord[];
  resolve: (offsets: number[]) => void;
  reject: (err: unknown) => void;
  /** False for a transaction's reservation until it commits: it, and every append after it, waits. */
  ready: boolean;
  /** A committed transaction's: once written, its records are visible only when the gate says so. */
  gate?: Gate;
}

/** A committed transaction's visibility, the same in all its partitions (see PartitionLog.publish). */
export interface Gate {
  visible: boolean;
}

/** Written records not visible yet: a transaction's, or behind one's. */
interface Unpublished {
  append: PendingAppend;
  /** The offset after its records. */
  end: number;
}

/** Offsets held in a partition for a transaction's records (see PartitionLog.reserve). */
export interface Reservation {
  readonly offsets: number[];
  /** The records, encoded with their offsets: what a commit record keeps to redo the write after a crash. */
  readonly frames: Uint8Array[];
  /**
   * Writes the records in their turn; resolves once they are durable. They become visible, with what
   * was written after them, once `gate` is visible and publish() is called.
   */
  commit(gate: Gate): Promise<void>;
  /** Gives the offsets up: appends waiting behind go ahead. */
  abort(): void;
}

export class PartitionLog {
  readonly file: string;
  /** Next offset to assign; ahead of highWatermark while a batch is being written. */
  private nextOffset: number;
  /** Next offset after the last durable record: what consumers may see. */
  private highWatermarkOffset: number;
  private segment: Segment;
  private readonly keys: Map<string, KeyState> | undefined;
  private pending: PendingAppend[] = [];
  private unpublished: Unpublished[] = [];
  private draining: Promise<void> | undefined;
  /** Held by each write batch and by compaction's final swap, so the swap sees a quiet file. */
  private readonly writeLock = new Mutex();
  private compaction: Promise<CompactionResult> | undefined;
  private readonly waiters = new Set<() => void>();
  private failure: BrokerError | undefined;
  private closing = false;

  private constructor(
    private readonly options: PartitionLogOptions,
    segment: Segment,
    nextOffset: number,
    keys: Map<string, KeyState> | undefined,
  ) {
    this.file = join(options.dir, `${options.partition}.log`);
    this.segment = segment;
    this.nextOffset = nextOffset;
    this.highWatermarkOffset = nextOffset;
    this.keys = keys;
  }

  /** Opens (or creates) the partition's log, cutting a torn last frame and rebuilding the in-memory state; throws LogDamaged on damage. */
  static async open(options: PartitionLogOptions): Promise<PartitionLog> {
    const file = join(options.dir, `${options.partition}.log`);
    // A crash during compaction leaves its temp file; the log itself is whole (old or new), so drop it.
    await rm(compactionTempFile(file), { force: true });
    const handle = await openReadWrite(file);
    try {
      const index = new SparseIndex();
      const keys = options.compaction ? new Map<string, KeyState>() : undefined;
      let records = 0;
      const { validEnd, lastOffset } = await recoverLog(handle, file, options.log, (frame, offset) => {
        index.add(offset, frame.position);
        records++;
        if (keys) {
          const s = summarizeFrame(frame.buf, frame.at, frame.bodyLength);
          if (s.key) keys.set(keyId(s.key), { offset, tombstone: s.tombstone, timestamp: s.timestamp });
        }
      });
      return new PartitionLog(options, new Segment(handle, index, validEnd, records), lastOffset + 1, keys);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  get compacted(): boolean {
    return this.options.compaction !== undefined;
  }

  get highWatermark(): number {
    return this.highWatermarkOffset;
  }

  /**
   * Assigns the next contiguous offsets and resolves once the records are on disk (fdatasync). Appends
   * that arrive while a write is in flight are written and synced together with the next batch.
   */
  append(records: AppendRecord[]): Promise<number[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new BrokerError(`${this.file} is closed`, false));
    // Encode first: a record that cannot be encoded must not consume an offset.
    const base = this.nextOffset;
    const frames = records.map((r, i) => encodeFrame({ ...r, offset: base + i }));
    const offsets = records.map((_, i) => base + i);
    this.nextOffset += records.length;
    return new Promise<number[]>((resolve, reject) => {
      this.pending.push({ frames, offsets, records, resolve, reject, ready: true });
      this.kick();
    });
  }

  /**
   * Assigns the next contiguous offsets to a transaction's records without writing them. Appends and
   * reservations after it are written only once it is committed or aborted, so that its offsets are the
   * ones its records get, and the file stays in offset order.
   */
  reserve(records: AppendRecord[]): Reservation {
    if (this.failure) throw this.failure;
    if (this.closing) throw new BrokerError(`${this.file} is closed`, false);
    const base = this.nextOffset;
    const frames = records.map((r, i) => encodeFrame({ ...r, offset: base + i }));
    const offsets = records.map((_, i) => base + i);
    this.nextOffset += records.length;
    let entry!: PendingAppend;
    const written = new Promise<number[]>((resolve, reject) => {
      entry = { frames, offsets, records, resolve, reject, ready: false };
    });
    written.catch(() => undefined); // an abandoned reservation's rejection (close, failed write) is no one's
    this.pending.push(entry);
    return {
      offsets,
      frames,
      commit: (gate) => {
        entry.ready = true;
        entry.gate = gate;
        this.kick();
        return written.then(() => undefined);
      },
      abort: () => {
        const at = this.pending.indexOf(entry);
        if (at < 0) return;
        this.pending.splice(at, 1);
        // Nothing was placed after it: its offsets are free again. Otherwise they stay a gap.
        if (at === this.pending.length && this.nextOffset === base + records.length) this.nextOffset = base;
        entry.resolve([]);
        this.kick();
      },
    };
  }

  /**
   * Writes frames encoded elsewhere (a transaction's, redone after a crash), skipping those at or below
   * the last offset already in the log. Only before the log is in use: the offsets must not be taken.
   */
  redo(frames: Uint8Array[]): Promise<void> {
    const missing = frames
      .map((frame) => ({ frame, offset: frameOffset(frame, 0) }))
      .filter(({ offset }) => offset >= this.nextOffset)
      .sort((a, b) => a.offset - b.offset);
    if (missing.length === 0) return Promise.resolve();
    this.nextOffset = missing[missing.length - 1]!.offset + 1;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({
        frames: missing.map((m) => m.frame),
        offsets: missing.map((m) => m.offset),
        records: missing.map(({ frame }) => decodeFrame(frame, 0, frame.length - FRAME_HEADER_BYTES)),
        resolve: () => resolve(),
        reject,
        ready: true,
      });
      this.kick();
    });
  }

  /** Starts writing when the next append in line is ready and no write is under way. */
  private kick(): void {
    // drain() must not start with nothing to write: it would end before `draining` is set.
    if (!this.draining && this.pending[0]?.ready) this.draining = this.drain();
  }

  private async drain(): Promise<void> {
    for (;;) {
      // Up to the first reservation not yet committed: its commit or abort starts the next drain.
      const waiting = this.pending.findIndex((p) => !p.ready);
      const batch = this.pending.splice(0, waiting < 0 ? this.pending.length : waiting);
      if (batch.length === 0) break;
      await this.writeLock.run(() => this.writeBatch(batch));
    }
    this.draining = undefined;
  }

  private async writeBatch(batch: PendingAppend[]): Promise<void> {
    if (this.failure) {
      for (const p of batch) p.reject(this.failure);
      return;
    }
    const segment = this.segment;
    const position = segment.end;
    const frames = batch.flatMap((p) => p.frames);
    const data = frames.length === 1 ? frames[0] : Buffer.concat(frames);
    try {
      await writeFully(segment.handle, data, position);
      await segment.handle.datasync();
    } catch (err) {
      // After a failed write or fsync the file's state is unknown (and Linux may have dropped the dirty
      // pages): stop accepting appends; a restart recovers from what is really on disk.
      this.failure = new BrokerError(`write to ${this.file} failed; partition is read-only until restart`, false, err);
      this.options.log.error({ err, file: this.file }, "partition log write failed");
      for (const p of [...batch, ...this.pending.splice(0)]) p.reject(this.failure);
      return;
    }
    let at = position;
    for (const p of batch) {
      p.frames.forEach((frame, i) => {
        segment.index.add(p.offsets[i], at);
        at += frame.length;
      });
    }
    segment.end = at;
    segment.records += frames.length;
    for (const p of batch) {
      // A transaction's part is acknowledged as written (its commit awaits all its parts, then makes
      // them visible); a plain append once visible, so that endOffsets then includes it.
      if (p.gate) p.resolve(p.offsets);
      this.unpublished.push({ append: p, end: p.offsets[p.offsets.length - 1]! + 1 });
    }
    this.publish();
  }

  /** Makes visible what is written, up to the first transaction not visible yet. */
  publish(): void {
    let count = 0;
    while (count < this.unpublished.length && (this.unpublished[count]!.append.gate?.visible ?? true)) count++;
    if (count === 0) return;
    const visible = this.unpublished.splice(0, count);
    this.highWatermarkOffset = visible[count - 1]!.end;
    for (const { append: p } of visible) {
      // Compaction keeps the latest *visible* record per key: one not visible yet supersedes nothing.
      if (this.keys) {
        p.records.forEach((r, i) => {
          if (r.key) {
            this.keys!.set(keyId(r.key), {
              offset: p.offsets[i]!,
              tombstone: r.value === null,
              timestamp: r.timestamp,
            });
          }
        });
      }
      if (!p.gate) p.resolve(p.offsets);
    }
    for (const wake of this.waiters) wake();
    this.maybeCompactInBackground();
  }

  /** The transactions whose records, written before `gate`'s first here, are not visible yet. */
  gatesAhead(gate: Gate): Gate[] {
    const ahead: Gate[] = [];
    for (const { append } of this.unpublished) {
      if (append.gate === gate) break;
      if (append.gate && !append.gate.visible) ahead.push(append.gate);
    }
    return ahead;
  }

  /** Durable records with offset ≥ `offset`, at least one if any, then up to about `maxBytes`. */
  async read(offset: number, maxBytes: number): Promise<FrameRecord[]> {
    // Beyond it the file may hold records written but held back by a transaction's gate.
    const visibleEnd = this.highWatermarkOffset;
    if (offset >= visibleEnd) return [];
    // Pin the segment: compaction may swap in a new file meanwhile; this read finishes on the old one.
    const segment = this.segment.acquire();
    const out: FrameRecord[] = [];
    try {
      let bytes = 0;
      const chunk = Math.min(Math.max(maxBytes, 0) + INDEX_INTERVAL_BYTES + 8192, 8 * 1024 * 1024);
      for await (const frame of readFrames(segment.handle, segment.index.floor(offset), segment.end, chunk)) {
        const at = frameOffset(frame.buf, frame.at);
        if (at < offset) continue;
        if (at >= visibleEnd) break;
        const record = decodeFrame(frame.buf, frame.at, frame.bodyLength);
        const size = FRAME_HEADER_BYTES + frame.bodyLength;
        if (out.length > 0 && bytes + size > maxBytes) break;
        out.push(record);
        bytes += size;
      }
    } catch (err) {
      if (!(err instanceof FrameCorruption)) throw err;
      this.options.log.error({ file: this.file, position: err.position, reason: err.message }, "CORRUPTION on read");
      throw new BrokerError(`corrupt record in ${this.file}: ${err.message}`, false, err);
    } finally {
      segment.release();
    }
    return out;
  }

  /**
   * Resolves when a record at or after `offset` becomes visible, after `maxWaitMs`, on close, or when
   * `signal` aborts (a caller waiting on several partitions stops waiting on the others).
   */
  waitForRecords(offset: number, maxWaitMs: number, signal?: AbortSignal): Promise<void> {
    if (this.highWatermarkOffset > offset || this.closing || maxWaitMs <= 0 || signal?.aborted)
      return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const check = (): void => {
        if (this.highWatermarkOffset > offset || this.closing) done();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.waiters.add(check);
      signal?.addEventListener("abort", done);
    });
  }

  private dirtyRatio(): number {
    if (!this.keys || this.segment.records === 0) return 0;
    return 1 - this.keys.size / this.segment.records;
  }

  private maybeCompactInBackground(): void {
    const settings = this.options.compaction;
    if (!settings || this.compaction || this.closing) return;
    if (this.segment.end < settings.minBytes || this.dirtyRatio() <= settings.minCleanableDirtyRatio) return;
    this.compact(Date.now()).catch((err: unknown) => {
      this.options.log.error({ err, file: this.file }, "background compaction failed; will retry on later appends");
    });
  }

  /**
   * Rewrites the log keeping the latest record per key (and tombstones younger than delete.retention.ms),
   * then swaps it in atomically. Waits for a compaction already running, then runs its own.
   */
  async compact(now: number): Promise<CompactionResult> {
    const settings = this.options.compaction;
    if (!settings || !this.keys) return { before: this.segment.records, after: this.segment.records };
    while (this.compaction) await this.compaction.catch(() => undefined);
    const run = this.runCompaction(now, settings, this.keys);
    this.compaction = run;
    try {
      return await run;
    } finally {
      if (this.compaction === run) this.compaction = undefined;
    }
  }

  private async runCompaction(
    now: number,
    settings: CompactionSettings,
    keys: Map<string, KeyState>,
  ): Promise<CompactionResult> {
    const old = this.segment.acquire();
    try {
      const before = old.records;
      const swapped = await compactSegment({
        file: this.file,
        source: old,
        keys,
        visibleEnd: this.highWatermarkOffset,
        tombstoneHorizon: now - settings.deleteRetentionMs,
        log: this.options.log,
        cancelled: () => this.closing,
        // The swap must not race a write batch, and must not happen after close() has begun.
        exclusive: (fn) =>
          this.writeLock.run(async () => {
            if (this.closing) return undefined;
            const tailEnd = this.segment.end;
            const fresh = await fn(tailEnd);
            this.segment = fresh;
            old.retire();
            return fresh;
          }),
      });
      if (swapped === undefined) return { before, after: before };
      this.options.log.info({ file: this.file, before, after: swapped.records }, "compacted partition log");
      return { before, after: swapped.records };
    } finally {
      old.release();
    }
  }

  /** Flushes pending appends, waits for a running compaction, wakes long polls, closes the file. */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.waiters) wake();
    // A transaction still open now can no longer commit; the appends behind it are written.
    const undecided = this.pending.filter((p) => !p.ready);
    this.pending = this.pending.filter((p) => p.ready);
    for (const p of undecided) p.reject(new BrokerError(`${this.file} closed before the transaction committed`, false));
    if (this.pending.length > 0) this.kick();
    while (this.draining) await this.draining;
    // Everything written is durable and a restart shows it: acknowledge what a gate still held back.
    for (const { append } of this.unpublished) if (append.gate) append.gate.visible = true;
    this.publish();
    if (this.compaction) await this.compaction.catch(() => undefined);
    this.segment.retire();
    await this.segment.closed;
  }
}
