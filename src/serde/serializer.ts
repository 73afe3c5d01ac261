// Confluent-compatible serializers and deserializers for any Bun/Node app.
import type { ParsedSchema, SchemaReference, SchemaType } from "../schema/format.ts";
import { codecs } from "./codecs/index.ts";
import type { ValueCodec } from "./codecs/codec.ts";
import { SerializationException } from "./errors.ts";
import type { SchemaRegistryClient, SchemaText } from "./registry-client.ts";
import { parseSchemaText, SchemaIdResolver, type ResolvedSchema } from "./schema-id-resolver.ts";
import { frame, unframe } from "./wire-format.ts";
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
  /** Per topic, once resolved: the schema id and the schema values are written with. */
  private readonly resolved = new Map<string, ResolvedSchema>();
  private lastTopic?: string;
  private lastResolved?: ResolvedSchema;

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
  serialize(topic: string, value: unknown): Promise<Uint8Array> {
    if (!this.resolved.has(topic)) return this.resolveAndSerialize(topic, value);
    try {
      return Promise.resolve(this.serializeSync(topic, value));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** serialize() for a topic whose schema id is already known (after one serialize()); no promise. */
  serializeSync(topic: string, value: unknown): Uint8Array {
    const known = topic === this.lastTopic ? this.lastResolved : this.resolved.get(topic);
    if (known) {
      this.lastTopic = topic;
      this.lastResolved = known;
    }
    if (!known) throw new SerializationException(`The schema id for topic ${topic} is not known yet: call serialize() once first`);
    const encoded = this.codec.encode(known.writer, value, this.options.messageName);
    return frame(known.id, encoded.payload, encoded.prefix);
  }

  private async resolveAndSerialize(topic: string, value: unknown): Promise<Uint8Array> {
    this.parsing ??= parseSchemaText(this.client, this.text);
    const schema = await this.parsing.catch((err: unknown) => {
      this.parsing = undefined;
      throw err;
    });
    // Checked before any registry call: a bad value never registers or sends anything.
    this.codec.encode(schema, value, this.options.messageName);
    const subject = this.resolver.subject(topic, () => this.codec.recordName(schema, this.options.messageName));
    this.resolved.set(topic, await this.resolver.resolve(subject, schema, this.text.references));
    return this.serialize(topic, value);
  }
}

export interface DeserializerOptions {
  /** Optional reader schema (Avro: resolved from the writer's schema). */
  readerSchema?: string | object;
  schemaType?: SchemaType;
  references?: SchemaReference[];
}

export class Deserializer {
  private readonly writers: LruCache<number, ParsedSchema>;
  private readonly loading = new Map<number, Promise<ParsedSchema>>();
  private reader?: ParsedSchema;
  private readerParsing?: Promise<ParsedSchema>;
  private lastId = -1;
  private lastWriter?: ParsedSchema;

  constructor(
    private readonly client: SchemaRegistryClient,
    private readonly options: DeserializerOptions = {},
  ) {
    this.writers = new LruCache(client.settings.int("max.schemas.per.subject"));
  }

  /** Decodes framed bytes; with the writer's schema cached this makes no registry call and no await. */
  deserialize(topic: string, bytes: Uint8Array | null): Promise<unknown> {
    if (bytes === null) return Promise.resolve(null);
    try {
      const { id, offset } = unframe(bytes);
      const writer = this.cachedWriter(id);
      if (!writer) return this.loadAndDeserialize(topic, id, bytes, offset);
      return Promise.resolve(codecFor(writer.schemaType).decode(writer, bytes, offset, this.reader));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** deserialize() for bytes whose writer schema is already cached (after one deserialize()); no promise. */
  deserializeSync(bytes: Uint8Array): unknown {
    const { id, offset } = unframe(bytes);
    const writer = this.cachedWriter(id);
    if (!writer) throw new SerializationException(`Schema ${id} is not cached yet: call deserialize() once first`);
    return codecFor(writer.schemaType).decode(writer, bytes, offset, this.reader);
  }

  /** The cached writer schema, when decoding can start (and the reader schema, if any, is parsed). */
  private cachedWriter(id: number): ParsedSchema | undefined {
    if (this.options.readerSchema !== undefined && this.reader === undefined) return undefined;
    // Streams mostly repeat one schema id: skip the LRU bookkeeping for it.
    if (id === this.lastId) return this.lastWriter;
    const writer = this.writers.get(id);
    if (writer) {
      this.lastId = id;
      this.lastWriter = writer;
    }
    return writer;
  }

  private async loadAndDeserialize(_topic: string, id: number, bytes: Uint8Array, offset: number): Promise<unknown> {
    const writer = await this.writers.getOrLoad(id, this.loading, async () => {
      try {
        return await parseSchemaText(this.client, await this.client.schemaById(id));
      } catch (err) {
        if (err instanceof SerializationException) throw err;
        throw new SerializationException(`Error retrieving schema ${id} for deserialization: ${(err as Error).message}`, err);
      }
    });
    const schema = this.options.readerSchema;
    if (schema !== undefined && !this.reader) {
      this.readerParsing ??= parseSchemaText(this.client, {
        schema: typeof schema === "string" ? schema : JSON.stringify(schema),
        schemaType: this.options.schemaType ?? writer.schemaType,
        references: this.options.references ?? [],
      });
      this.reader = await this.readerParsing;
    }
    return codecFor(writer.schemaType).decode(writer, bytes, offset, this.reader);
  }
}
