// Record keys as Map keys: latin1 maps each byte to one char, so distinct byte strings stay distinct
// and the string costs about one byte per key byte.
import type { Bytes } from "../broker.ts";

/** Latest record per key of a compacted partition: what compaction keeps and how dirty the log is. */
export interface KeyState {
  offset: number;
  tombstone: boolean;
  timestamp: number;
}

export function keyId(key: Bytes): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("latin1");
}
