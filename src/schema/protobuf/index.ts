// Protobuf behind the SchemaFormat interface, following Confluent's protobuf-provider: the schema
// (.proto text, or a base64 FileDescriptorProto as descriptor-based clients send) is parsed into a
// Wire-like element tree, from which come the canonical and normalized strings and the
// compatibility check; protobufjs holds the runtime types the serializer uses.
import type protobuf from "protobufjs";
import {
  InvalidSchemaError,
  type Incompatibility,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
  flattenReferences,
} from "../format.ts";
import { canonicalString, normalizedString, SchemaProblem } from "./canonical.ts";
import { readProblems } from "./compatibility.ts";
import { decodeFileDescriptor } from "./descriptor-types.ts";
import { fileElementFromDescriptor } from "./descriptor-file.ts";
import type { Position, ProtoFileElement } from "./elements.ts";
import { knownFiles } from "./known-files.ts";
import { NestingTooDeepError, parseProto } from "./parser.ts";
import { ProtoSyntaxError } from "./syntax-reader.ts";
import { buildRoot, indexesFor, messageNameFor, messageTypesOf, type RuntimeSource } from "./runtime.ts";
import { serializedFileDescriptor } from "./serialized.ts";
import type { ReferenceKey, SchemaFiles } from "./type-context.ts";

export { decodeMessageIndexes, encodeMessageIndexes } from "./message-indexes.ts";
export type { ProtoFileElement } from "./elements.ts";

export class ProtobufParsedSchema implements ParsedSchema {
  readonly schemaType = "PROTOBUF" as const;

  constructor(
    /** The schema's own file. */
    readonly file: ProtoFileElement,
    readonly canonical: string,
    /** The file with its dependencies, as Confluent's type lookup sees them. */
    readonly files: SchemaFiles,
    /** protobufjs types of the schema and everything it imports. */
    readonly root: protobuf.Root,
    private readonly normalizedText: string,
  ) {}

  normalized(): string {
    return this.normalizedText;
  }
}

export interface ProtobufFormat extends SchemaFormat {
  parse(text: string, references: ResolvedReference[]): ProtobufParsedSchema;
}

export const protobufFormat: ProtobufFormat = {
  schemaType: "PROTOBUF",
  parse(text: string, references: ResolvedReference[]): ProtobufParsedSchema {
    return parseSchema(text, references);
  },
  formatted(parsed: ParsedSchema, format: string): string | undefined {
    return format.toLowerCase() === "serialized" ? serializedFormat(parsed) : undefined;
  },
  readProblems(
    reader: ParsedSchema,
    writer: ParsedSchema,
    newSchema: "reader" | "writer" = "reader",
  ): Incompatibility[] {
    // Confluent's Protobuf Difference.toString: double quotes, no additionalInfo.
    return readProblems(asProtobuf(reader).files, asProtobuf(writer).files, newSchema).map((p) => ({
      ...p,
      rendered: `{errorType:"${p.type}", description:"${p.description}"}`,
    }));
  },
};

function asProtobuf(parsed: ParsedSchema): ProtobufParsedSchema {
  if (!(parsed instanceof ProtobufParsedSchema)) throw new TypeError("Not a Protobuf schema");
  return parsed;
}

/** Every message of the schema's file (nested too) in file order, with its Confluent message indexes. */
export function messageTypes(parsed: ParsedSchema): { fullName: string; indexes: number[] }[] {
  return messageTypesOf(asProtobuf(parsed).file);
}

/** The message type a message-index path designates ([] or [0]: the first message). */
export function messageForIndexes(parsed: ParsedSchema, indexes: number[]): protobuf.Type {
  const schema = asProtobuf(parsed);
  return schema.root.lookupType(messageNameFor(schema.file, indexes));
}

/** The message-index path of a message of the schema's file, by full name (package optional). */
export function indexesForMessage(parsed: ParsedSchema, fullName: string): number[] {
  return indexesFor(asProtobuf(parsed).file, fullName);
}

/** Base64 FileDescriptorProto, as Confluent serves `GET /schemas/ids/{id}?format=serialized`. */
export function serializedFormat(parsed: ParsedSchema): string {
  return serializedFileDescriptor(asProtobuf(parsed).files);
}

// ---------------------------------------------------------------------------------------------

const where = (p: Position | null): string => (p === null ? "" : ` (line ${p.line}, column ${p.column})`);

/** Java's basic Base64 decoder: the alphabet only, padding optional; null when not base64. */
function base64Bytes(text: string): Uint8Array | null {
  const m = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(text);
  if (!m || m[1].length === 0) return null;
  const len = m[1].length + m[2].length;
  if (m[2].length > 0 ? len % 4 !== 0 : m[1].length % 4 === 1) return null;
  return Uint8Array.from(Buffer.from(text, "base64"));
}

/** ProtobufSchema.toProtoFile(String): .proto text, else a base64 FileDescriptorProto. */
function parseFile(text: string, referenceName: string | null): ProtoFileElement {
  try {
    return parseProto(text);
  } catch (e) {
    if (e instanceof NestingTooDeepError) throw new InvalidSchemaError(e.message);
    if (!(e instanceof ProtoSyntaxError)) throw e;
    const bytes = base64Bytes(text);
    if (bytes !== null) {
      try {
        return fileElementFromDescriptor(decodeFileDescriptor(bytes));
      } catch {
        // not a descriptor either: report the .proto syntax error
      }
    }
    const suffix = referenceName === null ? "" : ` (in reference "${referenceName}")`;
    throw new InvalidSchemaError(`Could not parse Protobuf - ${e.message}${suffix}`);
  }
}

function parseSchema(text: string, references: readonly ResolvedReference[]): ProtobufParsedSchema {
  const main = parseFile(text, null);
  const dependencies = new Map<string, ProtoFileElement>();
  const runtimeDeps = new Map<string, RuntimeSource>();
  for (const [name, refText] of flattenReferences(references)) {
    const element = parseFile(refText, name);
    dependencies.set(name, element);
    runtimeDeps.set(name, { name, element, json: null });
  }
  for (const [name, known] of knownFiles()) if (!dependencies.has(name)) dependencies.set(name, known.element);
  const directReferences = new Map<string, ReferenceKey>(
    references.map((r) => [r.name, { subject: r.subject, version: r.version }]),
  );
  const files: SchemaFiles = { main, dependencies, references: directReferences };

  let canonical: string;
  let normalized: string;
  try {
    canonical = canonicalString(main);
    // Confluent validates a new schema by normalizing it, which resolves every type it uses.
    normalized = normalizedString(files);
  } catch (e) {
    // Confluent reports whatever its printer throws (IllegalArgumentException) as an invalid schema.
    if (e instanceof SchemaProblem) throw new InvalidSchemaError(`${e.message}${where(e.position)}`);
    throw new InvalidSchemaError(e instanceof Error ? e.message : String(e));
  }

  let root: protobuf.Root;
  try {
    root = buildRoot({ name: "", element: main, json: null }, runtimeDeps);
  } catch (e) {
    throw new InvalidSchemaError(e instanceof Error ? e.message : String(e));
  }
  return new ProtobufParsedSchema(main, canonical, files, root, normalized);
}
