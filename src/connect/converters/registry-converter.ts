// What Confluent's three schema registry converters share (AvroConverter, ProtobufConverter,
// JsonSchemaConverter): the registry client and its settings, the serializers' schema id resolver
// (subject naming, registering or looking up the schema derived from the Connect schema), the wire
// format, a cache of what each schema id reads as, and the mapping of failures to Connect's exceptions.
// Each format supplies the Connect ↔ format mapping and writes header and payload into one buffer.
// Once an id is known, conversion is synchronous; the first record of a schema waits for the registry
// (the worker awaits converters).
import { SettingsDefinition, type ParsedSettings, type Setting } from "../../platform/settings.ts";
import type { ParsedSchema, SchemaType } from "../../schema/format.ts";
import { serdeSettings } from "../../serde/config.ts";
import { RestClientException, SerializationException } from "../../serde/errors.ts";
import { LruCache } from "../../platform/lru.ts";
import { SchemaRegistryClient, type SchemaText } from "../../serde/registry-client.ts";
import { parseSchemaText, SchemaIdResolver, type ResolvedSchema } from "../../serde/schema-id-resolver.ts";
import { unframe } from "../../serde/wire-format.ts";
import { DataException, type Schema } from "../api/data/index.ts";
import { RetriableException } from "../api/connector.ts";
import { SchemaAndValue, settingStrings, type Converter, type ConverterConfig } from "../api/converter.ts";

/** The serializer settings plus a format's data settings, as one converter configuration. */
export function registryConverterSettings(dataSettings: readonly Setting[]): SettingsDefinition {
  return new SettingsDefinition([...serdeSettings.declared(), ...dataSettings], serdeSettings.passThroughPrefixes);
}

export abstract class RegistryConverter<Reader, Converted> implements Converter {
  /** Set by configure(). */
  protected client!: SchemaRegistryClient;
  protected isKey = false;
  private resolver!: SchemaIdResolver;
  private readers = new LruCache<number, Reader>(1000);
  private readonly loading = new Map<number, Promise<Reader>>();

  protected abstract readonly schemaType: SchemaType;
  /** The format as Confluent's messages name it ("Avro", "Protobuf", "JSON Schema"). */
  protected abstract readonly formatName: string;
  protected abstract readonly settingsDefinition: SettingsDefinition;

  /** Reads the format's data settings (AvroDataConfig and the like). */
  protected abstract configureData(settings: ParsedSettings): void;
  /** The registry schema a Connect schema maps to. */
  protected abstract schemaFor(schema: Schema | null): ParsedSchema;
  /** The value in the format's terms for `writer`; null when no record is written (a null value). */
  protected abstract convert(schema: Schema | null, writer: ParsedSchema, value: unknown): Converted | null;
  /** The header with schema id `id` and the converted value written as `writer`, in one buffer. */
  protected abstract framed(id: number, writer: ParsedSchema, converted: Converted): Uint8Array;
  /** Full name for RecordNameStrategy and TopicRecordNameStrategy. */
  protected abstract recordName(schema: ParsedSchema): string | undefined;
  /** What reading with a writer schema needs (its Connect schema, compiled types), built once per id. */
  protected abstract reader(writer: ParsedSchema): Reader;
  protected abstract decode(reader: Reader, bytes: Uint8Array, offset: number): SchemaAndValue;

  configure(config: ConverterConfig, isKey: boolean): void {
    this.isKey = isKey;
    const settings = this.settingsDefinition.parse(settingStrings(config)).values;
    this.client = new SchemaRegistryClient(settings);
    this.resolver = new SchemaIdResolver(this.client, isKey);
    this.readers = new LruCache(settings.int("max.schemas.per.subject"));
    this.configureData(settings);
  }

  config(): SettingsDefinition {
    return this.settingsDefinition;
  }

