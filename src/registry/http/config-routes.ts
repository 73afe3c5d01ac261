// /config: the global compatibility level and each subject's.
import { Elysia } from "elysia";
import type { RegistryService } from "../service.ts";
import { flag } from "./query.ts";
import { ConfigBody } from "./request-bodies.ts";

export function configRoutes(service: RegistryService) {
  return new Elysia()
    .get("/config", ({ query }) => ({ compatibilityLevel: service.getConfig(null, flag(query, "defaultToGlobal")) }))
    .put("/config", async ({ body }) => ({ compatibility: await service.setConfig(null, body.compatibility) }), { body: ConfigBody })
    .delete("/config", async () => ({ compatibilityLevel: await service.deleteConfig(null) }))
    .get("/config/:subject", ({ params, query }) => ({ compatibilityLevel: service.getConfig(params.subject, flag(query, "defaultToGlobal")) }))
    .put("/config/:subject", async ({ params, body }) => ({ compatibility: await service.setConfig(params.subject, body.compatibility) }), { body: ConfigBody })
    .delete("/config/:subject", async ({ params }) => ({ compatibilityLevel: await service.deleteConfig(params.subject) }));
}
