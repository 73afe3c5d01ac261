// Offset → file position, one entry per ~INDEX_INTERVAL_BYTES of log (like Kafka's index.interval.bytes),
// so a fetch reads at most that much before its first record and memory stays ~16 bytes per 4 KiB of log.

export const INDEX_INTERVAL_BYTES = 4096;

export class SparseIndex {
  private offsets: Float64Array = new Float64Array(64);
  private positions: Float64Array = new Float64Array(64);
  private size = 0;
  private lastIndexedPosition = -Infinity;

  /** Records a frame; kept only if it is the first or far enough from the previous entry. Frames come in order. */
  add(offset: number, position: number): void {
    if (position - this.lastIndexedPosition < INDEX_INTERVAL_BYTES) return;
    if (this.size === this.offsets.length) {
      this.offsets = grow(this.offsets);
      this.positions = grow(this.positions);
    }
    this.offsets[this.size] = offset;
    this.positions[this.size] = position;
    this.size++;
    this.lastIndexedPosition = position;
  }

  /** Position of the last indexed frame with offset ≤ `offset` (0 when the target precedes every entry). */
  floor(offset: number): number {
    let lo = 0;
    let hi = this.size - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid] <= offset) {
        found = this.positions[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}

function grow(a: Float64Array): Float64Array {
  const bigger = new Float64Array(a.length * 2);
  bigger.set(a);
  return bigger;
}
