// Every route of the connect app is in its OpenAPI document, described (a summary and its responses)
// or deliberately hidden. The app is built without running it: the herder is a placeholder with the
// two things the app reads while it registers its routes.
import { expect, test } from "bun:test";
import { connectApp } from "#src/connect/runtime/http/app.ts";
import { connectDocument } from "#src/connect/runtime/http/openapi.ts";
import { newRegistry } from "#src/platform/metrics.ts";
import { undocumentedRoutes } from "../../../platform/openapi-coverage.ts";

const herder = { plugins: () => ({}), metrics: () => ({ trackStates() {}, registry: newRegistry() }) };
const app = connectApp(herder as never, { kafkaClusterId: async () => "k" });

test("every route the connect app registered is in its document, with a summary and responses", () => {
  const doc = connectDocument(app.routes);
  expect(app.routes.length).toBeGreaterThan(25);
  expect(undocumentedRoutes(app.routes, doc)).toEqual([]);
});