  fromConnectData(
    topic: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null> {
    let derived: ParsedSchema;
    let converted: Converted | null;
    let subject: string;
    // Schemaless null (a tombstone) is no record, in every format.
    if (schema === null && (value === null || value === undefined)) return null;
    try {
      derived = this.schemaFor(schema);
      converted = this.convert(schema, derived, value);
      if (converted === null) return null;
      subject = this.resolver.subject(topic, () => this.recordName(derived));
      const known = this.resolver.known(subject, derived);
      if (known) return this.write(known, schema, derived, converted, value);
      // Written once before any registry call: a bad value never registers a schema.
      this.framed(0, derived, converted);
    } catch (err) {
      throw this.serializeError(topic, err);
    }
    const written = converted;
    return this.resolver.resolve(subject, derived).then(
      (known) => this.write(known, schema, derived, written, value),
      (err: unknown) => {
        throw this.serializeError(topic, err);
      },
    );
  }

  toConnectData(topic: string, value: Uint8Array | null): SchemaAndValue | Promise<SchemaAndValue> {
    if (value === null) return SchemaAndValue.NULL;
    let id: number;
    let offset: number;
    try {
      ({ id, offset } = unframe(value));
      const reader = this.readers.get(id);
      if (reader !== undefined) return this.decode(reader, value, offset);
    } catch (err) {
      throw this.deserializeError(topic, err);
    }
    return this.readers
      .getOrLoad(id, this.loading, () => this.loadReader(id))
      .then(
        (reader) => {
          try {
            return this.decode(reader, value, offset);
          } catch (err) {
            throw this.deserializeError(topic, err);
          }
        },
        (err: unknown) => {
          throw this.deserializeError(topic, err);
        },
      );
  }

  close(): void {}

  private write(
    known: ResolvedSchema,
    schema: Schema | null,
    derived: ParsedSchema,
    converted: Converted,
    value: unknown,
  ): Uint8Array {
    const forWriter = known.writer === derived ? converted : this.convert(schema, known.writer, value);
    if (forWriter === null) throw new DataException("The writer schema gave no payload for a non-null value");
    return this.framed(known.id, known.writer, forWriter);
  }

  private async loadReader(id: number): Promise<Reader> {
    let text: SchemaText;
    try {
      text = await this.client.schemaById(id);
    } catch (err) {
      throw new SerializationException(
        `Error retrieving ${this.formatName} schema for id ${id}: ${(err as Error).message}`,
        err,
      );
    }
    if (text.schemaType !== this.schemaType) {
      throw new DataException(
        `Schema id ${id} is a ${text.schemaType} schema; the ${this.formatName} converter reads ${this.schemaType} schemas`,
      );
    }
    return this.reader(await parseSchemaText(this.client, text));
  }

  /** How Confluent's converter words a failed fromConnectData. */
  protected serializeFailure(topic: string): string {
    return `Failed to serialize ${this.formatName} data from topic ${topic}`;
  }

  /** How Confluent's converter words a failed toConnectData. */
  protected deserializeFailure(topic: string): string {
    return `Failed to deserialize data for topic ${topic} to ${this.formatName}`;
  }

  /** Kafka Connect's view of a failure: retriable when the registry is unreachable, else a DataException. */
  private serializeError(topic: string, err: unknown): Error {
    return this.connectError(err, this.serializeFailure(topic));
  }

  private deserializeError(topic: string, err: unknown): Error {
    return this.connectError(err, this.deserializeFailure(topic));
  }

  private connectError(err: unknown, context: string): Error {
    if (err instanceof DataException || err instanceof RetriableException) return err;
    const message = err instanceof Error ? err.message : String(err);
    if (unreachable(err)) return new RetriableException(`${context}: ${message}`, err);
    return new DataException(`${context}: ${message}`, { cause: err });
  }
}

/** The registry could not be reached (no HTTP answer), as opposed to an answer refusing the request. */
function unreachable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof RestClientException) return e.status === 0;
  }
  return false;
}
