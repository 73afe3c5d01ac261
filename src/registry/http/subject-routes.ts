// /subjects: subjects, their versions, registering, looking up and deleting.
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import { parseVersionSpec } from "../reads.ts";
import type { SchemaRequest } from "../registration.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { RawJson, registeredBody, versionBody } from "./entities.ts";
import { fails, Integers, ok, Q, RegisteredBody, schemaText, Strings, VersionBody } from "./openapi.ts";
import { flag, listOptions } from "./query.ts";
import { SchemaRequestBody } from "./request-bodies.ts";

const list = {
  subjectPrefix: Q.subjectPrefix,
  deleted: Q.deleted,
  deletedOnly: Q.deletedOnly,
  offset: Q.offset,
  limit: Q.limit,
};
const read = t.Object({ deleted: Q.deleted, format: Q.format });
const notFound = fails("Subject (40401) or version (40402) not found; an invalid version is 42202");

export function subjectRoutes(service: RegistryService, options: { access?: RegistryAccess }) {
  return (
    new Elysia()
      .get(
        "/subjects",
        ({ query, request }) =>
          service.listSubjects({ ...listOptions(query), readable: options.access?.readable(request) }),
        {
          query: t.Object(list),
          ...documented({ summary: "Subjects", responses: { 200: ok("Subject names", Strings) } }),
        },
      )
      .get(
        "/subjects/:subject/versions",
        ({ params, query }) => service.listVersions(params.subject, listOptions(query)),
        {
          query: t.Object(list),
          ...documented({
            summary: "A subject's versions",
            responses: { 200: ok("Version numbers", Integers), 404: notFound },
          }),
        },
      )
      .post(
        "/subjects/:subject/versions",
        async ({ params, query, body }) =>
          registeredBody(await service.register(params.subject, body as SchemaRequest, flag(query, "normalize"))),
        {
          body: SchemaRequestBody,
          query: t.Object({ normalize: Q.normalize }),
          ...documented({
            summary: "Registers a schema under a subject",
            responses: {
              200: ok("The id (and, with a data contract, the version as stored)", RegisteredBody),
              409: fails("Incompatible with earlier versions (409)"),
              422: fails("Invalid schema (42201) or request (42203)"),
            },
          }),
        },
      )
      .get(
        "/subjects/:subject/versions/:version",
        ({ params, query }) => {
          const v = service.getVersion(params.subject, parseVersionSpec(params.version), flag(query, "deleted"));
          return { ...versionBody(v), schema: service.formattedSchema(v, query.format) };
        },
        {
          query: read,
          ...documented({
            summary: "A version of a subject (a number, `latest` or -1)",
            responses: { 200: ok("The version", VersionBody), 404: notFound },
          }),
        },
      )
      // The latest version whose metadata has every key=value pair given (repeated `key` and `value`, paired in order).
      .get(
        "/subjects/:subject/metadata",
        ({ params, query, request }) => {
          const search = new URL(request.url).searchParams;
          const keys = search.getAll("key");
          const values = search.getAll("value");
          const wanted: Record<string, string> = {};
          for (let i = 0; i < Math.min(keys.length, values.length); i++) wanted[keys[i]!] = values[i]!;
          const v = service.latestWithMetadata(params.subject, wanted, flag({ deleted: query.deleted }, "deleted"));
          return { ...versionBody(v), schema: service.formattedSchema(v, query.format) };
        },
        {
          query: t.Object({
            key: t.Optional(t.Array(t.String())),
            value: t.Optional(t.Array(t.String())),
            deleted: Q.deleted,
            format: Q.format,
          }),
          ...documented({
            summary: "The latest version whose metadata holds every key=value pair given",
            responses: { 200: ok("The version", VersionBody), 404: notFound },
          }),
        },
      )
      .get(
        "/subjects/:subject/versions/:version/schema",
        ({ params, query }) =>
          new RawJson(
            service.getVersion(params.subject, parseVersionSpec(params.version), flag(query, "deleted")).schema,
          ),
        {
          query: t.Object({ deleted: Q.deleted }),
          ...documented({ summary: "A version's schema text", responses: { 200: schemaText, 404: notFound } }),
        },
      )
      .get(
        "/subjects/:subject/versions/:version/referencedby",
        ({ params, query }) =>
          service.referencedBy(params.subject, parseVersionSpec(params.version), flag(query, "deleted")),
        {
          query: t.Object({ deleted: Q.deleted }),
          ...documented({
            summary: "The ids of the schemas referring to a version",
            responses: { 200: ok("Schema ids", Integers), 404: notFound },
          }),
        },
      )
      .delete(
        "/subjects/:subject/versions/:version",
        async ({ params, query }) =>
          await service.deleteVersion(params.subject, parseVersionSpec(params.version), flag(query, "permanent")),
        {
          query: t.Object({ permanent: Q.permanent }),
          ...documented({
            summary: "Deletes a version (soft, then permanent)",
            responses: { 200: ok("The version deleted", t.Integer()), 404: notFound, 422: fails("Referenced (42206)") },
          }),
        },
      )
      .post(
        "/subjects/:subject",
        async ({ params, query, body }) =>
          versionBody(
            await service.lookup(
              params.subject,
              body as SchemaRequest,
              flag(query, "normalize"),
              flag(query, "deleted"),
            ),
          ),
        {
          body: SchemaRequestBody,
          query: t.Object({ normalize: Q.normalize, deleted: Q.deleted }),
          ...documented({
            summary: "Looks a schema up under a subject",
            responses: {
              200: ok("The version holding it", VersionBody),
              404: fails("Subject (40401) or schema (40403) not found"),
            },
          }),
        },
      )
      .delete(
        "/subjects/:subject",
        async ({ params, query }) => await service.deleteSubject(params.subject, flag(query, "permanent")),
        {
          query: t.Object({ permanent: Q.permanent }),
          ...documented({
            summary: "Deletes a subject (soft, then permanent)",
            responses: { 200: ok("The versions deleted", Integers), 404: notFound, 422: fails("Referenced (42206)") },
          }),
        },
      )
  );
}
