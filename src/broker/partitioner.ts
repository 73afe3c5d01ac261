// Kafka's default partitioner for keyed records, bit for bit: toPositive(murmur2(key)) % partitions.
// Matching Java exactly matters: a topic shared with Kafka clients must put a key on the same partition.

/** Kafka's `Utils.murmur2` (signed 32-bit result, as Java returns it). */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (0x9747b28c ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = data[i4] | (data[i4 + 1] << 8) | (data[i4 + 2] << 16) | (data[i4 + 3] << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  // Java's fall-through switch on length % 4, unrolled.
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2] << 16;
  if (rest >= 2) h ^= data[tail + 1] << 8;
  if (rest >= 1) {
    h ^= data[tail];
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not Math.abs, which differs for MIN_VALUE). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** The partition Kafka's default partitioner picks for a non-null key. */
export function kafkaPartition(key: Uint8Array, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`invalid partition count ${partitions}`);
  return toPositive(murmur2(key)) % partitions;
}
