// Confluent 8's schema ids in record headers (HeaderSchemaIdSerializer, DualSchemaIdDeserializer): the
// header `__value_schema_id` (`__key_schema_id` for keys) holds magic byte 0x01 and the schema's GUID
// (16 bytes, big-endian as java.util.UUID), or magic byte 0x00 and the 4-byte id; then, for Protobuf,
// the message indexes. The record's value is then the bare payload.
import { SerializationException } from "./errors.ts";

export const KEY_SCHEMA_ID_HEADER = "__key_schema_id";
export const VALUE_SCHEMA_ID_HEADER = "__value_schema_id";
const MAGIC_ID = 0;
const MAGIC_GUID = 1;

/** A record header, as the broker clients give them: a key may repeat, a value may be null. */
export interface SerdeHeader {
  key: string;
  value: Uint8Array | null;
}

export const schemaIdHeaderName = (isKey: boolean) => (isKey ? KEY_SCHEMA_ID_HEADER : VALUE_SCHEMA_ID_HEADER);

/** Magic byte 0x01 and the GUID's 16 bytes. */
export function guidHeaderPrefix(guid: string): Uint8Array {
  const hex = guid.replace(/-/g, "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new SerializationException(`Invalid schema GUID '${guid}'`);
  const out = new Uint8Array(17);
  out[0] = MAGIC_GUID;
  out.set(Buffer.from(hex, "hex"), 1);
  return out;
}

function guidString(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** How many bytes Protobuf's message indexes take at `offset` (a zigzag varint count, then the indexes). */
export function messageIndexesLength(bytes: Uint8Array, offset: number): number {
  let at = offset;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= bytes.length) throw new SerializationException("Truncated Protobuf message indexes");
      const b = bytes[at++]!;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return (value >>> 1) ^ -(value & 1);
      if (shift > 28) throw new SerializationException("Invalid Protobuf message indexes");
    }
  };
  const count = varint();
  for (let i = 0; i < count; i++) varint();
  return at - offset;
}

/**
 * Framed bytes (magic byte, id, then for Protobuf the message indexes, then the payload) split as the
 * header serializer writes them: the header's value (`guidPrefix` and the indexes) and the bare payload.
 */
export function splitForHeader(
  framed: Uint8Array,
  guidPrefix: Uint8Array,
  protobuf: boolean,
): { header: Uint8Array; payload: Uint8Array } {
  const indexes = protobuf ? messageIndexesLength(framed, 5) : 0;
  const header = new Uint8Array(guidPrefix.length + indexes);
  header.set(guidPrefix);
  header.set(framed.subarray(5, 5 + indexes), guidPrefix.length);
  return { header, payload: framed.subarray(5 + indexes) };
}

/** The last header named `name` with a value (Kafka's lastHeader), if any. */
export function lastHeader(headers: Iterable<SerdeHeader> | undefined, name: string): Uint8Array | undefined {
  let found: Uint8Array | undefined;
  for (const h of headers ?? []) if (h.key === name && h.value) found = h.value;
  return found;
}

/**
 * A schema id header's schema (an id or a GUID) and the bytes a decoder reads: a 5-byte frame, the
 * header's message indexes, then the payload (the decoders read framed bytes from offset 5).
 */
export function readSchemaIdHeader(
  header: Uint8Array,
  payload: Uint8Array,
): { id?: number; guid?: string; framed: Uint8Array } {
  const magic = header[0];
  const size = magic === MAGIC_ID ? 5 : magic === MAGIC_GUID ? 17 : -1;
  if (size < 0) throw new SerializationException(`Unknown magic byte ${magic} in the schema id header`);
  if (header.length < size) throw new SerializationException("Truncated schema id header");
  const framed = new Uint8Array(5 + header.length - size + payload.length);
  framed.set(header.subarray(size), 5);
  framed.set(payload, 5 + header.length - size);
  if (magic === MAGIC_ID) {
    const id = new DataView(header.buffer, header.byteOffset, header.length).getInt32(1, false);
    return { id, framed };
  }
  return { guid: guidString(header.subarray(1, 17)), framed };
}
