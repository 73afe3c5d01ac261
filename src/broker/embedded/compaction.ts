// Log compaction of one partition: copy the latest record per key into a temp file, then (with appends
// paused) copy the records appended meanwhile, fsync, and rename over the log. Offsets are kept, so
// compacted logs have gaps, as in Kafka. A crash at any point leaves the old or the new file, both complete;
// a leftover temp file is deleted at the next open.
import { open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../../platform/log.ts";
import { fsyncDir, writeFully } from "../../platform/files.ts";
import { readFrames } from "./frame-reader.ts";
import { keyId, type KeyState } from "./key-id.ts";
import { FRAME_HEADER_BYTES, frameOffset, summarizeFrame } from "./record-frame.ts";
import { Segment } from "./segment.ts";
import { SparseIndex } from "./sparse-index.ts";

export interface CompactionResult {
  /** Records in the log before and after (the after count includes records appended meanwhile). */
  before: number;
  after: number;
}

export interface CompactionJob {
  file: string;
  source: Segment;
  /** Latest visible record per key; updated by appends while compaction runs. */
  keys: Map<string, KeyState>;
  /** Records from this offset on were not visible when compaction began (a transaction's): all kept. */
  visibleEnd: number;
  /** Tombstones with a timestamp before this are dropped. */
  tombstoneHorizon: number;
  log: Logger;
  /** True once the partition is closing: give up early. */
  cancelled: () => boolean;
  /**
   * Runs `swap` with appends paused, passing the current end of the source; installs the segment it
   * returns. Resolves undefined without calling it when the partition is closing.
   */
  exclusive: (swap: (tailEnd: number) => Promise<Segment>) => Promise<Segment | undefined>;
}

export function compactionTempFile(file: string): string {
  return `${file}.compacting`;
}

/** Returns the installed segment, or undefined when cancelled by close(). */
export async function compactSegment(job: CompactionJob): Promise<Segment | undefined> {
  const temp = compactionTempFile(job.file);
  await rm(temp, { force: true });
  const out = await open(temp, "wx+");
  const index = new SparseIndex();
  let outEnd = 0;
  let records = 0;
  let buffered: Uint8Array[] = [];
  let bufferedBytes = 0;
  const flush = async (): Promise<void> => {
    if (bufferedBytes === 0) return;
    await writeFully(out, Buffer.concat(buffered), outEnd - bufferedBytes);
    buffered = [];
    bufferedBytes = 0;
  };
  const copy = async (buf: Uint8Array, at: number, length: number, offset: number): Promise<void> => {
    index.add(offset, outEnd);
    buffered.push(buf.subarray(at, at + length));
    bufferedBytes += length;
    outEnd += length;
    records++;
    if (bufferedBytes >= 1024 * 1024) await flush();
  };

  let renamed = false;
  try {
    const snapshotEnd = job.source.end;
    const expiredTombstones: [string, number][] = [];
    for await (const frame of readFrames(job.source.handle, 0, snapshotEnd)) {
      if (job.cancelled()) break;
      const s = summarizeFrame(frame.buf, frame.at, frame.bodyLength);
      const length = FRAME_HEADER_BYTES + frame.bodyLength;
      const id = s.key === null ? undefined : keyId(s.key);
      if (s.offset >= job.visibleEnd) {
        await copy(frame.buf, frame.at, length, s.offset);
        continue;
      }
      const latest = id === undefined ? undefined : job.keys.get(id);
      if (latest !== undefined && latest.offset !== s.offset) continue;
      // The last record is always kept so the end offset survives a restart even if all else is gone.
      const isLast = frame.position + length === snapshotEnd;
      if (s.tombstone && s.timestamp < job.tombstoneHorizon && !isLast) {
        if (id !== undefined) expiredTombstones.push([id, s.offset]);
        continue;
      }
      await copy(frame.buf, frame.at, length, s.offset);
    }
    const installed = job.cancelled()
      ? undefined
      : await job.exclusive(async (tailEnd) => {
          for await (const frame of readFrames(job.source.handle, snapshotEnd, tailEnd)) {
            await copy(frame.buf, frame.at, FRAME_HEADER_BYTES + frame.bodyLength, frameOffset(frame.buf, frame.at));
          }
          await flush();
          await out.sync();
          await rename(temp, job.file);
          renamed = true;
          // From here on the new file *is* the log: nothing may throw before it is installed.
          await fsyncDir(dirname(job.file)).catch((err: unknown) => {
            job.log.warn({ err, file: job.file }, "fsync of the log directory after compaction failed");
          });
          for (const [id, offset] of expiredTombstones) {
            if (job.keys.get(id)?.offset === offset) job.keys.delete(id);
          }
          return new Segment(out, index, outEnd, records);
        });
    if (installed === undefined) {
      await out.close();
      await rm(temp, { force: true });
    }
    return installed;
  } catch (err) {
    if (!renamed) {
      await out.close().catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
    }
    throw err;
  }
}
