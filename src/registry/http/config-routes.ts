// /config: the global config (compatibility level and data-contract settings) and each subject's.
import { Elysia } from "elysia";
import type { RegistryService } from "../service.ts";
import { flag } from "./query.ts";
import { ConfigBody } from "./request-bodies.ts";

export function configRoutes(service: RegistryService) {
  return new Elysia()
    .get("/config", ({ query }) => service.getConfig(null, flag(query, "defaultToGlobal")))
    .put("/config", ({ body }) => service.setConfig(null, body), { body: ConfigBody })
    .delete("/config", () => service.deleteConfig(null))
    .get("/config/:subject", ({ params, query }) => service.getConfig(params.subject, flag(query, "defaultToGlobal")))
    .put("/config/:subject", ({ params, body }) => service.setConfig(params.subject, body), { body: ConfigBody })
    .delete("/config/:subject", ({ params }) => service.deleteConfig(params.subject));
}
