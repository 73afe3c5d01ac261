import type { SchemaType } from "../../registry/formats/format.ts";
import { avroCodec } from "./avro.ts";
import type { ValueCodec } from "./codec.ts";

export const codecs: ReadonlyMap<SchemaType, ValueCodec> = new Map([[avroCodec.schemaType, avroCodec]]);
