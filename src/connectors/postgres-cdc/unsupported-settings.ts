// The settings of Debezium's PostgreSQL connector (PostgresConnectorConfig, 3.x) that Sluice does not
// implement: refused where honouring them would change the data, security or delivery, a warning
// where they only tune Debezium. Debezium's day-two features (signals, incremental snapshots,
// notifications, masking) are among them until Sluice has them.
import { ignored, refused, unsupportedAll, type Setting } from "../../platform/settings.ts";

const TUNING = "it tunes Debezium's Java internals; Sluice has no such knob";

export const debeziumUnsupportedSettings: Setting[] = [
  // Changes to the data: schemas and values Sluice would not produce.
  refused("skip.messages.without.change", "Sluice emits every change, also those that touch only excluded columns", [
    "false",
  ]),
  refused("binary.handling.mode", "Sluice represents binary columns as bytes only", ["bytes"]),
  refused("hstore.handling.mode", "Sluice represents hstore columns as JSON text only", ["json"]),
  refused("interval.handling.mode", "Sluice represents interval columns as numeric microseconds only", ["numeric"]),
  refused("schema.name.adjustment.mode", "Sluice does not adjust schema names", ["none"]),
  refused("field.name.adjustment.mode", "Sluice does not adjust field names", ["none"]),
  refused("include.schema.comments", "Sluice does not carry table and column comments into schemas", ["false"]),
  refused("include.unknown.datatypes", "Sluice does not emit columns of types it does not know", ["false"]),
  refused(
    "unavailable.value.placeholder",
    "Sluice marks unchanged TOAST values with Debezium's default placeholder only",
    ["__debezium_unavailable_value"],
  ),
  refused("topic.naming.strategy", "Sluice names topics as Debezium's default strategy does", [
    "io.debezium.schema.SchemaTopicNamingStrategy",
  ]),
  refused("sourceinfo.struct.maker", "Sluice builds Debezium's default source block only", [
    "io.debezium.connector.postgresql.PostgresSourceInfoStructMaker",
  ]),
  refused("converters", "Sluice runs no Debezium custom converters (Java classes)"),
  refused("post.processors", "Sluice runs no Debezium post processors (Java classes)"),
  refused("transaction.metadata.factory", "Sluice makes Debezium's default transaction metadata only", [
    "io.debezium.pipeline.txmetadata.DefaultTransactionMetadataFactory",
  ]),
  refused("message.prefix.include.list", "Sluice does not emit logical decoding messages"),
  refused("publish.via.partition.root", "Sluice publishes partitioned tables' changes by partition", ["false"]),
  refused("event.processing.failure.handling.mode", "Sluice fails on an event it cannot process; it never skips one", [
    "fail",
  ]),
  refused("event.converting.failure.handling.mode", "Sluice fails on a value it cannot convert", ["warn"]),
  // What is captured or snapshotted.
  refused("database.include.list", "a Sluice connector captures the one database of database.dbname"),
  refused("database.exclude.list", "a Sluice connector captures the one database of database.dbname"),
  refused("table.ignore.builtin", "Sluice never captures PostgreSQL's built-in tables", ["true"]),
  refused("snapshot.query.mode", "Sluice snapshots with SELECT * only", ["select_all"]),
  refused("database.initial.statements", "Sluice runs no statements of its own on connect"),
  refused("replica.identity.autoset.values", "Sluice does not change tables' replica identity"),
  refused("slot.stream.params", "Sluice streams pgoutput with its own parameters"),
  refused("guardrail.collections.max", "Sluice has no limit on the number of captured tables", ["0"]),
  // Delivery: where the position is confirmed, slot failover.
  refused(
    "lsn.flush.mode",
    "Sluice confirms the position in the slot after the records are committed (Debezium's connector mode) only",
    ["connector"],
  ),
  refused("flush.lsn.source", "Sluice always confirms the position in the slot", ["true"]),
  // Security.
  refused(
    "custom.sanitize.pattern",
    "Sluice hides password settings by their declared type, not by a pattern of names",
  ),
  // Signals and incremental snapshots: Debezium's internals, and the watermarks Sluice writes.
  ...unsupportedAll(
    "ignored",
    [
      "signal.emit.failure.max.retries",
      "signal.emit.failure.backoff.ms",
      "internal.signal.synchronous.batch.size",
      "internal.signal.processor.semaphore.wait.ms",
    ],
    "it tunes Debezium's signal processing threads; Sluice acts on signals between batches",
  ),
  refused(
    "incremental.snapshot.watermarking.strategy",
    "Sluice writes an open and a close watermark row for each chunk (insert_insert) only",
    ["insert_insert"],
  ),
  ignored(
    "incremental.snapshot.allow.schema.changes",
    "Sluice's incremental snapshot reads each chunk with the table's current columns",
  ),
  ...unsupportedAll(
    "ignored",
    [
      "notification.http.url",
      "notification.http.timeout.ms",
      "notification.http.retries",
      "notification.http.allow.private.networks",
    ],
    "Sluice has no http notification channel (notification.enabled.channels: sink, log)",
  ),
  // No effect: Debezium's tuning and its Java machinery.
  ...unsupportedAll(
    "ignored",
    [
      "max.queue.size",
      "max.queue.size.in.bytes",
      "query.fetch.size",
      "snapshot.max.threads.multiplier",
      "legacy.snapshot.max.threads",
      "internal.legacy.snapshot.max.threads",
      "snapshot.tables.order.by.row.count",
      "internal.snapshot.scan.all.columns.force",
      "schema.refresh.mode",
      "memory.management.schemas.class",
      "memory.management.tables.class",
      "executor.shutdown.timeout.ms",
      "connection.validation.timeout.ms",
      "internal.log.position.check.enable",
      "internal.advanced.metrics.enable",
      "internal.offset.activity.monitor.interval.ms",
      "statistics.metrics.enabled",
      "custom.metric.tags",
      "database.tcpKeepAlive",
      "database.query.timeout.ms",
      "status.update.interval.ms",
      "xmin.fetch.interval.ms",
      "slot.max.retries",
      "slot.retry.delay.ms",
      "lsn.flush.timeout.ms",
      "lsn.flush.timeout.action",
      "guardrail.collections.limit.action",
    ],
    TUNING,
  ),
  ignored("snapshot.delay.ms", "Sluice starts a snapshot at once"),
  ignored("streaming.delay.ms", "Sluice streams as soon as the snapshot ends"),
  ignored("snapshot.lock.timeout.ms", "Sluice takes no table locks while snapshotting"),
  ignored(
    "snapshot.locking.mode",
    "Sluice takes no table locks while snapshotting (the slot's exported snapshot keeps it consistent)",
  ),
  ignored(
    "snapshot.isolation.mode",
    "Sluice snapshots in one REPEATABLE READ transaction on the slot's exported snapshot",
  ),
  ignored("message.prefix.exclude.list", "Sluice emits no logical decoding messages"),
  ignored(
    "heartbeat.topics.prefix",
    "Debezium 3 declares it but names the heartbeat topic by topic.heartbeat.prefix (and topic.heartbeat.name), as Sluice does",
  ),
  ...unsupportedAll(
    "ignored",
    [
      "snapshot.mode.custom.name",
      "snapshot.mode.configuration.based.snapshot.data",
      "snapshot.mode.configuration.based.snapshot.schema",
      "snapshot.mode.configuration.based.start.stream",
      "snapshot.mode.configuration.based.snapshot.on.schema.error",
      "snapshot.mode.configuration.based.snapshot.on.data.error",
      "snapshot.query.mode.custom.name",
      "snapshot.locking.mode.custom.name",
    ],
    "it only applies to snapshot modes Sluice does not offer (custom, configuration_based)",
  ),
  ...unsupportedAll(
    "ignored",
    [
      "openlineage.integration.enabled",
      "openlineage.integration.config.file.path",
      "openlineage.integration.job.namespace",
      "openlineage.integration.job.description",
      "openlineage.integration.job.tags",
      "openlineage.integration.job.owners",
      "openlineage.integration.dataset.kafka.bootstrap.servers",
    ],
    "Sluice emits no OpenLineage metadata",
  ),
];
