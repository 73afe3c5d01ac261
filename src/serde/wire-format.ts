// Confluent's wire format: magic byte 0x00, 4-byte big-endian schema id, then (Protobuf only) the
// message-index array, then the payload.
import { SerializationException } from "./errors.ts";

export const MAGIC_BYTE = 0;
const HEADER = 5;

export function frame(id: number, payload: Uint8Array, prefix?: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + (prefix?.length ?? 0) + payload.length);
  out[0] = MAGIC_BYTE;
  new DataView(out.buffer).setInt32(1, id, false);
  if (prefix) out.set(prefix, HEADER);
  out.set(payload, HEADER + (prefix?.length ?? 0));
  return out;
}

/** The schema id of framed bytes, and where what follows the header starts. */
export function unframe(bytes: Uint8Array): { id: number; offset: number } {
  if (bytes.length < HEADER) {
    throw new SerializationException(`Truncated message: ${bytes.length} bytes is shorter than the 5-byte header (magic byte and schema id)`);
  }
  if (bytes[0] !== MAGIC_BYTE) throw new SerializationException(`Unknown magic byte ${bytes[0]}: not in the Confluent wire format`);
  const id = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(1, false);
  return { id, offset: HEADER };
}
