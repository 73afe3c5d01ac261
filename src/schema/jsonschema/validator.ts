// Validating values against a registered JSON schema (what the serializer does before writing),
// with ajv: the schema's draft, its references, formats (ajv-formats) and Java-style patterns.
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { newAjv, type Draft } from "./drafts.ts";
import { isJObject, toPlain, type JValue } from "./json.ts";
import { resolveUri } from "./references.ts";
import { compileJavaPattern } from "./regex.ts";

export interface ValidatorSource {
  readonly draft: Draft;
  readonly root: JValue;
  /** Reference name → parsed schema, all transitive references. */
  readonly references: ReadonlyMap<string, JValue>;
  /** Resolution scope of the root (its `$id`/`id`), if any. */
  readonly rootScope: string | null;
}

/** Java-style patterns for ajv (falls back to a never-failing pattern so compilation succeeds). */
const javaRegExp = Object.assign((pattern: string) => compileJavaPattern(pattern) ?? /(?:)/, { code: "javaRegExp" });

/** Top-level `definitions` also visible as `$defs` (Confluent's mergeDefBuckets, done before loading). */
function mergeDefBuckets(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const obj = schema as Record<string, unknown>;
  const definitions = obj.definitions;
  const defs = obj.$defs;
  if (definitions === null || typeof definitions !== "object" || Array.isArray(definitions)) return schema;
  if (defs !== undefined && (defs === null || typeof defs !== "object" || Array.isArray(defs))) return schema;
  const merged: Record<string, unknown> = {
    ...(definitions as Record<string, unknown>),
    ...((defs ?? {}) as Record<string, unknown>),
  };
  return { ...obj, $defs: merged };
}

function describeError(e: ErrorObject): string {
  const at = e.instancePath === "" ? "#" : `#${e.instancePath}`;
  const p = e.params as Record<string, unknown>;
  const detail = typeof p.additionalProperty === "string" ? ` (${p.additionalProperty})` : "";
  return `${at}: ${e.message ?? "is invalid"}${detail}`;
}

/** Compiles a validator returning error messages (empty when the value is valid). */
export function compileValidator(source: ValidatorSource): (value: unknown) => string[] {
  const ajv = newAjv(source.draft, {
    strict: false,
    allErrors: true,
    validateSchema: false,
    logger: false,
    code: { regExp: javaRegExp },
  });
  addFormats(ajv);
  const hasId = (v: JValue): boolean =>
    isJObject(v) && (typeof v.get("$id") === "string" || typeof v.get("id") === "string");
  for (const [name, root] of source.references) {
    const keys = new Set([resolveUri(source.rootScope, name), name.startsWith("./") ? name.slice(2) : name]);
    for (const key of hasId(root) ? [...keys].slice(0, 1) : keys) {
      try {
        ajv.addSchema(mergeDefBuckets(toPlain(root)) as object, key);
      } catch {
        // The same schema reachable under an id ajv already knows.
      }
    }
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(mergeDefBuckets(toPlain(source.root)) as object);
  } catch (e) {
    const reason = `schema cannot be used for validation: ${e instanceof Error ? e.message : String(e)}`;
    return () => [reason];
  }
  return (value: unknown) => (validate(value) ? [] : (validate.errors ?? []).map(describeError));
}
