// One interface, one implementation per schema type (avro/, later protobuf/ and jsonschema/).
// Pure: no HTTP, no broker.

export type SchemaType = "AVRO" | "PROTOBUF" | "JSON";

export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/** A reference with the referenced schema's text, resolved (recursively) by the registry. */
export interface ResolvedReference extends SchemaReference {
  schema: string;
  schemaType: SchemaType;
  references: ResolvedReference[];
}

/** A reference with the subject version it names (`latest`, -1, made a number) and that version's own references resolved. */
export function resolvedReference(
  ref: SchemaReference,
  target: { version: number; schema: string; schemaType: SchemaType },
  references: ResolvedReference[],
): ResolvedReference {
  return {
    name: ref.name,
    subject: ref.subject,
    version: target.version,
    schema: target.schema,
    schemaType: target.schemaType,
    references,
  };
}

/**
 * Referenced schema texts by reference name, depth-first (dependencies first), each name once — the
 * order Confluent's AbstractSchemaProvider.resolveReferences hands them to a parser.
 */
export function flattenReferences(references: readonly ResolvedReference[]): Map<string, string> {
  const texts = new Map<string, string>();
  const visited = new Set<string>();
  const visit = (refs: readonly ResolvedReference[]): void => {
    for (const ref of refs) {
      if (visited.has(ref.name)) continue;
      visited.add(ref.name);
      visit(ref.references ?? []);
      if (!texts.has(ref.name)) texts.set(ref.name, ref.schema);
    }
  };
  visit(references);
  return texts;
}

export interface ParsedSchema {
  readonly schemaType: SchemaType;
  /** The form stored, returned and compared for identity (Confluent's canonical string). */
  readonly canonical: string;
  /** The form used with `normalize=true` (stored instead of `canonical` then). */
  normalized(): string;
}

/** One reason why data written with one schema cannot be read with another. */
export interface Incompatibility {
  /** Confluent/Avro difference type, e.g. READER_FIELD_MISSING_DEFAULT_VALUE. */
  type: string;
  /** JSON-pointer-like location in the reader schema, e.g. /fields/1/type. */
  path: string;
  description: string;
  /** Short extra detail (field name, missing symbols, ...) as Confluent's additionalInfo. */
  additionalInfo?: string;
  /** Confluent's whole message for this problem, when the format renders it its own way. */
  rendered?: string;
}

export interface SchemaFormat {
  readonly schemaType: SchemaType;
  /** Throws InvalidSchemaError with the parser's reason. */
  parse(text: string, references: ResolvedReference[]): ParsedSchema;
  /**
   * Problems reading data written with `writer` using `reader`; empty when compatible.
   * `newSchema` names the side being registered, for Confluent's "new"/"old" wording in
   * descriptions: "reader" (default) for BACKWARD checks, "writer" for FORWARD checks.
   */
  readProblems(reader: ParsedSchema, writer: ParsedSchema, newSchema?: "reader" | "writer"): Incompatibility[];
  /** The schema in another of Confluent's `format=` renderings (e.g. Protobuf "serialized"); undefined if unknown. */
  formatted?(parsed: ParsedSchema, format: string): string | undefined;
}

export class InvalidSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSchemaError";
  }
}
