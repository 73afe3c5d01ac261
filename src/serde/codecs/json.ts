// JSON Schema values: validated with ajv against the schema, written as UTF-8 JSON text.
import { jsonSchemaTitle, jsonValidator } from "../../schema/jsonschema/index.ts";
import { SerializationException } from "../errors.ts";
import { frame } from "../wire-format.ts";
import type { ValueCodec } from "./codec.ts";

const textDecoder = new TextDecoder();

export const jsonCodec: ValueCodec = {
  schemaType: "JSON",

  encoder(schema, id) {
    const validate = jsonValidator(schema);
    return (value) => {
      const problems = validate(value);
      if (problems.length > 0)
        throw new SerializationException(`Error serializing JSON message: ${problems.join("; ")}`);
      return frame(id, JSON.stringify(value));
    };
  },

  decoder() {
    return (bytes, offset) => {
      try {
        const text = Buffer.isBuffer(bytes)
          ? bytes.toString("utf8", offset)
          : textDecoder.decode(bytes.subarray(offset));
        return JSON.parse(text) as unknown;
      } catch (err) {
        throw new SerializationException(`Error deserializing JSON message: ${(err as Error).message}`, err);
      }
    };
  },

  recordName(schema) {
    return jsonSchemaTitle(schema);
  },
};
