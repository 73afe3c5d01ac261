import type { SchemaType } from "../../schema/format.ts";
import { avroCodec } from "./avro.ts";
import type { ValueCodec } from "./codec.ts";
import { jsonCodec } from "./json.ts";
import { protobufCodec } from "./protobuf.ts";

export const codecs: ReadonlyMap<SchemaType, ValueCodec> = new Map<SchemaType, ValueCodec>([
  [avroCodec.schemaType, avroCodec],
  [jsonCodec.schemaType, jsonCodec],
  [protobufCodec.schemaType, protobufCodec],
]);
