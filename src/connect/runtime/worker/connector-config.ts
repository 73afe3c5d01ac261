// The framework settings every connector has (Kafka's ConnectorConfig, SinkConnectorConfig,
// SourceConnectorConfig), declared once: they validate connector configs, answer
// /connector-plugins/{p}/config and /config/validate, and configure the worker's tasks.
import { refused, SettingsDefinition, type ParsedSettings, type Setting } from "../../../platform/settings.ts";
import { JavaPattern } from "../../../jvm/java-regex.ts";
import { RegexTimeoutError } from "../../../jvm/regex-budget.ts";

/**
 * Kafka ConfigDef details that Setting has no field for; /connector-plugins/{p}/config and
 * /config/validate show them, so clients see the same definitions as Kafka Connect's.
 */
export interface ConnectorSetting extends Setting {
  /** ConfigDef's orderInGroup (Kafka numbers some keys across groups, and repeats some). */
  order?: number;
  /** A Kafka type Setting cannot express (SHORT is parsed as int here). */
  kafkaType?: "SHORT";
  /** `oneOf` matched exactly, as ConfigDef.ValidString does (the worker itself accepts any case). */
  oneOfCaseSensitive?: boolean;
}

/**
 * Kafka's rule for connector names: not empty, no ISO control characters. Sluice also refuses "." and
 * "..": URLs normalise them away, so such a connector could never be read or deleted (Kafka 4.1
 * creates them, with that result).
 */
function nameProblem(value: unknown): string | undefined {
  const name = String(value);
  if (name === "") return "String may not be empty";
  if (name === "." || name === "..") return `String may not be "${name}", which cannot name a connector in a URL`;
  const control = [...name].map((c) => c.codePointAt(0)!).filter((c) => c <= 0x1f || (c >= 0x7f && c <= 0x9f));
  return control.length
    ? `String may not contain control sequences but had the following ASCII chars: ${control.join(", ")}`
    : undefined;
}

const common = "Common";

/**
 * Sluice's bound on tasks.max (Kafka has none). Every task of a standalone worker runs in this one
 * process, and 100000 idle sink tasks (FileStreamSink makes tasks.max of them) took a gigabyte and
 * stalled both REST APIs for minutes; a thousand is more than any one connector is run with.
 */
export const TASKS_MAX_LIMIT = 1000;
const errorHandling = "Error Handling";

