// Avro behind the SchemaFormat interface. Parsing follows Java Avro 1.12 `Schema.Parser` as Confluent
// configures it for a schema being registered (AvroSchema with validateAsNew=true: strict ASCII name
// validation, defaults validated), so that what Sluice accepts, and the strings it stores, match
// Confluent byte for byte. avsc provides the runtime Type used to encode/decode (and, in tests, an
// independent resolver oracle), built on first use only: the registry never encodes, and each Type
// compiles functions of its own that a long-running registry would otherwise pile up per schema.
// The parser is parser.ts (with defaults.ts and equality.ts, the rules it checks), the avsc adapter
// avsc.ts, the stored and compared forms canonical.ts, the reader/writer rules compatibility.ts.
import type { Type } from "avsc";
import {
  InvalidSchemaError,
  type Incompatibility,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
  flattenReferences,
} from "../format.ts";
import { toAvscType } from "./avsc.ts";
import { canonicalString } from "./canonical.ts";
import { fullNameOf, type AvroNode } from "./model.ts";
import { normalizedSource } from "./normalized.ts";
import { readProblems, type NewSchemaSide } from "./compatibility.ts";
import { ParseContext } from "./parser.ts";

export type { AvroNode } from "./model.ts";
export { isValidDefault } from "./defaults.ts";

export class AvroParsedSchema implements ParsedSchema {
  readonly schemaType = "AVRO" as const;
  private normalizedCache: string | undefined;

  constructor(
    /** Resolved schema tree: named types are shared nodes, references resolved to their definitions. */
    readonly root: AvroNode,
    readonly canonical: string,
    /** Top-level full names of the (transitively) referenced schemas; written as name references. */
    readonly referenceNames: readonly string[],
    private readonly referenceRoots: readonly AvroNode[],
    private readonly referenceTexts: readonly string[],
  ) {}

  private avsc: Type | undefined;

  /** avsc runtime type for the schema (named types from references included). */
  get avscType(): Type {
    this.avsc ??= toAvscType(this.referenceRoots, this.root);
    return this.avsc;
  }

  normalized(): string {
    // Confluent re-parses its normalized text and stores that schema's canonical string.
    this.normalizedCache ??= parseWithTexts(
      normalizedSource(this.root, this.referenceNames),
      this.referenceTexts,
    ).canonical;
    return this.normalizedCache;
  }
}

export interface AvroFormat extends SchemaFormat {
  parse(text: string, references: ResolvedReference[]): AvroParsedSchema;
  /**
   * Problems reading `writer` data with `reader`. `newSchema` says which side is the schema being
   * registered, for Confluent's "new"/"old" wording: "reader" for BACKWARD checks (the default),
   * "writer" for FORWARD checks; FULL runs both.
   */
  readProblems(reader: ParsedSchema, writer: ParsedSchema, newSchema?: NewSchemaSide): Incompatibility[];
}

export const avroFormat: AvroFormat = {
  schemaType: "AVRO",
  parse(text: string, references: ResolvedReference[]): AvroParsedSchema {
    return parseWithTexts(text, [...flattenReferences(references).values()]);
  },
  /** Confluent's `resolved`: referenced named types written out where first used (Avro's Schema.toString). */
  formatted(parsed: ParsedSchema, format: string): string | undefined {
    return format.toLowerCase() === "resolved" && parsed instanceof AvroParsedSchema
      ? canonicalString(parsed.root)
      : undefined;
  },
  readProblems(reader: ParsedSchema, writer: ParsedSchema, newSchema: NewSchemaSide = "reader"): Incompatibility[] {
    if (!(reader instanceof AvroParsedSchema) || !(writer instanceof AvroParsedSchema)) {
      throw new TypeError("Avro compatibility needs two Avro schemas");
    }
    return readProblems(reader.root, writer.root, { newSchema });
  },
};

function parseWithTexts(text: string, referenceTexts: readonly string[]): AvroParsedSchema {
  try {
    // One parser for references and main schema, as Confluent does: named types of earlier texts
    // are visible to later ones.
    const ctx = new ParseContext();
    const refRoots = referenceTexts.map((t) => ctx.parseText(t));
    const root = ctx.parseText(text);
    const referenceNames = refRoots.map(fullNameOf);
    const canonical = canonicalString(root, referenceNames);
    return new AvroParsedSchema(root, canonical, referenceNames, refRoots, referenceTexts);
  } catch (e) {
    // Confluent turns any exception of the Avro parser into an invalid-schema error.
    if (e instanceof InvalidSchemaError) throw e;
    throw new InvalidSchemaError(e instanceof Error ? e.message : String(e));
  }
}
