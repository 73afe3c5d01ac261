// The Kafka Connect REST API on Elysia: each resource's routes, assembled here with what applies to
// all of them (authentication, Jersey's early refusals, forwarding and error bodies). Routes only talk
// to the herder; every rule lives there.
import type { ForwardingTls } from "../../../platform/tls.ts";
import { Elysia } from "elysia";
import type { RequestGuard } from "../../../platform/basic-auth.ts";
import { logger } from "../../../platform/log.ts";
import { routeMethods, type RouteMethods } from "../../../platform/route-methods.ts";
import { ConnectRestError } from "../rest-errors.ts";
import { ForwardRequest, type Herder } from "../herder/herder.ts";
import type { ConnectUsers } from "../security.ts";
import { adminRoutes } from "./admin-routes.ts";
import { connectorRoutes } from "./connector-routes.ts";
import { forward } from "./forward.ts";
import { loggerRoutes } from "./logger-routes.ts";
import { offsetRoutes } from "./offset-routes.ts";
import { connectDocument } from "./openapi.ts";
import { pluginRoutes } from "./plugin-routes.ts";
import { parsedBody, unsupportedMediaType } from "./request-bodies.ts";
import { json } from "./respond.ts";
import { sluiceRoutes } from "./sluice-routes.ts";
import { taskRoutes } from "./task-routes.ts";

const log = logger("connect-http");

/** JavaScript's own errors: their messages describe Sluice's code, not the request. */
const ENGINE_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError, URIError, EvalError];

function errorBody(error: unknown): Response {
  if (error instanceof ConnectRestError)
    return json({ error_code: error.status, message: error.message }, error.status);
  const message = error instanceof Error ? error.message : String(error);
  log.error({ err: error instanceof Error ? error.stack : message }, "request failed");
  const internal = ENGINE_ERRORS.some((type) => error instanceof type);
  return json(
    { error_code: 500, message: internal ? "Internal server error; the worker log has the details" : message },
    500,
  );
}

/** The request's path as Jersey matches it: a trailing slash names the same resource. */
const resourcePath = (request: Request) => new URL(request.url).pathname.replace(/(.)\/$/, "$1");

/** Answers requests Kafka's Jetty and Jersey refuse before any resource runs; undefined lets the rest through. */
function refusedEarly(request: Request, resourceMethods: RouteMethods): Response | undefined {
  const path = resourcePath(request);
  try {
    decodeURIComponent(path);
  } catch {
    return json({ error_code: 400, message: "Bad UTF-8 encoding" }, 400);
  }
  // Jersey matches the resources' @Consumes(application/json) against every request they get, GETs too
  // (GET /, /health and /metrics are not among them).
  if (
    resourceMethods(path)?.includes(request.method) &&
    !/^\/(health|metrics)?$/.test(path) &&
    unsupportedMediaType(request)
  ) {
    return json({ error_code: 415, message: "HTTP 415 Unsupported Media Type" }, 415);
  }
  return undefined;
}

/** `guard`: authentication, answering refused requests before any route (../security.ts); `users`: whom it admitted. */
export function connectApp(
  herder: Herder,
  info: {
    kafkaClusterId: () => Promise<string>;
    guard?: RequestGuard;
    users?: ConnectUsers;
    forwardTls?: ForwardingTls;
  },
) {
  const metrics = herder.metrics();
  metrics.trackStates(herder);

  // The methods of the resource at a path, read from the routes below once they are registered.
  let methodsAt: RouteMethods = () => undefined;
  // Built from the whole app on first request, so every route registered by then is in it.
  let document: string | undefined;
  const app = new Elysia()
    .onRequest(({ request }) => info.guard?.(request) ?? refusedEarly(request, methodsAt))
    // Not `body` from the context: naming it here would make Elysia parse every route's body.
    .onError(async ({ code, error, request, set }) => {
      if (error instanceof ForwardRequest) {
        const response = await forward(error, request, parsedBody(request), info.forwardTls);
        set.status = response.status;
        return response;
      }
      if (code === "NOT_FOUND") {
        const methods = methodsAt(resourcePath(request));
        if (methods && !methods.includes(request.method))
          return json({ error_code: 405, message: "HTTP 405 Method Not Allowed" }, 405);
        return json({ error_code: 404, message: "HTTP 404 Not Found" }, 404);
      }
      // Elysia wraps what the body parser threw (parseJsonBody's Jackson-style errors).
      if (code === "PARSE") return errorBody((error as { cause?: unknown }).cause ?? error);
      return errorBody(error);
    })
    .use(
      adminRoutes(herder, {
        kafkaClusterId: info.kafkaClusterId,
        metrics: metrics.registry,
        document: (): string => (document ??= JSON.stringify(connectDocument(app.routes))),
      }),
    )
    .use(sluiceRoutes(herder, info))
    .use(connectorRoutes(herder))
    .use(taskRoutes(herder))
    .use(offsetRoutes(herder))
    .use(pluginRoutes(herder))
    .use(loggerRoutes());
  methodsAt = routeMethods(app.routes);
  return app;
}