const commonConnectorSettings: ConnectorSetting[] = [
  {
    name: "name",
    type: "string",
    required: true,
    validate: nameProblem,
    importance: "high",
    group: common,
    displayName: "Connector name",
    width: "MEDIUM",
    doc: "Globally unique name to use for this connector.",
    order: 1,
  },
  {
    name: "connector.class",
    type: "string",
    required: true,
    importance: "high",
    group: common,
    displayName: "Connector class",
    width: "LONG",
    doc: 'Name or alias of the class for this connector. Must be a subclass of org.apache.kafka.connect.connector.Connector. If the connector is org.apache.kafka.connect.file.FileStreamSinkConnector, you can either specify this full name, or use "FileStreamSink" or "FileStreamSinkConnector" to make the configuration a bit shorter',
    order: 2,
  },
  {
    name: "connector.plugin.version",
    type: "string",
    importance: "medium",
    group: common,
    displayName: "Connector version",
    width: "MEDIUM",
    doc: "Version of the connector plugin to run; defaults to the installed one.",
    order: 3,
  },
  {
    name: "tasks.max",
    type: "int",
    default: 1,
    min: 1,
    max: TASKS_MAX_LIMIT,
    importance: "high",
    group: common,
    displayName: "Tasks max",
    width: "SHORT",
    doc: "Maximum number of tasks to use for this connector.",
    order: 4,
  },
  {
    name: "tasks.max.enforce",
    type: "boolean",
    default: true,
    importance: "low",
    group: common,
    displayName: "Enforce tasks max",
    width: "SHORT",
    doc: "(Deprecated) Fail a connector that generates more task configs than tasks.max.",
    order: 5,
  },
  {
    name: "key.converter",
    type: "class",
    importance: "low",
    group: common,
    displayName: "Key converter class",
    width: "SHORT",
    doc: "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the keys in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro.",
    order: 6,
  },
  {
    name: "key.converter.plugin.version",
    type: "string",
    importance: "low",
    group: common,
    displayName: "Key converter version",
    width: "SHORT",
    doc: "Version of the key converter plugin.",
    order: 7,
  },
  {
    name: "value.converter",
    type: "class",
    importance: "low",
    group: common,
    displayName: "Value converter class",
    width: "SHORT",
    doc: "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the values in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro.",
    order: 8,
  },
  {
    name: "value.converter.plugin.version",
    type: "string",
    importance: "low",
    group: common,
    displayName: "Value converter version",
    width: "SHORT",
    doc: "Version of the value converter plugin.",
    order: 9,
  },
  {
    name: "header.converter",
    type: "class",
    importance: "low",
    group: common,
    displayName: "Header converter class",
    width: "SHORT",
    doc: "HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to Kafka.",
    order: 10,
  },
  {
    name: "header.converter.plugin.version",
    type: "string",
    importance: "low",
    group: common,
    displayName: "Header converter version",
    width: "SHORT",
    doc: "Version of the header converter plugin.",
    order: 11,
  },
  {
    name: "transforms",
    type: "list",
    default: [],
    importance: "low",
    group: "Transforms",
    displayName: "Transforms",
    width: "LONG",
    doc: "Aliases for the transformations to be applied to records.",
    order: 12,
  },
  {
    name: "predicates",
    type: "list",
    default: [],
    importance: "low",
    group: "Predicates",
    displayName: "Predicates",
    width: "LONG",
    doc: "Aliases for the predicates used by transformations.",
    order: 13,
  },
  {
    name: "config.action.reload",
    type: "string",
    default: "restart",
    oneOf: ["none", "restart"],
    importance: "low",
    group: common,
    displayName: "Reload Action",
    width: "MEDIUM",
    doc: "The action that Connect should take on the connector when changes in external configuration providers result in a change in the connector's configuration properties.",
    order: 14,
    oneOfCaseSensitive: true,
  },
  {
    name: "errors.retry.timeout",
    type: "long",
    default: 0,
    importance: "medium",
    group: errorHandling,
    displayName: "Retry Timeout for Errors",
    width: "MEDIUM",
    doc: "The maximum duration in milliseconds that a failed operation will be reattempted. The default is 0, which means no retries will be attempted. Use -1 for infinite retries.",
    order: 1,
  },
  {
    name: "errors.retry.delay.max.ms",
    type: "long",
    default: 60000,
    importance: "medium",
    group: errorHandling,
    displayName: "Maximum Delay Between Retries for Errors",
    width: "MEDIUM",
    doc: "The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to the delay once this limit is reached to prevent thundering herd issues.",
    order: 2,
  },
  {
    name: "errors.tolerance",
    type: "string",
    default: "none",
    oneOf: ["none", "all"],
    importance: "medium",
    group: errorHandling,
    displayName: "Error Tolerance",
    width: "SHORT",
    doc: "Behavior for tolerating errors during connector operation. 'none' is the default value and signals that any error will result in an immediate connector task failure; 'all' changes the behavior to skip over problematic records.",
    order: 3,
    oneOfCaseSensitive: true,
  },
  {
    name: "errors.log.enable",
    type: "boolean",
    default: false,
    importance: "medium",
    group: errorHandling,
    displayName: "Log Errors",
    width: "SHORT",
    doc: "If true, write each error and the details of the failed operation and problematic record to the Connect application log. This is 'false' by default, so that only errors that are not tolerated are reported.",
    order: 4,
  },
  {
    name: "errors.log.include.messages",
    type: "boolean",
    default: false,
    importance: "medium",
    group: errorHandling,
    displayName: "Log Error Details",
    width: "SHORT",
    doc: "Whether to include in the log the Connect record that resulted in a failure. For sink records, the topic, partition, offset, and timestamp will be logged. For source records, the key and value (and their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition, and source offset will be logged. This is 'false' by default, which will prevent record keys, values, and headers from being written to log files.",
    order: 5,
  },
];

