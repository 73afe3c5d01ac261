// Kafka's record batch (magic 2, KIP-98's format), written and read by Sluice rather than the Kafka client.
// Written in two passes into one buffer, the sizes first, then the bytes: the client builds each record
// with a writer of its own and a small buffer per varint, and joins them again for the CRC. Read from the
// fetched bytes straight into fetched records: the client makes an object per record and field first.
// Both were most of a worker's per-record CPU on small records.
import { compressionsAlgorithmsByBitmask, crc32c, UnsupportedCompressionError } from "@platformatic/kafka";
import { NO_HEADERS, type FetchedRecord, type RecordHeader } from "../broker.ts";

/** One record as a produce request carries it (the Kafka client's shape of a message). */
export interface BatchMessage {
  key?: Buffer | null;
  value?: Buffer | null;
  /** Header names to values, in order; a repeated name is a distinct Buffer key. */
  headers?: Map<Buffer, Buffer | null>;
  /** Milliseconds since the epoch; the batch's write time when absent. */
  timestamp?: bigint | number;
}

/** Who writes the batch: the idempotent producer's id, epoch and the partition's next sequence. */
export interface BatchWriter {
  producerId: bigint;
  producerEpoch: number;
  firstSequence: number;
  transactional: boolean;
}

/** baseOffset … recordCount: the fixed fields before the first record. */
const BATCH_HEADER_BYTES = 61;
/** Where each of the batch's fixed fields starts; the CRC-32C covers everything from the attributes on. */
const AT = {
  length: 8,
  leaderEpoch: 12,
  magic: 16,
  crc: 17,
  attributes: 21,
  lastOffsetDelta: 23,
  firstTimestamp: 27,
  maxTimestamp: 35,
  producerId: 43,
  producerEpoch: 51,
  firstSequence: 53,
  count: 57,
} as const;
const MAGIC = 2;
/** Batch attributes: the compression codec's bits, timestamp type, transactional, control. */
const COMPRESSION = 0x07;
const LOG_APPEND_TIME = 0x08;
export const TRANSACTIONAL = 0x10;
export const CONTROL = 0x20;
/** The batch carries no leader epoch of its own: the broker sets it (Kafka's NO_PARTITION_LEADER_EPOCH). */
const NO_PARTITION_LEADER_EPOCH = -1;

/** The record batch of `messages`, in their order (offset deltas 0, 1, …). */
export function encodeRecordBatch(messages: readonly BatchMessage[], writer: BatchWriter, now = Date.now()): Buffer {
  const count = messages.length;
  const first = timestampOf(messages[0]!, now);
  let max = first;
  const bodies = new Array<number>(count);
  let total = BATCH_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    const m = messages[i]!;
    const ts = timestampOf(m, now);
    if (ts > max) max = ts;
    let body = 1 + varlongBytes(zigzag(ts - first)) + varlongBytes(zigzag(i)) + bytesField(m.key) + bytesField(m.value);
    const headers = m.headers;
    if (headers === undefined) body += 1;
    else {
      body += varlongBytes(zigzag(headers.size));
      for (const [name, value] of headers) body += bytesField(name) + bytesField(value);
    }
    bodies[i] = body;
    total += varlongBytes(zigzag(body)) + body;
  }

  const out = Buffer.allocUnsafe(total);
  out.writeBigInt64BE(0n, 0); // base offset: the broker assigns it
  out.writeInt32BE(total - 12, AT.length);
  out.writeInt32BE(NO_PARTITION_LEADER_EPOCH, AT.leaderEpoch);
  out[AT.magic] = MAGIC;
  out.writeInt16BE(writer.transactional ? TRANSACTIONAL : 0, AT.attributes);
  out.writeInt32BE(count - 1, AT.lastOffsetDelta);
  out.writeBigInt64BE(BigInt(first), AT.firstTimestamp);
  out.writeBigInt64BE(BigInt(max), AT.maxTimestamp);
  out.writeBigInt64BE(writer.producerId, AT.producerId);
  out.writeInt16BE(writer.producerEpoch, AT.producerEpoch);
  out.writeInt32BE(writer.firstSequence, AT.firstSequence);
  out.writeInt32BE(count, AT.count);
  let at = BATCH_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    const m = messages[i]!;
    at = writeVarlong(out, at, zigzag(bodies[i]!));
    out[at++] = 0; // record attributes: none are defined
    at = writeVarlong(out, at, zigzag(timestampOf(m, now) - first));
    at = writeVarlong(out, at, zigzag(i));
    at = writeBytes(out, at, m.key);
    at = writeBytes(out, at, m.value);
    const headers = m.headers;
    if (headers === undefined) out[at++] = 0;
    else {
      at = writeVarlong(out, at, zigzag(headers.size));
      for (const [name, value] of headers) {
        at = writeBytes(out, at, name);
        at = writeBytes(out, at, value);
      }
    }
  }
  out.writeUInt32BE(crc32c(out.subarray(AT.attributes)), AT.crc);
  return out;
}

function timestampOf(m: BatchMessage, now: number): number {
  const ts = m.timestamp;
  return ts === undefined ? now : typeof ts === "number" ? ts : Number(ts);
}

/** Kafka's zigzag encoding of a signed integer (any safe integer, not only 32-bit ones). */
function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

/** The bytes of an unsigned varint (varlong) holding `v`. */
function varlongBytes(v: number): number {
  let bytes = 1;
  for (; v >= 0x80; bytes++) v = Math.floor(v / 0x80);
  return bytes;
}

