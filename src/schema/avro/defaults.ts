// Which field defaults Avro accepts: Java Avro 1.12's Schema.isValidDefault, checked when a schema is
// parsed and by the Connect Avro mapping.
import { InvalidSchemaError } from "../format.ts";
import { canonicalString } from "./canonical.ts";
import { JsonNumber, isJsonObject, writeJson, type JsonValue } from "./json.ts";
import type { AvroNode } from "./model.ts";

/** Java's Schema.isValidDefault (1.12: a union default may match any branch). */
export function isValidDefault(schema: AvroNode, v: JsonValue | undefined): boolean {
  if (v === undefined) return false;
  switch (schema.type) {
    case "string":
    case "bytes":
    case "enum":
    case "fixed":
      return typeof v === "string";
    case "int":
      return v instanceof JsonNumber && v.kind === "int";
    case "long":
      return v instanceof JsonNumber && (v.kind === "int" || v.kind === "long");
    case "float":
    case "double":
      return v instanceof JsonNumber;
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v) && v.every((e) => isValidDefault(schema.items, e));
    case "map":
      return isJsonObject(v) && [...v.values()].every((e) => isValidDefault(schema.values, e));
    case "union":
      return schema.branches.some((b) => isValidValue(b, v));
    case "record":
      return (
        isJsonObject(v) &&
        schema.fields.every((f) => isValidValue(f.type, v.has(f.name) ? v.get(f.name) : f.defaultValue))
      );
  }
}

function isValidValue(schema: AvroNode, v: JsonValue | undefined): boolean {
  if (v === undefined) return false;
  if (schema.type === "union") return schema.branches.some((b) => isValidDefault(b, v));
  return isValidDefault(schema, v);
}

export function validateDefault(name: string, type: AvroNode, value: JsonValue | undefined): void {
  if (value !== undefined && !isValidDefault(type, value)) {
    throw new InvalidSchemaError(
      `Invalid default for field ${name}: ${writeJson(value)} not a ${canonicalString(type)}`,
    );
  }
}
