// The registry's OpenAPI document (GET /openapi.json) and the pieces its routes describe themselves
// with: query parameters (TypeBox, validated by Elysia: plain strings, read as Confluent's JAX-RS
// resources read them in ./query.ts) and the shapes of Confluent's reply bodies (documentation only).
import { Type as T } from "@sinclair/typebox";
import { t } from "elysia";
import { openApiDocument, type DocumentedRoute, type ResponseDoc } from "../../platform/openapi.ts";
import { VERSION } from "../../platform/version.ts";
import { V1 } from "./respond.ts";

const JSON_TYPES = [V1, "application/vnd.schemaregistry+json", "application/json"] as const;

const ErrorBody = T.Object({ error_code: T.Integer(), message: T.String() }, { description: "Confluent's error body" });

// ---- query parameters ----

const bool = (description: string) =>
  t.Optional(t.String({ description: `${description} ("true" in any case; anything else is false)` }));
const integer = (description: string) =>
  t.Optional(
    t.String({ description: `${description} (an integer; anything else answers 404, as Confluent's JAX-RS does)` }),
  );

export const Q = {
  deleted: bool("include soft-deleted items"),
  deletedOnly: bool("only soft-deleted items"),
  permanent: bool("delete permanently (after a soft delete)"),
  normalize: bool("normalize the schema first"),
  defaultToGlobal: bool("fall back to the global setting"),
  force: bool("set IMPORT mode even when the subject has schemas"),
  recursive: bool("for the global scope or a context, also delete the mode of each subject under it"),
  verbose: bool("answer the reasons of an incompatibility"),
  latestOnly: bool("only the latest version of each subject"),
  fetchMaxId: bool("also answer the highest id in the id's context"),
  offset: integer("items skipped"),
  limit: integer("items answered at most (0 or less: all)"),
  subjectPrefix: t.Optional(t.String({ description: "only subjects starting with this prefix" })),
  subject: t.Optional(t.String({ description: "the subject (and so the context) to look the id up in" })),
  format: t.Optional(
    t.String({
      description:
        "the schema's format: `resolved` (Avro, JSON Schema), `serialized` or `ignore_extensions` (Protobuf)",
    }),
  ),
};

// ---- reply bodies ----

const Reference = T.Object({ name: T.String(), subject: T.String(), version: T.Integer() });
/** Confluent 7.4+'s data contract fields, as stored (free-form here). */
const contract = {
  metadata: T.Optional(T.Object({}, { additionalProperties: true })),
  ruleSet: T.Optional(T.Object({}, { additionalProperties: true })),
};
const typedFields = {
  guid: T.String({ description: "Confluent 8's GUID of the schema: the MD5 of its text, references and contract" }),
  schemaType: T.Optional(T.String({ description: "absent for AVRO" })),
  references: T.Optional(T.Array(Reference)),
  ...contract,
};

