// How a serializer turns values into a schema type's framed bytes and back. One codec per schema
// type; the schemas themselves are parsed by the registry's formats (the same code on both sides).
// Codecs hand out an encoder per schema id and a decoder per writer schema, so what can be looked up
// once (runtime types, message indexes, Avro resolvers) is not looked up per record.
import type { ParsedSchema, SchemaType } from "../../schema/format.ts";

/** Checks a value against the schema and returns header and payload in one buffer; throws SerializationException on a mismatch. */
export type Encode = (value: unknown) => Uint8Array;
/** Decodes what follows the header: `bytes` from `offset`. */
export type Decode = (bytes: Uint8Array, offset: number) => unknown;

export interface ValueCodec {
  readonly schemaType: SchemaType;
  /** The encoder for values of `schema` (Protobuf: of message `messageName`) written with schema id `id`. */
  encoder(schema: ParsedSchema, id: number, messageName?: string): Encode;
  /** The decoder for bytes written with `writer`, resolved to `reader` when given. */
  decoder(writer: ParsedSchema, reader?: ParsedSchema): Decode;
  /** The record/message full name, for RecordNameStrategy. */
  recordName(schema: ParsedSchema, messageName?: string): string | undefined;
}
