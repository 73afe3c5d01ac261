// org.apache.kafka.connect.converters.ByteArrayConverter: bytes pass through unchanged.
import { SettingsDefinition } from "../../platform/settings.ts";
import { DataException, javaClassName, Schema } from "../api/data/index.ts";
import type { Converter, HeaderConverter, SchemaAndValue } from "../api/converter.ts";

const settings = new SettingsDefinition([
  {
    name: "converter.type",
    type: "string",
    oneOf: ["key", "value", "header"],
    importance: "low",
    doc: "How this converter will be used (set by the runtime).",
  },
]);

export class ByteArrayConverter implements Converter, HeaderConverter {
  configure(): void {}

  config(): SettingsDefinition {
    return settings;
  }

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (schema !== null && schema.type !== "BYTES")
      throw new DataException(`Invalid schema type for ByteArrayConverter: ${schema.type}`);
    if (value === null || value === undefined) return null;
    if (!(value instanceof Uint8Array))
      throw new DataException(`ByteArrayConverter is not compatible with objects of type ${javaClassName(value)}`);
    return value;
  }

  toConnectData(_topic: string, value: Uint8Array | null): SchemaAndValue {
    return { schema: Schema.OPTIONAL_BYTES_SCHEMA, value };
  }

  fromConnectHeader(topic: string, _headerKey: string, schema: Schema | null, value: unknown): Uint8Array | null {
    return this.fromConnectData(topic, schema, value);
  }

  toConnectHeader(topic: string, _headerKey: string, value: Uint8Array | null): SchemaAndValue {
    return this.toConnectData(topic, value);
  }

  close(): void {}
}
