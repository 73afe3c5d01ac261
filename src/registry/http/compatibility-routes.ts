// /compatibility: testing a schema against a subject's versions.
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import { parseVersionSpec } from "../reads.ts";
import type { SchemaRequest } from "../registration.ts";
import type { RegistryService } from "../service.ts";
import { CompatibilityBody, fails, ok, Q } from "./openapi.ts";
import { flag, type Query } from "./query.ts";
import { SchemaRequestBody } from "./request-bodies.ts";

const hooks = (summary: string) => ({
  body: SchemaRequestBody,
  query: t.Object({ verbose: Q.verbose }),
  ...documented({
    summary,
    responses: {
      200: ok("Whether it is compatible (with verbose, why not)", CompatibilityBody),
      404: fails("Subject (40401) or version (40402) not found"),
      422: fails("Invalid schema (42201) or version (42202)"),
    },
  }),
});

export function compatibilityRoutes(service: RegistryService) {
  const reply = async (subject: string, version: string | undefined, body: SchemaRequest, query: Query) => {
    const verbose = flag(query, "verbose");
    const spec = version === undefined ? undefined : parseVersionSpec(version);
    const messages = await service.testCompatibility(subject, spec, body, verbose);
    return verbose ? { is_compatible: messages.length === 0, messages } : { is_compatible: messages.length === 0 };
  };
  return new Elysia()
    .post(
      "/compatibility/subjects/:subject/versions",
      ({ params, query, body }) => reply(params.subject, undefined, body as SchemaRequest, query),
      hooks("Tests a schema against the versions the subject's level compares with"),
    )
    .post(
      "/compatibility/subjects/:subject/versions/:version",
      ({ params, query, body }) => reply(params.subject, params.version, body as SchemaRequest, query),
      hooks("Tests a schema against one version"),
    );
}
