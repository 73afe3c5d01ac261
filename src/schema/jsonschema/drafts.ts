// JSON Schema drafts: which one a schema is written in (Confluent's SpecificationVersion rules),
// and checking a schema against that draft's meta-schema with ajv.
import Ajv, {
  type AnySchema,
  type ErrorObject,
  type FuncKeywordDefinition,
  type Options,
  type ValidateFunction,
} from "ajv";
import Ajv2019 from "ajv/dist/2019";
import Ajv2020 from "ajv/dist/2020";
import draft6MetaSchema from "ajv/dist/refs/json-schema-draft-06.json";
import AjvDraft04 from "ajv-draft-04";
import { fromPlain, type JValue } from "./json.ts";

export type Draft = "draft-04" | "draft-06" | "draft-07" | "draft-2019-09" | "draft-2020-12";

const DRAFT_URLS: ReadonlyArray<[Draft, readonly string[]]> = [
  [
    "draft-04",
    [
      "http://json-schema.org/draft-04/schema",
      "https://json-schema.org/draft-04/schema",
      "http://json-schema.org/schema",
      "https://json-schema.org/schema",
    ],
  ],
  ["draft-06", ["http://json-schema.org/draft-06/schema", "https://json-schema.org/draft-06/schema"]],
  ["draft-07", ["http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema"]],
  ["draft-2019-09", ["http://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2019-09/schema"]],
  ["draft-2020-12", ["http://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema"]],
];

/** Confluent's default when `$schema` is absent or unknown. */
const DEFAULT_DRAFT: Draft = "draft-07";

/**
 * The draft of a schema with this `$schema` value. Confluent matches the URL exactly (one trailing
 * "#" ignored) to pick the modern loader; the Everit loader it uses for older drafts then matches
 * by prefix, falling back to draft 7.
 */
export function draftOf(schemaKeyword: string | undefined): Draft {
  if (schemaKeyword === undefined) return DEFAULT_DRAFT;
  const url = schemaKeyword.endsWith("#") ? schemaKeyword.slice(0, -1) : schemaKeyword;
  for (const [draft, urls] of DRAFT_URLS) if (urls.includes(url)) return draft;
  for (const [draft, urls] of DRAFT_URLS.slice(0, 3)) if (urls.some((u) => schemaKeyword.startsWith(u))) return draft;
  return DEFAULT_DRAFT;
}

export function isModern(draft: Draft): boolean {
  return draft === "draft-2019-09" || draft === "draft-2020-12";
}

/** The draft's `$id`-like keyword. */
export function idKeyword(draft: Draft): string {
  return draft === "draft-04" ? "id" : "$id";
}

const META_SCHEMA_IDS: Readonly<Record<Draft, string>> = {
  "draft-04": "http://json-schema.org/draft-04/schema",
  "draft-06": "http://json-schema.org/draft-06/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
  "draft-2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-2020-12": "https://json-schema.org/draft/2020-12/schema",
};

/** A fresh ajv instance for a draft (meta-schemas preloaded). */
export function newAjv(draft: Draft, options: Options): Ajv {
  switch (draft) {
    case "draft-04":
      return new AjvDraft04(options);
    case "draft-06": {
      const ajv = new Ajv(options);
      ajv.addMetaSchema(draft6MetaSchema);
      return ajv;
    }
    case "draft-07":
      return new Ajv(options);
    case "draft-2019-09":
      return new Ajv2019(options);
    case "draft-2020-12":
      return new Ajv2020(options);
  }
}

const metaValidators = new Map<Draft, ValidateFunction>();

function metaValidator(draft: Draft): ValidateFunction {
  let v = metaValidators.get(draft);
  if (v === undefined) {
    // Formats in meta-schemas (uri, regex) are not checked: Everit and json-sKema do not check them.
    const ajv = newAjv(draft, { strict: false, validateFormats: false, allErrors: true });
    // ajv compares the items of an untyped array (the meta-schemas' `enum`) pairwise: an 80,000-value
    // enum took seconds. Same verdict and message, in one pass.
    ajv.removeKeyword("uniqueItems");
    ajv.addKeyword(linearUniqueItems);
    v = ajv.getSchema(META_SCHEMA_IDS[draft]) as ValidateFunction;
    metaValidators.set(draft, v);
  }
  return v;
}

/**
 * ajv's uniqueItems with a hash of each item instead of comparing every pair; reports the pair ajv's
 * loop finds first (the last duplicated item and its nearest earlier equal).
 */
const linearUniqueItems: FuncKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  validate: function uniqueItems(unique: boolean, data: unknown[]): boolean {
    if (!unique) return true;
    const lastIndex = new Map<string, number>();
    let pair: [number, number] | undefined;
    data.forEach((item, i) => {
      const key = equalityKey(item);
      const j = lastIndex.get(key);
      if (j !== undefined) pair = [i, j];
      lastIndex.set(key, i);
    });
    if (pair === undefined) return true;
    const [i, j] = pair;
    (uniqueItems as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      {
        keyword: "uniqueItems",
        message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
        params: { i, j },
      },
    ];
    return false;
  },
};

/** Equal for values fast-deep-equal (ajv's equality) calls equal: object keys in any order. */
function equalityKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(equalityKey).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${equalityKey(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** Problems of `schema` (a plain JSON value) against the draft's meta-schema; empty when valid. */
export function metaSchemaProblems(schema: AnySchema, draft: Draft): string[] {
  const validate = metaValidator(draft);
  if (validate(schema)) return [];
  return (validate.errors ?? []).filter(isUseful).map(describeError);
}

/** anyOf/oneOf summaries repeat what their branches already said. */
function isUseful(e: ErrorObject): boolean {
  return e.keyword !== "anyOf" && e.keyword !== "oneOf" && e.keyword !== "if";
}

function describeError(e: ErrorObject): string {
  return `#${e.instancePath} ${e.message ?? "is invalid"}`;
}

let metaDocuments: Map<string, JValue> | undefined;

/**
 * The bundled meta-schemas (and 2019-09/2020-12 vocabularies) by URI, http and https, so a `$ref`
 * to one resolves locally as it does in Confluent.
 */
export function metaSchemaDocuments(): ReadonlyMap<string, JValue> {
  if (metaDocuments !== undefined) return metaDocuments;
  const docs = new Map<string, JValue>();
  for (const draft of Object.keys(META_SCHEMA_IDS) as Draft[]) {
    const ajv = newAjv(draft, { strict: false, validateFormats: false });
    const ids = Object.keys((ajv as unknown as { schemas: Record<string, unknown> }).schemas);
    for (const id of ids) {
      const schema = ajv.getSchema(id)?.schema;
      if (schema === undefined) continue;
      const tree = fromPlain(schema);
      const bare = id.replace(/#$/, "");
      for (const uri of [bare, bare.replace(/^http:/, "https:"), bare.replace(/^https:/, "http:")])
        if (!docs.has(uri)) docs.set(uri, tree);
    }
  }
  metaDocuments = docs;
  return docs;
}
