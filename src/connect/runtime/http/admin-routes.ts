// The worker's own resources: its version (Kafka's root resource), and Sluice's health, metrics and
// this API's OpenAPI document.
import { Elysia } from "elysia";
import { METRICS_ROUTE_DOC, metricsResponse, type Registry } from "../../../platform/metrics.ts";
import { documented } from "../../../platform/openapi.ts";
import { COMMIT, VERSION } from "../../../platform/version.ts";
import type { Herder } from "../herder/herder.ts";
import { HealthBody, ok, ServerInfo } from "./openapi.ts";
import { json } from "./respond.ts";

export interface AdminRouteOptions {
  /** The Kafka cluster's id, as its brokers report it. */
  kafkaClusterId: () => Promise<string>;
  /** What GET /metrics exposes. */
  metrics: Registry;
  /** The whole app's OpenAPI document, as JSON text. */
  document: () => string;
}

export function adminRoutes(herder: Herder, options: AdminRouteOptions) {
  return new Elysia()
    .get(
      "/",
      async () => json({ version: VERSION, commit: COMMIT, kafka_cluster_id: await options.kafkaClusterId() }),
      documented({
        summary: "The worker's version and Kafka cluster",
        responses: { 200: ok("Server info", ServerInfo) },
      }),
    )
    .get(
      "/health",
      () => {
        const health = herder.health();
        return json({ status: health.status, message: health.message }, health.httpStatus);
      },
      documented({
        summary: "Whether the worker can serve",
        responses: { 200: ok("Serving", HealthBody), 503: ok("Not serving", HealthBody) },
      }),
    )
    .get("/metrics", () => metricsResponse(options.metrics), METRICS_ROUTE_DOC)
    .get(
      "/openapi.json",
      (): Response => new Response(options.document(), { headers: { "content-type": "application/json" } }),
      documented({
        summary: "This document: OpenAPI 3.1, generated from the routes",
        responses: { 200: ok("The OpenAPI document", { type: "object" }) },
      }),
    );
}
