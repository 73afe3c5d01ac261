// Startup scan of one partition log. Appends are sequential and acknowledged after fdatasync, so a crash
// can leave only a torn *last* frame: a prefix of the next frame, running to the end of the file. That
// alone is cut, its bytes kept beside the log. Anything else that is not an intact frame is damage (disk,
// another writer, a restored or copied file): serving around it would hide acknowledged records and let
// the registry hand out ids clients already hold, so start-up refuses and the file is left as it is.
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../../platform/log.ts";
import { fsyncDir, readExactly, writeFully } from "../../platform/files.ts";
import { BrokerError } from "../broker.ts";
import { FrameCorruption, findNextIntactFrame, readFrames, type RawFrame } from "./frame-reader.ts";
import { FRAME_HEADER_BYTES, FRAME_START_BYTES, frameOffset, isTornFrame } from "./record-frame.ts";

export interface RecoveredLog {
  /** Bytes of intact frames from the start of the file; the file has been truncated to this. */
  validEnd: number;
  /** Offset of the last intact frame, -1 when there is none. */
  lastOffset: number;
}

/** A log with damage before its end. Nothing was changed on disk. */
export class LogDamaged extends BrokerError {
  constructor(
    readonly file: string,
    readonly position: number,
    readonly lastGoodOffset: number,
    reason: string,
  ) {
    super(
      `${file} is damaged at byte ${position} (${reason}); ` +
        (lastGoodOffset < 0
          ? "no intact record precedes it. "
          : `the intact records before it end at offset ${lastGoodOffset}. `) +
        "The file was left as it is. To recover, stop Sluice and either restore the data directory from a backup, " +
        `or run \`sluice repair-log ${file}\`: it keeps the damaged file beside the log and rewrites the log with every ` +
        "intact record (the records in the damaged bytes are lost; for _schemas, clients may hold their ids).",
      false,
    );
    this.name = "LogDamaged";
  }
}

/** Where the intact frames of a log end and why, without changing the file. */
export interface LogScan {
  validEnd: number;
  lastOffset: number;
  size: number;
  damage?: FrameCorruption;
}

/** Calls `visit` for each intact frame from `start`, in order, up to the first that is not (or goes backwards). */
export async function scanLog(
  handle: FileHandle,
  start: number,
  afterOffset: number,
  visit: (frame: RawFrame, offset: number) => void | Promise<void>,
): Promise<LogScan> {
  const size = (await handle.stat()).size;
  let validEnd = start;
  let lastOffset = afterOffset;
  try {
    for await (const frame of readFrames(handle, start, size)) {
      const offset = frameOffset(frame.buf, frame.at);
      // A checksummed frame that goes backwards is stale data (e.g. a copied block), not ours to serve.
      if (offset <= lastOffset) throw new FrameCorruption(frame.position, `offset ${offset} after ${lastOffset}`);
      await visit(frame, offset);
      lastOffset = offset;
      validEnd = frame.position + FRAME_HEADER_BYTES + frame.bodyLength;
    }
  } catch (err) {
    if (!(err instanceof FrameCorruption)) throw err;
    return { validEnd, lastOffset, size, damage: err };
  }
  return { validEnd, lastOffset, size };
}

/**
 * Scans `file`, calling `visit` for each intact frame in order. Cuts a torn last frame (keeping its bytes
 * in `<file>.torn-<ms>`); throws LogDamaged for anything else.
 */
export async function recoverLog(
  handle: FileHandle,
  file: string,
  log: Logger,
  visit: (frame: RawFrame, offset: number) => void,
): Promise<RecoveredLog> {
  const { validEnd, lastOffset, size, damage } = await scanLog(handle, 0, -1, visit);
  if (damage === undefined) return { validEnd, lastOffset };

  const remaining = size - validEnd;
  const start = await readExactly(handle, validEnd, Math.min(remaining, FRAME_START_BYTES));
  const torn =
    isTornFrame(start, remaining, lastOffset + 1) &&
    (await findNextIntactFrame(handle, validEnd + 1, size, lastOffset)) === undefined;
  if (!torn) throw new LogDamaged(file, validEnd, lastOffset, damage.reason);

  const kept = `${file}.torn-${Date.now()}`;
  await copyRange(handle, validEnd, size, kept);
  log.warn(
    { file, position: validEnd, droppedBytes: remaining, keptIn: kept },
    "torn last record in partition log (an unacknowledged append cut short by a crash); cut it off, its bytes kept",
  );
  await handle.truncate(validEnd);
  await handle.sync();
  return { validEnd, lastOffset };
}

/** Copies [start, end) of `from` into a new file `path`, durably. */
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
