// Confluent-compatible serializers and deserializers for any Bun/Node app.
import type { ParsedSchema, SchemaReference, SchemaType } from "../schema/format.ts";
import { codecs } from "./codecs/index.ts";
import type { Decode, Encode, ValueCodec } from "./codecs/codec.ts";
import { SerializationException } from "./errors.ts";
import type { SchemaRegistryClient, SchemaText } from "./registry-client.ts";
import { parseSchemaText, SchemaIdResolver } from "./schema-id-resolver.ts";
import {
  guidHeaderPrefix,
  lastHeader,
  readSchemaIdHeader,
  schemaIdHeaderName,
  splitForHeader,
  type SerdeHeader,
} from "./schema-id-header.ts";
import { unframe } from "./wire-format.ts";
import { LruCache } from "../platform/lru.ts";

export interface SerializerOptions {
  schemaType?: SchemaType;
  /** The writer's schema: Avro JSON (string or object), .proto text, or JSON Schema (string or object). */
  schema: string | object;
  references?: SchemaReference[];
  /** Protobuf: the message to write (full name); default the first message of the file. */
  messageName?: string;
  /** Serialize keys (subject `<topic>-key`) rather than values. */
  isKey?: boolean;
  /**
   * Write the schema's GUID in the record header `__value_schema_id` (`__key_schema_id` for keys), as
   * Confluent 8's HeaderSchemaIdSerializer, instead of the id in the value's prefix: serialize() then
   * answers the bare payload and adds the header to the `headers` it is given.
   */
  schemaIdInHeader?: boolean;
}

function codecFor(type: SchemaType): ValueCodec {
  const codec = codecs.get(type);
  if (!codec) throw new SerializationException(`Schema type ${type} is not supported`);
  return codec;
}

export class Serializer {
  private readonly text: SchemaText;
  private readonly codec: ValueCodec;
  private readonly resolver: SchemaIdResolver;
  private parsing?: Promise<ParsedSchema>;
  /** Per topic, once its schema id is resolved: the encoder for that id and schema. */
  private readonly encoders = new Map<string, Encode>();
  /** Per topic, with schemaIdInHeader: the header's magic byte and GUID. */
  private readonly guidPrefixes = new Map<string, Uint8Array>();
  private lastTopic?: string;
  private lastEncode?: Encode;

  constructor(
    private readonly client: SchemaRegistryClient,
    private readonly options: SerializerOptions,
  ) {
    const schemaType = options.schemaType ?? "AVRO";
    this.codec = codecFor(schemaType);
    this.resolver = new SchemaIdResolver(client, options.isKey ?? false);
    this.text = {
      schema: typeof options.schema === "string" ? options.schema : JSON.stringify(options.schema),
      schemaType,
      references: options.references ?? [],
    };
  }

