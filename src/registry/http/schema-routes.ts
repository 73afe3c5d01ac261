// /schemas: schema types, schemas by id (the hot path of every deserializer), the list of schemas.
import { Elysia } from "elysia";
import { schemaTypes } from "../../schema/index.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import type { SchemasById } from "./schemas-by-id.ts";
import { RawJson, typed, versionBody } from "./entities.ts";
import { flag, listOptions, schemaId } from "./query.ts";

export function schemaRoutes(service: RegistryService, options: { schemasById: SchemasById; access?: RegistryAccess }) {
  const byId = options.schemasById;
  return new Elysia()
    .get("/schemas/types", () => schemaTypes())
    .get("/schemas/ids/:id", ({ params, query, request }) => {
      byId.checkReadable(request, schemaId(params.id));
      if (!query.format) return new RawJson(byId.body(schemaId(params.id)));
      const v = service.schemaById(schemaId(params.id));
      return { ...typed(v), schema: service.formattedSchema(v, query.format) };
    })
    .get("/schemas/ids/:id/schema", ({ params, query, request }) => {
      byId.checkReadable(request, schemaId(params.id));
      const v = service.schemaById(schemaId(params.id));
      return new RawJson(service.formattedSchema(v, query.format));
    })
    .get("/schemas/ids/:id/versions", ({ params, query, request }) => byId.readableVersions(request, schemaId(params.id), flag(query, "deleted")))
    .get("/schemas/ids/:id/subjects", ({ params, query, request }) => [...new Set(byId.readableVersions(request, schemaId(params.id), flag(query, "deleted")).map((v) => v.subject))])
    .get("/schemas", ({ query, request }) =>
      service.listSchemas({ ...listOptions(query), latestOnly: flag(query, "latestOnly"), readable: options.access?.readable(request) }).map(versionBody),
    );
}
