// /schemas: schema types, schemas by id (the hot path of every deserializer), the list of schemas.
import { Elysia } from "elysia";
import { LruCache } from "../../platform/lru.ts";
import { schemaTypes } from "../../schema/index.ts";
import { errors } from "../errors.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { RawJson, typed, versionBody } from "./entities.ts";
import { flag, listOptions, schemaId } from "./query.ts";

export function schemaRoutes(service: RegistryService, options: { responseCacheSize: number; access?: RegistryAccess }) {
  // GET /schemas/ids/{id} bodies are cached per id until the state changes, the most read ones only.
  let cacheGeneration = -1;
  const byIdCache = new LruCache<number, string>(options.responseCacheSize);
  const cachedSchemaById = (id: number): string => {
    if (cacheGeneration !== service.state.generation) {
      byIdCache.clear();
      cacheGeneration = service.state.generation;
    }
    let body = byIdCache.get(id);
    if (body === undefined) {
      const v = service.schemaById(id);
      body = JSON.stringify({ ...typed(v), schema: v.schema });
      byIdCache.set(id, body);
    }
    return body;
  };
  // Karapace's rule: an id may be read by whoever may read one of the subjects holding it.
  const checkIdReadable = (request: Request, id: number) => {
    const readable = options.access?.readable(request);
    if (readable && !service.versionsOfId(id, true).some((h) => readable(h.subject))) throw errors.forbidden("Read", `Schema: ${id}`);
  };
  const readableVersionsOfId = (request: Request, id: number, deleted: boolean) => {
    checkIdReadable(request, id);
    const readable = options.access?.readable(request) ?? (() => true);
    return service.versionsOfId(id, deleted).filter((h) => readable(h.subject));
  };

  return new Elysia()
    .get("/schemas/types", () => schemaTypes())
    .get("/schemas/ids/:id", ({ params, query, request }) => {
      checkIdReadable(request, schemaId(params.id));
      if (!query.format) return new RawJson(cachedSchemaById(schemaId(params.id)));
      const v = service.schemaById(schemaId(params.id));
      return { ...typed(v), schema: service.formattedSchema(v, query.format) };
    })
    .get("/schemas/ids/:id/schema", ({ params, query, request }) => {
      checkIdReadable(request, schemaId(params.id));
      const v = service.schemaById(schemaId(params.id));
      return new RawJson(service.formattedSchema(v, query.format));
    })
    .get("/schemas/ids/:id/versions", ({ params, query, request }) => readableVersionsOfId(request, schemaId(params.id), flag(query, "deleted")))
    .get("/schemas/ids/:id/subjects", ({ params, query, request }) => [...new Set(readableVersionsOfId(request, schemaId(params.id), flag(query, "deleted")).map((v) => v.subject))])
    .get("/schemas", ({ query, request }) =>
      service.listSchemas({ ...listOptions(query), latestOnly: flag(query, "latestOnly"), readable: options.access?.readable(request) }).map(versionBody),
    );
}
