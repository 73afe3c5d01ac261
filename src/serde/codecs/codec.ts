// How a serializer turns values into a schema type's payload and back. One codec per schema type;
// the schemas themselves are parsed by the registry's formats (the same code on both sides).
import type { ParsedSchema, SchemaType } from "../../schema/format.ts";

export interface Encoded {
  /** Bytes, or text written as UTF-8 (saves a copy). */
  payload: Uint8Array | string;
  /** Bytes between the 5-byte header and the payload (Protobuf's message indexes). */
  prefix?: Uint8Array;
}

export interface ValueCodec {
  readonly schemaType: SchemaType;
  /** Checks `value` against the schema and encodes it; throws SerializationException on a mismatch. */
  encode(schema: ParsedSchema, value: unknown, messageName?: string): Encoded;
  /** Decodes what follows the header (`bytes` from `offset`), resolving to `reader` when given. */
  decode(writer: ParsedSchema, bytes: Uint8Array, offset: number, reader?: ParsedSchema): unknown;
  /** The record/message full name, for RecordNameStrategy. */
  recordName(schema: ParsedSchema, messageName?: string): string | undefined;
}
