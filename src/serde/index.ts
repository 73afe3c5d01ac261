// The public serde API: Confluent-compatible serializers for Bun/Node apps.
export { SchemaRegistryClient, type SchemaText, type SubjectVersion } from "./registry-client.ts";
export { Serializer, Deserializer, type SerializerOptions, type DeserializerOptions } from "./serializer.ts";
export { SerializationException, RestClientException } from "./errors.ts";
export { frame, unframe, MAGIC_BYTE } from "./wire-format.ts";
export { KEY_SCHEMA_ID_HEADER, VALUE_SCHEMA_ID_HEADER, type SerdeHeader } from "./schema-id-header.ts";
export { serdeSettings, type SerdeConfig } from "./config.ts";
