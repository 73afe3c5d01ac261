// The framework settings every connector has (Kafka's ConnectorConfig, SinkConnectorConfig,
// SourceConnectorConfig), declared once: they validate connector configs, answer
// /connector-plugins/{p}/config and /config/validate, and configure the worker's tasks.
import { SettingsDefinition, type Setting } from "../../common/settings.ts";

const common = "Common";
const errorHandling = "Error Handling";

export const commonConnectorSettings: Setting[] = [
  { name: "name", type: "string", required: true, importance: "high", group: common, displayName: "Connector name", width: "MEDIUM", doc: "Globally unique name to use for this connector." },
  { name: "connector.class", type: "string", required: true, importance: "high", group: common, displayName: "Connector class", width: "LONG", doc: "Name or alias of the class for this connector. Must be a subclass of org.apache.kafka.connect.connector.Connector. If the connector is org.apache.kafka.connect.file.FileStreamSinkConnector, you can either specify this full name, or use \"FileStreamSink\" or \"FileStreamSinkConnector\" to make the configuration a bit shorter" },
  { name: "tasks.max", type: "int", default: 1, min: 1, importance: "high", group: common, displayName: "Tasks max", width: "SHORT", doc: "Maximum number of tasks to use for this connector." },
  { name: "key.converter", type: "class", importance: "low", group: common, displayName: "Key converter class", width: "SHORT", doc: "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the keys in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro." },
  { name: "value.converter", type: "class", importance: "low", group: common, displayName: "Value converter class", width: "SHORT", doc: "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the values in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro." },
  { name: "header.converter", type: "class", importance: "low", group: common, displayName: "Header converter class", width: "SHORT", doc: "HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to Kafka." },
  { name: "transforms", type: "list", default: [], importance: "low", group: "Transforms", displayName: "Transforms", width: "LONG", doc: "Aliases for the transformations to be applied to records." },
  { name: "predicates", type: "list", default: [], importance: "low", group: "Predicates", displayName: "Predicates", width: "LONG", doc: "Aliases for the predicates used by transformations." },
  { name: "config.action.reload", type: "string", default: "restart", oneOf: ["none", "restart"], importance: "low", group: common, displayName: "Reload Action", width: "MEDIUM", doc: "The action that Connect should take on the connector when changes in external configuration providers result in a change in the connector's configuration properties." },
  { name: "errors.retry.timeout", type: "long", default: 0, min: -1, importance: "medium", group: errorHandling, displayName: "Retry Timeout for Errors", width: "MEDIUM", doc: "The maximum duration in milliseconds that a failed operation will be reattempted. The default is 0, which means no retries will be attempted. Use -1 for infinite retries." },
  { name: "errors.retry.delay.max.ms", type: "long", default: 60000, min: 1, importance: "medium", group: errorHandling, displayName: "Maximum Delay Between Retries for Errors", width: "MEDIUM", doc: "The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to the delay once this limit is reached to prevent thundering herd issues." },
  { name: "errors.tolerance", type: "string", default: "none", oneOf: ["none", "all"], importance: "medium", group: errorHandling, displayName: "Error Tolerance", width: "SHORT", doc: "Behavior for tolerating errors during connector operation. 'none' is the default value and signals that any error will result in an immediate connector task failure; 'all' changes the behavior to skip over problematic records." },
  { name: "errors.log.enable", type: "boolean", default: false, importance: "medium", group: errorHandling, displayName: "Log Errors", width: "SHORT", doc: "If true, write each error and the details of the failed operation and problematic record to the Connect application log. This is 'false' by default, so that only errors that are not tolerated are reported." },
  { name: "errors.log.include.messages", type: "boolean", default: false, importance: "medium", group: errorHandling, displayName: "Log Error Details", width: "SHORT", doc: "Whether to include in the log the Connect record that resulted in a failure. For sink records, the topic, partition, offset, and timestamp will be logged. For source records, the key and value (and their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition, and source offset will be logged. This is 'false' by default, which will prevent record keys, values, and headers from being written to log files." },
];

export const sinkConnectorSettings: Setting[] = [
  { name: "topics", type: "list", default: [], importance: "high", group: common, displayName: "Topics", width: "LONG", doc: "List of topics to consume, separated by commas" },
  { name: "topics.regex", type: "string", default: "", importance: "high", group: common, displayName: "Topics regex", width: "LONG", doc: "Regular expression giving topics to consume. Under the hood, the regex is compiled to a <code>java.util.regex.Pattern</code>. Only one of topics or topics.regex should be specified." },
  { name: "errors.deadletterqueue.topic.name", type: "string", default: "", importance: "medium", group: errorHandling, displayName: "Dead Letter Queue Topic Name", width: "MEDIUM", doc: "The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an error when processed by this sink connector, or its transformations or converters. The topic name is blank by default, which means that no messages are to be recorded in the DLQ." },
  { name: "errors.deadletterqueue.topic.replication.factor", type: "int", default: 3, importance: "medium", group: errorHandling, displayName: "Dead Letter Queue Topic Replication Factor", width: "MEDIUM", doc: "Replication factor used to create the dead letter queue topic when it doesn't already exist." },
  { name: "errors.deadletterqueue.context.headers.enable", type: "boolean", default: false, importance: "medium", group: errorHandling, displayName: "Enable Error Context Headers", width: "MEDIUM", doc: "If true, add headers containing error context to the messages written to the dead letter queue. To avoid clashing with headers from the original record, all error context header keys, all error context header keys will start with <code>__connect.errors.</code>" },
];

export const sourceConnectorDefinition = new SettingsDefinition(commonConnectorSettings);
export const sinkConnectorDefinition = new SettingsDefinition([...commonConnectorSettings, ...sinkConnectorSettings]);

/** Sink-only cross-setting rules (Kafka's SinkConnectorConfig.validate). */
export function sinkTopicProblems(config: Record<string, string>): Map<string, string[]> {
  const topics = (config.topics ?? "").split(",").map((t) => t.trim()).filter(Boolean);
  const regex = (config["topics.regex"] ?? "").trim();
  const problems = new Map<string, string[]>();
  if (topics.length > 0 && regex) {
    const message = "topics and topics.regex are mutually exclusive options, but both are set.";
    problems.set("topics", [message]);
    problems.set("topics.regex", [message]);
  } else if (topics.length === 0 && !regex) {
    const message = "Must configure one of topics or topics.regex";
    problems.set("topics", [message]);
    problems.set("topics.regex", [message]);
  }
  const dlq = (config["errors.deadletterqueue.topic.name"] ?? "").trim();
  if (dlq && topics.includes(dlq)) {
    problems.set("errors.deadletterqueue.topic.name", [`The DLQ topic '${dlq}' may not be included in the list of topics ('topics=${config.topics}') consumed by the connector`]);
  }
  return problems;
}
