// The registry's CPU-heavy questions about schema texts — the identity form of a candidate and its
// compatibility messages against earlier versions — as functions of texts alone, so that large
// schemas can be answered on the schema thread (on-schema-thread.ts) while the event loop serves
// reads. Both sides import this file: isLarge decides on the event loop which side answers.
import { checkCompatibility, type CompatibilityLevel, type PreviousVersion } from "../compatibility.ts";
import { formats } from "../../schema/index.ts";
import { InvalidSchemaError, type ParsedSchema, type ResolvedReference, type SchemaType } from "../../schema/format.ts";

/** A schema as text with its references resolved (what crosses to the schema thread). */
export interface SchemaText {
  schemaType: SchemaType;
  schema: string;
  references: ResolvedReference[];
}

export interface VersionText extends SchemaText {
  version: number;
}

/** Below this many characters (schema and references) parsing is quick enough for the event loop. */
const LARGE_SCHEMA_CHARS = 16 * 1024;

export function isLarge(...texts: SchemaText[]): boolean {
  let chars = 0;
  const add = (refs: readonly ResolvedReference[]): void => {
    for (const r of refs) {
      chars += r.schema.length;
      add(r.references);
    }
  };
  for (const t of texts) {
    chars += t.schema.length;
    add(t.references);
  }
  return chars >= LARGE_SCHEMA_CHARS;
}

// The last few parses: a registration asks for the identity form, then for compatibility.
const CACHE_SIZE = 8;
const cache = new Map<string, ParsedSchema>();

/** Parses with the schema's format; throws InvalidSchemaError with the parser's reason. */
export function parseText(s: SchemaText): ParsedSchema {
  const key = `${s.schemaType}\u0000${s.schema}\u0000${JSON.stringify(s.references)}`;
  let parsed = cache.get(key);
  if (parsed === undefined) {
    const format = formats.get(s.schemaType);
    if (!format) throw new InvalidSchemaError(`Invalid schema type ${s.schemaType}`);
    parsed = format.parse(s.schema, s.references);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.delete(key);
  cache.set(key, parsed);
  return parsed;
}

/** The form stored and compared for identity: canonical, or normalized with `normalize=true`. */
export function identityForm(s: SchemaText, normalize: boolean): string {
  const parsed = parseText(s);
  return normalize ? parsed.normalized() : parsed.canonical;
}

/** Confluent's incompatibility messages for `candidate` against `previous` (oldest first). */
export function compatibilityMessages(
  candidate: SchemaText,
  level: CompatibilityLevel,
  previous: VersionText[],
): string[] {
  const parsed = parseText(candidate);
  const versions: PreviousVersion[] = [];
  for (const p of previous) {
    try {
      versions.push({ version: p.version, schema: p.schema, parsed: parseText(p) });
    } catch {
      // A stored schema this registry cannot parse cannot be compared; Confluent skips it too.
    }
  }
  return checkCompatibility(formats.get(candidate.schemaType)!, level, parsed, versions);
}
