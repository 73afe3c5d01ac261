// Protobuf values: plain objects checked and encoded with protobufjs; the message-index array tells
// the reader which message of the file was written.
import type protobuf from "protobufjs";
import type { ParsedSchema } from "../../schema/format.ts";
import {
  decodeMessageIndexes,
  encodeMessageIndexes,
  indexesForMessage,
  messageForIndexes,
  messageTypes,
} from "../../schema/protobuf/index.ts";
import { SerializationException } from "../errors.ts";
import type { ValueCodec } from "./codec.ts";

/** How decoded messages are presented: 64-bit integers and enums as strings, bytes as base64, like proto3 JSON. */
const TO_OBJECT = { longs: String, enums: String, bytes: String } as const;

interface MessageWriter {
  fullName: string;
  type: protobuf.Type;
  prefix: Uint8Array;
  /** Keys a value may have: field names as written and protobufjs' camelCase names. */
  keys: Set<string>;
}

// Resolved once per schema and message: lookups by name or index path are not per-record work.
const writers = new WeakMap<ParsedSchema, Map<string, MessageWriter>>();
const readers = new WeakMap<ParsedSchema, Map<string, protobuf.Type>>();
const FIRST_MESSAGE = [0];

function writerFor(schema: ParsedSchema, name: string | undefined): MessageWriter {
  let byName = writers.get(schema);
  if (!byName) writers.set(schema, (byName = new Map()));
  const key = name ?? "";
  let writer = byName.get(key);
  if (writer) return writer;
  const fullName = name ?? messageTypes(schema)[0]?.fullName;
  if (!fullName) throw new SerializationException("The Protobuf schema defines no message");
  let indexes: number[];
  try {
    indexes = indexesForMessage(schema, fullName);
  } catch (err) {
    throw new SerializationException(`Message ${fullName} is not in the schema: ${(err as Error).message}`);
  }
  const type = messageForIndexes(schema, indexes);
  const keys = new Set<string>();
  for (const [camel, field] of Object.entries(type.fields)) keys.add(camel).add(field.name);
  writer = { fullName, type, prefix: encodeMessageIndexes(indexes), keys };
  byName.set(key, writer);
  return writer;
}

function readerFor(schema: ParsedSchema, indexes: number[]): protobuf.Type {
  let byIndexes = readers.get(schema);
  if (!byIndexes) readers.set(schema, (byIndexes = new Map()));
  const key = indexes.join(".");
  let type = byIndexes.get(key);
  if (!type) byIndexes.set(key, (type = messageForIndexes(schema, indexes)));
  return type;
}

export const protobufCodec: ValueCodec = {
  schemaType: "PROTOBUF",

  encode(schema, value, name) {
    const writer = writerFor(schema, name);
    const fail = (problem: string): never => {
      throw new SerializationException(`Error serializing Protobuf message ${writer.fullName}: ${problem}`);
    };
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail("a message must be an object");
    // Proto3 JSON conventions are accepted (64-bit integers as strings, enums by name): convert first,
    // then check the converted message; fields the message does not have are an error, not dropped.
    for (const key in value as object) if (!writer.keys.has(key)) fail(`unknown field ${key}`);
    let message: protobuf.Message;
    try {
      message = writer.type.fromObject(value as Record<string, unknown>);
    } catch (err) {
      return fail((err as Error).message);
    }
    const problem = writer.type.verify(message);
    if (problem) fail(problem);
    return { payload: writer.type.encode(message).finish(), prefix: writer.prefix };
  },

  decode(writer, bytes, offset) {
    try {
      // A single 0x00 (the first message) is the common case: no index parsing.
      const { indexes, next } = bytes[offset] === 0 ? { indexes: FIRST_MESSAGE, next: offset + 1 } : decodeMessageIndexes(bytes, offset);
      const type = readerFor(writer, indexes);
      return type.toObject(type.decode(bytes.subarray(next)), TO_OBJECT);
    } catch (err) {
      if (err instanceof SerializationException) throw err;
      throw new SerializationException(`Error deserializing Protobuf message: ${(err as Error).message}`, err);
    }
  },

  recordName(schema, name) {
    return writerFor(schema, name).fullName;
  },
};
