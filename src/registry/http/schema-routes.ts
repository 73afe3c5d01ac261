// /schemas: schema types, schemas by id (the hot path of every deserializer), the list of schemas.
import { Elysia } from "elysia";
import { schemaTypes } from "../../schema/index.ts";
import { contextOf } from "../contexts.ts";
import { errors } from "../errors.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import type { SchemasById } from "./schemas-by-id.ts";
import { RawJson, typed, versionBody } from "./entities.ts";
import { flag, int, listOptions, schemaId, type Query } from "./query.ts";

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
  return new Elysia()
    .get("/schemas/types", () => schemaTypes())
    .get("/schemas/ids/:id", ({ params, query, request }) => {
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
    })
    .get("/schemas/ids/:id/schema", ({ params, query, request }) => {
      const id = schemaId(params.id);
      byId.checkReadable(request, id, query.subject);
      return new RawJson(service.formattedSchema(service.schemaByIdFor(id, query.subject), query.format));
    })
    .get("/schemas/ids/:id/versions", ({ params, query, request }) =>
      page(byId.readableVersions(request, schemaId(params.id), flag(query, "deleted"), query.subject), query),
    )
    .get("/schemas/ids/:id/subjects", ({ params, query, request }) =>
      page([...new Set(byId.readableVersions(request, schemaId(params.id), flag(query, "deleted"), query.subject).map((v) => v.subject))], query),
    )
    // Confluent 8's GUIDs: a schema by the hash of its content, and the ids it has in each context.
    .get("/schemas/guids/:guid", ({ params, query, request }) => {
      const v = readableByGuid(request, params.guid)[0]!;
      return { guid: params.guid.toLowerCase(), ...typed(v), schema: service.formattedSchema(v, query.format) };
    })
    .get("/schemas/guids/:guid/ids", ({ params, request }) => {
      const seen = new Set<string>();
      return readableByGuid(request, params.guid)
        .map((v) => ({ context: contextOf(v.subject), id: v.id }))
        .filter((c) => !seen.has(`${c.context}/${c.id}`) && seen.add(`${c.context}/${c.id}`));
    })
    .get("/schemas", ({ query, request }) =>
      service.listSchemas({ ...listOptions(query), latestOnly: flag(query, "latestOnly"), readable: options.access?.readable(request) }).map(versionBody),
    );
}

/** offset and limit as Confluent's resources apply them to a list (a limit of 0 or less: no limit). */
function page<T>(items: T[], query: Query): T[] {
  const offset = Math.max(0, int(query.offset, 0));
  const limit = int(query.limit, -1);
  return limit > 0 ? items.slice(offset, offset + limit) : items.slice(offset);
}
