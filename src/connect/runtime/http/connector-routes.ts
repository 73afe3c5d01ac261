// /connectors: creating, configuring, inspecting and controlling connectors (Kafka's ConnectorsResource,
// without its tasks and offsets: ./task-routes.ts, ./offset-routes.ts).
import { Elysia, t } from "elysia";
import { javaTrim } from "../../../jvm/java-strings.ts";
import { documented } from "../../../platform/openapi.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import type { Herder, TargetState } from "../herder/herder.ts";
import {
  ConfigPatch,
  ConfigRequest,
  ConnectorInfo,
  connectorNotFound,
  ConnectorStatus,
  Connectors,
  CreateConnectorRequest,
  fails,
  noBody,
  ok,
  Q,
  RestartPlan,
  Topics,
} from "./openapi.ts";
import { configMap, createRequest, JSON_BODY } from "./request-bodies.ts";
import { empty, json } from "./respond.ts";

const connectorReply = ok("The connector", ConnectorInfo);

export function connectorRoutes(herder: Herder) {
  return new Elysia()
    .get(
      "/connectors",
      async ({ request }) => {
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
      },
      {
        query: t.Object({ expand: t.Optional(t.Array(t.String({ description: "status, info (repeated for both)" }))) }),
        ...documented({
          summary: "Connectors",
          responses: { 200: ok("Names, or with expand an object per connector", Connectors) },
        }),
      },
    )
    .post(
      "/connectors",
      async ({ body }) => {
        const request = createRequest(body);
        const initialState = request.initialState?.toUpperCase();
        const targets: Record<string, TargetState> = { RUNNING: "STARTED", PAUSED: "PAUSED", STOPPED: "STOPPED" };
        if (initialState && !targets[initialState]) {
          throw new ConnectRestError(
            400,
            `Cannot construct instance of \`org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest$InitialState\`, problem: No enum constant org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest.InitialState.${initialState}`,
          );
        }
        // A missing name is an empty one: config validation then reports it, as Kafka's does.
        const name = javaTrim(request.name ?? "");
        const config = checkName(name, request.config ?? {});
        const target = initialState ? targets[initialState] : undefined;
        const { info } = await herder.putConnector(name, config, { allowReplace: false, initialState: target });
        return json(info, 201, { location: `/connectors/${encodeURIComponent(name)}` });
      },
      {
        ...JSON_BODY,
        ...documented({
          summary: "Creates a connector",
          body: CreateConnectorRequest,
          responses: {
            201: ok("The connector created", ConnectorInfo),
            400: fails("Invalid config"),
            409: fails("The connector exists, or a rebalance is in progress"),
          },
        }),
      },
    )
    .get(
      "/connectors/:connector",
      ({ params }) => json(herder.info(params.connector)),
      documented({ summary: "A connector", responses: { 200: connectorReply, 404: connectorNotFound } }),
    )
    .delete(
      "/connectors/:connector",
      async ({ params }) => {
        await herder.deleteConnector(params.connector);
        return empty(204);
      },
      documented({ summary: "Deletes a connector", responses: { 204: noBody("Deleted"), 404: connectorNotFound } }),
    )
    .get(
      "/connectors/:connector/config",
      ({ params }) => json(herder.config(params.connector)),
      documented({
        summary: "A connector's config",
        responses: { 200: ok("The config", ConfigRequest), 404: connectorNotFound },
      }),
    )
    .put(
      "/connectors/:connector/config",
      async ({ params, body }) => {
        const { created, info } = await herder.putConnector(
          params.connector,
          checkName(params.connector, configMap(body)),
          { allowReplace: true },
        );
        return created
          ? json(info, 201, { location: `/connectors/${encodeURIComponent(params.connector)}` })
          : json(info);
      },
      {
        ...JSON_BODY,
        ...documented({
          summary: "Creates or replaces a connector's config",
          body: ConfigRequest,
          responses: {
            200: ok("The connector updated", ConnectorInfo),
            201: ok("The connector created", ConnectorInfo),
            400: fails("Invalid config"),
            409: fails("A rebalance is in progress"),
          },
        }),
      },
    )
    .patch(
      "/connectors/:connector/config",
      async ({ params, body }) => json(await herder.patchConnector(params.connector, configMap(body))),
      {
        ...JSON_BODY,
        ...documented({
          summary: "Changes some keys of a connector's config (null removes one)",
          body: ConfigPatch,
          responses: {
            200: ok("The connector updated", ConnectorInfo),
            400: fails("Invalid config"),
            404: connectorNotFound,
          },
        }),
      },
    )
    .get(
      "/connectors/:connector/status",
      async ({ params }) => json(await herder.status(params.connector)),
      documented({
        summary: "A connector's and its tasks' states",
        responses: { 200: ok("The status", ConnectorStatus), 404: connectorNotFound },
      }),
    )
    .post(
      "/connectors/:connector/restart",
      async ({ params, query }) => {
        const planned = await herder.restart(
          params.connector,
          query.includeTasks === "true",
          query.onlyFailed === "true",
        );
        return planned ? json(planned, 202) : empty(204);
      },
      {
        query: t.Object({ includeTasks: Q.flag("restart the tasks too"), onlyFailed: Q.flag("only what failed") }),
        ...documented({
          summary: "Restarts a connector (and its tasks)",
          responses: {
            202: ok("What will be restarted", RestartPlan),
            204: noBody("Restarted"),
            404: connectorNotFound,
          },
        }),
      },
    )
    .put(
      "/connectors/:connector/pause",
      async ({ params }) => {
        await herder.pause(params.connector);
        return empty(202);
      },
      documented({
        summary: "Pauses a connector and its tasks",
        responses: { 202: noBody("Pausing"), 404: connectorNotFound },
      }),
    )
    .put(
      "/connectors/:connector/resume",
      async ({ params }) => {
        await herder.resume(params.connector);
        return empty(202);
      },
      documented({
        summary: "Resumes a connector and its tasks",
        responses: { 202: noBody("Resuming"), 404: connectorNotFound },
      }),
    )
    .put(
      "/connectors/:connector/stop",
      async ({ params }) => {
        await herder.stop(params.connector);
        return empty(204);
      },
      documented({
        summary: "Stops a connector (its tasks are shut down)",
        responses: { 204: noBody("Stopped"), 404: connectorNotFound },
      }),
    )
    .get(
      "/connectors/:connector/topics",
      async ({ params }) => {
        if (!herder.settings().boolean("topic.tracking.enable"))
          throw connectErrors.forbidden("Topic tracking is disabled.");
        return json(await herder.topics(params.connector));
      },
      documented({
        summary: "The topics a connector has used",
        responses: {
          200: ok("Topics per connector", Topics),
          403: fails("Topic tracking is disabled"),
          404: connectorNotFound,
        },
      }),
    )
    .put(
      "/connectors/:connector/topics/reset",
      async ({ params }) => {
        const settings = herder.settings();
        if (!settings.boolean("topic.tracking.enable")) throw connectErrors.forbidden("Topic tracking is disabled.");
        if (!settings.boolean("topic.tracking.allow.reset"))
          throw connectErrors.forbidden("Topic tracking reset is disabled.");
        await herder.resetTopics(params.connector);
        return empty(202);
      },
      documented({
        summary: "Forgets the topics a connector has used",
        responses: {
          202: noBody("Reset"),
          403: fails("Topic tracking or its reset is disabled"),
          404: connectorNotFound,
        },
      }),
    );
}

function nonNull(config: Record<string, string | null>): Record<string, string> {
  for (const [key, value] of Object.entries(config)) {
    if (value === null)
      throw new ConnectRestError(400, `Non-string value found in original settings for key ${key}: null`);
  }
  return config as Record<string, string>;
}

/** The URL's name wins; a different `name` in the config is the caller's mistake. */
function checkName(name: string, config: Record<string, string | null>): Record<string, string> {
  const values = nonNull(config);
  if (values.name !== undefined && values.name !== name) {
    throw connectErrors.badRequest(
      `Connector name configuration (${values.name}) doesn't match connector name in the URL (${name})`,
    );
  }
  return { ...values, name };
}
