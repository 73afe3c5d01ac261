// On-disk framing of one record: [u32 bodyLength][u32 crc32(body)][body]. The body is self-describing
// (it carries its own offset), so frames can be copied between files unchanged, e.g. by compaction.
//
// body: u8 version=1 | i64 offset | i64 timestamp | i32 keyLen (-1 = null) | key
//       | i32 valueLen (-1 = null, tombstone) | value | u32 headerCount | (u32 nameLen, name utf8, i32 len, bytes)*
// Headers are kept in order, a name may repeat. A header value's length -1 is null: earlier versions wrote
// no null header values (and read lengths as unsigned, -1 being far beyond a body's bound), so frames they
// wrote decode the same.
import { crc32 } from "node:zlib";
import type { Bytes, RecordHeader } from "../broker.ts";

export const FRAME_HEADER_BYTES = 8;
const VERSION = 1;
/** version + offset + timestamp + keyLen + valueLen + headerCount */
export const MIN_BODY_BYTES = 1 + 8 + 8 + 4 + 4 + 4;
/** Upper bound for one frame; larger lengths on disk are treated as corruption, larger records are refused. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface FrameRecord {
  offset: number;
  timestamp: number;
  key: Bytes | null;
  value: Bytes | null;
  headers: readonly RecordHeader[];
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const TWO_32 = 0x1_0000_0000;

function writeInt64(view: DataView, at: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  view.setInt32(at, hi);
  view.setUint32(at + 4, n - hi * TWO_32);
}

function readInt64(view: DataView, at: number): number {
  return view.getInt32(at) * TWO_32 + view.getUint32(at + 4);
}

/** Encodes one record as a complete frame (header + body). */
export function encodeFrame(record: FrameRecord): Uint8Array {
  const headerEntries = record.headers.map(({ key, value }) => [utf8.encode(key), value] as const);
  let bodyLength = MIN_BODY_BYTES + (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const [name, value] of headerEntries) bodyLength += 8 + name.length + (value?.length ?? 0);
  if (bodyLength > MAX_BODY_BYTES) throw new RangeError(`record of ${bodyLength} bytes exceeds ${MAX_BODY_BYTES}`);

  const frame = new Uint8Array(FRAME_HEADER_BYTES + bodyLength);
  const view = new DataView(frame.buffer);
  let at = FRAME_HEADER_BYTES;
  view.setUint8(at, VERSION);
  writeInt64(view, at + 1, record.offset);
  writeInt64(view, at + 9, record.timestamp);
  at += 17;
  // Lengths stay below MAX_BODY_BYTES, so signed and unsigned 32-bit encodings coincide.
  const putBytes = (bytes: Bytes | null): void => {
    view.setInt32(at, bytes === null ? -1 : bytes.length);
    if (bytes !== null) frame.set(bytes, at + 4);
    at += 4 + (bytes?.length ?? 0);
  };
  putBytes(record.key);
  putBytes(record.value);
  view.setUint32(at, headerEntries.length);
  at += 4;
  for (const [name, value] of headerEntries) {
    putBytes(name);
    putBytes(value);
  }
  view.setUint32(0, bodyLength);
  view.setUint32(4, crc32(frame.subarray(FRAME_HEADER_BYTES)));
  return frame;
}

/** Body length announced by the frame header at `at`, or undefined when it cannot be a frame of ours. */
export function bodyLengthAt(buf: Uint8Array, at: number): number | undefined {
  const length = new DataView(buf.buffer, buf.byteOffset + at, 4).getUint32(0);
  return length >= MIN_BODY_BYTES && length <= MAX_BODY_BYTES ? length : undefined;
}

/** Bytes of a frame's start that tell a torn frame from damage: header, version, offset. */
export const FRAME_START_BYTES = FRAME_HEADER_BYTES + 1 + 8;

/**
 * Whether the last `remaining` bytes of a file, starting with `start` (their first FRAME_START_BYTES or
 * fewer), can be what a crash mid-append leaves: a prefix of a frame of offset `nextOffset` or later
 * (later after offsets an aborted transaction left unused). That is, too short for a header, or a
 * plausible length running past the end, our version and such an offset, as far as they are there.
 * Anything else at the end of a log is damage.
 */
