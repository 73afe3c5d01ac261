// The Confluent Schema Registry REST API v1 on Elysia. Routes only translate HTTP to RegistryService
// calls and results to Confluent's bodies; every rule lives in the service.
import { Elysia } from "elysia";
import type { RequestGuard } from "../../platform/basic-auth.ts";
import { METRICS_ROUTE_DOC, metricsResponse, type Registry } from "../../platform/metrics.ts";
import { documented } from "../../platform/openapi.ts";
import { routeMethods } from "../../platform/route-methods.ts";
import type { ForwardingTls } from "../../platform/tls.ts";
import { errors, ForwardToLeader, RegistryError } from "../errors.ts";
import type { RegistryHealth } from "../health.ts";
import type { DekRegistry } from "../dek/service.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { compatibilityRoutes } from "./compatibility-routes.ts";
import { configRoutes } from "./config-routes.ts";
import { contextRoutes } from "./context-routes.ts";
import { normalizeSubject } from "../contexts.ts";
import { dekRoutes, takesNoBody } from "./dek-routes.ts";
import { exporterRoutes, exporterTakesNoBody } from "./exporter-routes.ts";
import type { SchemaExporters } from "../exporters/service.ts";
import { RawJson } from "./entities.ts";
import { forwardToLeader } from "./forward.ts";
import { metadataRoutes, type ServerMetadata } from "./metadata-routes.ts";
import { modeRoutes } from "./mode-routes.ts";
import { HealthBody, ok, registryDocument } from "./openapi.ts";
import { routeParams } from "./path-params.ts";
import { errorResponse, json, readJsonBody, replyType, text } from "./respond.ts";
import { schemaRoutes } from "./schema-routes.ts";
import { sluiceRoutes, type SluiceRouteOptions } from "./sluice-routes.ts";
import type { SchemasById } from "./schemas-by-id.ts";
import { subjectRoutes } from "./subject-routes.ts";

export interface RegistryHttpOptions {
  /** The DEK registry (/dek-registry/v1/keks). */
  dek: DekRegistry;
  /** The schema exporters (/exporters). */
  exporters?: SchemaExporters;
  maxBodyBytes: number;
  /** GET /schemas/ids/{id}: cached bodies and who may read an id (shared with ./cached-reads.ts). */
  schemasById: SchemasById;
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
  /** What GET /v1/metadata/id answers. */
  serverMetadata?: ServerMetadata;
  /** GET /v1/sluice/cluster's instances. */
  cluster?: SluiceRouteOptions["cluster"];
  /** Who the guard admitted a request as (GET /v1/sluice/permissions). */
  userOf?: SluiceRouteOptions["userOf"];
}

export function registryApp(service: RegistryService, options: RegistryHttpOptions) {
  // Each resource's routes; known paths and their methods come from them (405 for another method).
  // Built from the whole app on first request, so every route registered by then is in it.
  let document: string | undefined;
  const routes = new Elysia()
    .get(
      "/",
      () => ({}),
      documented({
        summary: "An empty object (Confluent's root resource)",
        responses: { 200: ok("{}", { type: "object" }) },
      }),
    )
    // Not Confluent's API: monitoring (see docs/production.md, Monitoring).
    .get(
      "/health",
      () => {
        const health = options.health();
        return json({ status: health.status, message: health.message }, health.httpStatus, "application/json");
      },
      documented({
        summary: "Whether the registry can serve (Sluice's own)",
        responses: {
          200: { description: "Serving", schema: HealthBody, contentTypes: ["application/json"] },
          503: { description: "Not serving", schema: HealthBody, contentTypes: ["application/json"] },
        },
      }),
    )
    .get("/metrics", () => metricsResponse(options.metrics), METRICS_ROUTE_DOC)
    .get(
      "/openapi.json",
      (): Response => text((document ??= JSON.stringify(registryDocument(app.routes))), 200, "application/json"),
      documented({
        summary: "This document: OpenAPI 3.1, generated from the routes",
        responses: {
          200: { description: "The OpenAPI document", schema: { type: "object" }, contentTypes: ["application/json"] },
        },
      }),
    )
    .use(schemaRoutes(service, options))
    .use(subjectRoutes(service, options))
    .use(configRoutes(service))
    .use(modeRoutes(service))
    .use(compatibilityRoutes(service))
    .use(contextRoutes(service, options))
    .use(metadataRoutes(options.serverMetadata))
    .use(sluiceRoutes(options))
    .use(dekRoutes(options.dek, options))
    .use(exporterRoutes(options));
  const methodsAt = routeMethods(routes.routes);

  const app = new Elysia()
    .onRequest(({ request }) => options.guard?.(request))
    .mapResponse(({ response, request, set }) => {
      if (response instanceof Response) return response;
      const type = replyType(request.headers.get("accept"));
      const status = typeof set.status === "number" ? set.status : 200;
      return response instanceof RawJson ? text(response.body, status, type) : json(response, status, type);
    })
    // Only the POST and PUT resources take a body; others ignore whatever is sent.
    .onParse(({ request, path }) =>
      (request.method === "POST" || request.method === "PUT") && !takesNoBody(path) && !exporterTakesNoBody(path)
        ? readJsonBody(request, options.maxBodyBytes)
        : null,
    )
    // Elysia's router leaves params it cannot decode null; every route and the permission check
    // instead see the parameters decoded once, as Jersey decodes them (./path-params.ts).
    .onTransform((context) => {
      const params = routeParams(context.route, new URL(context.request.url).pathname);
      // Confluent names a subject (and a context) by its normalized qualified name: `:.:s` is `s`.
      if (params.subject !== undefined) params.subject = normalizeSubject(params.subject);
      if (params.context !== undefined) params.context = normalizeSubject(params.context);
      context.params = params;
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
        const methods = methodsAt(path);
        return errorResponse(
          methods && !methods.includes(request.method) ? errors.methodNotAllowed() : errors.notFound(),
          type,
        );
      }
      if (code === "VALIDATION") {
        const detail = (error as { all?: { path?: string; message?: string }[] }).all?.[0];
        const where = detail?.path ? ` at ${detail.path}` : "";
        return errorResponse(
          errors.badRequest(`Invalid request body${where}: ${detail?.message ?? "unexpected value"}`),
          type,
        );
      }
      // Elysia wraps what the body parser threw; the parser throws Confluent-shaped errors.
      const cause = code === "PARSE" ? (error as { cause?: unknown }).cause : error;
      return errorResponse(
        cause instanceof RegistryError ? cause : code === "PARSE" ? errors.badRequest("Malformed request body") : cause,
        type,
      );
    })
    .use(routes);
  return app;
}
