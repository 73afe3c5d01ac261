// Confluent-compatible serializers and deserializers for any Bun/Node app.
import { formats } from "../registry/formats/index.ts";
import type { ParsedSchema, SchemaReference, SchemaType } from "../registry/formats/format.ts";
import { InvalidSchemaError } from "../registry/formats/format.ts";
import { subjectName, subjectNameStrategy } from "./config.ts";
import { codecs } from "./codecs/index.ts";
import type { ValueCodec } from "./codecs/codec.ts";
import { SerializationException } from "./errors.ts";
import type { SchemaRegistryClient, SchemaText } from "./registry-client.ts";
import { frame, unframe } from "./wire-format.ts";
import { LruCache } from "./lru.ts";

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

async function parseWith(client: SchemaRegistryClient, text: SchemaText): Promise<ParsedSchema> {
  const format = formats.get(text.schemaType);
  if (!format) throw new SerializationException(`Schema type ${text.schemaType} is not supported`);
  try {
    return format.parse(text.schema, await client.resolveReferences(text.references));
  } catch (err) {
    if (err instanceof InvalidSchemaError) throw new SerializationException(`Invalid ${text.schemaType} schema: ${err.message}`, err);
    throw err;
  }
}

function codecFor(type: SchemaType): ValueCodec {
  const codec = codecs.get(type);
  if (!codec) throw new SerializationException(`Schema type ${type} is not supported`);
  return codec;
}

export class Serializer {
  private readonly text: SchemaText;
  private parsed?: Promise<ParsedSchema>;
  private readonly codec: ValueCodec;

  constructor(
    private readonly client: SchemaRegistryClient,
    private readonly options: SerializerOptions,
  ) {
    const schemaType = options.schemaType ?? "AVRO";
    this.codec = codecFor(schemaType);
    this.text = {
      schema: typeof options.schema === "string" ? options.schema : JSON.stringify(options.schema),
      schemaType,
      references: options.references ?? [],
    };
  }

  /** Checks the value against the schema, finds its schema id, and returns the framed bytes. */
  async serialize(topic: string, value: unknown): Promise<Uint8Array> {
    const settings = this.client.settings;
    this.parsed ??= parseWith(this.client, this.text);
    const schema = await this.parsed;
    // Checked before any registry call: a bad value never registers or sends anything.
    const encoded = this.codec.encode(schema, value, this.options.messageName);
    const isKey = this.options.isKey ?? false;
    const strategy = subjectNameStrategy(settings.string(isKey ? "key.subject.name.strategy" : "value.subject.name.strategy"))!;
    const subject = subjectName(strategy, topic, isKey, () => this.codec.recordName(schema, this.options.messageName));
    const normalize = settings.boolean("normalize.schemas");
    const text = { ...this.text, schema: schema.canonical };
    let id: number;
    try {
      if (settings.int("use.schema.id") >= 0) id = settings.int("use.schema.id");
      else if (settings.boolean("auto.register.schemas")) id = await this.client.register(subject, text, normalize);
      else if (settings.boolean("use.latest.version")) return await this.serializeWithLatest(subject, schema, value);
      else id = await this.client.lookup(subject, text, normalize);
    } catch (err) {
      if (err instanceof SerializationException) throw err;
      throw new SerializationException(`Error retrieving schema id for subject ${subject}: ${(err as Error).message}`, err);
    }
    return frame(id, encoded.payload, encoded.prefix);
  }

  private async serializeWithLatest(subject: string, schema: ParsedSchema, value: unknown): Promise<Uint8Array> {
    const latest = await this.client.version(subject, "latest");
    const latestParsed = await parseWith(this.client, latest);
    if (this.client.settings.boolean("latest.compatibility.strict")) {
      const problems = formats.get(latest.schemaType)!.readProblems(latestParsed, schema);
      if (problems.length > 0) {
        throw new SerializationException(`Latest schema of ${subject} (version ${latest.version}) cannot read the given schema: ${problems.map((p) => p.description).join("; ")}`);
      }
    }
    const encoded = this.codec.encode(latestParsed, value, this.options.messageName);
    return frame(latest.id, encoded.payload, encoded.prefix);
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
  private reader?: Promise<ParsedSchema>;

  constructor(
    private readonly client: SchemaRegistryClient,
    private readonly options: DeserializerOptions = {},
  ) {
    this.writers = new LruCache(client.settings.int("max.schemas.per.subject"));
  }

  async deserialize(_topic: string, bytes: Uint8Array | null): Promise<unknown> {
    if (bytes === null) return null;
    const { id, offset } = unframe(bytes);
    const writerSchema = await this.writers.getOrLoad(id, this.loading, async () => {
      try {
        return await parseWith(this.client, await this.client.schemaById(id));
      } catch (err) {
        if (err instanceof SerializationException) throw err;
        throw new SerializationException(`Error retrieving schema ${id} for deserialization: ${(err as Error).message}`, err);
      }
    });
    if (this.options.readerSchema !== undefined && !this.reader) {
      const schema = this.options.readerSchema;
      this.reader = parseWith(this.client, {
        schema: typeof schema === "string" ? schema : JSON.stringify(schema),
        schemaType: this.options.schemaType ?? writerSchema.schemaType,
        references: this.options.references ?? [],
      });
    }
    const reader = this.reader ? await this.reader : undefined;
    return codecFor(writerSchema.schemaType).decode(writerSchema, bytes, offset, reader);
  }
}
