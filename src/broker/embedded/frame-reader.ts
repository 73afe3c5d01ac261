// Sequential reading of frames from a range of a log file, in chunks, with every CRC checked:
// data read from disk is never trusted, even data this process wrote itself.
import type { FileHandle } from "node:fs/promises";
import { readExactly } from "../../platform/files.ts";
import { FRAME_HEADER_BYTES, bodyLengthAt, frameIsIntact, frameOffset, MIN_BODY_BYTES } from "./record-frame.ts";

/** One intact frame: its bytes are buf[at, at + FRAME_HEADER_BYTES + bodyLength). */
export interface RawFrame {
  /** File position of the frame's first byte. */
  position: number;
  buf: Uint8Array;
  at: number;
  bodyLength: number;
}

/** The range holds something that is not an intact frame at `position` (torn, corrupt or cut off). */
export class FrameCorruption extends Error {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`${reason} at byte ${position}`);
    this.name = "FrameCorruption";
  }
}

const DEFAULT_CHUNK = 1024 * 1024;

/** Yields the frames of [start, end) in order; throws FrameCorruption at the first bad one. */
export async function* readFrames(
  handle: FileHandle,
  start: number,
  end: number,
  chunkBytes = DEFAULT_CHUNK,
): AsyncGenerator<RawFrame> {
  let buf: Uint8Array = new Uint8Array(0);
  let bufStart = start;
  let pos = start;
  const fill = async (need: number): Promise<void> => {
    const size = Math.min(Math.max(chunkBytes, need), end - pos);
    if (size < need) throw new FrameCorruption(pos, `incomplete frame (${end - pos} of ${need} bytes)`);
    buf = await readExactly(handle, pos, size);
    bufStart = pos;
  };
  while (pos < end) {
    let rel = pos - bufStart;
    if (rel + FRAME_HEADER_BYTES > buf.length) {
      await fill(FRAME_HEADER_BYTES);
      rel = 0;
    }
    const bodyLength = bodyLengthAt(buf, rel);
    if (bodyLength === undefined) throw new FrameCorruption(pos, "implausible frame length");
    const frameLength = FRAME_HEADER_BYTES + bodyLength;
    if (rel + frameLength > buf.length) {
      await fill(frameLength);
      rel = 0;
    }
    if (!frameIsIntact(buf, rel, bodyLength)) throw new FrameCorruption(pos, "checksum mismatch");
    yield { position: pos, buf, at: rel, bodyLength };
    pos += frameLength;
  }
}

const RESYNC_WINDOW = 4 * 1024 * 1024;

/**
 * First position in [from, end) where an intact frame with an offset above `afterOffset` starts, or
 * undefined. Tells a torn tail (nothing valid follows) from damage in the middle of a log.
 */
export async function findNextIntactFrame(
  handle: FileHandle,
  from: number,
  end: number,
  afterOffset: number,
): Promise<number | undefined> {
  for (let windowStart = from; windowStart + FRAME_HEADER_BYTES + MIN_BODY_BYTES <= end; windowStart += RESYNC_WINDOW) {
    const windowLength = Math.min(RESYNC_WINDOW + FRAME_HEADER_BYTES + MIN_BODY_BYTES, end - windowStart);
    const window = await readExactly(handle, windowStart, windowLength);
    const candidates = Math.min(RESYNC_WINDOW, windowLength - FRAME_HEADER_BYTES - MIN_BODY_BYTES + 1);
    for (let q = 0; q < candidates; q++) {
      const bodyLength = bodyLengthAt(window, q);
      if (bodyLength === undefined || windowStart + q + FRAME_HEADER_BYTES + bodyLength > end) continue;
      let buf = window;
      let at = q;
      if (q + FRAME_HEADER_BYTES + bodyLength > window.length) {
        buf = await readExactly(handle, windowStart + q, FRAME_HEADER_BYTES + bodyLength);
        at = 0;
      }
      if (frameIsIntact(buf, at, bodyLength) && frameOffset(buf, at) > afterOffset) return windowStart + q;
    }
  }
  return undefined;
}
