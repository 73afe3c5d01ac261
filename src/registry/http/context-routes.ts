// /contexts: the schema contexts (Confluent 7.x+): listing them, deleting an empty one.
import { Elysia } from "elysia";
import { contextOf, DEFAULT_CONTEXT } from "../contexts.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { int } from "./query.ts";

export function contextRoutes(service: RegistryService, options: { access?: RegistryAccess }) {
  return new Elysia()
    .get("/contexts", ({ query, request }) => {
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
    })
    .delete("/contexts/:context", async ({ params }) => {
      await service.deleteContext(params.context);
      return new Response(null, { status: 204 });
    });
}
