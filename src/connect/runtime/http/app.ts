// The Kafka Connect REST API on Elysia. Routes only talk to the herder; every rule lives there.
import type { ForwardingTls } from "../../../platform/tls.ts";
import { Elysia, t } from "elysia";
import { javaTrim } from "../../../jvm/java-strings.ts";
import type { RequestGuard } from "../../../platform/basic-auth.ts";
import { logger, setLogLevel, type LogLevel } from "../../../platform/log.ts";
import { metricsResponse } from "../../../platform/metrics.ts";
import { documented } from "../../../platform/openapi.ts";
import { routeMethods, type RouteMethods } from "../../../platform/route-methods.ts";
import { COMMIT, VERSION } from "../../../platform/version.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import { configKeyInfos } from "../herder/config-infos.ts";
import { ForwardRequest, type Herder, type TargetState } from "../herder/herder.ts";
import { UnknownConnectorClass } from "../herder/validation.ts";
import { connectorFrameworkDefinition } from "../worker/connector-config.ts";
import type { ConnectUsers } from "../security.ts";
import { sluiceRoutes } from "./sluice-routes.ts";
import { configMap, createRequest, levelRequest, offsetsRequest, parseJsonBody, unsupportedMediaType } from "./request-bodies.ts";
import type { SettingsDefinition } from "../../../platform/settings.ts";
import {
  ConfigRequest,
  ConnectorInfo,
  ConnectorStatus,
  Connectors,
  connectDocument,
  ConfigPatch,
  CreateConnectorRequest,
  fails,
  HealthBody,
  LevelRequest,
  LoggerLevel,
  Message,
  noBody,
  Offsets,
  OffsetsRequest,
  ok,
  PluginConfig,
  Plugins,
  Q,
  RestartPlan,
  ServerInfo,
  TaskConfigs,
  TaskState,
  Topics,
  ValidationResult,
} from "./openapi.ts";

const connectorNotFound = fails("Connector not found");
const connectorReply = ok("The connector", ConnectorInfo);

const log = logger("connect-http");

/** Kafka's check that a validate request's connector.class is the plugin of the URL. */
const stripConnector = (name: string) => (name.endsWith("Connector") ? name.slice(0, -"Connector".length) : name);


const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const empty = (status: number) => new Response(null, { status });

/** JavaScript's own errors: their messages describe Sluice's code, not the request. */
const ENGINE_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError, URIError, EvalError];

function errorBody(error: unknown): Response {
  if (error instanceof ConnectRestError) return json({ error_code: error.status, message: error.message }, error.status);
  const message = error instanceof Error ? error.message : String(error);
  log.error({ err: error instanceof Error ? error.stack : message }, "request failed");
  const internal = ENGINE_ERRORS.some((type) => error instanceof type);
  return json({ error_code: 500, message: internal ? "Internal server error; the worker log has the details" : message }, 500);
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
  if (resourceMethods(path)?.includes(request.method) && !/^\/(health|metrics)?$/.test(path) && unsupportedMediaType(request)) {
    return json({ error_code: 415, message: "HTTP 415 Unsupported Media Type" }, 415);
  }
  return undefined;
}

/** Kafka Connect's herder request timeout, which also bounds a forwarded request. */
const FORWARD_TIMEOUT_MS = 90_000;

/**
 * Sends a request on to the worker that must handle it (Kafka's HerderRequestHandler): `forward=true`
 * on the first hop, `false` on the second; a request that would need a third hop gets 409.
 */
async function forward(target: ForwardRequest, request: Request, body: unknown, tls?: ForwardingTls): Promise<Response> {
  const incoming = new URL(request.url);
  const hop = incoming.searchParams.get("forward");
  if (hop === "false") throw connectErrors.conflict("Cannot complete request because of a conflicting operation (e.g. worker rebalance)");
  const url = new URL(incoming.pathname + incoming.search, target.url);
  url.searchParams.set("forward", hop === null ? "true" : "false");
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.delete("host");
  log.debug({ url: url.toString(), method: request.method }, "forwarding request");
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      body: body === undefined || body === null || request.method === "GET" ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      ...(tls ? { tls } : {}),
    });
  } catch (err) {
    if (err instanceof Error && err.name === "TimeoutError") throw new ConnectRestError(500, "Request timed out");
    throw new ConnectRestError(500, `IO Error trying to forward REST request: ${err instanceof Error ? err.message : String(err)}`);
  }
  return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
}

