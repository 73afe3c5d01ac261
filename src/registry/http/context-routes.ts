// /contexts: the schema contexts (Confluent 7.x+): listing them, deleting an empty one.
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import { contextOf, DEFAULT_CONTEXT } from "../contexts.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { fails, noContent, ok, Q, Strings } from "./openapi.ts";
import { int } from "./query.ts";

export function contextRoutes(service: RegistryService, options: { access?: RegistryAccess }) {
  return new Elysia()
    .get(
      "/contexts",
      ({ query, request }) => {
        let contexts = service.listContexts();
        const readable = options.access?.readable(request);
        if (readable) {
          // With per-user permissions: the default context, and those the user may read a subject of.
          const shown = new Set(service.state.subjectNames().filter(readable).map(contextOf));
          contexts = contexts.filter((c) => c === DEFAULT_CONTEXT || shown.has(c));
        }
        if (query.contextPrefix) contexts = contexts.filter((c) => c.startsWith(query.contextPrefix!));
        const offset = Math.max(0, int(query.offset, 0));
        const limit = int(query.limit, -1);
        return limit > 0 ? contexts.slice(offset, offset + limit) : contexts.slice(offset);
      },
      {
        query: t.Object({
          contextPrefix: t.Optional(t.String({ description: "only contexts starting with this prefix" })),
          offset: Q.offset,
          limit: Q.limit,
        }),
        ...documented({ summary: "Schema contexts", responses: { 200: ok("Context names", Strings) } }),
      },
    )
    .delete(
      "/contexts/:context",
      async ({ params }) => {
        await service.deleteContext(params.context);
        return new Response(null, { status: 204 });
      },
      documented({
        summary: "Deletes an empty context",
        responses: {
          204: noContent("Deleted"),
          400: fails("A colon inside the context's name"),
          404: fails("Context not found"),
          405: fails("The default context: `/contexts/:.:` is the root, as a context base URL"),
          422: fails("The context still has subjects"),
        },
      }),
    );
}
