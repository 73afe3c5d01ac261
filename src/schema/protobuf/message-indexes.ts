// Confluent's message-index prefix (MessageIndexes.java): the path from the file root to the
// message a Protobuf payload holds, as Kafka ByteUtils zig-zag varints — the count, then each index.
// [0], by far the most common, is written as the single byte 0x00 (count 0 means [0]).

function writeVarint(value: number, out: number[]): void {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

function readVarint(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let raw = 0;
  let shift = 0;
  let pos = offset;
  for (;;) {
    if (pos >= bytes.length) throw new RangeError("Truncated message indexes");
    const b = bytes[pos++];
    raw |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw new RangeError("Varint is too long, the most significant bit in the 5th byte is set");
  }
  raw >>>= 0;
  return { value: (raw >>> 1) ^ -(raw & 1), next: pos };
}

export function encodeMessageIndexes(indexes: readonly number[]): Uint8Array {
  if (indexes.length === 1 && indexes[0] === 0) return Uint8Array.of(0);
  const out: number[] = [];
  writeVarint(indexes.length, out);
  for (const i of indexes) writeVarint(i, out);
  return Uint8Array.from(out);
}

/** Reads the prefix at `offset`; `next` is where the Protobuf payload starts. */
export function decodeMessageIndexes(bytes: Uint8Array, offset: number): { indexes: number[]; next: number } {
  const count = readVarint(bytes, offset);
  if (count.value === 0) return { indexes: [0], next: count.next };
  if (count.value < 0) throw new RangeError(`Invalid message index count: ${count.value}`);
  const indexes: number[] = [];
  let next = count.next;
  for (let i = 0; i < count.value; i++) {
    const index = readVarint(bytes, next);
    indexes.push(index.value);
    next = index.next;
  }
  return { indexes, next };
}
