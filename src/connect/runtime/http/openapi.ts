// The connect REST API's OpenAPI document (GET /openapi.json) and the shapes its routes describe
// themselves with: Kafka Connect 4.1's entities. Request bodies are read by ./request-bodies.ts with
// Jackson's errors (400 here; Kafka answers 500 for a body Jackson cannot bind), so they are documented here
// rather than validated by Elysia; query parameters are TypeBox strings the routes validate with.
import { Type as T } from "@sinclair/typebox";
import { t } from "elysia";
import { openApiDocument, type DocumentedRoute, type ResponseDoc } from "../../../platform/openapi.ts";
import { VERSION } from "../../../platform/version.ts";

const JSON_TYPES = ["application/json"] as const;

const ErrorBody = T.Object(
  { error_code: T.Integer(), message: T.String() },
  { description: "Kafka Connect's ErrorMessage" },
);

export const Q = {
  flag: (description: string) =>
    t.Optional(t.String({ description: `${description} ("true"; anything else is false)` })),
};

const Config = T.Record(T.String(), T.String());
const TaskId = T.Object({ connector: T.String(), task: T.Integer() });
const ConnectorType = T.String({ description: "source, sink or unknown" });
export const ConnectorInfo = T.Object({
  name: T.String(),
  config: Config,
  tasks: T.Array(TaskId),
  type: ConnectorType,
});
const State = {
  state: T.String({ description: "UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED or RESTARTING" }),
  worker_id: T.String(),
  version: T.Optional(T.String()),
  trace: T.Optional(T.String()),
};
export const TaskState = T.Object({ id: T.Integer(), ...State });
export const ConnectorStatus = T.Object({
  name: T.String(),
  connector: T.Object(State),
  tasks: T.Array(TaskState),
  type: ConnectorType,
});
export const Connectors = T.Union(
  [
    T.Array(T.String()),
    T.Record(T.String(), T.Object({ status: T.Optional(ConnectorStatus), info: T.Optional(ConnectorInfo) })),
  ],
  {
    description: "Names; with expand, an object per connector",
  },
);
export const TaskConfigs = T.Array(T.Object({ id: TaskId, config: Config }));
export const Topics = T.Record(T.String(), T.Object({ topics: T.Array(T.String()) }));
const Partition = T.Record(T.String(), T.Unknown());
export const Offsets = T.Object({
  offsets: T.Array(T.Object({ partition: Partition, offset: T.Union([Partition, T.Null()]) })),
});
export const Message = T.Object({ message: T.String() });
export const Plugins = T.Array(T.Object({ class: T.String(), type: T.String(), version: T.Optional(T.String()) }));
const ConfigKey = T.Object(
  {
    name: T.String(),
    type: T.String(),
    required: T.Boolean(),
    default_value: T.Union([T.String(), T.Null()]),
    importance: T.String(),
    documentation: T.String(),
    group: T.Union([T.String(), T.Null()]),
    order: T.Integer(),
    width: T.String(),
    display_name: T.String(),
    dependents: T.Array(T.String()),
  },
  { additionalProperties: true },
);
export const PluginConfig = T.Array(ConfigKey);
export const ValidationResult = T.Object({
  name: T.String(),
  error_count: T.Integer(),
  groups: T.Array(T.String()),
  configs: T.Array(
    T.Object({
      definition: T.Union([ConfigKey, T.Null()]),
      value: T.Union([
        T.Object({
          name: T.String(),
          value: T.Union([T.String(), T.Null()]),
          recommended_values: T.Array(T.String()),
          errors: T.Array(T.String()),
          visible: T.Boolean(),
        }),
        T.Null(),
      ]),
    }),
  ),
});
export const LoggerLevel = T.Object({ level: T.String(), last_modified: T.Union([T.Integer(), T.Null()]) });
export const ServerInfo = T.Object({ version: T.String(), commit: T.String(), kafka_cluster_id: T.String() });
export const HealthBody = T.Object({ status: T.String(), message: T.String() });
export const RestartPlan = T.Object(
  { ...ConnectorStatus.properties },
  { description: "The connector and tasks to be restarted, in the status entity's shape" },
);

// ---- request bodies (documented; parsed by ./request-bodies.ts) ----

export const CreateConnectorRequest = T.Object(
  {
    name: T.String(),
    config: Config,
    initial_state: T.Optional(T.String({ description: "RUNNING, PAUSED or STOPPED" })),
  },
  { additionalProperties: false },
);
export const ConfigRequest = Config;
export const ConfigPatch = T.Record(T.String(), T.Union([T.String(), T.Null()]));
export const OffsetsRequest = Offsets;
export const LevelRequest = T.Object({
  level: T.String({ description: "TRACE, DEBUG, INFO, WARN, ERROR, FATAL or OFF" }),
});

export const ok = (description: string, schema: ResponseDoc["schema"]): ResponseDoc => ({ description, schema });
export const fails = (description: string): ResponseDoc => ({ description, schema: ErrorBody });
export const noBody = (description: string): ResponseDoc => ({ description });
/** The 404 of the routes that name a connector. */
export const connectorNotFound = fails("Connector not found");

const COMMON: Record<string, ResponseDoc> = {
  "4XX": fails(
    "A refused request: 400 bad input (also a body Jackson cannot bind, where Kafka Connect answers 500), 401 unauthenticated, 404 not found, 405, 409 rebalance in progress or conflict, 415 not JSON",
  ),
  "5XX": fails("A failure on the worker's side: 500"),
};

/** The document of the routes the connect app serves. */
export function connectDocument(routes: readonly DocumentedRoute[]): Record<string, unknown> {
  return openApiDocument(routes, {
    title: "Sluice connect",
    version: VERSION,
    description:
      "Kafka Connect's REST API (4.1), with Sluice's extras: /health and /metrics. Generated from the routes the server runs.",
    jsonTypes: JSON_TYPES,
    errorSchema: ErrorBody,
    commonResponses: COMMON,
  });
}
