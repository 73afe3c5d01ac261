// io.confluent.connect.json.JsonSchemaConverter: Connect data as JSON text in Confluent's wire format,
// with the JSON schema JsonSchemaData derives from the Connect schema registered (or looked up) in
// the registry. The payload does not depend on the writer schema, and (as Confluent's serializer by
// default) is not validated against it.
import type { ParsedSettings } from "../../platform/settings.ts";
import type { ParsedSchema } from "../../schema/format.ts";
import { jsonSchemaTitle, type JsonSchemaParsed } from "../../schema/jsonschema/index.ts";
import { JsonSyntaxError } from "../../jvm/json-text.ts";
import { readTree } from "../../schema/jsonschema/json.ts";
import { SerializationException } from "../../serde/errors.ts";
import { frame } from "../../serde/wire-format.ts";
import { DataException, type Schema } from "../api/data/index.ts";
import type { SchemaAndValue } from "../api/converter.ts";
import { JsonSchemaData, jsonSchemaDataOptions, jsonSchemaDataSettings } from "./jsonschema-data.ts";
import { RegistryConverter, registryConverterSettings } from "./registry-converter.ts";

export const jsonSchemaConverterSettings = registryConverterSettings(jsonSchemaDataSettings);

interface JsonSchemaReader {
  readonly schema: Schema;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export class JsonSchemaConverter extends RegistryConverter<JsonSchemaReader, string> {
  static readonly className = "io.confluent.connect.json.JsonSchemaConverter";
  protected readonly schemaType = "JSON" as const;
  protected readonly formatName = "JSON Schema";
  protected readonly settingsDefinition = jsonSchemaConverterSettings;
  private data = new JsonSchemaData();

  /** The Connect ↔ JSON Schema mapping in use (for tests and tools). */
  get jsonSchemaData(): JsonSchemaData {
    return this.data;
  }

  protected configureData(settings: ParsedSettings): void {
    this.data = new JsonSchemaData(jsonSchemaDataOptions(settings));
  }

  protected schemaFor(schema: Schema | null): ParsedSchema {
    // Confluent would derive a schema from the Java class of a schemaless value; Connect values have none here.
    if (schema === null)
      throw new DataException("The JSON Schema converter needs a Connect schema for a non-null value");
    return this.data.fromConnectSchema(schema);
  }

  protected convert(schema: Schema | null, _writer: ParsedSchema, value: unknown): string | null {
    return this.data.fromConnectData(schema!, value);
  }

  /** The text is written as UTF-8 straight after the header. */
  protected framed(id: number, _writer: ParsedSchema, text: string): Uint8Array {
    return frame(id, text);
  }

  protected recordName(schema: ParsedSchema): string | undefined {
    return jsonSchemaTitle(schema);
  }

  protected reader(writer: ParsedSchema): JsonSchemaReader {
    return { schema: this.data.toConnectSchema(writer as JsonSchemaParsed) };
  }

  protected decode(reader: JsonSchemaReader, bytes: Uint8Array, offset: number): SchemaAndValue {
    let json;
    try {
      json = readTree(utf8.decode(bytes.subarray(offset)));
    } catch (err) {
      if (err instanceof JsonSyntaxError || err instanceof TypeError)
        throw new SerializationException(`Error deserializing JSON message: ${err.message}`, err);
      throw err;
    }
    if (json === undefined) throw new SerializationException("Error deserializing JSON message: no JSON value");
    return { schema: reader.schema, value: this.data.toConnectData(reader.schema, json) };
  }

  protected override serializeFailure(topic: string): string {
    return `Converting Kafka Connect data to byte[] failed due to serialization error of topic ${topic}`;
  }

  protected override deserializeFailure(topic: string): string {
    return `Converting byte[] to Kafka Connect data failed due to serialization error of topic ${topic}`;
  }
}
