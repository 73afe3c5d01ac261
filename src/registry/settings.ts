// The registry's settings, by Confluent's names (and the spec's brokerstore.* names as aliases).
import { SettingsDefinition, type Setting } from "../common/settings.ts";
import { COMPATIBILITY_LEVELS } from "./compatibility.ts";

const listenerPattern = /^https?:\/\/[^\s:/]*(:\d{1,5})?\/?$/i;

export const registrySettings: Setting[] = [
  {
    name: "listeners",
    type: "list",
    default: ["http://0.0.0.0:8081"],
    importance: "high",
    doc: "Where the REST API listens: comma-separated `http://host:port` URLs.",
    validate: (v) => ((v as string[]).every((l) => listenerPattern.test(l)) ? undefined : "expected URLs like http://0.0.0.0:8081"),
  },
  {
    name: "host.name",
    type: "string",
    default: "",
    importance: "high",
    doc: "Host name other instances use to reach this one (defaults to the machine's host name).",
  },
  {
    name: "kafkastore.bootstrap.servers",
    aliases: ["brokerstore.bootstrap.servers"],
    type: "list",
    default: [],
    importance: "high",
    doc: "Kafka brokers storing the schemas (`host:port,...`, `PLAINTEXT://` prefixes accepted). Empty: the embedded broker in `data.dir`.",
  },
  {
    name: "kafkastore.topic",
    aliases: ["brokerstore.topic"],
    type: "string",
    default: "_schemas",
    importance: "high",
    doc: "The compacted single-partition topic holding the schemas.",
    validate: (v) => (/^[a-zA-Z0-9._-]{1,249}$/.test(String(v)) ? undefined : "a Kafka topic name ([a-zA-Z0-9._-], 1-249 chars)"),
  },
  {
    name: "kafkastore.topic.replication.factor",
    aliases: ["brokerstore.topic.replication.factor"],
    type: "int",
    default: 3,
    min: 1,
    importance: "high",
    doc: "Replication factor of the schemas topic when it is created (capped by the live brokers).",
  },
  {
    name: "kafkastore.timeout.ms",
    type: "int",
    default: 500,
    min: 1,
    importance: "medium",
    doc: "How long a write waits for its record to be read back from the store.",
  },
  {
    name: "kafkastore.init.timeout.ms",
    type: "int",
    default: 60000,
    min: 1,
    importance: "medium",
    doc: "How long start-up may take to read the schemas topic to its end.",
  },
  {
    name: "schema.compatibility.level",
    aliases: ["avro.compatibility.level"],
    type: "string",
    default: "BACKWARD",
    oneOf: [...COMPATIBILITY_LEVELS],
    importance: "high",
    doc: "Compatibility level used when neither the subject nor the global config sets one.",
  },
  {
    name: "mode.mutability",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether PUT /mode may change modes.",
  },
  {
    name: "size.limit.filter.max.request.body.size",
    type: "int",
    default: 1048576 * 4,
    min: 1,
    importance: "low",
    doc: "Largest request body accepted; larger bodies get 413.",
  },
  {
    name: "data.dir",
    type: "string",
    default: "./data",
    importance: "high",
    doc: "Directory of the embedded broker's logs (used when no bootstrap servers are set).",
  },
  {
    name: "debug",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Verbose logging.",
  },
  {
    name: "log.level",
    type: "string",
    default: "info",
    oneOf: ["trace", "debug", "info", "warn", "error", "fatal", "silent"],
    importance: "low",
    doc: "Log level.",
  },
];

// Client settings for the store's Kafka connections are passed through, as Confluent does.
export const registrySettingsDefinition = new SettingsDefinition(registrySettings, ["kafkastore.", "schema.registry.", "leader.", "master.", "inter.instance.", "ssl.", "authentication.", "access.control."]);
