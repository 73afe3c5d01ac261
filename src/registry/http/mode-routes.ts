// /mode: the global mode (READWRITE, READONLY, IMPORT) and each subject's.
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import type { RegistryService } from "../service.ts";
import { fails, ModeReply, ok, Q } from "./openapi.ts";
import { flag } from "./query.ts";
import { ModeBody } from "./request-bodies.ts";

const read = { query: t.Object({ defaultToGlobal: Q.defaultToGlobal }) };
const mode = ok("The mode", ModeReply);
const update = {
  body: ModeBody,
  query: t.Object({ force: Q.force }),
  ...documented({
    summary: "Sets the mode",
    responses: {
      200: mode,
      422: fails("Invalid mode (42204), or IMPORT on a registry with schemas without force (42205)"),
    },
  }),
};

export function modeRoutes(service: RegistryService) {
  return new Elysia()
    .get("/mode", ({ query }) => ({ mode: service.getMode(null, flag(query, "defaultToGlobal")) }), {
      ...read,
      ...documented({ summary: "The global mode", responses: { 200: mode } }),
    })
    .put(
      "/mode",
      async ({ body, query }) => ({ mode: await service.setMode(null, body.mode, flag(query, "force")) }),
      update,
    )
    .get(
      "/mode/:subject",
      ({ params, query }) => ({ mode: service.getMode(params.subject, flag(query, "defaultToGlobal")) }),
      {
        ...read,
        ...documented({
          summary: "A subject's mode",
          responses: { 200: mode, 404: fails("No mode of its own (40409)") },
        }),
      },
    )
    .put(
      "/mode/:subject",
      async ({ params, body, query }) => ({
        mode: await service.setMode(params.subject, body.mode, flag(query, "force")),
      }),
      update,
    )
    .delete(
      "/mode/:subject",
      async ({ params }) => ({ mode: await service.deleteMode(params.subject) }),
      documented({
        summary: "Deletes a subject's mode",
        responses: { 200: mode, 404: fails("Subject not found (40401)") },
      }),
    );
}
