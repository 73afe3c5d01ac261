// Avro values: avsc checks and encodes; decoding resolves the writer's schema to an optional reader's.
import type { Type } from "avsc";
import type { AvroParsedSchema } from "../../schema/avro/index.ts";
import type { ParsedSchema } from "../../schema/format.ts";
import { SerializationException } from "../errors.ts";
import type { ValueCodec } from "./codec.ts";

const resolvers = new WeakMap<Type, WeakMap<Type, unknown>>();
const scratch = Buffer.alloc(64 * 1024);

function avsc(schema: ParsedSchema): Type {
  return (schema as AvroParsedSchema).avscType;
}

export const avroCodec: ValueCodec = {
  schemaType: "AVRO",

  encode(schema, value) {
    const type = avsc(schema);
    if (type.isValid(value)) {
      // Encoded into a reused scratch buffer; the framing copies it out before the next call.
      const end = (type as unknown as { encode(v: unknown, b: Buffer, pos: number): number }).encode(value, scratch, 0);
      return { payload: end >= 0 ? scratch.subarray(0, end) : type.toBuffer(value) };
    }
    // Only a bad value pays for collecting where it is wrong.
    const problems: string[] = [];
    type.isValid(value, {
      errorHook: (path: string[], got: unknown, expected: Type) => {
        problems.push(`${path.length ? path.join(".") : "value"}: ${JSON.stringify(got) ?? String(got)} is not a ${expected.typeName ?? expected.toString()}`);
      },
    });
    throw new SerializationException(`Error serializing Avro message: ${problems.join("; ")}`);
  },

  decode(writer, bytes, offset, reader) {
    const writerType = avsc(writer);
    const readerType = reader ? avsc(reader) : writerType;
    // Decoded in place from `offset`: no copy, no view when the bytes already are a Buffer.
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let resolver: unknown;
    if (readerType !== writerType) {
      let byWriter = resolvers.get(readerType);
      if (!byWriter) resolvers.set(readerType, (byWriter = new WeakMap()));
      resolver = byWriter.get(writerType);
      if (!resolver) {
        try {
          resolver = readerType.createResolver(writerType);
        } catch (err) {
          throw new SerializationException(`The reader schema cannot read data written with schema ${writerType.name ?? ""}: ${(err as Error).message}`);
        }
        byWriter.set(writerType, resolver);
      }
    }
    let result: { value: unknown; offset: number };
    try {
      result = (readerType as unknown as { decode(b: Buffer, pos: number, r?: unknown): { value: unknown; offset: number } }).decode(buffer, offset, resolver);
    } catch (err) {
      throw new SerializationException(`Error deserializing Avro message: ${(err as Error).message}`, err);
    }
    if (result.offset < 0) throw new SerializationException("Error deserializing Avro message: truncated payload");
    if (result.offset !== buffer.length) throw new SerializationException(`Error deserializing Avro message: ${buffer.length - result.offset} trailing bytes`);
    return result.value;
  },

  recordName(schema) {
    const root = (schema as AvroParsedSchema).root;
    return "name" in root && root.name ? root.name.full : undefined;
  },
};
