// Every route of the registry's app is in its OpenAPI document, described (a summary and its
// responses) or deliberately hidden. The app is built without running it: routes only read their
// options when a request comes, so the service and options are placeholders.
import { expect, test } from "bun:test";
import { newRegistry } from "#src/platform/metrics.ts";
import { registryApp } from "#src/registry/http/app.ts";
import { registryDocument } from "#src/registry/http/openapi.ts";
import { undocumentedRoutes } from "../../platform/openapi-coverage.ts";

const app = registryApp({} as never, {
  dek: {} as never,
  maxBodyBytes: 1,
  schemasById: {} as never,
  metrics: newRegistry(),
  health: () => ({}) as never,
});

test("every route the registry's app registered is in its document, with a summary and responses", () => {
  const doc = registryDocument(app.routes);
  expect(app.routes.length).toBeGreaterThan(40);
  expect(undocumentedRoutes(app.routes, doc)).toEqual([]);
});
