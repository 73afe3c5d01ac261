// The Connect type a schemaless value stands for: Kafka's ConnectSchema.schemaType(value.getClass()),
// with a JS number read as the boxed Java number it would be (an integer in int range an Integer, a
// larger safe integer a Long, any other number a Double). Null for what Connect has no type for.
import { Struct, type Type } from "../api/data/index.ts";
import { isMapValue } from "./schemaless-map.ts";

export function connectTypeOf(value: unknown): Type | null {
  switch (typeof value) {
    case "boolean":
      return "BOOLEAN";
    case "string":
      return "STRING";
    case "bigint":
      return "INT64";
    case "number":
      if (!Number.isSafeInteger(value)) return "FLOAT64";
      return value >= -2147483648 && value <= 2147483647 ? "INT32" : "INT64";
  }
  if (value instanceof Uint8Array) return "BYTES";
  if (Array.isArray(value)) return "ARRAY";
  if (value instanceof Struct) return "STRUCT";
  if (isMapValue(value)) return "MAP";
  return null;
}