function taskIndex(value: string): number {
  if (!/^\d+$/.test(value)) throw connectErrors.notFound("HTTP 404 Not Found");
  return Number(value);
}

/** Bodies as parsed for the routes that take one, kept for forwarding. */
const parsedBodies = new WeakMap<Request, unknown>();

/**
 * The parser of the routes that take a body, given to each of them: Kafka's resources without a body
 * parameter never read it (Elysia would parse every route's body for a global parse hook).
 */
const JSON_BODY = {
  parse: async ({ request }: { request: Request }) => {
    // Blank is null, as Jersey's Jackson provider reads empty input; undefined would make Elysia try
    // its own parser next, on a body already read.
    const body = parseJsonBody(await request.text()) ?? null;
    parsedBodies.set(request, body);
    return body;
  },
};

/** Loggers set explicitly over REST, as Kafka's /admin/loggers lists them. */
const loggerLevels = new Map<string, { level: string; last_modified: number }>();
/** Root until it is set over REST (Sluice logs at INFO unless configured otherwise). */
const ROOT_DEFAULT = { level: "INFO", last_modified: null };

/** `guard`: authentication, answering refused requests before any route (../security.ts); `users`: whom it admitted. */
export function connectApp(herder: Herder, info: { kafkaClusterId: string; guard?: RequestGuard; users?: ConnectUsers; forwardTls?: ForwardingTls }) {
  const plugins = herder.plugins();
  const nonConnectorTypes = ["transformation", "predicate", "converter", "header_converter"] as const;
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
        const response = await forward(error, request, parsedBodies.get(request), info.forwardTls);
        set.status = response.status;
        return response;
      }
      if (code === "NOT_FOUND") {
        const methods = methodsAt(resourcePath(request));
        if (methods && !methods.includes(request.method)) return json({ error_code: 405, message: "HTTP 405 Method Not Allowed" }, 405);
        return json({ error_code: 404, message: "HTTP 404 Not Found" }, 404);
      }
      // Elysia wraps what the body parser threw (parseJsonBody's Jackson-style errors).
      if (code === "PARSE") return errorBody((error as { cause?: unknown }).cause ?? error);
      return errorBody(error);
    })
    .get("/", () => json({ version: VERSION, commit: COMMIT, kafka_cluster_id: info.kafkaClusterId }), documented({ summary: "The worker's version and Kafka cluster", responses: { 200: ok("Server info", ServerInfo) } }))
    .get("/health", () => {
      const health = herder.health();
      return json({ status: health.status, message: health.message }, health.httpStatus);
    }, documented({ summary: "Whether the worker can serve", responses: { 200: ok("Serving", HealthBody), 503: ok("Not serving", HealthBody) } }))
    .get("/metrics", () => metricsResponse(metrics.registry), documented({ summary: "Prometheus metrics (Sluice's own)", responses: { 200: { description: "Prometheus text format", schema: { type: "string" }, contentTypes: ["text/plain"] } } }))
    .get("/openapi.json", (): Response => new Response((document ??= JSON.stringify(connectDocument(app.routes))), { headers: { "content-type": "application/json" } }), documented({
      summary: "This document: OpenAPI 3.1, generated from the routes",
      responses: { 200: ok("The OpenAPI document", { type: "object" }) },
    }))
    .use(sluiceRoutes(herder, info))
    .get("/connectors", async ({ request }) => {
      const expand = new URL(request.url).searchParams.getAll("expand");
      const names = herder.connectorNames();
      if (!expand.includes("status") && !expand.includes("info")) return json(names);
      const out: Record<string, Record<string, unknown>> = {};
      for (const name of names) {
        out[name] = {};
        if (expand.includes("status")) {
          try {
            out[name]!.status = await herder.status(name);
          } catch {
            // no status yet: left out, as Kafka does
          }
        }
        if (expand.includes("info")) out[name]!.info = herder.info(name);
      }
      return json(out);
    }, {
      query: t.Object({ expand: t.Optional(t.Array(t.String({ description: "status, info (repeated for both)" }))) }),
      ...documented({ summary: "Connectors", responses: { 200: ok("Names, or with expand an object per connector", Connectors) } }),
    })
    .post("/connectors", async ({ body }) => {
      const request = createRequest(body);
      const initialState = request.initialState?.toUpperCase();
      const targets: Record<string, TargetState> = { RUNNING: "STARTED", PAUSED: "PAUSED", STOPPED: "STOPPED" };
      if (initialState && !targets[initialState]) {
        throw new ConnectRestError(500, `Cannot construct instance of \`org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest$InitialState\`, problem: No enum constant org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest.InitialState.${initialState}`);
      }
      // A missing name is an empty one: config validation then reports it, as Kafka's does.
      const name = javaTrim(request.name ?? "");
      const config = checkName(name, request.config ?? {});
      const target = initialState ? targets[initialState] : undefined;
      const { info } = await herder.putConnector(name, config, { allowReplace: false, initialState: target });
      return json(info, 201, { location: `/connectors/${encodeURIComponent(name)}` });
    }, { ...JSON_BODY, ...documented({ summary: "Creates a connector", body: CreateConnectorRequest, responses: { 201: ok("The connector created", ConnectorInfo), 400: fails("Invalid config"), 409: fails("The connector exists, or a rebalance is in progress") } }) })
    .get("/connectors/:connector", ({ params }) => json(herder.info(params.connector)), documented({ summary: "A connector", responses: { 200: connectorReply, 404: connectorNotFound } }))
    .delete("/connectors/:connector", async ({ params }) => {
      await herder.deleteConnector(params.connector);
      return empty(204);
    }, documented({ summary: "Deletes a connector", responses: { 204: noBody("Deleted"), 404: connectorNotFound } }))
    .get("/connectors/:connector/config", ({ params }) => json(herder.config(params.connector)), documented({ summary: "A connector's config", responses: { 200: ok("The config", ConfigRequest), 404: connectorNotFound } }))
    .put("/connectors/:connector/config", async ({ params, body }) => {
      const { created, info } = await herder.putConnector(params.connector, checkName(params.connector, configMap(body)), { allowReplace: true });
      return created ? json(info, 201, { location: `/connectors/${encodeURIComponent(params.connector)}` }) : json(info);
    }, { ...JSON_BODY, ...documented({ summary: "Creates or replaces a connector's config", body: ConfigRequest, responses: { 200: ok("The connector updated", ConnectorInfo), 201: ok("The connector created", ConnectorInfo), 400: fails("Invalid config"), 409: fails("A rebalance is in progress") } }) })
    .patch("/connectors/:connector/config", async ({ params, body }) => json(await herder.patchConnector(params.connector, configMap(body))), {
      ...JSON_BODY,
      ...documented({ summary: "Changes some keys of a connector's config (null removes one)", body: ConfigPatch, responses: { 200: ok("The connector updated", ConnectorInfo), 400: fails("Invalid config"), 404: connectorNotFound } }),
    })
    .get("/connectors/:connector/status", async ({ params }) => json(await herder.status(params.connector)), documented({ summary: "A connector's and its tasks' states", responses: { 200: ok("The status", ConnectorStatus), 404: connectorNotFound } }))
    .post("/connectors/:connector/restart", async ({ params, query }) => {
      const planned = await herder.restart(params.connector, query.includeTasks === "true", query.onlyFailed === "true");
      return planned ? json(planned, 202) : empty(204);
    }, {
      query: t.Object({ includeTasks: Q.flag("restart the tasks too"), onlyFailed: Q.flag("only what failed") }),
      ...documented({ summary: "Restarts a connector (and its tasks)", responses: { 202: ok("What will be restarted", RestartPlan), 204: noBody("Restarted"), 404: connectorNotFound } }),
    })
    .put("/connectors/:connector/pause", async ({ params }) => {
      await herder.pause(params.connector);
      return empty(202);
    }, documented({ summary: "Pauses a connector and its tasks", responses: { 202: noBody("Pausing"), 404: connectorNotFound } }))
    .put("/connectors/:connector/resume", async ({ params }) => {
      await herder.resume(params.connector);
      return empty(202);
    }, documented({ summary: "Resumes a connector and its tasks", responses: { 202: noBody("Resuming"), 404: connectorNotFound } }))
    .put("/connectors/:connector/stop", async ({ params }) => {
      await herder.stop(params.connector);
      return empty(204);
    }, documented({ summary: "Stops a connector (its tasks are shut down)", responses: { 204: noBody("Stopped"), 404: connectorNotFound } }))
    .get("/connectors/:connector/topics", async ({ params }) => {
      if (!herder.settings().boolean("topic.tracking.enable")) throw connectErrors.forbidden("Topic tracking is disabled.");
      return json(await herder.topics(params.connector));
    }, documented({ summary: "The topics a connector has used", responses: { 200: ok("Topics per connector", Topics), 403: fails("Topic tracking is disabled"), 404: connectorNotFound } }))
    .put("/connectors/:connector/topics/reset", async ({ params }) => {
      const settings = herder.settings();
      if (!settings.boolean("topic.tracking.enable")) throw connectErrors.forbidden("Topic tracking is disabled.");
      if (!settings.boolean("topic.tracking.allow.reset")) throw connectErrors.forbidden("Topic tracking reset is disabled.");
      await herder.resetTopics(params.connector);
      return empty(202);
    }, documented({ summary: "Forgets the topics a connector has used", responses: { 202: noBody("Reset"), 403: fails("Topic tracking or its reset is disabled"), 404: connectorNotFound } }))
    .get("/connectors/:connector/tasks", ({ params }) => json(herder.taskConfigs(params.connector)), documented({ summary: "A connector's tasks and their configs", responses: { 200: ok("Task configs", TaskConfigs), 404: connectorNotFound } }))
    .get("/connectors/:connector/tasks/:task/status", async ({ params }) => json(await herder.taskStatus(params.connector, taskIndex(params.task))), documented({ summary: "A task's state", responses: { 200: ok("The task's state", TaskState), 404: fails("Connector or task not found") } }))
    .post("/connectors/:connector/tasks/:task/restart", async ({ params }) => {
      await herder.restartTask(params.connector, taskIndex(params.task));
      return empty(204);
    }, documented({ summary: "Restarts a task", responses: { 204: noBody("Restarted"), 404: fails("Connector or task not found") } }))
    .get("/connectors/:connector/offsets", async ({ params }) => json(await herder.offsets(params.connector)), documented({ summary: "A connector's offsets", responses: { 200: ok("The offsets", Offsets), 404: connectorNotFound } }))
    .patch(
      "/connectors/:connector/offsets",
      async ({ params, body }) => {
        const offsets = offsetsRequest(body);
        // Checked before the connector is looked up, as Kafka's resource does.
        if (!offsets || offsets.length === 0) throw connectErrors.badRequest("Partitions / offsets need to be provided for an alter offsets request");
        return json({ message: await herder.alterOffsets(params.connector, offsets) });
      },
      {
        ...JSON_BODY,
        ...documented({ summary: "Changes a stopped connector's offsets", body: OffsetsRequest, responses: { 200: ok("Done", Message), 400: fails("No offsets, or the connector is not stopped"), 404: connectorNotFound } }),
      },
    )
    .delete("/connectors/:connector/offsets", async ({ params }) => json({ message: await herder.resetOffsets(params.connector) }), documented({
      summary: "Resets a stopped connector's offsets",
      responses: { 200: ok("Done", Message), 400: fails("The connector is not stopped"), 404: connectorNotFound },
    }))
    .get("/connector-plugins", ({ query }) => {
      const types = query.connectorsOnly === "false" ? (["source", "sink", ...nonConnectorTypes] as const) : (["source", "sink"] as const);
      const list = plugins
        .list(...types)
        .map((p) => ({ class: p.className, type: p.type, ...(p.version ? { version: p.version } : {}) }))
        .sort((a, b) => (a.class < b.class ? -1 : a.class > b.class ? 1 : 0));
      return json(list);
    }, {
      query: t.Object({ connectorsOnly: t.Optional(t.String({ description: '"false" lists transformations, predicates and converters too' })) }),
      ...documented({ summary: "The plugins installed", responses: { 200: ok("Plugins", Plugins) } }),
    })
    .get("/connector-plugins/:plugin/config", ({ params }) => {
      const plugin = plugins.find(params.plugin);
      if (!plugin) throw connectErrors.notFound(`Unknown plugin ${params.plugin}.`);
      const own = (plugin.create() as { config?: () => SettingsDefinition }).config?.();
      const framework = plugin.type === "sink" || plugin.type === "source" ? [connectorFrameworkDefinition(plugin.type, plugin.version)] : [];
      // The plugin's own keys first, then the framework's, as Kafka lists them.
      return json(configKeyInfos([...(own ? [own] : []), ...framework]));
    }, documented({ summary: "A plugin's config definitions", responses: { 200: ok("Config keys", PluginConfig), 404: fails("Unknown plugin") } }))
    .put("/connector-plugins/:plugin/config/validate", async ({ params, body }) => {
      const config = configMap(body);
      const included = config["connector.class"];
      if (included != null && !stripConnector(included).endsWith(stripConnector(params.plugin))) {
        throw connectErrors.badRequest(`Included connector type ${included} does not match request type ${params.plugin}`);
      }
      try {
        return json(await herder.validate(config as Record<string, string>));
      } catch (err) {
        // Kafka runs validation through a future: its failures come back wrapped, as a 500 naming the exception.
        if (err instanceof ConnectRestError && err.status === 400) {
          const cause = err instanceof UnknownConnectorClass ? "org.apache.kafka.connect.errors.ConnectException: " : "";
          throw new ConnectRestError(500, `org.apache.kafka.connect.runtime.rest.errors.BadRequestException: ${cause}${err.message}`);
        }
        throw err;
      }
    }, { ...JSON_BODY, ...documented({ summary: "Validates a connector config", body: ConfigRequest, responses: { 200: ok("Each key's value and errors", ValidationResult), 400: fails("The config names another plugin") } }) })
    .get("/admin/loggers", () => json(Object.fromEntries([...(loggerLevels.has("root") ? [] : [["root", ROOT_DEFAULT] as const]), ...loggerLevels])), documented({
      summary: "The loggers set over REST, and root",
      responses: { 200: ok("Levels by logger", { type: "object", additionalProperties: LoggerLevel }) },
    }))
    .get("/admin/loggers/:name", ({ params }) => {
      const entry = loggerLevels.get(params.name) ?? (params.name === "root" ? ROOT_DEFAULT : undefined);
      if (!entry) throw connectErrors.notFound(`Logger ${params.name} not found.`);
      return json(entry);
    }, documented({ summary: "A logger's level", responses: { 200: ok("The level", LoggerLevel), 404: fails("Logger not set") } }))
    .put(
      "/admin/loggers/:name",
      ({ params, body, query }) => {
        const requested = levelRequest(body);
        if (!requested) throw connectErrors.badRequest("Desired 'level' parameter was not specified in request.");
        const level = requested.toUpperCase();
        const ours: Record<string, LogLevel> = { TRACE: "trace", DEBUG: "debug", INFO: "info", WARN: "warn", ERROR: "error", FATAL: "fatal", OFF: "silent" };
        if (!ours[level]) throw connectErrors.notFound(`invalid log level '${requested}'.`);
        // One process-wide logger: every name sets the level (the root logger of Kafka's view).
        setLogLevel(ours[level]!);
        // As in Kafka, a level also applies to the logger's descendants (root is everyone's ancestor).
        const name = params.name;
        const affected = [...new Set([...loggerLevels.keys(), name])].filter((n) => n === name || name === "root" || n.startsWith(`${name}.`)).sort();
        const now = Date.now();
        for (const n of affected) loggerLevels.set(n, { level, last_modified: now });
        // scope=cluster is applied asynchronously across workers in Kafka and answers 204.
        return query.scope?.toLowerCase() === "cluster" ? empty(204) : json(affected);
      },
      {
        ...JSON_BODY,
        query: t.Object({ scope: t.Optional(t.String({ description: '"cluster" sets it on every worker (204); otherwise this worker' })) }),
        ...documented({ summary: "Sets a logger's level", body: LevelRequest, responses: { 200: ok("The loggers changed", { type: "array", items: { type: "string" } }), 204: noBody("Set across the cluster"), 400: fails("No level given"), 404: fails("Invalid level") } }),
      },
    );
  methodsAt = routeMethods(app.routes);
  return app;
}

function nonNull(config: Record<string, string | null>): Record<string, string> {
  for (const [key, value] of Object.entries(config)) {
    if (value === null) throw new ConnectRestError(500, `Non-string value found in original settings for key ${key}: null`);
  }
  return config as Record<string, string>;
}

/** The URL's name wins; a different `name` in the config is the caller's mistake. */
function checkName(name: string, config: Record<string, string | null>): Record<string, string> {
  const values = nonNull(config);
  if (values.name !== undefined && values.name !== name) {
    throw connectErrors.badRequest(`Connector name configuration (${values.name}) doesn't match connector name in the URL (${name})`);
  }
  return { ...values, name };
}
