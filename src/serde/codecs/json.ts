// JSON Schema values: validated with ajv against the schema, written as UTF-8 JSON text.
import { jsonSchemaTitle, jsonValidator } from "../../schema/jsonschema/index.ts";
import { SerializationException } from "../errors.ts";
import type { ValueCodec } from "./codec.ts";

const decoder = new TextDecoder();

export const jsonCodec: ValueCodec = {
  schemaType: "JSON",

  encode(schema, value) {
    const problems = jsonValidator(schema)(value);
    if (problems.length > 0) throw new SerializationException(`Error serializing JSON message: ${problems.join("; ")}`);
    return { payload: JSON.stringify(value) };
  },

  decode(_writer, bytes, offset) {
    try {
      const text = Buffer.isBuffer(bytes) ? bytes.toString("utf8", offset) : decoder.decode(bytes.subarray(offset));
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new SerializationException(`Error deserializing JSON message: ${(err as Error).message}`, err);
    }
  },

  recordName(schema) {
    return jsonSchemaTitle(schema);
  },
};