  /**
   * Checks the value against the schema, finds its schema id, and returns the framed bytes. Once a
   * topic's id is known, this is the codec's work plus the 5-byte header: no registry call, no await.
   */
  serialize(topic: string, value: unknown, headers?: SerdeHeader[]): Promise<Uint8Array> {
    if (!this.encoders.has(topic)) return this.resolveAndSerialize(topic, value, headers);
    try {
      return Promise.resolve(this.serializeSync(topic, value, headers));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** serialize() for a topic whose schema id is already known (after one serialize()); no promise. */
  serializeSync(topic: string, value: unknown, headers?: SerdeHeader[]): Uint8Array {
    if (this.options.schemaIdInHeader) return this.inHeader(topic, this.encoderFor(topic)(value), headers);
    if (topic === this.lastTopic) return this.lastEncode!(value);
    return this.encoderFor(topic)(value);
  }

  private encoderFor(topic: string): Encode {
    if (topic === this.lastTopic) return this.lastEncode!;
    const encode = this.encoders.get(topic);
    if (!encode)
      throw new SerializationException(
        `The schema id for topic ${topic} is not known yet: call serialize() once first`,
      );
    this.lastTopic = topic;
    this.lastEncode = encode;
    return encode;
  }

  /** The framed bytes' schema moved to the header (./schema-id-header.ts): the bare payload. */
  private inHeader(topic: string, framed: Uint8Array, headers: SerdeHeader[] | undefined): Uint8Array {
    if (!headers) throw new SerializationException("Missing headers: the schema id goes in a record header");
    const { header, payload } = splitForHeader(
      framed,
      this.guidPrefixes.get(topic)!,
      this.codec.schemaType === "PROTOBUF",
    );
    const name = schemaIdHeaderName(this.options.isKey ?? false);
    headers.push({ key: name, value: header });
    return payload;
  }

  private async resolveAndSerialize(topic: string, value: unknown, headers?: SerdeHeader[]): Promise<Uint8Array> {
    if (this.options.schemaIdInHeader && !headers)
      throw new SerializationException("Missing headers: the schema id goes in a record header");
    this.parsing ??= parseSchemaText(this.client, this.text);
    const schema = await this.parsing.catch((err: unknown) => {
      this.parsing = undefined;
      throw err;
    });
    // Checked before any registry call: a bad value never registers or sends anything.
    this.codec.encoder(schema, 0, this.options.messageName)(value);
    const subject = this.resolver.subject(topic, () => this.codec.recordName(schema, this.options.messageName));
    const { id, writer } = await this.resolver.resolve(subject, schema, this.text.references);
    if (this.options.schemaIdInHeader) {
      // The GUID the registry answered for the id (Confluent 8 registries put it in their replies).
      const { guid } = await this.client.schemaById(id);
      if (!guid) throw new SerializationException(`The registry answered no GUID for schema ${id}`);
      this.guidPrefixes.set(topic, guidHeaderPrefix(guid));
    }
    this.encoders.set(topic, this.codec.encoder(writer, id, this.options.messageName));
    return this.serialize(topic, value, headers);
  }
}

export interface DeserializerOptions {
  /** Optional reader schema (Avro: resolved from the writer's schema). */
  readerSchema?: string | object;
  schemaType?: SchemaType;
  references?: SchemaReference[];
  /** Deserialize keys: their schema id header is `__key_schema_id`. */
  isKey?: boolean;
}

export class Deserializer {
  /** Per schema id: the decoder of its writer schema (resolved to the reader schema, if any). */
  private readonly decoders: LruCache<number, Decode>;
  private readonly loading = new Map<number, Promise<Decode>>();
  /** Per GUID (schema ids sent in headers): the decoder of its writer schema. */
  private readonly decodersByGuid: LruCache<string, Decode>;
  private readonly loadingGuids = new Map<string, Promise<Decode>>();
  private readerParsing?: Promise<ParsedSchema>;
  private lastId = -1;
  private lastDecode?: Decode;

  constructor(
    private readonly client: SchemaRegistryClient,
    private readonly options: DeserializerOptions = {},
  ) {
    this.decoders = new LruCache(client.settings.int("max.schemas.per.subject"));
    this.decodersByGuid = new LruCache(client.settings.int("max.schemas.per.subject"));
  }

  /**
   * Decodes framed bytes; with the writer's schema cached this makes no registry call and no await.
   * With the record's `headers`, a schema id header (Confluent 8's, ./schema-id-header.ts) names the
   * schema instead and `bytes` is the bare payload, as Confluent's DualSchemaIdDeserializer reads them.
   */
  deserialize(topic: string, bytes: Uint8Array | null, headers?: Iterable<SerdeHeader>): Promise<unknown> {
    if (bytes === null) return Promise.resolve(null);
    const header = headers && lastHeader(headers, schemaIdHeaderName(this.options.isKey ?? false));
    if (header) return this.deserializeWithHeader(topic, header, bytes);
    try {
      const { id, offset } = unframe(bytes);
      const decode = this.cachedDecoder(id);
      if (!decode) return this.loadAndDeserialize(topic, id, bytes, offset);
      return Promise.resolve(decode(bytes, offset));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** deserialize() for bytes whose writer schema is already cached (after one deserialize()); no promise. */
  deserializeSync(bytes: Uint8Array): unknown {
    const { id, offset } = unframe(bytes);
    const decode = this.cachedDecoder(id);
    if (!decode) throw new SerializationException(`Schema ${id} is not cached yet: call deserialize() once first`);
    return decode(bytes, offset);
  }

  private async deserializeWithHeader(topic: string, header: Uint8Array, payload: Uint8Array): Promise<unknown> {
    const { id, guid, framed } = readSchemaIdHeader(header, payload);
    if (id !== undefined) {
      const cached = this.cachedDecoder(id);
      return cached ? cached(framed, 5) : this.loadAndDeserialize(topic, id, framed, 5);
    }
    const decode = await this.decodersByGuid.getOrLoad(guid!, this.loadingGuids, () =>
      this.decoderOf(`schema ${guid}`, () => this.client.schemaByGuid(guid!)),
    );
    return decode(framed, 5);
  }

  private cachedDecoder(id: number): Decode | undefined {
    // Streams mostly repeat one schema id: skip the LRU bookkeeping for it.
    if (id === this.lastId) return this.lastDecode;
    const decode = this.decoders.get(id);
    if (decode) {
      this.lastId = id;
      this.lastDecode = decode;
    }
    return decode;
  }

  private async loadAndDeserialize(_topic: string, id: number, bytes: Uint8Array, offset: number): Promise<unknown> {
    const decode = await this.decoders.getOrLoad(id, this.loading, () =>
      this.decoderOf(`schema ${id}`, () => this.client.schemaById(id)),
    );
    return decode(bytes, offset);
  }

  private async decoderOf(what: string, fetch: () => Promise<SchemaText>): Promise<Decode> {
    let writer: ParsedSchema;
    try {
      writer = await parseSchemaText(this.client, await fetch());
    } catch (err) {
      if (err instanceof SerializationException) throw err;
      throw new SerializationException(`Error retrieving ${what} for deserialization: ${(err as Error).message}`, err);
    }
    return codecFor(writer.schemaType).decoder(writer, await this.readerFor(writer));
  }

  /** The reader schema, parsed once (its type defaults to the first writer's). */
  private async readerFor(writer: ParsedSchema): Promise<ParsedSchema | undefined> {
    const schema = this.options.readerSchema;
    if (schema === undefined) return undefined;
    this.readerParsing ??= parseSchemaText(this.client, {
      schema: typeof schema === "string" ? schema : JSON.stringify(schema),
      schemaType: this.options.schemaType ?? writer.schemaType,
      references: this.options.references ?? [],
    });
    return this.readerParsing;
  }
}
