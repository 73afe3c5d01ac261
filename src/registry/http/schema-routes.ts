// /schemas: schema types, schemas by id (the hot path of every deserializer), the list of schemas.
import { Elysia, t } from "elysia";
import { schemaTypes } from "../../schema/index.ts";
import { contextOf } from "../contexts.ts";
import { errors } from "../errors.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import type { SchemasById } from "./schemas-by-id.ts";
import { RawJson, typed, versionBody } from "./entities.ts";
import { documented } from "../../platform/openapi.ts";
import {
  ContextIds,
  fails,
  GuidSchemaBody,
  ok,
  Q,
  SchemaBody,
  schemaText,
  Strings,
  SubjectVersions,
  VersionBody,
} from "./openapi.ts";
import { flag, int, listOptions, schemaId, type Query } from "./query.ts";

const notFound = fails("Schema not found (40403)");
const page = { offset: Q.offset, limit: Q.limit };

export function schemaRoutes(service: RegistryService, options: { schemasById: SchemasById; access?: RegistryAccess }) {
  const byId = options.schemasById;
  /** As an id: 40403 when no version has the GUID, 403 unless the user may read one of its subjects. */
  const readableByGuid = (request: Request, guid: string) => {
    const versions = service.versionsByGuid(guid);
    if (versions.length === 0) throw errors.schemaGuidNotFound(guid);
    const readable = options.access?.readable(request);
    if (readable && !versions.some((v) => readable(v.subject))) throw errors.forbidden("Read", `Schema: ${guid}`);
    return readable ? versions.filter((v) => readable(v.subject)) : versions;
  };
  return (
    new Elysia()
      .get(
        "/schemas/types",
        () => schemaTypes(),
        documented({
          summary: "The schema types the registry supports",
          responses: { 200: ok("Schema types", Strings) },
        }),
      )
      .get(
        "/schemas/ids/:id",
        ({ params, query, request }) => {
          const id = schemaId(params.id);
          const subject = query.subject;
          byId.checkReadable(request, id, subject);
          const fetchMaxId = flag(query, "fetchMaxId");
          if (!query.format && subject === undefined && !fetchMaxId) return new RawJson(byId.body(id));
          const v = service.schemaByIdFor(id, subject);
          // Confluent 8 names the subject and version found when the request named a subject.
          return {
            ...(subject !== undefined ? { subject: v.subject, version: v.version } : {}),
            ...typed(v),
            schema: service.formattedSchema(v, query.format),
            ...(fetchMaxId ? { maxId: service.maxIdOf(v) } : {}),
          };
        },
        {
          query: t.Object({ subject: Q.subject, format: Q.format, fetchMaxId: Q.fetchMaxId }),
          ...documented({
            summary: "A schema by its id",
            responses: { 200: ok("The schema", SchemaBody), 404: notFound },
          }),
        },
      )
      .get(
        "/schemas/ids/:id/schema",
        ({ params, query, request }) => {
          const id = schemaId(params.id);
          byId.checkReadable(request, id, query.subject);
          return new RawJson(service.formattedSchema(service.schemaByIdFor(id, query.subject), query.format));
        },
        {
          query: t.Object({ subject: Q.subject, format: Q.format }),
          ...documented({ summary: "A schema's text by its id", responses: { 200: schemaText, 404: notFound } }),
        },
      )
      .get(
        "/schemas/ids/:id/versions",
        ({ params, query, request }) =>
          slice(byId.readableVersions(request, schemaId(params.id), flag(query, "deleted"), query.subject), query),
        {
          query: t.Object({ subject: Q.subject, deleted: Q.deleted, ...page }),
          ...documented({
            summary: "The subject versions holding an id",
            responses: { 200: ok("Subject and version pairs", SubjectVersions), 404: notFound },
          }),
        },
      )
      .get(
        "/schemas/ids/:id/subjects",
        ({ params, query, request }) =>
          slice(
            [
              ...new Set(
                byId
                  .readableVersions(request, schemaId(params.id), flag(query, "deleted"), query.subject)
                  .map((v) => v.subject),
              ),
            ],
            query,
          ),
        {
          query: t.Object({ subject: Q.subject, deleted: Q.deleted, ...page }),
          ...documented({
            summary: "The subjects holding an id",
            responses: { 200: ok("Subjects", Strings), 404: notFound },
          }),
        },
      )
      // Confluent 8's GUIDs: a schema by the hash of its content, and the ids it has in each context.
      .get(
        "/schemas/guids/:guid",
        ({ params, query, request }) => {
          const v = readableByGuid(request, params.guid)[0]!;
          return { ...typed(v), schema: service.formattedSchema(v, query.format) };
        },
        {
          query: t.Object({ format: Q.format }),
          ...documented({
            summary: "A schema by its GUID (Confluent 8)",
            responses: { 200: ok("The schema", GuidSchemaBody), 404: notFound },
          }),
        },
      )
      .get(
        "/schemas/guids/:guid/ids",
        ({ params, request }) => {
          const seen = new Set<string>();
          return readableByGuid(request, params.guid)
            .map((v) => ({ context: contextOf(v.subject), id: v.id }))
            .filter((c) => !seen.has(`${c.context}/${c.id}`) && seen.add(`${c.context}/${c.id}`));
        },
        documented({
          summary: "The ids a GUID has, per context (Confluent 8)",
          responses: { 200: ok("Context and id pairs", ContextIds), 404: notFound },
        }),
      )
      .get(
        "/schemas",
        ({ query, request }) =>
          service
            .listSchemas({
              ...listOptions(query),
              latestOnly: flag(query, "latestOnly"),
              readable: options.access?.readable(request),
            })
            .map(versionBody),
        {
          query: t.Object({
            subjectPrefix: Q.subjectPrefix,
            deleted: Q.deleted,
            deletedOnly: Q.deletedOnly,
            latestOnly: Q.latestOnly,
            ...page,
          }),
          ...documented({
            summary: "Schemas, as subject versions",
            responses: { 200: ok("Subject versions", t.Array(VersionBody)) },
          }),
        },
      )
  );
}

/** offset and limit as Confluent's resources apply them to a list (a limit of 0 or less: no limit). */
function slice<T>(items: T[], query: Query): T[] {
  const offset = Math.max(0, int(query.offset, 0));
  const limit = int(query.limit, -1);
  return limit > 0 ? items.slice(offset, offset + limit) : items.slice(offset);
}
