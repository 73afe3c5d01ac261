// The Confluent Schema Registry REST API v1 on Elysia. Routes only translate HTTP to RegistryService
// calls and results to Confluent's bodies; every rule lives in the service.
import { Elysia } from "elysia";
import type { RequestGuard } from "../../platform/basic-auth.ts";
import { metricsResponse, type Registry } from "../../platform/metrics.ts";
import { errors, ForwardToLeader, RegistryError } from "../errors.ts";
import { schemaTypes } from "../../schema/index.ts";
import type { RegistryHealth } from "../health.ts";
import { parseVersionSpec, type RegistryService, type SchemaRequest } from "../service.ts";
import type { SchemaVersion } from "../store/state.ts";
import type { ForwardingTls } from "../../platform/tls.ts";
import type { RegistryAccess } from "./access.ts";
import { forwardToLeader } from "./forward.ts";
import { LruCache } from "../../platform/lru.ts";
import { routeParams } from "./path-params.ts";
import { errorResponse, json, readJsonBody, replyType, text } from "./respond.ts";
import { ConfigBody, ModeBody, SchemaRequestBody } from "./schemas.ts";

export interface RegistryHttpOptions {
  maxBodyBytes: number;
  /** Bodies of GET /schemas/ids/{id} kept (schema.response.cache.size). */
  responseCacheSize: number;
  /** What GET /metrics exposes. */
  metrics: Registry;
  /** What GET /health answers. */
  health: () => RegistryHealth;
  /** Authentication, answering refused requests before any route (../security.ts). */
  guard?: RequestGuard;
  /** TLS of calls to the leader when instances talk https. */
  forwardTls?: ForwardingTls;
  /** Per-user permissions (./access.ts); absent, an admitted request may do everything. */
  access?: RegistryAccess;
}

/** A reply body that is already JSON text (cached bodies, raw schema text). */
class RawJson {
  constructor(readonly body: string) {}
}

type Query = Record<string, string | undefined>;

/** JAX-RS boolean query params: "true" in any case is true, anything else false. */
const flag = (q: Query, name: string) => q[name]?.toLowerCase() === "true";

/** JAX-RS int params: a non-integer makes the resource not match (404). */
function int(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw errors.notFound();
  return Number(value);
}

function schemaId(value: string): number {
  const id = int(value, -1);
  if (id > 2 ** 31 - 1) throw errors.notFound();
  return id;
}

const listOptions = (q: Query) => ({
  deleted: flag(q, "deleted"),
  deletedOnly: flag(q, "deletedOnly"),
  subjectPrefix: q.subjectPrefix,
  offset: int(q.offset, 0),
  limit: int(q.limit, -1),
});

/** Confluent 7.x entity shapes: schemaType omitted for AVRO, references only when present. */
function typed(v: SchemaVersion): { schemaType?: string; references?: unknown[] } {
  return {
    ...(v.schemaType !== "AVRO" ? { schemaType: v.schemaType } : {}),
    ...(v.references.length > 0 ? { references: v.references } : {}),
  };
}

function versionBody(v: SchemaVersion) {
  return { subject: v.subject, version: v.version, id: v.id, ...typed(v), schema: v.schema };
}

// Paths and the methods they answer, so a known path with another method gets 405 as in Jersey.
const ROUTES: [RegExp, string[]][] = [
  [/^\/$/, ["GET"]],
  [/^\/(health|metrics)$/, ["GET"]],
  [/^\/schemas(\/types)?$/, ["GET"]],
  [/^\/schemas\/ids\/[^/]+(\/schema|\/versions|\/subjects)?$/, ["GET"]],
  [/^\/subjects$/, ["GET"]],
  [/^\/subjects\/[^/]+$/, ["POST", "DELETE"]],
  [/^\/subjects\/[^/]+\/versions$/, ["GET", "POST"]],
  [/^\/subjects\/[^/]+\/versions\/[^/]+$/, ["GET", "DELETE"]],
  [/^\/subjects\/[^/]+\/versions\/[^/]+\/(schema|referencedby)$/, ["GET"]],
  [/^\/(config|mode)(\/[^/]+)?$/, ["GET", "PUT", "DELETE"]],
  [/^\/compatibility\/subjects\/[^/]+\/versions(\/[^/]+)?$/, ["POST"]],
];

