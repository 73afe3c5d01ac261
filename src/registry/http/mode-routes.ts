// /mode: the global mode (READWRITE, READONLY, IMPORT) and each subject's.
import { Type as T } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import type { Mode } from "../config-and-mode.ts";
import type { RegistryService } from "../service.ts";
import { fails, ModeReply, ok, Q } from "./openapi.ts";
import { flag } from "./query.ts";
import { ModeBody } from "./request-bodies.ts";

const read = { query: t.Object({ defaultToGlobal: Q.defaultToGlobal }) };
const mode = ok("The mode", ModeReply);
const modeDeleted = ok(
  "The mode deleted; `{}` when a recursive delete found none of the scope's own",
  T.Object({ mode: T.Optional(ModeReply.properties.mode) }),
);
const remove = { query: t.Object({ recursive: Q.recursive }) };
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
    .delete("/mode", async ({ query }) => deleted(await service.deleteMode(null, flag(query, "recursive"))), {
      ...remove,
      ...documented({
        summary: "Deletes the global mode (back to READWRITE); answers the mode it had",
        responses: { 200: modeDeleted, 422: fails("Mode changes are not allowed (42205)") },
      }),
    })
    .delete(
      "/mode/:subject",
      async ({ params, query }) => deleted(await service.deleteMode(params.subject, flag(query, "recursive"))),
      {
        ...remove,
        ...documented({
          summary: "Deletes a subject's or a context's mode; answers the mode it had",
          responses: {
            200: modeDeleted,
            404: fails("No mode of its own and not recursive (40401)"),
            422: fails("Mode changes are not allowed (42205)"),
          },
        }),
      },
    );
}

/** Confluent leaves a null mode out: `{}` when a recursive delete found none of the scope's own. */
const deleted = (mode: Mode | null) => (mode === null ? {} : { mode });
