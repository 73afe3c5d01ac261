// A connect worker's settings, by Kafka Connect's names (WorkerConfig, StandaloneConfig,
// RestServerConfig). Worker files of Kafka Connect work unchanged.
import { type ParsedSettings, SettingsDefinition } from "../../../platform/settings.ts";
import { logSettings } from "../../../platform/log.ts";
import { storeSettings } from "../../../platform/tls.ts";
import { oauthSettings } from "../../../platform/bearer-auth.ts";
import { corsHeaderSettings, corsSettings } from "../../../platform/cors.ts";
import { unsupportedWorkerSettings } from "./unsupported-worker-settings.ts";
import { overridePolicyProblem } from "./client-overrides.ts";

export const workerSettings = new SettingsDefinition(
  [
    {
      name: "bootstrap.servers",
      type: "list",
      default: [],
      importance: "high",
      doc: "Kafka brokers. Empty: the embedded broker in `data.dir`, which only this process uses (standalone, dev, or a distributed cluster of one worker).",
    },
    {
      name: "key.converter",
      type: "class",
      default: "org.apache.kafka.connect.json.JsonConverter",
      importance: "high",
      doc: "Converter class for record keys, unless a connector sets its own.",
    },
    {
      name: "value.converter",
      type: "class",
      default: "org.apache.kafka.connect.json.JsonConverter",
      importance: "high",
      doc: "Converter class for record values, unless a connector sets its own.",
    },
    {
      name: "header.converter",
      type: "class",
      default: "org.apache.kafka.connect.storage.SimpleHeaderConverter",
      importance: "low",
      doc: "Converter class for record headers.",
    },
    {
      name: "offset.storage.file.filename",
      type: "string",
      default: "",
      importance: "high",
      doc: "File holding source offsets (standalone). Default: connect.offsets in data.dir. dev keeps offsets in its offsets topic and carries such a file into it once.",
    },
    {
      name: "offset.flush.interval.ms",
      type: "long",
      default: 60000,
      min: 1,
      importance: "low",
      doc: "How often source offsets are committed and sinks flushed.",
    },
    {
      name: "offset.flush.timeout.ms",
      type: "long",
      default: 5000,
      min: 1,
      importance: "low",
      doc: "How long an offset flush may wait for outstanding records.",
    },
    {
      name: "task.shutdown.graceful.timeout.ms",
      type: "long",
      default: 5000,
      min: 0,
      importance: "low",
      doc: "How long a stopping task may take before it is abandoned.",
    },
    {
      name: "listeners",
      type: "list",
      default: ["http://:8083"],
      importance: "low",
      doc: "REST listeners, `http://host:port` or `https://host:port` (empty host: all interfaces).",
    },
    {
      name: "rest.port",
      type: "int",
      default: -1,
      importance: "low",
      doc: "Legacy (removed in Kafka 3.0, in the spec's examples): the REST port, used when `listeners` is not set.",
    },
    {
      name: "rest.host.name",
      type: "string",
      default: "",
      importance: "low",
      doc: "Legacy: the REST host, with rest.port.",
    },
    {
      name: "rest.advertised.host.name",
      type: "string",
      default: "",
      importance: "low",
      doc: "Host name given to others (and shown as worker_id).",
    },
    { name: "rest.advertised.port", type: "int", default: -1, importance: "low", doc: "Port given to others." },
    {
      name: "plugin.path",
      type: "list",
      default: ["plugins"],
      importance: "low",
      doc: "Folders scanned at start-up for plugin modules (.js/.ts).",
    },
    {
      name: "file.connectors.enable",
      type: "boolean",
      default: false,
      importance: "low",
      doc: "Sluice: offer the FileStream connectors, which read and write any file the worker can (default true in `sluice dev`). A `plugin.path` entry whose last element starts with `connect-file` (Kafka's `libs/connect-file-<version>.jar`) also enables them.",
    },
    {
      name: "config.providers",
      type: "list",
      default: [],
      importance: "low",
      doc: "Config provider aliases, with config.providers.<alias>.class.",
    },
    {
      name: "data.dir",
      type: "string",
      default: "./data",
      importance: "high",
      doc: "Directory of the embedded broker's logs and of default local files.",
    },
    {
      name: "topic.tracking.enable",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "Track the topics each connector uses (GET /connectors/{c}/topics).",
    },
    {
      name: "topic.tracking.allow.reset",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "Allow PUT /connectors/{c}/topics/reset.",
    },
    {
      name: "regex.match.timeout.ms",
      type: "long",
      default: 250,
      min: 1,
      importance: "low",
      doc: "Sluice: the longest one match of a connector's regex may take (RegexRouter, TopicNameMatches, Filter conditions' =~, topics.regex). Matches run on threads of their own; a record whose match takes longer fails through errors.tolerance. Keep it under a second: past its own limit (about that) the JavaScript engine answers \"no match\" instead.",
    },
    {
      name: "task.threads",
      type: "int",
      default: -1,
      min: -1,
      importance: "low",
      doc: "Sluice: the most threads the worker runs its tasks on, each task with its whole pipeline (converters, transforms, Kafka client) on one of them. -1: one per core; 0: every task on the main thread.",
    },
    {
      name: "connector.client.config.override.policy",
      type: "string",
      default: "All",
      validate: overridePolicyProblem,
      importance: "medium",
      doc: "Which Kafka client settings a connector may set for its tasks' clients (`producer.override.*`, `consumer.override.*`, `admin.override.*`): All, Principal (only `sasl.jaas.config`, `sasl.mechanism` and `security.protocol`) or None. Kafka's class names of the three are accepted too.",
    },
    {
      name: "topic.creation.enable",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "Create missing topics that source connectors write to.",
    },
    // Distributed mode (connect-distributed), by DistributedConfig's names and defaults.
    {
      name: "group.id",
      type: "string",
      default: "",
      importance: "high",
      doc: "Distributed: the cluster this worker belongs to (required).",
    },
    {
      name: "config.storage.topic",
      type: "string",
      default: "",
      importance: "high",
      doc: "Distributed: topic of connector and task configs (required; one partition, compacted).",
    },
    {
      name: "config.storage.replication.factor",
      type: "int",
      default: 3,
      importance: "low",
      doc: "Distributed: replication factor of the config topic when created (-1: the broker's default).",
    },
    {
      name: "offset.storage.topic",
      type: "string",
      default: "",
      importance: "high",
      doc: "Distributed: topic of source offsets (required; compacted).",
    },
    {
      name: "offset.storage.partitions",
      type: "int",
      default: 25,
      min: 1,
      importance: "low",
      doc: "Distributed: partitions of the offsets topic when created.",
    },
    {
      name: "offset.storage.replication.factor",
      type: "int",
      default: 3,
      importance: "low",
      doc: "Distributed: replication factor of the offsets topic when created.",
    },
    {
      name: "status.storage.topic",
      type: "string",
      default: "",
      importance: "high",
      doc: "Distributed: topic of connector and task statuses (required; compacted).",
    },
    {
      name: "status.storage.partitions",
      type: "int",
      default: 5,
      min: 1,
      importance: "low",
      doc: "Distributed: partitions of the status topic when created.",
    },
    {
      name: "status.storage.replication.factor",
      type: "int",
      default: 3,
      importance: "low",
      doc: "Distributed: replication factor of the status topic when created.",
    },
    {
      name: "session.timeout.ms",
      type: "int",
      default: 10000,
      min: 1,
      importance: "high",
      doc: "Distributed: a worker not heard from for this long leaves the group and its work moves.",
    },
    {
      name: "heartbeat.interval.ms",
      type: "int",
      default: 3000,
      min: 1,
      importance: "high",
      doc: "Distributed: how often a worker tells the group coordinator it is alive.",
    },
    {
      name: "rebalance.timeout.ms",
      type: "int",
      default: 60000,
      min: 1,
      importance: "high",
      doc: "Distributed: how long a rebalance waits for every worker to rejoin.",
    },
    {
      name: "scheduled.rebalance.max.delay.ms",
      type: "int",
      default: 300000,
      min: 0,
      importance: "low",
      doc: "Distributed: how long the work of a departed worker waits for it to come back before it is given to others.",
    },
    {
      name: "exactly.once.source.support",
      type: "string",
      default: "disabled",
      validate: (v) =>
        ["disabled", "preparing", "enabled"].includes(String(v).trim().toLowerCase())
          ? undefined
          : "String must be one of (case insensitive): DISABLED, ENABLED, PREPARING",
      importance: "high",
      doc: "Distributed: enabled — source tasks write their records and source offsets in one Kafka transaction each (exactly-once delivery, KIP-618), their producers fenced when their task moves. preparing — the step of a rolling upgrade to enabled; tasks still deliver at least once. Standalone workers have no exactly-once source support.",
    },
    {
      name: "rest.advertised.listener",
      type: "string",
      default: "",
      importance: "low",
      doc: "Distributed: http or https, the listener given to other workers.",
    },
    // HTTPS and authentication of the REST API (docs/security.md). `listeners.https.`-prefixed ssl.*
    // settings, when any is given, replace these for the listeners, as in Kafka.
    ...storeSettings,
    ...logSettings,
    {
      name: "ssl.client.auth",
      type: "string",
      default: "none",
      oneOf: ["none", "requested", "required"],
      importance: "low",
      doc: "Client certificates on https listeners: none, requested (asked for, not needed) or required (signed by a trust store CA).",
    },
    {
      name: "rest.extension.classes",
      type: "list",
      default: [],
      importance: "low",
      doc: "REST extensions; `org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension` turns on Basic authentication.",
    },
    {
      name: "rest.basic.auth.users.file",
      type: "string",
      default: "",
      importance: "low",
      doc: "Users of the Basic authentication extension: `user=password` lines (password plain, MD5:, CRYPT:, OBF: or a bcrypt/argon2 hash).",
    },
    {
      name: "rest.basic.auth.read.only.users",
      type: "list",
      default: [],
      importance: "low",
      doc: "Sluice: users of the Basic authentication extension who may only read (GET); their other requests get 403, and the web console shows them no write buttons. Kafka Connect has no such setting: every user may do everything.",
    },
    {
      name: "java.security.auth.login.config",
      type: "string",
      default: "",
      importance: "low",
      doc: "A JAAS file as Kafka Connect's: the `file` option of its KafkaConnect section names the users file.",
    },
    // OAuth bearer tokens by Confluent Platform's names, unprefixed in a worker's file as in Confluent's
    // Connect; CORS by Kafka Connect's names (the header settings are rest-utils', Sluice's here).
    ...oauthSettings,
    ...corsSettings,
    ...corsHeaderSettings.map((s) => ({
      ...s,
      doc: `Sluice (rest-utils' name; Kafka Connect has no such setting): ${s.doc}`,
    })),
    {
      name: "console.enabled",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "Serves the web console at `/ui/` (and its proxy to the registry); false: `/ui/` is 404.",
    },
    {
      name: "console.registry.url",
      type: "string",
      default: "",
      importance: "low",
      doc: "The schema registry the console at `/ui/` shows beside this worker (`http(s)://host:port`), reached through this worker (`/ui/proxy/registry/`) with the user's credentials. `sluice dev`: its own registry.",
    },
    ...unsupportedWorkerSettings,
  ],
  // Client, converter, provider and distributed-mode settings are accepted as Kafka Connect's are.
  [
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "config.providers.",
    "producer.",
    "consumer.",
    "admin.",
    "rest.",
    "ssl.",
    "sasl.",
    "security.",
    "client.",
    "listeners.https.",
  ],
);

/** A worker's exactly.once.source.support, as Kafka reads it (case and surrounding blanks ignored). */
export function exactlyOnceSourceSupport(settings: ParsedSettings): "disabled" | "preparing" | "enabled" {
  return settings.string("exactly.once.source.support").trim().toLowerCase() as "disabled" | "preparing" | "enabled";
}

/** Kafka Connect's transactional.id of an exactly-once source task. */
export function taskTransactionalId(groupId: string, connector: string, task: number): string {
  return `${groupId}-${connector}-${task}`;
}