export function registryApp(service: RegistryService, options: RegistryHttpOptions) {
  // GET /schemas/ids/{id} is the hot path of every deserializer: its bodies are cached per id until
  // the state changes, the most read ones only.
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
    .onRequest(({ request }) => options.guard?.(request))
    .mapResponse(({ response, request, set }) => {
      if (response instanceof Response) return response;
      const type = replyType(request.headers.get("accept"));
      const status = typeof set.status === "number" ? set.status : 200;
      return response instanceof RawJson ? text(response.body, status, type) : json(response, status, type);
    })
    // Only the POST and PUT resources take a body; others ignore whatever is sent.
    .onParse(({ request }) => (request.method === "POST" || request.method === "PUT" ? readJsonBody(request, options.maxBodyBytes) : null))
    // Elysia's router leaves params it cannot decode null; every route and the permission check
    // instead see the parameters decoded once, as Jersey decodes them (./path-params.ts).
    .onTransform((context) => {
      context.params = routeParams(context.route, new URL(context.request.url).pathname);
      options.access?.check(context.request, context.route, context.params);
    })
    .onError(async ({ code, error, request, body, set }) => {
      const type = replyType(request.headers.get("accept"));
      if (error instanceof ForwardToLeader) {
        try {
          const response = await forwardToLeader(error, request, body, options.forwardTls);
          set.status = response.status;
          return response;
        } catch (err) {
          return errorResponse(err, type);
        }
      }
      if (code === "NOT_FOUND") {
        const path = new URL(request.url).pathname;
        const known = ROUTES.find(([re]) => re.test(path));
        return errorResponse(known && !known[1].includes(request.method) ? errors.methodNotAllowed() : errors.notFound(), type);
      }
      if (code === "VALIDATION") {
        const detail = (error as { all?: { path?: string; message?: string }[] }).all?.[0];
        const where = detail?.path ? ` at ${detail.path}` : "";
        return errorResponse(errors.badRequest(`Invalid request body${where}: ${detail?.message ?? "unexpected value"}`), type);
      }
      // Elysia wraps what the body parser threw; the parser throws Confluent-shaped errors.
      const cause = code === "PARSE" ? (error as { cause?: unknown }).cause : error;
      return errorResponse(cause instanceof RegistryError ? cause : code === "PARSE" ? errors.badRequest("Malformed request body") : cause, type);
    })
    .get("/", () => ({}))
    // Not Confluent's API: monitoring (see README, Monitoring).
    .get("/health", () => {
      const health = options.health();
      return json({ status: health.status, message: health.message }, health.httpStatus, "application/json");
    })
    .get("/metrics", () => metricsResponse(options.metrics))
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
    .get("/schemas/ids/:id/versions", ({ params, query, request }) =>
      readableVersionsOfId(request, schemaId(params.id), flag(query, "deleted")),
    )
    .get("/schemas/ids/:id/subjects", ({ params, query, request }) => {
      const subjects = [...new Set(readableVersionsOfId(request, schemaId(params.id), flag(query, "deleted")).map((v) => v.subject))];
      return subjects;
    })
    .get("/schemas", ({ query, request }) =>
      service.listSchemas({ ...listOptions(query), latestOnly: flag(query, "latestOnly"), readable: options.access?.readable(request) }).map(versionBody),
    )
    .get("/subjects", ({ query, request }) => service.listSubjects({ ...listOptions(query), readable: options.access?.readable(request) }))
    .get("/subjects/:subject/versions", ({ params, query }) =>
      service.listVersions(params.subject, listOptions(query)),
    )
    .post(
      "/subjects/:subject/versions",
      async ({ params, query, body }) => {
        const id = await service.register(params.subject, body as SchemaRequest, flag(query, "normalize"));
        return { id };
      },
      { body: SchemaRequestBody },
    )
    .get("/subjects/:subject/versions/:version", ({ params, query }) => {
      const v = service.getVersion(params.subject, parseVersionSpec(params.version), flag(query, "deleted"));
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
      async ({ params, query, body }) =>
        versionBody(await service.lookup(params.subject, body as SchemaRequest, flag(query, "normalize"), flag(query, "deleted"))),
      { body: SchemaRequestBody },
    )
    .delete("/subjects/:subject", async ({ params, query }) =>
      await service.deleteSubject(params.subject, flag(query, "permanent")),
    )
    .get("/config", ({ query }) =>
      ({ compatibilityLevel: service.getConfig(null, flag(query, "defaultToGlobal")) }),
    )
    .put(
      "/config",
      async ({ body }) =>
        ({ compatibility: await service.setConfig(null, body.compatibility) }),
      { body: ConfigBody },
    )
    .delete("/config", async () =>
      ({ compatibilityLevel: await service.deleteConfig(null) }),
    )
    .get("/config/:subject", ({ params, query }) =>
      ({ compatibilityLevel: service.getConfig(params.subject, flag(query, "defaultToGlobal")) }),
    )
    .put(
      "/config/:subject",
      async ({ params, body }) =>
        ({ compatibility: await service.setConfig(params.subject, body.compatibility) }),
      { body: ConfigBody },
    )
    .delete("/config/:subject", async ({ params }) =>
      ({ compatibilityLevel: await service.deleteConfig(params.subject) }),
    )
    .get("/mode", ({ query }) =>
      ({ mode: service.getMode(null, flag(query, "defaultToGlobal")) }),
    )
    .put(
      "/mode",
      async ({ body, query }) =>
        ({ mode: await service.setMode(null, body.mode, flag(query, "force")) }),
      { body: ModeBody },
    )
    .get("/mode/:subject", ({ params, query }) =>
      ({ mode: service.getMode(params.subject, flag(query, "defaultToGlobal")) }),
    )
    .put(
      "/mode/:subject",
      async ({ params, body, query }) =>
        ({ mode: await service.setMode(params.subject, body.mode, flag(query, "force")) }),
      { body: ModeBody },
    )
    .delete("/mode/:subject", async ({ params }) =>
      ({ mode: await service.deleteMode(params.subject) }),
    )
    .post(
      "/compatibility/subjects/:subject/versions",
      ({ params, query, body }) => compatibilityReply(service, params.subject, undefined, body as SchemaRequest, query),
      { body: SchemaRequestBody },
    )
    .post(
      "/compatibility/subjects/:subject/versions/:version",
      ({ params, query, body }) =>
        compatibilityReply(service, params.subject, params.version, body as SchemaRequest, query),
      { body: SchemaRequestBody },
    );
}

async function compatibilityReply(
  service: RegistryService,
  subject: string,
  version: string | undefined,
  body: SchemaRequest,
  query: Query,
): Promise<object> {
  const verbose = flag(query, "verbose");
  const spec = version === undefined ? undefined : parseVersionSpec(version);
  const messages = await service.testCompatibility(subject, spec, body, verbose);
  const reply = verbose ? { is_compatible: messages.length === 0, messages } : { is_compatible: messages.length === 0 };
  return reply;
}
