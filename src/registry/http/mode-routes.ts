// /mode: the global mode (READWRITE, READONLY, IMPORT) and each subject's.
import { Elysia } from "elysia";
import type { RegistryService } from "../service.ts";
import { flag } from "./query.ts";
import { ModeBody } from "./request-bodies.ts";

export function modeRoutes(service: RegistryService) {
  return new Elysia()
    .get("/mode", ({ query }) => ({ mode: service.getMode(null, flag(query, "defaultToGlobal")) }))
    .put("/mode", async ({ body, query }) => ({ mode: await service.setMode(null, body.mode, flag(query, "force")) }), { body: ModeBody })
    .get("/mode/:subject", ({ params, query }) => ({ mode: service.getMode(params.subject, flag(query, "defaultToGlobal")) }))
    .put("/mode/:subject", async ({ params, body, query }) => ({ mode: await service.setMode(params.subject, body.mode, flag(query, "force")) }), { body: ModeBody })
    .delete("/mode/:subject", async ({ params }) => ({ mode: await service.deleteMode(params.subject) }));
}
