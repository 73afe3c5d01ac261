// /subjects: subjects, their versions, registering, looking up and deleting.
import { Elysia } from "elysia";
import { parseVersionSpec, type RegistryService, type SchemaRequest } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { RawJson, registeredBody, versionBody } from "./entities.ts";
import { flag, listOptions } from "./query.ts";
import { SchemaRequestBody } from "./request-bodies.ts";

export function subjectRoutes(service: RegistryService, options: { access?: RegistryAccess }) {
  return new Elysia()
    .get("/subjects", ({ query, request }) => service.listSubjects({ ...listOptions(query), readable: options.access?.readable(request) }))
    .get("/subjects/:subject/versions", ({ params, query }) => service.listVersions(params.subject, listOptions(query)))
    .post(
      "/subjects/:subject/versions",
      async ({ params, query, body }) => registeredBody(await service.registerFull(params.subject, body as SchemaRequest, flag(query, "normalize"))),
      { body: SchemaRequestBody },
    )
    .get("/subjects/:subject/versions/:version", ({ params, query }) => {
      const v = service.getVersion(params.subject, parseVersionSpec(params.version), flag(query, "deleted"));
      return { ...versionBody(v), schema: service.formattedSchema(v, query.format) };
    })
    // The latest version whose metadata has every key=value pair given (repeated `key` and `value`, paired in order).
    .get("/subjects/:subject/metadata", ({ params, query, request }) => {
      const search = new URL(request.url).searchParams;
      const keys = search.getAll("key");
      const values = search.getAll("value");
      const wanted: Record<string, string> = {};
      for (let i = 0; i < Math.min(keys.length, values.length); i++) wanted[keys[i]!] = values[i]!;
      const v = service.latestWithMetadata(params.subject, wanted, flag(query, "deleted"));
      return { ...versionBody(v), schema: service.formattedSchema(v, query.format) };
    })
    .get("/subjects/:subject/versions/:version/schema", ({ params, query }) =>
      new RawJson(service.getVersion(params.subject, parseVersionSpec(params.version), flag(query, "deleted")).schema),
    )
    .get("/subjects/:subject/versions/:version/referencedby", ({ params, query }) =>
      service.referencedBy(params.subject, parseVersionSpec(params.version), flag(query, "deleted")),
    )
    .delete("/subjects/:subject/versions/:version", async ({ params, query }) =>
      await service.deleteVersion(params.subject, parseVersionSpec(params.version), flag(query, "permanent")),
    )
    .post(
      "/subjects/:subject",
      async ({ params, query, body }) => versionBody(await service.lookup(params.subject, body as SchemaRequest, flag(query, "normalize"), flag(query, "deleted"))),
      { body: SchemaRequestBody },
    )
    .delete("/subjects/:subject", async ({ params, query }) => await service.deleteSubject(params.subject, flag(query, "permanent")));
}
