// Which schema id values are written with, by Confluent's serializer settings: use.schema.id, else
// auto.register.schemas (register), else use.latest.version (the subject's latest, checked with
// latest.compatibility.strict), else a look-up of the schema under the subject. The subject comes
// from the key or value subject name strategy. One resolver serves the serde Serializer and the
// Connect registry converters (Avro, Protobuf, JSON Schema).
import { formats } from "../schema/index.ts";
import { InvalidSchemaError, type ParsedSchema, type SchemaReference } from "../schema/format.ts";
import { subjectName, subjectNameStrategy, type SubjectNameStrategy } from "./config.ts";
import { SerializationException } from "./errors.ts";
import type { SchemaRegistryClient, SchemaText } from "./registry-client.ts";

export interface ResolvedSchema {
  id: number;
  /** The schema values are written with: the given one, or the subject's latest (use.latest.version). */
  writer: ParsedSchema;
}

/** A schema from the registry, parsed with its references fetched; a bad schema is a SerializationException. */
export async function parseSchemaText(client: SchemaRegistryClient, text: SchemaText): Promise<ParsedSchema> {
  const format = formats.get(text.schemaType);
  if (!format) throw new SerializationException(`Schema type ${text.schemaType} is not supported`);
  try {
    return format.parse(text.schema, await client.resolveReferences(text.references));
  } catch (err) {
    if (err instanceof InvalidSchemaError)
      throw new SerializationException(`Invalid ${text.schemaType} schema: ${err.message}`, err);
    throw err;
  }
}

export class SchemaIdResolver {
  private readonly strategy: SubjectNameStrategy;
  /** Per schema and subject: the id (and writer) once the registry gave it. */
  private readonly resolved = new WeakMap<ParsedSchema, Map<string, ResolvedSchema>>();

  constructor(
    private readonly client: SchemaRegistryClient,
    private readonly isKey: boolean,
  ) {
    this.strategy = subjectNameStrategy(
      client.settings.string(isKey ? "key.subject.name.strategy" : "value.subject.name.strategy"),
    )!;
  }

  /** The subject a schema is registered under for `topic`; `recordName` is asked only by the record name strategies. */
  subject(topic: string, recordName: () => string | undefined): string {
    return subjectName(this.strategy, topic, this.isKey, recordName);
  }

  /** What resolve() gave for this schema and subject, without waiting. */
  known(subject: string, schema: ParsedSchema): ResolvedSchema | undefined {
    return this.resolved.get(schema)?.get(subject);
  }

  /** The id to write `schema` with under `subject`, asking the registry as the settings say; remembered. */
  async resolve(subject: string, schema: ParsedSchema, references: SchemaReference[] = []): Promise<ResolvedSchema> {
    const known = this.known(subject, schema);
    if (known) return known;
    const settings = this.client.settings;
    const normalize = settings.boolean("normalize.schemas");
    const text: SchemaText = { schema: schema.canonical, schemaType: schema.schemaType, references };
    let resolved: ResolvedSchema = { id: -1, writer: schema };
    try {
      if (settings.int("use.schema.id") >= 0) resolved.id = settings.int("use.schema.id");
      else if (settings.boolean("auto.register.schemas"))
        resolved.id = await this.client.register(subject, text, normalize);
      else if (settings.boolean("use.latest.version")) resolved = await this.latest(subject, schema);
      else resolved.id = await this.client.lookup(subject, text, normalize);
    } catch (err) {
      if (err instanceof SerializationException) throw err;
      throw new SerializationException(
        `Error retrieving schema id for subject ${subject}: ${(err as Error).message}`,
        err,
      );
    }
    let bySubject = this.resolved.get(schema);
    if (!bySubject) this.resolved.set(schema, (bySubject = new Map()));
    bySubject.set(subject, resolved);
    return resolved;
  }

  /** use.latest.version: the subject's latest schema, which must read the given one when strict. */
  private async latest(subject: string, schema: ParsedSchema): Promise<ResolvedSchema> {
    const latest = await this.client.version(subject, "latest");
    if (latest.schemaType !== schema.schemaType)
      throw new SerializationException(`Latest schema of ${subject} is ${latest.schemaType}, not ${schema.schemaType}`);
    const writer = await parseSchemaText(this.client, latest);
    if (this.client.settings.boolean("latest.compatibility.strict")) {
      const problems = formats.get(schema.schemaType)!.readProblems(writer, schema);
      if (problems.length > 0) {
        throw new SerializationException(
          `Latest schema of ${subject} (version ${latest.version}) cannot read the given schema: ${problems.map((p) => p.description).join("; ")}`,
        );
      }
    }
    return { id: latest.id, writer };
  }
}
