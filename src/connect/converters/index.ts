// The built-in converters, and the Kafka class names a connector or worker config uses for them.
import { AvroConverter } from "./avro.ts";
import { ByteArrayConverter } from "./bytearray.ts";
import type { Converter } from "../api/converter.ts";
import { JsonConverter } from "./json.ts";
import { JsonSchemaConverter } from "./jsonschema.ts";
import {
  BooleanConverter,
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from "./number.ts";
import { ProtobufConverter } from "./protobuf.ts";
import { StringConverter } from "./string.ts";

export { ByteArrayConverter } from "./bytearray.ts";
export {
  SchemaAndValue,
  type Converter,
  type ConverterConfig,
  type HeaderConverter,
  type RecordHeader,
} from "../api/converter.ts";
export { JsonConverter, jsonConverterSettings } from "./json.ts";
export {
  BooleanConverter,
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from "./number.ts";
export { StringConverter, stringConverterSettings } from "./string.ts";
export { SimpleHeaderConverter } from "./simple-header.ts";
export { AvroConverter, avroConverterSettings } from "./avro.ts";
export { ProtobufConverter, protobufConverterSettings } from "./protobuf.ts";
export { JsonSchemaConverter, jsonSchemaConverterSettings } from "./jsonschema.ts";

/**
 * Kafka (and Confluent) class name → a new, unconfigured converter. Kafka's own also work as header
 * converters; Confluent's schema registry converters do not (as in Confluent).
 */
export const BUILTIN_CONVERTERS: Readonly<Record<string, () => Converter>> = {
  "org.apache.kafka.connect.json.JsonConverter": () => new JsonConverter(),
  "org.apache.kafka.connect.storage.StringConverter": () => new StringConverter(),
  "org.apache.kafka.connect.converters.ByteArrayConverter": () => new ByteArrayConverter(),
  "org.apache.kafka.connect.converters.BooleanConverter": () => new BooleanConverter(),
  "org.apache.kafka.connect.converters.ShortConverter": () => new ShortConverter(),
  "org.apache.kafka.connect.converters.IntegerConverter": () => new IntegerConverter(),
  "org.apache.kafka.connect.converters.LongConverter": () => new LongConverter(),
  "org.apache.kafka.connect.converters.FloatConverter": () => new FloatConverter(),
  "org.apache.kafka.connect.converters.DoubleConverter": () => new DoubleConverter(),
  [AvroConverter.className]: () => new AvroConverter(),
  [ProtobufConverter.className]: () => new ProtobufConverter(),
  [JsonSchemaConverter.className]: () => new JsonSchemaConverter(),
};
