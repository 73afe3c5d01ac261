// docs/unsupported-settings.md, generated from the declarations (`npm run docs:unsupported`; a test
// checks the file is current): per service and connector, the original's settings Sluice refuses or
// accepts without effect, and why.
import { clientSettings } from "./broker/client-settings.ts";
import { sourceConnectorDefinition } from "./connect/runtime/worker/connector-config.ts";
import { workerSettings } from "./connect/runtime/worker/worker-config.ts";
import { jdbcSinkSettings } from "./connectors/jdbc-sink/settings.ts";
import { checkpointSettings } from "./connectors/mirror/checkpoint-config.ts";
import { heartbeatSettings } from "./connectors/mirror/heartbeat.ts";
import { mirrorSourceSettings } from "./connectors/mirror/source-config.ts";
import { postgresCdcSettings } from "./connectors/postgres-cdc/config.ts";
import { searchSinkSettings } from "./connectors/search-sink/settings.ts";
import { unsupportedReference, type SettingsDefinition } from "./platform/settings.ts";
import { registrySettingsDefinition } from "./registry/settings.ts";
import { serdeSettings } from "./serde/config.ts";

const SECTIONS: [title: string, original: string, definition: SettingsDefinition][] = [
  [
    "Connect worker",
    "Kafka Connect's worker settings (WorkerConfig, DistributedConfig, RestServerConfig). A refused one stops start-up, naming each.",
    workerSettings,
  ],
  [
    "Schema registry",
    "Confluent Schema Registry's settings. A refused one stops start-up, naming each.",
    registrySettingsDefinition,
  ],
  [
    "Every connector",
    "Kafka Connect's connector settings (ConnectorConfig, SourceConnectorConfig, SinkConnectorConfig).",
    sourceConnectorDefinition,
  ],
  [
    "PostgreSQL CDC connector",
    "Debezium's PostgresConnector (3.x). `test/integration/connect/original-settings.test.ts` reads Debezium's own list from its jars and checks each of its settings is implemented or here.",
    postgresCdcSettings,
  ],
  [
    "Kafka producer of connect tasks",
    "Kafka's ProducerConfig, under a worker's `producer.` and a connector's `producer.override.` (security settings: docs/security.md). A refused one fails the worker's start-up, or the connector's validation.",
    clientSettings.producer,
  ],
  [
    "Kafka consumer of connect tasks",
    "Kafka's ConsumerConfig, under a worker's `consumer.` and a connector's `consumer.override.`.",
    clientSettings.consumer,
  ],
  [
    "Kafka admin client of connect tasks",
    "Kafka's AdminClientConfig, under a worker's `admin.` and a connector's `admin.override.`.",
    clientSettings.admin,
  ],
  ["JDBC sink", "Confluent's JdbcSinkConnector (kafka-connect-jdbc 10.x).", jdbcSinkSettings],
  ["Search sink", "Confluent's ElasticsearchSinkConnector (kafka-connect-elasticsearch 14.x).", searchSinkSettings],
  ["MirrorMaker 2 source", "Kafka's MirrorSourceConnector (connect-mirror 4.1).", mirrorSourceSettings],
  ["MirrorMaker 2 checkpoints", "Kafka's MirrorCheckpointConnector (connect-mirror 4.1).", checkpointSettings],
  ["MirrorMaker 2 heartbeats", "Kafka's MirrorHeartbeatConnector (connect-mirror 4.1).", heartbeatSettings],
  [
    "Schema registry converters",
    "Confluent's AvroConverter, ProtobufConverter and JsonSchemaConverter (their serializers' settings, AbstractKafkaSchemaSerDeConfig), under `key.converter.`, `value.converter.` and `header.converter.`.",
    serdeSettings,
  ],
];

export function unsupportedSettingsDoc(): string {
  return [
    "# Settings Sluice does not implement",
    "",
    "Generated from the setting declarations by `npm run docs:unsupported`; do not edit by hand.",
    "",
    "Sluice takes the settings of the software it stands in for, by their names. None it does not implement is",
    "silently ignored. A **refused** one would change the data, the security or the delivery if it were honoured:",
    "a connector config that sets it is invalid (`PUT /connector-plugins/{plugin}/config/validate` names it,",
    "creating or updating the connector answers 400), and a worker or registry does not start. Set to a value listed",
    'as accepted (the original\'s default, or "off"), it asks for nothing Sluice does not do, and passes. A setting',
    "of **no effect** only tunes the original: it is accepted with one warning at start-up, or when the connector",
    "is created or updated. A name nothing declares is warned about too, with the declared name it most likely",
    "misspells.",
    "",
    "The FileStream connectors, and Kafka's transforms, predicates and converters and Debezium's",
    "ExtractNewRecordState, ByLogicalTableRouter and outbox EventRouter, implement every setting of their",
    "originals (checked against their jars by `test/integration/connect/original-settings.test.ts`), but for",
    "the EventRouter's `tracing.*` (Sluice opens no OpenTelemetry spans: accepted with a warning) and its",
    "`field.name.adjustment.mode` (only `none`). The settings of a connector's converters,",
    "transforms and predicates (`value.converter.*`, `transforms.<alias>.*`, …) are judged by what each declares.",
    "",
    ...SECTIONS.flatMap(([title, original, definition]) => [
      `## ${title}`,
      "",
      original,
      "",
      unsupportedReference(definition),
      "",
    ]),
  ].join("\n");
}
