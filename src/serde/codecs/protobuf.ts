// Protobuf values: plain objects checked and encoded with protobufjs; the message-index array tells
// the reader which message of the file was written.
import type protobuf from "protobufjs";
import type { ParsedSchema } from "../../registry/formats/format.ts";
import {
  decodeMessageIndexes,
  encodeMessageIndexes,
  indexesForMessage,
  messageForIndexes,
  messageTypes,
} from "../../registry/formats/protobuf/index.ts";
import { SerializationException } from "../errors.ts";
import type { ValueCodec } from "./codec.ts";

/** How decoded messages are presented: 64-bit integers and enums as strings, bytes as base64, like proto3 JSON. */
const TO_OBJECT = { longs: String, enums: String, bytes: String } as const;

function messageName(schema: ParsedSchema, name?: string): string {
  const first = messageTypes(schema)[0];
  if (!name && !first) throw new SerializationException("The Protobuf schema defines no message");
  return name ?? first!.fullName;
}

export const protobufCodec: ValueCodec = {
  schemaType: "PROTOBUF",

  encode(schema, value, name) {
    const fullName = messageName(schema, name);
    let indexes: number[];
    try {
      indexes = indexesForMessage(schema, fullName);
    } catch (err) {
      throw new SerializationException(`Message ${fullName} is not in the schema: ${(err as Error).message}`);
    }
    const type = messageForIndexes(schema, indexes);
    const fail = (problem: string): never => {
      throw new SerializationException(`Error serializing Protobuf message ${fullName}: ${problem}`);
    };
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail("a message must be an object");
    // Proto3 JSON conventions are accepted (64-bit integers as strings, enums by name): convert first,
    // then check the converted message; fields the message does not have are an error, not dropped.
    const unknown = Object.keys(value as object).filter((k) => !type.fields[k] && !Object.values(type.fields).some((f) => f.name === k));
    if (unknown.length > 0) fail(`unknown field(s) ${unknown.join(", ")}`);
    let message: protobuf.Message;
    try {
      message = type.fromObject(value as Record<string, unknown>);
    } catch (err) {
      return fail((err as Error).message);
    }
    const problem = type.verify(message);
    if (problem) fail(problem);
    return { payload: type.encode(message).finish(), prefix: encodeMessageIndexes(indexes) };
  },

  decode(writer, bytes, offset) {
    try {
      const { indexes, next } = decodeMessageIndexes(bytes, offset);
      const type = messageForIndexes(writer, indexes);
      return type.toObject(type.decode(bytes.subarray(next)), TO_OBJECT);
    } catch (err) {
      if (err instanceof SerializationException) throw err;
      throw new SerializationException(`Error deserializing Protobuf message: ${(err as Error).message}`, err);
    }
  },

  recordName(schema, name) {
    return messageName(schema, name);
  },
};