export const SchemaBody = T.Object({
  subject: T.Optional(T.String()),
  version: T.Optional(T.Integer()),
  ...typedFields,
  schema: T.String(),
  maxId: T.Optional(T.Integer()),
});
export const GuidSchemaBody = T.Object({ ...typedFields, schema: T.String() });
export const ContextIds = T.Array(T.Object({ context: T.String(), id: T.Integer() }));
export const VersionBody = T.Object({
  subject: T.String(),
  version: T.Integer(),
  id: T.Integer(),
  ...typedFields,
  schema: T.String(),
});
export const RegisteredBody = T.Object({
  id: T.Integer(),
  version: T.Optional(T.Integer()),
  ...typedFields,
  schema: T.Optional(T.String()),
});
export const Strings = T.Array(T.String());
export const Integers = T.Array(T.Integer());
export const SubjectVersions = T.Array(T.Object({ subject: T.String(), version: T.Integer() }));
export const ConfigBody = T.Object(
  {
    compatibilityLevel: T.Optional(T.String()),
    compatibility: T.Optional(T.String()),
    normalize: T.Optional(T.Boolean()),
    alias: T.Optional(T.String()),
  },
  {
    additionalProperties: true,
    description:
      "Confluent's Config (GET, DELETE: the level as compatibilityLevel) or ConfigUpdateRequest (PUT: as compatibility)",
  },
);
export const ConfigRequest = T.Object(
  {
    compatibility: T.Optional(
      T.String({
        description: "BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE or NONE",
      }),
    ),
    normalize: T.Optional(T.Boolean()),
  },
  { additionalProperties: true },
);
export const ModeReply = T.Object({
  mode: T.String({ description: "READWRITE, READONLY, READONLY_OVERRIDE or IMPORT" }),
});
export const CompatibilityBody = T.Object({ is_compatible: T.Boolean(), messages: T.Optional(T.Array(T.String())) });
export const HealthBody = T.Object({ status: T.String(), message: T.String() });
export const MetadataIdBody = T.Object({
  scope: T.Object({ path: T.Array(T.String()), clusters: T.Record(T.String(), T.String()) }),
});
export const MetadataVersionBody = T.Object({ version: T.String(), commitId: T.String() });
export const KekBody = T.Object({
  name: T.String(),
  kmsType: T.String(),
  kmsKeyId: T.String(),
  kmsProps: T.Record(T.String(), T.String()),
  doc: T.Optional(T.String()),
  shared: T.Boolean(),
  ts: T.Integer(),
  deleted: T.Optional(T.Boolean()),
});
export const KekTestBody = T.Object({ ...KekBody.properties, type: T.String(), offset: T.Integer() });
export const DekBody = T.Object({
  kekName: T.String(),
  subject: T.String(),
  version: T.Integer(),
  algorithm: T.String(),
  encryptedKeyMaterial: T.Optional(T.String()),
  keyMaterial: T.Optional(T.String()),
  ts: T.Integer(),
  deleted: T.Optional(T.Boolean()),
});
export const KekRequest = T.Object(
  {
    name: T.String(),
    kmsType: T.String(),
    kmsKeyId: T.String(),
    kmsProps: T.Optional(T.Record(T.String(), T.String())),
    doc: T.Optional(T.String()),
    shared: T.Optional(T.Boolean()),
  },
  { additionalProperties: true },
);
export const DekRequest = T.Object(
  {
    subject: T.Optional(T.String()),
    version: T.Optional(T.Integer()),
    algorithm: T.Optional(T.String()),
    encryptedKeyMaterial: T.Optional(T.String()),
  },
  { additionalProperties: true },
);

/** A reply with a JSON body. */
export const ok = (description: string, schema: ResponseDoc["schema"]): ResponseDoc => ({ description, schema });
/** An error the route answers, in Confluent's shape. */
export const fails = (description: string): ResponseDoc => ({ description, schema: ErrorBody });
export const noContent = (description: string): ResponseDoc => ({ description });
/** Raw text answered with a JSON content type (a schema's own text). */
export const schemaText: ResponseDoc = {
  description: "The schema's text as stored (JSON for Avro and JSON Schema)",
  schema: {},
};

const COMMON: Record<string, ResponseDoc> = {
  "4XX": fails(
    "A refused request: 400 bad input, 401 unauthenticated, 403 not permitted, 404 not found, 409 conflict, 413 too large, 415 unsupported media type, 422 invalid schema or body",
  ),
  "5XX": fails("A failure of the registry or of its store (500 with Confluent's codes, e.g. 50001–50004)"),
};

/** The document of the routes the registry's app serves. */
export function registryDocument(routes: readonly DocumentedRoute[]): Record<string, unknown> {
  return openApiDocument(routes, {
    title: "Sluice schema registry",
    version: VERSION,
    description:
      "Confluent Schema Registry's REST API (v1), with Sluice's extras: /health, /metrics, schema contexts, the DEK registry under /dek-registry/v1 and schema exporters under /exporters. Generated from the routes the server runs.",
    jsonTypes: JSON_TYPES,
    errorSchema: ErrorBody,
    commonResponses: COMMON,
  });
}
