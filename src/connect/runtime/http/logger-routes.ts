// /admin/loggers: log levels, set over REST as Kafka's LoggingResource sets them. Sluice has one
// process-wide logger: the names are Kafka's view of it.
import { Elysia, t } from "elysia";
import { setLogLevel, type LogLevel } from "../../../platform/log.ts";
import { documented } from "../../../platform/openapi.ts";
import { connectErrors } from "../rest-errors.ts";
import { fails, LevelRequest, LoggerLevel, noBody, ok } from "./openapi.ts";
import { JSON_BODY, levelRequest } from "./request-bodies.ts";
import { empty, json } from "./respond.ts";

/** Loggers set explicitly over REST, as Kafka's /admin/loggers lists them. */
const loggerLevels = new Map<string, { level: string; last_modified: number }>();
/** Root until it is set over REST (Sluice logs at INFO unless configured otherwise). */
const ROOT_DEFAULT = { level: "INFO", last_modified: null };

export function loggerRoutes() {
  return new Elysia()
    .get(
      "/admin/loggers",
      () =>
        json(
          Object.fromEntries([...(loggerLevels.has("root") ? [] : [["root", ROOT_DEFAULT] as const]), ...loggerLevels]),
        ),
      documented({
        summary: "The loggers set over REST, and root",
        responses: { 200: ok("Levels by logger", { type: "object", additionalProperties: LoggerLevel }) },
      }),
    )
    .get(
      "/admin/loggers/:name",
      ({ params }) => {
        const entry = loggerLevels.get(params.name) ?? (params.name === "root" ? ROOT_DEFAULT : undefined);
        if (!entry) throw connectErrors.notFound(`Logger ${params.name} not found.`);
        return json(entry);
      },
      documented({
        summary: "A logger's level",
        responses: { 200: ok("The level", LoggerLevel), 404: fails("Logger not set") },
      }),
    )
    .put(
      "/admin/loggers/:name",
      ({ params, body, query }) => {
        const requested = levelRequest(body);
        if (!requested) throw connectErrors.badRequest("Desired 'level' parameter was not specified in request.");
        const level = requested.toUpperCase();
        const ours: Record<string, LogLevel> = {
          TRACE: "trace",
          DEBUG: "debug",
          INFO: "info",
          WARN: "warn",
          ERROR: "error",
          FATAL: "fatal",
          OFF: "silent",
        };
        if (!ours[level]) throw connectErrors.notFound(`invalid log level '${requested}'.`);
        // One process-wide logger: every name sets the level (the root logger of Kafka's view).
        setLogLevel(ours[level]!);
        // As in Kafka, a level also applies to the logger's descendants (root is everyone's ancestor).
        const name = params.name;
        const affected = [...new Set([...loggerLevels.keys(), name])]
          .filter((n) => n === name || name === "root" || n.startsWith(`${name}.`))
          .sort();
        const now = Date.now();
        for (const n of affected) loggerLevels.set(n, { level, last_modified: now });
        // scope=cluster is applied asynchronously across workers in Kafka and answers 204.
        return query.scope?.toLowerCase() === "cluster" ? empty(204) : json(affected);
      },
      {
        ...JSON_BODY,
        query: t.Object({
          scope: t.Optional(
            t.String({ description: '"cluster" sets it on every worker (204); otherwise this worker' }),
          ),
        }),
        ...documented({
          summary: "Sets a logger's level",
          body: LevelRequest,
          responses: {
            200: ok("The loggers changed", { type: "array", items: { type: "string" } }),
            204: noBody("Set across the cluster"),
            400: fails("No level given"),
            404: fails("Invalid level"),
          },
        }),
      },
    );
}
