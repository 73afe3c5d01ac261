// Startup scan of one partition log. A process crash can only leave a torn *tail* (appends are sequential
// and acknowledged after fdatasync), repaired with a warning. A bad frame followed by intact ones means
// damage (disk, another writer; or, after power loss, unsynced pages persisted out of order): cut off
// there too, but reported as an error and the dropped bytes kept in a quarantine file.
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../../common/log.ts";
import { fsyncDir, readExactly, writeFully } from "../../common/files.ts";
import { FrameCorruption, findNextIntactFrame, readFrames, type RawFrame } from "./frame-reader.ts";
import { FRAME_HEADER_BYTES, frameOffset } from "./record-frame.ts";

export interface RecoveredLog {
  /** Bytes of intact frames from the start of the file; the file has been truncated to this. */
  validEnd: number;
  /** Offset of the last intact frame, -1 when there is none. */
  lastOffset: number;
}

/** Scans `file`, calling `visit` for each intact frame in order, and truncates whatever follows them. */
export async function recoverLog(
  handle: FileHandle,
  file: string,
  log: Logger,
  visit: (frame: RawFrame, offset: number) => void,
): Promise<RecoveredLog> {
  const size = (await handle.stat()).size;
  let validEnd = 0;
  let lastOffset = -1;
  let damage: FrameCorruption | undefined;
  try {
    for await (const frame of readFrames(handle, 0, size)) {
      const offset = frameOffset(frame.buf, frame.at);
      // A checksummed frame that goes backwards is stale data (e.g. a copied block), not ours to serve.
      if (offset <= lastOffset) throw new FrameCorruption(frame.position, `offset ${offset} after ${lastOffset}`);
      visit(frame, offset);
      lastOffset = offset;
      validEnd = frame.position + FRAME_HEADER_BYTES + frame.bodyLength;
    }
  } catch (err) {
    if (!(err instanceof FrameCorruption)) throw err;
    damage = err;
  }
  if (damage === undefined) return { validEnd, lastOffset };

  const dropped = size - validEnd;
  const resumesAt = await findNextIntactFrame(handle, validEnd + 1, size, lastOffset);
  if (resumesAt === undefined) {
    log.warn(
      { file, position: validEnd, droppedBytes: dropped, reason: damage.message },
      "torn tail in partition log (unacknowledged write cut short by a crash); truncated to the last intact record",
    );
  } else {
    const quarantine = `${file}.corrupt-${Date.now()}`;
    await copyRange(handle, validEnd, size, quarantine);
    log.error(
      {
        file,
        position: validEnd,
        droppedBytes: dropped,
        nextIntactFrameAt: resumesAt,
        lastGoodOffset: lastOffset,
        reason: damage.message,
        quarantinedTo: quarantine,
      },
      "CORRUPTION in the middle of a partition log: records after the damage are NOT served; " +
        "the log was truncated at the damage and the dropped bytes kept in the quarantine file",
    );
  }
  await handle.truncate(validEnd);
  await handle.sync();
  return { validEnd, lastOffset };
}

async function copyRange(from: FileHandle, start: number, end: number, path: string): Promise<void> {
  const to = await open(path, "wx");
  try {
    const chunk = 4 * 1024 * 1024;
    for (let pos = start; pos < end; pos += chunk) {
      const bytes = await readExactly(from, pos, Math.min(chunk, end - pos));
      await writeFully(to, bytes, pos - start);
    }
    await to.sync();
  } finally {
    await to.close();
  }
  await fsyncDir(dirname(path));
}
