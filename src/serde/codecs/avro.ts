// Avro values: avsc checks and encodes; decoding resolves the writer's schema to an optional reader's.
import type { Type } from "avsc";
import { asBuffer } from "../../platform/buffers.ts";
import type { AvroParsedSchema } from "../../schema/avro/index.ts";
import type { ParsedSchema } from "../../schema/format.ts";
import { SerializationException } from "../errors.ts";
import { frame, HEADER, writeHeader } from "../wire-format.ts";
import type { ValueCodec } from "./codec.ts";

/** avsc's positional API (untyped in its declarations): `encode` returns the end, negative when `buf` is too small. */
interface PositionalType {
  encode(value: unknown, buf: Buffer, pos: number): number;
  decode(buf: Buffer, pos: number, resolver?: unknown): { value: unknown; offset: number };
}

// Values are encoded after a header into this buffer, then copied out whole: one allocation and one
// copy per record, as avsc's own toBuffer does.
const scratch = Buffer.alloc(64 * 1024);

/** Header and `value` written as `type`, in one buffer (avsc throws on a value `type` cannot write). */
export function frameAvro(type: Type, id: number, value: unknown): Buffer {
  const end = (type as unknown as PositionalType).encode(value, scratch, HEADER);
  if (end < 0) return frame(id, type.toBuffer(value)) as Buffer; // larger than the scratch buffer
  writeHeader(scratch, id);
  const out = Buffer.allocUnsafe(end);
  scratch.copy(out, 0, 0, end);
  return out;
}

function avsc(schema: ParsedSchema): Type {
  return (schema as AvroParsedSchema).avscType;
}

/** Only a bad value pays for collecting where it is wrong. */
function invalid(type: Type, value: unknown): SerializationException {
  const problems: string[] = [];
  type.isValid(value, {
    errorHook: (path: string[], got: unknown, expected: Type) => {
      problems.push(
        `${path.length ? path.join(".") : "value"}: ${JSON.stringify(got) ?? String(got)} is not a ${expected.typeName ?? expected.toString()}`,
      );
    },
  });
  return new SerializationException(`Error serializing Avro message: ${problems.join("; ")}`);
}

export const avroCodec: ValueCodec = {
  schemaType: "AVRO",

  encoder(schema, id) {
    const type = avsc(schema);
    return (value) => {
      if (!type.isValid(value)) throw invalid(type, value);
      return frameAvro(type, id, value);
    };
  },

  decoder(writer, reader) {
    const writerType = avsc(writer);
    const readerType = (reader ? avsc(reader) : writerType) as unknown as PositionalType;
    let resolver: unknown;
    if (reader && avsc(reader) !== writerType) {
      try {
        resolver = avsc(reader).createResolver(writerType);
      } catch (err) {
        throw new SerializationException(
          `The reader schema cannot read data written with schema ${writerType.name ?? ""}: ${(err as Error).message}`,
        );
      }
    }
    return (bytes, offset) => {
      // Decoded in place from `offset`: no copy, no view when the bytes already are a Buffer.
      const buffer = asBuffer(bytes);
      let result: { value: unknown; offset: number };
      try {
        result = readerType.decode(buffer, offset, resolver);
      } catch (err) {
        throw new SerializationException(`Error deserializing Avro message: ${(err as Error).message}`, err);
      }
      if (result.offset < 0) throw new SerializationException("Error deserializing Avro message: truncated payload");
      if (result.offset !== buffer.length)
        throw new SerializationException(
          `Error deserializing Avro message: ${buffer.length - result.offset} trailing bytes`,
        );
      return result.value;
    };
  },

  recordName(schema) {
    const root = (schema as AvroParsedSchema).root;
    return "name" in root && root.name ? root.name.full : undefined;
  },
};
