// org.apache.kafka.connect.storage.SimpleHeaderConverter, Kafka Connect's default header.converter:
// a header value is written as the UTF-8 of Values.convertToString (a struct as `{"id":10}`, bytes in
// base64, ...). Kafka reads header bytes back with Values.parseString, inferring a type; Sluice hands
// sinks the text as an optional string.
import { valuesToString, Schema } from "../api/data/index.ts";
import { type HeaderConverter, SchemaAndValue } from "../api/converter.ts";

const utf8Decoder = new TextDecoder();

export class SimpleHeaderConverter implements HeaderConverter {
  static readonly className = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

  configure(): void {}

  fromConnectHeader(_topic: string, _headerKey: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (value === null || value === undefined) return null;
    // A Buffer (the UTF-8 TextEncoder writes, lone surrogates replaced alike): the Kafka client takes it without a copy.
    return Buffer.from(valuesToString(value, schema));
  }

  toConnectHeader(_topic: string, _headerKey: string, value: Uint8Array | null): SchemaAndValue {
    // A header without a value has no schema either, as Kafka's converter answers.
    if (value === null) return SchemaAndValue.NULL;
    return { schema: Schema.OPTIONAL_STRING_SCHEMA, value: utf8Decoder.decode(value) };
  }
}

/** Whether a header.converter value names SimpleHeaderConverter (which is not a listed plugin). */
export function isSimpleHeaderConverter(name: string): boolean {
  const trimmed = name.trim();
  return trimmed === SimpleHeaderConverter.className || trimmed === "SimpleHeaderConverter";
}