const sinkConnectorSettings: ConnectorSetting[] = [
  {
    name: "topics",
    type: "list",
    default: [],
    importance: "high",
    group: common,
    displayName: "Topics",
    width: "LONG",
    doc: "List of topics to consume, separated by commas",
    order: 4,
  },
  {
    name: "topics.regex",
    type: "string",
    default: "",
    importance: "high",
    group: common,
    displayName: "Topics regex",
    width: "LONG",
    doc: "Regular expression giving topics to consume. Under the hood, the regex is compiled to a <code>java.util.regex.Pattern</code>. Only one of topics or topics.regex should be specified.",
    order: 4,
  },
  {
    name: "errors.deadletterqueue.topic.name",
    type: "string",
    default: "",
    importance: "medium",
    group: errorHandling,
    displayName: "Dead Letter Queue Topic Name",
    width: "MEDIUM",
    doc: "The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an error when processed by this sink connector, or its transformations or converters. The topic name is blank by default, which means that no messages are to be recorded in the DLQ.",
    order: 6,
  },
  {
    name: "errors.deadletterqueue.topic.replication.factor",
    type: "int",
    default: 3,
    importance: "medium",
    group: errorHandling,
    displayName: "Dead Letter Queue Topic Replication Factor",
    width: "MEDIUM",
    doc: "Replication factor used to create the dead letter queue topic when it doesn't already exist.",
    order: 7,
    kafkaType: "SHORT",
  },
  {
    name: "errors.deadletterqueue.context.headers.enable",
    type: "boolean",
    default: false,
    importance: "medium",
    group: errorHandling,
    displayName: "Enable Error Context Headers",
    width: "MEDIUM",
    doc: "If true, add headers containing error context to the messages written to the dead letter queue. To avoid clashing with headers from the original record, all error context header keys, all error context header keys will start with <code>__connect.errors.</code>",
    order: 8,
  },
];

const topicCreation = "Topic Creation";
const exactlyOnce = "Exactly Once Support";

/** Kafka's messages for its case-insensitive enum settings (values upper-cased, in its order). */
const oneOfIgnoringCase = (allowed: string[]) => (value: unknown) =>
  allowed.some((a) => a.toLowerCase() === String(value).toLowerCase())
    ? undefined
    : `String must be one of (case insensitive): ${allowed.map((a) => a.toUpperCase()).join(", ")}`;

const sourceConnectorSettings: ConnectorSetting[] = [
  {
    name: "topic.creation.groups",
    type: "list",
    default: [],
    importance: "low",
    group: topicCreation,
    displayName: "Topic Creation Groups",
    width: "LONG",
    doc: "Groups of topic settings for the topics this source creates.",
    order: 1,
  },
  {
    name: "exactly.once.support",
    type: "string",
    default: "requested",
    validate: oneOfIgnoringCase(["required", "requested"]),
    importance: "medium",
    group: exactlyOnce,
    displayName: "Exactly once support",
    width: "SHORT",
    doc: "requested or required: with required, the connector is only created on a worker with exactly-once source support (exactly.once.source.support=enabled) and when it says it can deliver exactly once with this config.",
    order: 2,
  },
  {
    name: "transaction.boundary",
    type: "string",
    default: "poll",
    validate: oneOfIgnoringCase(["interval", "poll", "connector"]),
    importance: "medium",
    group: exactlyOnce,
    displayName: "Transaction Boundary",
    width: "SHORT",
    doc: "Where an exactly-once source task's transactions end: poll (after the records of each poll), interval (every transaction.boundary.interval.ms), connector (where the connector asks, if it can).",
    order: 3,
  },
  {
    name: "transaction.boundary.interval.ms",
    type: "long",
    min: 0,
    importance: "low",
    group: exactlyOnce,
    displayName: "Transaction boundary interval",
    width: "SHORT",
    doc: "Commit interval when transaction.boundary is interval; unset: offset.flush.interval.ms.",
    order: 4,
  },
  {
    name: "offsets.storage.topic",
    type: "string",
    validate: (v) => (String(v) === "" ? "String must be non-empty" : undefined),
    importance: "low",
    group: "offsets.topic",
    displayName: "Offsets topic",
    width: "LONG",
    doc: "Distributed mode: the connector's own offsets topic, created as the worker's when missing. Its offsets there win over the worker's topic, which gets a copy; an exactly-once task writes them in its transactions.",
    order: 1,
  },
  // Kafka's per-group settings of the topics a source creates (KIP-158).
  {
    ...refused(
      "topic.creation.<group>.<setting>",
      "Sluice creates a missing topic with the broker's defaults; it would not get these partitions, replication or topic settings (e.g. cleanup.policy=compact)",
    ),
    pattern: /^topic\.creation\.(?!groups$).+/,
  },
];

export const sourceConnectorDefinition = new SettingsDefinition([
  ...commonConnectorSettings,
  ...sourceConnectorSettings,
]);
export const sinkConnectorDefinition = new SettingsDefinition([...commonConnectorSettings, ...sinkConnectorSettings]);

const perVersion = new Map<string, SettingsDefinition>();