function writeVarlong(out: Buffer, at: number, v: number): number {
  while (v >= 0x80) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

/** A length-prefixed byte field's size: the zigzag varint length (-1 for null) and the bytes. */
function bytesField(b: Buffer | null | undefined): number {
  return b == null ? 1 : varlongBytes(zigzag(b.length)) + b.length;
}

function writeBytes(out: Buffer, at: number, b: Buffer | null | undefined): number {
  if (b == null) {
    out[at] = 1; // zigzag(-1)
    return at + 1;
  }
  at = writeVarlong(out, at, zigzag(b.length));
  out.set(b, at);
  return at + b.length;
}

/** A fetched record batch: its header's fields and its records' bytes (decompressed), read lazily. */
export interface RecordBatch {
  baseOffset: number;
  attributes: number;
  firstTimestamp: number;
  maxTimestamp: number;
  producerId: bigint;
  count: number;
  records: Buffer;
}

/**
 * The whole batches in a fetched partition's records; a batch the broker cut short at the fetch's byte
 * limit is left out, as Kafka's consumer leaves it (it is fetched again from its first offset). A batch
 * whose CRC-32C does not match ends them; when it is the first, CorruptBatchError.
 */
export function readRecordBatches(bytes: Buffer): RecordBatch[] {
  const batches: RecordBatch[] = [];
  for (let at = 0; bytes.length - at >= BATCH_HEADER_BYTES; ) {
    const end = at + 12 + bytes.readInt32BE(at + AT.length);
    if (end > bytes.length) break;
    // As Kafka's consumer (check.crcs): a batch damaged on disk or on the way is not read. The batches
    // before it are, and the read from its offset fails.
    const stored = bytes.readUInt32BE(at + AT.crc);
    const computed = crc32c(bytes.subarray(at + AT.attributes, end));
    if (computed !== stored) {
      if (batches.length > 0) break;
      throw new CorruptBatchError(Number(bytes.readBigInt64BE(at)), stored, computed);
    }
    const attributes = bytes.readInt16BE(at + AT.attributes);
    let records = bytes.subarray(at + BATCH_HEADER_BYTES, end);
    const codec = attributes & COMPRESSION;
    if (codec !== 0) {
      const algorithm = compressionsAlgorithmsByBitmask[codec];
      if (!algorithm) throw new UnsupportedCompressionError(`Unsupported compression algorithm with bitmask ${codec}`);
      records = algorithm.decompressSync(records);
    }
    batches.push({
      baseOffset: Number(bytes.readBigInt64BE(at)),
      attributes,
      firstTimestamp: Number(bytes.readBigInt64BE(at + AT.firstTimestamp)),
      maxTimestamp: Number(bytes.readBigInt64BE(at + AT.maxTimestamp)),
      producerId: bytes.readBigInt64BE(at + AT.producerId),
      count: bytes.readInt32BE(at + AT.count),
      records,
    });
    at = end;
  }
  return batches;
}

/** A fetched batch whose CRC-32C does not match its bytes. */
export class CorruptBatchError extends Error {
  constructor(
    readonly baseOffset: number,
    stored: number,
    computed: number,
  ) {
    super(`Record is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
    this.name = "CorruptBatchError";
  }
}

/** A control batch's type (0 abort, 1 commit): the second int16 of its one record's key. */
export function controlTypeOf(batch: RecordBatch): number {
  const r = batch.records;
  let at = skipVarint(r, 0) + 1; // length, attributes
  at = skipVarint(r, at); // timestamp delta
  at = skipVarint(r, at); // offset delta
  at = skipVarint(r, at); // key length
  return r.readInt16BE(at + 2);
}

/**
 * Appends the batch's records from offset `from` on (a batch may start before it) as fetched records.
 * Keys, values and header values are copies: a view would keep the whole response alive as long as the
 * record, and Buffers, not plain Uint8Arrays, since converters view them as Buffers.
 */
export function pushRecords(
  out: FetchedRecord[],
  topic: string,
  partition: number,
  from: number,
  batch: RecordBatch,
): void {
  const r = batch.records;
  const logAppendTime = batch.attributes & LOG_APPEND_TIME ? batch.maxTimestamp : undefined;
  const reader = { at: 0 };
  for (let i = 0; i < batch.count; i++) {
    const length = readVarint(r, reader);
    const end = reader.at + length;
    reader.at++; // attributes
    const timestampDelta = readVarint(r, reader);
    const offset = batch.baseOffset + readVarint(r, reader);
    if (offset < from) {
      reader.at = end;
      continue;
    }
    const key = readBytes(r, reader);
    const value = readBytes(r, reader);
    const headerCount = readVarint(r, reader);
    let headers: readonly RecordHeader[] = NO_HEADERS;
    if (headerCount > 0) {
      const list: RecordHeader[] = [];
      for (let h = 0; h < headerCount; h++) {
        const name = readBytes(r, reader);
        list.push({ key: name ? name.toString() : "", value: readBytes(r, reader) });
      }
      headers = list;
    }
    out.push({
      topic,
      partition,
      offset,
      timestamp: logAppendTime ?? batch.firstTimestamp + timestampDelta,
      key,
      value,
      headers,
    });
  }
}

/** A zigzag varint or varlong at the reader's position (any safe integer), moving past it. */
function readVarint(b: Buffer, reader: { at: number }): number {
  let at = reader.at;
  let byte = b[at++]!;
  let v = byte & 0x7f;
  for (let scale = 0x80; byte & 0x80; scale *= 0x80) {
    byte = b[at++]!;
    v += (byte & 0x7f) * scale;
  }
  reader.at = at;
  return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
}

function skipVarint(b: Buffer, at: number): number {
  while (b[at++]! & 0x80);
  return at;
}

/** A length-prefixed byte field, copied; null for length -1. */
function readBytes(b: Buffer, reader: { at: number }): Buffer | null {
  const length = readVarint(b, reader);
  if (length < 0) return null;
  const at = reader.at;
  reader.at = at + length;
  return Buffer.copyBytesFrom(b, at, length);
}
