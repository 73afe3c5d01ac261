// Shared helpers for the Protobuf format tests.
import type { ResolvedReference } from "#src/schema/format.ts";
import { protobufFormat, type ProtobufParsedSchema } from "#src/schema/protobuf/index.ts";

export function ref(
  name: string,
  schema: string,
  references: ResolvedReference[] = [],
  version = 1,
): ResolvedReference {
  return { name, subject: name, version, schema, schemaType: "PROTOBUF", references };
}

export const parse = (text: string, references: ResolvedReference[] = []): ProtobufParsedSchema =>
  protobufFormat.parse(text, references);

export const canonical = (text: string, references: ResolvedReference[] = []): string =>
  parse(text, references).canonical;

/** The InvalidSchemaError message parsing `text` raises. */
export function parseError(text: string, references: ResolvedReference[] = []): string {
  try {
    protobufFormat.parse(text, references);
  } catch (e) {
    if (e instanceof Error && e.name === "InvalidSchemaError") return e.message;
    throw e;
  }
  throw new Error("expected the schema to be rejected");
}

export const proto3 = (body: string, header = ""): string => `syntax = "proto3";\n${header}${body}`;
