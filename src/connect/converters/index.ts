// The built-in converters, and the Kafka class names a connector or worker config uses for them.
import { ByteArrayConverter } from "./bytearray.ts";
import type { Converter, HeaderConverter } from "./converter.ts";
import { JsonConverter } from "./json.ts";
import { BooleanConverter, DoubleConverter, FloatConverter, IntegerConverter, LongConverter, ShortConverter } from "./number.ts";
import { StringConverter } from "./string.ts";

export { ByteArrayConverter } from "./bytearray.ts";
export { SchemaAndValue, type Converter, type ConverterConfig, type HeaderConverter, type RecordHeader } from "./converter.ts";
export { JsonConverter, jsonConverterSettings } from "./json.ts";
export { BooleanConverter, DoubleConverter, FloatConverter, IntegerConverter, LongConverter, ShortConverter } from "./number.ts";
export { StringConverter, stringConverterSettings } from "./string.ts";

/** Kafka class name → a new, unconfigured converter (each also works as a header converter). */
export const BUILTIN_CONVERTERS: Readonly<Record<string, () => Converter & HeaderConverter>> = {
  "org.apache.kafka.connect.json.JsonConverter": () => new JsonConverter(),
  "org.apache.kafka.connect.storage.StringConverter": () => new StringConverter(),
  "org.apache.kafka.connect.converters.ByteArrayConverter": () => new ByteArrayConverter(),
  "org.apache.kafka.connect.converters.BooleanConverter": () => new BooleanConverter(),
  "org.apache.kafka.connect.converters.ShortConverter": () => new ShortConverter(),
  "org.apache.kafka.connect.converters.IntegerConverter": () => new IntegerConverter(),
  "org.apache.kafka.connect.converters.LongConverter": () => new LongConverter(),
  "org.apache.kafka.connect.converters.FloatConverter": () => new FloatConverter(),
  "org.apache.kafka.connect.converters.DoubleConverter": () => new DoubleConverter(),
};