export function isTornFrame(start: Uint8Array, remaining: number, nextOffset: number): boolean {
  if (remaining < FRAME_HEADER_BYTES) return true;
  const bodyLength = bodyLengthAt(start, 0);
  if (bodyLength === undefined || FRAME_HEADER_BYTES + bodyLength <= remaining) return false;
  const expected = new Uint8Array(FRAME_START_BYTES - FRAME_HEADER_BYTES);
  const view = new DataView(expected.buffer);
  view.setUint8(0, VERSION);
  writeInt64(view, 1, nextOffset);
  const present = start.subarray(FRAME_HEADER_BYTES, FRAME_START_BYTES);
  if (present.length > 0 && present[0] !== VERSION) return false;
  // Offsets are non-negative big-endian: as far as its bytes are there, the offset is not below nextOffset.
  for (let i = 1; i < present.length; i++) {
    if (present[i] !== expected[i]) return present[i]! > expected[i]!;
  }
  return true;
}

/** Whether the frame at `at` (whose body is entirely in `buf`) has our version and a matching CRC. */
export function frameIsIntact(buf: Uint8Array, at: number, bodyLength: number): boolean {
  const stored = new DataView(buf.buffer, buf.byteOffset + at + 4, 4).getUint32(0);
  const body = buf.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + bodyLength);
  return body[0] === VERSION && stored === crc32(body);
}

/** Offset stored in the frame at `at` (no checksum check; used to judge resync candidates). */
export function frameOffset(buf: Uint8Array, at: number): number {
  return readInt64(new DataView(buf.buffer, buf.byteOffset + at + FRAME_HEADER_BYTES + 1, 8), 0);
}

/** What compaction and recovery need from a frame, without materialising value and headers. */
export interface FrameSummary {
  offset: number;
  timestamp: number;
  key: Bytes | null;
  tombstone: boolean;
}

/**
 * Decodes an intact frame. Byte arrays are views into `buf` (no copy). Throws RangeError when the
 * body's own lengths do not add up, which a matching CRC makes a bug rather than disk damage.
 */
export function decodeFrame(buf: Uint8Array, at: number, bodyLength: number): FrameRecord {
  const fields = new BodyFields(buf, at + FRAME_HEADER_BYTES, bodyLength);
  const { offset, timestamp, key } = fields;
  const value = fields.bytes(true);
  const headers: RecordHeader[] = [];
  const count = fields.uint32();
  for (let i = 0; i < count; i++) {
    const key = fromUtf8.decode(fields.bytes(false) ?? new Uint8Array(0));
    headers.push({ key, value: fields.bytes(true) });
  }
  fields.expectEnd();
  return { offset, timestamp, key, value, headers };
}

export function summarizeFrame(buf: Uint8Array, at: number, bodyLength: number): FrameSummary {
  const fields = new BodyFields(buf, at + FRAME_HEADER_BYTES, bodyLength);
  const { offset, timestamp, key } = fields;
  return { offset, timestamp, key, tombstone: fields.bytes(true) === null };
}

/** Sequential reader over one body, bounds-checked against the body's length. */
class BodyFields {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Bytes | null;
  private readonly view: DataView;
  private p: number;
  private readonly end: number;

  constructor(
    private readonly buf: Uint8Array,
    at: number,
    length: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset);
    this.end = at + length;
    this.need(at, MIN_BODY_BYTES);
    this.offset = readInt64(this.view, at + 1);
    this.timestamp = readInt64(this.view, at + 9);
    this.p = at + 17;
    this.key = this.bytes(true);
  }

  uint32(): number {
    this.need(this.p, 4);
    const n = this.view.getUint32(this.p);
    this.p += 4;
    return n;
  }

  bytes(nullable: boolean): Bytes | null {
    this.need(this.p, 4);
    const length = nullable ? this.view.getInt32(this.p) : this.view.getUint32(this.p);
    this.p += 4;
    if (length === -1 && nullable) return null;
    this.need(this.p, length);
    const bytes = this.buf.subarray(this.p, this.p + length);
    this.p += length;
    return bytes;
  }

  expectEnd(): void {
    if (this.p !== this.end) throw new RangeError("trailing bytes in record body");
  }

  private need(at: number, length: number): void {
    if (length < 0 || at + length > this.end) throw new RangeError("record body shorter than its fields");
  }
}
