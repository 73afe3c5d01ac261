// JSON Schema behind the SchemaFormat interface, following Confluent's JsonSchemaProvider:
// - the text is read as Jackson reads it, and the canonical string is Jackson's compact
//   re-serialization (key order as written); `normalize` sorts object keys;
// - `true`/`false` are schemas of their own; objects are checked against their draft's
//   meta-schema (`$schema`, draft 7 when absent or unknown) and loaded into the Everit-style model
//   Confluent diffs, which resolves every `$ref` (missing references are rejected);
// - compatibility is Confluent's SchemaDiff with the STRICT policy.
import {
  InvalidSchemaError,
  type Incompatibility,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
  flattenReferences,
} from "../format.ts";
import { compareSchemas } from "./compatibility.ts";
import { COMPATIBLE_STRICT, describe } from "./differences.ts";
import { draftOf, idKeyword, metaSchemaDocuments, metaSchemaProblems, type Draft } from "./drafts.ts";
import { JsonSyntaxError, sortedKeys } from "../../jvm/json-text.ts";
import { isJObject, JNumber, readTree, toPlain, writeJson, type JValue } from "./json.ts";
import { SchemaLoader } from "./loader.ts";
import type { SchemaNode } from "./model.ts";
import { RefResolver } from "./references.ts";
import { compileValidator } from "./validator.ts";

export { CompatibilityCheckError } from "./compatibility.ts";
export type { Draft } from "./drafts.ts";
export type { DifferenceType } from "./differences.ts";

export class JsonSchemaParsed implements ParsedSchema {
  readonly schemaType = "JSON" as const;
  private normalizedCache: string | undefined;

  constructor(
    /** The schema as Jackson read it. */
    readonly root: JValue,
    readonly canonical: string,
    readonly draft: Draft,
    /** Every (transitively) referenced schema, by reference name. */
    readonly references: ReadonlyMap<string, JValue>,
    /** Resolution scope of the root (its `$id`, or `id` in draft 4). */
    readonly rootScope: string | null,
    /** The Everit-style model compatibility checks compare. */
    readonly model: SchemaNode,
  ) {}

  normalized(): string {
    // Confluent re-reads its canonical string with a key-sorting node factory and writes it again.
    this.normalizedCache ??= writeJson(sortedKeys(this.root));
    return this.normalizedCache;
  }
}

export interface JsonSchemaFormat extends SchemaFormat {
  parse(text: string, references: ResolvedReference[]): JsonSchemaParsed;
}

/** Jackson's JsonNodeType names, for the root-type message. */
function nodeType(v: JValue | undefined): string {
  if (v === undefined) return "MISSING";
  if (v === null) return "NULL";
  if (typeof v === "boolean") return "BOOLEAN";
  if (typeof v === "string") return "STRING";
  if (v instanceof JNumber) return "NUMBER";
  return Array.isArray(v) ? "ARRAY" : "OBJECT";
}

