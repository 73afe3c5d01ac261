// /config: the global config (compatibility level and data-contract settings) and each subject's.
// Bodies go to the service as parsed: ../subject-config.ts reads each field with Confluent's errors.
import { Elysia } from "elysia";
import type { RegistryService } from "../service.ts";
import { flag } from "./query.ts";

export function configRoutes(service: RegistryService) {
  const body = (parsed: unknown) => parsed as Record<string, unknown>;
  return new Elysia()
    .get("/config", ({ query }) => service.getConfig(null, flag(query, "defaultToGlobal")))
    .put("/config", (ctx) => service.setConfig(null, body(ctx.body)))
    .delete("/config", () => service.deleteConfig(null))
    .get("/config/:subject", ({ params, query }) => service.getConfig(params.subject, flag(query, "defaultToGlobal")))
    .put("/config/:subject", (ctx) => service.setConfig(ctx.params.subject, body(ctx.body)))
    .delete("/config/:subject", ({ params }) => service.deleteConfig(params.subject));
}
