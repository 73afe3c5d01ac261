// Protobuf values: plain objects checked and encoded with protobufjs; the message-index array tells
// the reader which message of the file was written.
import protobuf from "protobufjs";
import type { ParsedSchema } from "../../schema/format.ts";
import {
  decodeMessageIndexes,
  encodeMessageIndexes,
  indexesForMessage,
  messageForIndexes,
  messageTypes,
} from "../../schema/protobuf/index.ts";
import { SerializationException } from "../errors.ts";
import { frame, MAGIC_BYTE } from "../wire-format.ts";
import type { ValueCodec } from "./codec.ts";

/** How decoded messages are presented: 64-bit integers and enums as strings, bytes as base64, like proto3 JSON. */
const TO_OBJECT = { longs: String, enums: String, bytes: String } as const;

/** The message a schema (and message name) writes. */
function messageToWrite(schema: ParsedSchema, name: string | undefined): { fullName: string; indexes: number[] } {
  const fullName = name ?? messageTypes(schema)[0]?.fullName;
  if (!fullName) throw new SerializationException("The Protobuf schema defines no message");
  try {
    return { fullName, indexes: indexesForMessage(schema, fullName) };
  } catch (err) {
    throw new SerializationException(`Message ${fullName} is not in the schema: ${(err as Error).message}`);
  }
}

/** The big-endian id as protobufjs' (little-endian) fixed32 must be given it. */
function byteSwapped(id: number): number {
  return (((id & 0xff) << 24) | ((id & 0xff00) << 8) | ((id >>> 8) & 0xff00) | (id >>> 24)) >>> 0;
}

/**
 * Writes framed messages of one type with one id and message-index prefix. The header and prefix go
 * into protobufjs' writer ahead of the message, so finish() returns the framed bytes with no copy.
 * Prefix bytes below 0x80 are each their own varint; longer index paths (an index of 64 or more) are
 * framed by copying instead.
 */
export function protobufFramer(type: protobuf.Type, id: number, prefix: Uint8Array): (message: object) => Uint8Array {
  const prefixBytes = prefix.every((b) => b < 0x80) ? [...prefix] : undefined;
  if (!prefixBytes) return (message) => frame(id, type.encode(message).finish(), prefix);
  const idLittleEndian = byteSwapped(id);
  return (message) => {
    const writer = protobuf.Writer.create().uint32(MAGIC_BYTE).fixed32(idLittleEndian);
    for (const b of prefixBytes) writer.uint32(b);
    return type.encode(message, writer).finish();
  };
}

export const protobufCodec: ValueCodec = {
  schemaType: "PROTOBUF",

  encoder(schema, id, name) {
    const { fullName, indexes } = messageToWrite(schema, name);
    const type = messageForIndexes(schema, indexes);
    const prefix = encodeMessageIndexes(indexes);
    /** Keys a value may have: field names as written and protobufjs' camelCase names. */
    const keys = new Set<string>();
    for (const [camel, field] of Object.entries(type.fields)) keys.add(camel).add(field.name);
    const write = protobufFramer(type, id, prefix);
    const fail = (problem: string): never => {
      throw new SerializationException(`Error serializing Protobuf message ${fullName}: ${problem}`);
    };
    return (value) => {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        return fail("a message must be an object");
      // Proto3 JSON conventions are accepted (64-bit integers as strings, enums by name): convert first,
      // then check the converted message; fields the message does not have are an error, not dropped.
      for (const key in value) if (!keys.has(key)) fail(`unknown field ${key}`);
      let message: protobuf.Message;
      try {
        message = type.fromObject(value as Record<string, unknown>);
      } catch (err) {
        return fail((err as Error).message);
      }
      const problem = type.verify(message);
      if (problem) fail(problem);
      return write(message);
    };
  },

  decoder(writer) {
    let first: protobuf.Type | undefined;
    const others = new Map<string, protobuf.Type>();
    return (bytes, offset) => {
      try {
        // A single 0x00 (the first message) is the common case: no index parsing.
        let type: protobuf.Type;
        let next = offset + 1;
        if (bytes[offset] === 0) type = first ??= messageForIndexes(writer, [0]);
        else {
          const read = decodeMessageIndexes(bytes, offset);
          const key = read.indexes.join(".");
          type = others.get(key) ?? messageForIndexes(writer, read.indexes);
          others.set(key, type);
          next = read.next;
        }
        // Read in place from `next`, without a view of the rest.
        const reader = protobuf.Reader.create(bytes);
        reader.pos = next;
        return type.toObject(type.decode(reader), TO_OBJECT);
      } catch (err) {
        if (err instanceof SerializationException) throw err;
        throw new SerializationException(`Error deserializing Protobuf message: ${(err as Error).message}`, err);
      }
    };
  },

  recordName(schema, name) {
    return messageToWrite(schema, name).fullName;
  },
};