/** The framework settings of one connector plugin: connector.plugin.version defaults to its version. */
export function connectorFrameworkDefinition(type: "source" | "sink", version: string | undefined): SettingsDefinition {
  const key = `${type}:${version ?? ""}`;
  let def = perVersion.get(key);
  if (!def) {
    const base = type === "sink" ? sinkConnectorDefinition : sourceConnectorDefinition;
    def = new SettingsDefinition(
      base
        .declared()
        .map((s) => (s.name === "connector.plugin.version" && version !== undefined ? { ...s, default: version } : s)),
    );
    perVersion.set(key, def);
  }
  return def;
}

/** Sink-only cross-setting rules (Kafka's SinkConnectorConfig.validate), worded as Kafka's; the DLQ name is matched against topics.regex on a regex thread. */
export async function sinkTopicProblems(config: Record<string, string>): Promise<Map<string, string[]>> {
  const topics = (config.topics ?? "").trim() === "" ? [] : config.topics!.trim().split(/\s*,\s*/);
  const regex = (config["topics.regex"] ?? "").trim();
  const problems = new Map<string, string[]>();
  const add = (key: string, message: string) => problems.set(key, [...(problems.get(key) ?? []), message]);
  if (regex) {
    try {
      JavaPattern.compile(regex);
    } catch (err) {
      add(
        "topics.regex",
        `Invalid value ${regex} for configuration topics.regex: Invalid regex: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  if (topics.length > 0 && regex) {
    const message = "topics and topics.regex are mutually exclusive options, but both are set.";
    add("topics", message);
    add("topics.regex", message);
  } else if (topics.length === 0 && !regex && config.topic != null) {
    // `topic` is the source connectors' setting: one error that says so, not two about what is missing.
    add(
      "topics",
      `Must configure one of topics or topics.regex; this config has topic=${config.topic}, which sink connectors do not read: did you mean topics?`,
    );
  } else if (topics.length === 0 && !regex) {
    const message = "Must configure one of topics or topics.regex";
    add("topics", message);
    add("topics.regex", message);
  }
  const dlq = (config["errors.deadletterqueue.topic.name"] ?? "").trim();
  if (dlq && topics.includes(dlq)) {
    // Java prints the parsed list: [a, b].
    add(
      "topics",
      `The DLQ topic '${dlq}' may not be included in the list of topics ('topics=[${topics.join(", ")}]') consumed by the connector`,
    );
  } else if (dlq && regex && !topics.length) {
    let matches = false;
    try {
      matches = await JavaPattern.compile(regex).matchesWithin("topics.regex", dlq);
    } catch (err) {
      // An invalid regex is reported above; one over the budget is reported here.
      if (err instanceof RegexTimeoutError) add("topics.regex", err.message);
    }
    if (matches)
      add(
        "topics.regex",
        `The DLQ topic '${dlq}' may not be matched by the regex for the topics ('topics.regex=${regex}') consumed by the connector`,
      );
  }
  return problems;
}

/** The topics a sink's topics.regex selects (Matcher.matches()), each matched on a regex thread under the time budget. */
export async function topicsMatching(regex: string, topics: readonly string[]): Promise<string[]> {
  const pattern = JavaPattern.compile(regex);
  const selected: string[] = [];
  for (const topic of topics) if (await pattern.matchesWithin("topics.regex", topic)) selected.push(topic);
  return selected;
}

/**
 * Kafka's check of what a connector's taskConfigs(tasks.max) returned (KIP-1004): more configs than
 * tasks.max fail the connector, unless tasks.max.enforce=false, which keeps them all with a warning.
 * Sluice's TASKS_MAX_LIMIT holds either way.
 */
export function taskCountProblem(
  connector: string,
  generated: number,
  settings: ParsedSettings,
): { fail?: string; warn?: string } {
  const maxTasks = settings.int("tasks.max");
  if (generated <= maxTasks) return {};
  const tooMany = `The connector ${connector} has generated ${generated} tasks, which is greater than ${maxTasks}, the maximum number of tasks it is configured to create.`;
  if (settings.boolean("tasks.max.enforce")) {
    return {
      fail: `${tooMany} This behaviour should be considered a bug and is disallowed. If necessary, it can be permitted by reconfiguring the connector with 'tasks.max.enforce' set to false; however, this option will be removed in a future release of Kafka Connect.`,
    };
  }
  if (generated > TASKS_MAX_LIMIT)
    return { fail: `${tooMany} Sluice runs at most ${TASKS_MAX_LIMIT} tasks of a connector.` };
  return { warn: tooMany };
}
