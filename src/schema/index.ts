// The schema formats this registry serves, by schemaType.
import { avroFormat } from "./avro/index.ts";
import { jsonSchemaFormat } from "./jsonschema/index.ts";
import { protobufFormat } from "./protobuf/index.ts";
import type { SchemaFormat, SchemaType } from "./format.ts";

export const formats: ReadonlyMap<SchemaType, SchemaFormat> = new Map<SchemaType, SchemaFormat>([
  [avroFormat.schemaType, avroFormat],
  [jsonSchemaFormat.schemaType, jsonSchemaFormat],
  [protobufFormat.schemaType, protobufFormat],
]);

/** GET /schemas/types, in Confluent's order. */
export function schemaTypes(): SchemaType[] {
  return (["JSON", "PROTOBUF", "AVRO"] as SchemaType[]).filter((t) => formats.has(t));
}
