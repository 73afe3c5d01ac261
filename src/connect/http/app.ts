// The Kafka Connect REST API on Elysia. Routes only talk to the herder; every rule lives there.
import { Elysia, t } from "elysia";
import { logger, setLogLevel, type LogLevel } from "../../common/log.ts";
import { VERSION } from "../../version.ts";
import { ConnectRestError, connectErrors } from "../errors.ts";
import { configKeyInfo } from "../herder/config-infos.ts";
import type { StandaloneHerder, TargetState } from "../herder/standalone.ts";
import { sinkConnectorDefinition, sourceConnectorDefinition } from "../worker/connector-config.ts";
import type { SettingsDefinition } from "../../common/settings.ts";

const log = logger("connect-http");

const ConfigMap = t.Record(t.String(), t.Union([t.String(), t.Null()]));
const CreateBody = t.Object({ name: t.Optional(t.String()), config: t.Optional(ConfigMap), initial_state: t.Optional(t.String()) }, { additionalProperties: true });
const OffsetsBody = t.Object({ offsets: t.Optional(t.Array(t.Object({ partition: t.Record(t.String(), t.Unknown()), offset: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]) }))) }, { additionalProperties: true });
const LevelBody = t.Object({ level: t.Optional(t.String()) }, { additionalProperties: true });

const ROUTES: [RegExp, string[]][] = [
  [/^\/$/, ["GET"]],
  [/^\/health$/, ["GET"]],
  [/^\/connectors$/, ["GET", "POST"]],
  [/^\/connectors\/[^/]+$/, ["GET", "DELETE"]],
  [/^\/connectors\/[^/]+\/config$/, ["GET", "PUT", "PATCH"]],
  [/^\/connectors\/[^/]+\/(status|tasks|topics)$/, ["GET"]],
  [/^\/connectors\/[^/]+\/(pause|resume|stop|topics\/reset)$/, ["PUT"]],
  [/^\/connectors\/[^/]+\/restart$/, ["POST"]],
  [/^\/connectors\/[^/]+\/tasks\/[^/]+\/status$/, ["GET"]],
  [/^\/connectors\/[^/]+\/tasks\/[^/]+\/restart$/, ["POST"]],
  [/^\/connectors\/[^/]+\/offsets$/, ["GET", "PATCH", "DELETE"]],
  [/^\/connector-plugins$/, ["GET"]],
  [/^\/connector-plugins\/[^/]+\/config$/, ["GET"]],
  [/^\/connector-plugins\/[^/]+\/config\/validate$/, ["PUT"]],
  [/^\/admin\/loggers(\/[^/]+)?$/, ["GET", "PUT"]],
];

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const empty = (status: number) => new Response(null, { status });

function errorBody(error: unknown): Response {
  if (error instanceof ConnectRestError) return json({ error_code: error.status, message: error.message }, error.status);
  const message = error instanceof Error ? error.message : String(error);
  log.error({ err: error instanceof Error ? error.stack : message }, "request failed");
  return json({ error_code: 500, message }, 500);
}

function taskIndex(value: string): number {
  if (!/^\d+$/.test(value)) throw connectErrors.notFound("HTTP 404 Not Found");
  return Number(value);
}

/** Loggers set explicitly over REST, as Kafka's /admin/loggers lists them. */
const loggerLevels = new Map<string, { level: string; last_modified: number }>();

