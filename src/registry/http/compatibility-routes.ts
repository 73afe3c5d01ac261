// /compatibility: testing a schema against a subject's versions.
import { Elysia } from "elysia";
import { parseVersionSpec, type RegistryService, type SchemaRequest } from "../service.ts";
import { flag, type Query } from "./query.ts";
import { SchemaRequestBody } from "./request-bodies.ts";

export function compatibilityRoutes(service: RegistryService) {
  const reply = async (subject: string, version: string | undefined, body: SchemaRequest, query: Query) => {
    const verbose = flag(query, "verbose");
    const spec = version === undefined ? undefined : parseVersionSpec(version);
    const messages = await service.testCompatibility(subject, spec, body, verbose);
    return verbose ? { is_compatible: messages.length === 0, messages } : { is_compatible: messages.length === 0 };
  };
  return new Elysia()
    .post("/compatibility/subjects/:subject/versions", ({ params, query, body }) => reply(params.subject, undefined, body as SchemaRequest, query), { body: SchemaRequestBody })
    .post("/compatibility/subjects/:subject/versions/:version", ({ params, query, body }) => reply(params.subject, params.version, body as SchemaRequest, query), { body: SchemaRequestBody });
}
