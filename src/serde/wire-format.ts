// Confluent's wire format: magic byte 0x00, 4-byte big-endian schema id, then (Protobuf only) the
// message-index array, then the payload.
import { SerializationException } from "./errors.ts";

export const MAGIC_BYTE = 0;
export const HEADER = 5;

/** Writes the magic byte and the schema id at the start of `out`. */
export function writeHeader(out: Uint8Array, id: number): void {
  out[0] = MAGIC_BYTE;
  out[1] = id >>> 24;
  out[2] = (id >>> 16) & 0xff;
  out[3] = (id >>> 8) & 0xff;
  out[4] = id & 0xff;
}

/** Header + prefix + payload in one buffer; a string payload is written as UTF-8 straight into it. */
export function frame(id: number, payload: Uint8Array | string, prefix?: Uint8Array): Uint8Array {
  const start = HEADER + (prefix?.length ?? 0);
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  // A Buffer (a Uint8Array): decoders read it without a view.
  const out = Buffer.allocUnsafe(start + size);
  writeHeader(out, id);
  if (prefix) out.set(prefix, HEADER);
  if (typeof payload === "string") out.write(payload, start, "utf8");
  else out.set(payload, start);
  return out;
}

/** The schema id of framed bytes, and where what follows the header starts. */
export function unframe(bytes: Uint8Array): { id: number; offset: number } {
  if (bytes.length < HEADER) {
    throw new SerializationException(
      `Truncated message: ${bytes.length} bytes is shorter than the 5-byte header (magic byte and schema id)`,
    );
  }
  if (bytes[0] !== MAGIC_BYTE)
    throw new SerializationException(`Unknown magic byte ${bytes[0]}: not in the Confluent wire format`);
  const id = (bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!;
  return { id, offset: HEADER };
}