export function connectApp(herder: StandaloneHerder, info: { kafkaClusterId: string }) {
  const plugins = herder.worker.options.plugins;
  const nonConnectorTypes = ["transformation", "predicate", "converter", "header_converter"] as const;

  return new Elysia()
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") {
        const path = new URL(request.url).pathname;
        const known = ROUTES.find(([re]) => re.test(path));
        if (known && !known[1].includes(request.method)) return json({ error_code: 405, message: "HTTP 405 Method Not Allowed" }, 405);
        return json({ error_code: 404, message: "HTTP 404 Not Found" }, 404);
      }
      if (code === "PARSE") {
        const cause = (error as { cause?: unknown }).cause;
        return json({ error_code: 400, message: `Malformed JSON: ${cause instanceof Error ? cause.message : "could not parse the request body"}` }, 400);
      }
      if (code === "VALIDATION") {
        const detail = (error as { all?: { path?: string; message?: string }[] }).all?.[0];
        return json({ error_code: 400, message: `Invalid request body${detail?.path ? ` at ${detail.path}` : ""}: ${detail?.message ?? "unexpected value"}` }, 400);
      }
      return errorBody(error);
    })
    .get("/", () => json({ version: VERSION, commit: "sluice", kafka_cluster_id: info.kafkaClusterId }))
    .get("/health", () => json({ status: "healthy", message: "Worker has completed startup and is ready to handle requests." }))
    .get("/connectors", ({ request }) => {
      const expand = new URL(request.url).searchParams.getAll("expand");
      const names = herder.connectorNames();
      if (!expand.includes("status") && !expand.includes("info")) return json(names);
      const out: Record<string, Record<string, unknown>> = {};
      for (const name of names) {
        out[name] = {};
        if (expand.includes("status")) {
          try {
            out[name]!.status = herder.status(name);
          } catch {
            // no status yet: left out, as Kafka does
          }
        }
        if (expand.includes("info")) out[name]!.info = herder.info(name);
      }
      return json(out);
    })
    .post(
      "/connectors",
      async ({ body }) => {
        const name = body.name?.trim();
        if (!name) throw connectErrors.badRequest("Connector name must be specified");
        if (name.includes("/")) throw connectErrors.badRequest("connector name should not contain '/'");
        const config = checkName(name, body.config ?? {});
        const initialState = body.initial_state?.toUpperCase();
        const targets: Record<string, TargetState> = { RUNNING: "STARTED", PAUSED: "PAUSED", STOPPED: "STOPPED" };
        if (initialState && !targets[initialState]) {
          throw connectErrors.badRequest(`Invalid initial state ${body.initial_state}; allowed: RUNNING, PAUSED, STOPPED`);
        }
        const target = initialState ? targets[initialState] : undefined;
        const { info } = await herder.putConnector(name, config, { allowReplace: false, initialState: target });
        return json(info, 201, { location: `/connectors/${encodeURIComponent(name)}` });
      },
      { body: CreateBody },
    )
    .get("/connectors/:connector", ({ params }) => json(herder.info(params.connector)))
    .delete("/connectors/:connector", async ({ params }) => {
      await herder.deleteConnector(params.connector);
      return empty(204);
    })
    .get("/connectors/:connector/config", ({ params }) => json(herder.config(params.connector)))
    .put(
      "/connectors/:connector/config",
      async ({ params, body }) => {
        const { created, info } = await herder.putConnector(params.connector, checkName(params.connector, body), { allowReplace: true });
        return created ? json(info, 201, { location: `/connectors/${encodeURIComponent(params.connector)}` }) : json(info);
      },
      { body: ConfigMap },
    )
    .patch("/connectors/:connector/config", async ({ params, body }) => json(await herder.patchConnector(params.connector, body)), { body: ConfigMap })
    .get("/connectors/:connector/status", ({ params }) => json(herder.status(params.connector)))
    .get("/connectors/:connector/tasks", ({ params }) => json(herder.taskConfigs(params.connector)))
    .get("/connectors/:connector/tasks/:task/status", ({ params }) => json(herder.taskStatus(params.connector, taskIndex(params.task))))
    .post("/connectors/:connector/restart", async ({ params, query }) => {
      const planned = await herder.restart(params.connector, query.includeTasks === "true", query.onlyFailed === "true");
      return planned ? json(planned, 202) : empty(204);
    })
    .post("/connectors/:connector/tasks/:task/restart", async ({ params }) => {
      await herder.restartTask(params.connector, taskIndex(params.task));
      return empty(204);
    })
    .put("/connectors/:connector/pause", async ({ params }) => {
      await herder.pause(params.connector);
      return empty(202);
    })
    .put("/connectors/:connector/resume", async ({ params }) => {
      await herder.resume(params.connector);
      return empty(202);
    })
    .put("/connectors/:connector/stop", async ({ params }) => {
      await herder.stop(params.connector);
      return empty(204);
    })
    .get("/connectors/:connector/topics", ({ params }) => {
      if (!herder.worker.options.settings.boolean("topic.tracking.enable")) throw connectErrors.forbidden("Topic tracking is disabled.");
      return json(herder.topics(params.connector));
    })
    .put("/connectors/:connector/topics/reset", ({ params }) => {
      const settings = herder.worker.options.settings;
      if (!settings.boolean("topic.tracking.enable")) throw connectErrors.forbidden("Topic tracking is disabled.");
      if (!settings.boolean("topic.tracking.allow.reset")) throw connectErrors.forbidden("Topic tracking reset is disabled.");
      herder.resetTopics(params.connector);
      return empty(202);
    })
    .get("/connectors/:connector/offsets", async ({ params }) => json(await herder.offsets(params.connector)))
    .patch("/connectors/:connector/offsets", async ({ params, body }) => json({ message: await herder.alterOffsets(params.connector, body.offsets) }), { body: OffsetsBody })
    .delete("/connectors/:connector/offsets", async ({ params }) => json({ message: await herder.resetOffsets(params.connector) }))
    .get("/connector-plugins", ({ query }) => {
      const types = query.connectorsOnly === "false" ? (["source", "sink", ...nonConnectorTypes] as const) : (["source", "sink"] as const);
      const list = plugins
        .list(...types)
        .map((p) => ({ class: p.className, type: p.type, ...(p.version ? { version: p.version } : {}) }))
        .sort((a, b) => (a.class < b.class ? -1 : a.class > b.class ? 1 : 0));
      return json(list);
    })
    .get("/connector-plugins/:plugin/config", ({ params }) => {
      const plugin = plugins.find(params.plugin);
      if (!plugin) throw connectErrors.notFound(`Unknown plugin ${params.plugin}.`);
      const own = (plugin.create() as { config?: () => SettingsDefinition }).config?.();
      const framework = plugin.type === "sink" ? [sinkConnectorDefinition] : plugin.type === "source" ? [sourceConnectorDefinition] : [];
      const settings = [...(own?.settings ?? []), ...framework.flatMap((d) => d.settings)];
      return json(settings.map((s, i) => configKeyInfo(s, i + 1)));
    })
    .put("/connector-plugins/:plugin/config/validate", ({ params, body }) => json(herder.validate(nonNull(body), params.plugin)), { body: ConfigMap })
    .get("/admin/loggers", () => json(Object.fromEntries(loggerLevels)))
    .get("/admin/loggers/:name", ({ params }) => {
      const entry = loggerLevels.get(params.name) ?? (params.name === "root" ? { level: "INFO", last_modified: null } : undefined);
      if (!entry) throw connectErrors.notFound("Logger name not found.");
      return json(entry);
    })
    .put(
      "/admin/loggers/:name",
      ({ params, body }) => {
        if (!body.level) throw connectErrors.badRequest("Desired 'level' parameter was not specified in request.");
        const level = body.level.toUpperCase();
        const ours: Record<string, LogLevel> = { TRACE: "trace", DEBUG: "debug", INFO: "info", WARN: "warn", ERROR: "error", FATAL: "fatal", OFF: "silent" };
        if (!ours[level]) throw connectErrors.notFound(`invalid log level '${body.level}'.`);
        // One process-wide logger: every name sets the level (the root logger of Kafka's view).
        setLogLevel(ours[level]!);
        loggerLevels.set(params.name, { level, last_modified: Date.now() });
        return json([params.name]);
      },
      { body: LevelBody },
    );
}

function nonNull(config: Record<string, string | null>): Record<string, string> {
  for (const [key, value] of Object.entries(config)) {
    if (value === null) throw connectErrors.badRequest(`Null value can not be supplied as the configuration value. Key: ${key}`);
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
