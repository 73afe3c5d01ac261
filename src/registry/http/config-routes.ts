// /config: the global config (compatibility level and data-contract settings) and each subject's.
// Bodies go to the service as parsed: ../subject-config.ts reads each field with Confluent's errors.
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import type { ScopedConfig } from "../config-and-mode.ts";
import type { RegistryService } from "../service.ts";
import { configBody, configUpdateBody } from "./entities.ts";
import { ConfigBody, ConfigRequest, fails, ok, Q } from "./openapi.ts";
import { flag } from "./query.ts";

const reply = ok("The config", ConfigBody);
const notFound = fails("No config of its own (40408) or subject not found (40401)");
const read = { query: t.Object({ defaultToGlobal: Q.defaultToGlobal }) };
const update = {
  summary: "Sets the compatibility level and data-contract settings",
  body: ConfigRequest,
  responses: { 200: ok("The config as set", ConfigBody), 422: fails("Invalid compatibility level (42203)") },
};

export function configRoutes(service: RegistryService) {
  const body = (parsed: unknown) => parsed as Record<string, unknown>;
  const scoped = ({ config, fallbackLevel }: ScopedConfig) => configBody(config, fallbackLevel);
  return new Elysia()
    .get("/config", ({ query }) => scoped(service.getConfig(null, flag(query, "defaultToGlobal"))), {
      ...read,
      ...documented({ summary: "The global config", responses: { 200: reply } }),
    })
    .put("/config", async (ctx) => configUpdateBody(await service.setConfig(null, body(ctx.body))), documented(update))
    .delete(
      "/config",
      async () => scoped(await service.deleteConfig(null)),
      documented({ summary: "Resets the global config", responses: { 200: ok("The config deleted", ConfigBody) } }),
    )
    .get(
      "/config/:subject",
      ({ params, query }) => scoped(service.getConfig(params.subject, flag(query, "defaultToGlobal"))),
      {
        ...read,
        ...documented({ summary: "A subject's config", responses: { 200: reply, 404: notFound } }),
      },
    )
    .put(
      "/config/:subject",
      async (ctx) => configUpdateBody(await service.setConfig(ctx.params.subject, body(ctx.body))),
      documented(update),
    )
    .delete(
      "/config/:subject",
      async ({ params }) => scoped(await service.deleteConfig(params.subject)),
      documented({
        summary: "Deletes a subject's config",
        responses: { 200: ok("The config deleted", ConfigBody), 404: notFound },
      }),
    );
}