function readText(text: string, what: string): JValue | undefined {
  try {
    return readTree(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new InvalidSchemaError(`Invalid JSON schema${what}: ${e.message}`);
    throw e;
  }
}

function parseSchema(text: string, references: readonly ResolvedReference[]): JsonSchemaParsed {
  const root = readText(text, "");
  if (root === undefined || (typeof root !== "boolean" && !isJObject(root))) {
    throw new InvalidSchemaError(
      `Invalid JSON schema: expected an object or boolean at the root, found ${nodeType(root)}`,
    );
  }
  const canonical = writeJson(root);
  const referenced = new Map<string, JValue>();
  for (const [name, refText] of flattenReferences(references)) {
    const tree = readText(refText, ` (reference '${name}')`);
    if (tree === undefined) throw new InvalidSchemaError(`Invalid JSON schema (reference '${name}'): no content`);
    referenced.set(name, tree);
  }
  const schemaKeyword = isJObject(root) ? root.get("$schema") : undefined;
  const draft = draftOf(typeof schemaKeyword === "string" ? schemaKeyword : undefined);
  const id = isJObject(root) ? root.get(idKeyword(draft)) : undefined;
  const rootScope = typeof id === "string" ? id : null;
  if (isJObject(root)) {
    const problems = [...new Set(metaSchemaProblems(toPlain(root) as object, draft))];
    if (problems.length > 0) {
      const shown = problems.slice(0, 5).join("; ") + (problems.length > 5 ? `; and ${problems.length - 5} more` : "");
      throw new InvalidSchemaError(`Invalid JSON: not a valid ${draft} schema: ${shown}`);
    }
  }
  const resolver = new RefResolver({ uri: null, root }, rootScope, referenced, idKeyword(draft), metaSchemaDocuments());
  let model: SchemaNode;
  try {
    model = new SchemaLoader(draft, resolver).loadRoot();
  } catch (e) {
    if (e instanceof InvalidSchemaError) throw new InvalidSchemaError(`Invalid JSON: ${e.message}`);
    if (e instanceof RangeError) throw new InvalidSchemaError("Invalid JSON: schema nesting too deep");
    throw e;
  }
  return new JsonSchemaParsed(root, canonical, draft, referenced, rootScope, model);
}

export const jsonSchemaFormat: JsonSchemaFormat = {
  schemaType: "JSON",
  parse(text: string, references: ResolvedReference[]): JsonSchemaParsed {
    return parseSchema(text, references);
  },
  readProblems(
    reader: ParsedSchema,
    writer: ParsedSchema,
    newSchema: "reader" | "writer" = "reader",
  ): Incompatibility[] {
    if (!(reader instanceof JsonSchemaParsed) || !(writer instanceof JsonSchemaParsed)) {
      throw new TypeError("JSON Schema compatibility needs two JSON schemas");
    }
    // Confluent diffs original = the schema whose data is read, update = the reading schema.
    const updateLabel = newSchema === "reader" ? "new" : "old";
    const originalLabel = newSchema === "reader" ? "old" : "new";
    return compareSchemas(writer.model, reader.model)
      .filter((d) => !COMPATIBLE_STRICT.has(d.type))
      .map((d) => {
        const problem: Incompatibility = {
          type: d.type,
          path: d.path,
          description: describe(d.type, d.path, updateLabel, originalLabel),
        };
        return { ...problem, rendered: formatJsonSchemaDifference(problem) };
      });
  },
};

/**
 * Confluent's own rendering of a JSON Schema difference in compatibility messages
 * (Difference.toString: double quotes, no additionalInfo, a stray closing quote).
 */
export function formatJsonSchemaDifference(p: Incompatibility): string {
  return `{errorType:"${p.type}", description:"${p.description}'}`;
}

const validators = new WeakMap<ParsedSchema, (value: unknown) => string[]>();

/**
 * A compiled (and cached) validator for values of a JSON schema, references and formats
 * included: returns the validation errors, empty when the value is valid.
 */
export function jsonValidator(parsed: ParsedSchema): (value: unknown) => string[] {
  if (!(parsed instanceof JsonSchemaParsed)) throw new TypeError("jsonValidator needs a JSON schema");
  let v = validators.get(parsed);
  if (v === undefined) {
    v = compileValidator(parsed);
    validators.set(parsed, v);
  }
  return v;
}

/** The root `title` as Confluent's JsonSchema.name() reads it (Jackson asText), if present. */
export function jsonSchemaTitle(parsed: ParsedSchema): string | undefined {
  if (!(parsed instanceof JsonSchemaParsed) || !isJObject(parsed.root)) return undefined;
  const title = parsed.root.get("title");
  if (title === undefined) return undefined;
  if (typeof title === "string") return title;
  if (title === null) return "null";
  if (typeof title === "boolean" || title instanceof JNumber) return String(title);
  return "";
}
