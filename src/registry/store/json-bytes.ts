// Record keys and values in the registry's topics are JSON text: encoded as written, decoded leniently
// (a record that is not JSON reads as undefined, for the reader to skip).
import { decoder, encoder, type Bytes } from "../../broker/broker.ts";

export function jsonBytes(value: unknown): Bytes {
  return encoder.encode(JSON.stringify(value));
}

export function parseJsonBytes(bytes: Bytes): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}
