// The settings of Debezium's PostgreSQL connector that Sluice honours, by Debezium's names and
// defaults (PostgresConnectorConfig), parsed once into the typed form the task works with.
import { postgresTls, SSL_MODES, type PostgresTls, type SslMode } from "../../platform/postgres-tls.ts";
import { ConfigError, SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import type { DecimalHandlingMode, TimePrecisionMode } from "./column-types.ts";
import { parseColumnRules, type ColumnRules } from "./column-rules.ts";
import { NOTIFICATION_CHANNELS, type NotificationChannelName } from "./notifications.ts";
import { DEFAULT_SIGNAL_FILE } from "./signals/file-channel.ts";
import { type KafkaSignalSettings, SIGNAL_CONSUMER_PREFIX, signalConsumerSettings } from "./signals/kafka-channel.ts";
import type { SignalChannelName } from "./signals/signal.ts";
import { debeziumUnsupportedSettings } from "./unsupported-settings.ts";

export type SnapshotMode = "initial" | "never" | "no_data" | "initial_only" | "always";
export type AutocreateMode = "disabled" | "all_tables" | "filtered" | "no_tables";

const SIGNAL_CHANNELS: readonly SignalChannelName[] = ["source", "kafka", "file"];

/** Debezium declares no default for snapshot.fetch.size; its PostgreSQL connector then fetches this many rows. */
const DEFAULT_SNAPSHOT_FETCH_SIZE = 10240;

const SELECT_OVERRIDE_PREFIX = "snapshot.select.statement.overrides.";

export const postgresCdcSettings = new SettingsDefinition(
  [
    {
      name: "database.hostname",
      type: "string",
      required: true,
      importance: "high",
      doc: "Resolvable hostname or IP address of the database server.",
    },
    { name: "database.port", type: "int", default: 5432, importance: "high", doc: "Port of the database server." },
    {
      name: "database.user",
      type: "string",
      required: true,
      importance: "high",
      doc: "Name of the database user (needs the REPLICATION attribute).",
    },
    { name: "database.password", type: "password", importance: "high", doc: "Password of the database user." },
    {
      name: "database.dbname",
      type: "string",
      required: true,
      importance: "high",
      doc: "The name of the database from which to stream changes.",
    },
    {
      name: "database.sslmode",
      type: "string",
      default: "prefer",
      oneOf: [...SSL_MODES],
      importance: "medium",
      doc: "TLS to the server, as libpq: disable; allow (plain text, TLS when the server insists); prefer (TLS when the server offers it, else plain text); require (TLS; its certificate is checked against database.sslrootcert only when that file exists, as verify-ca); verify-ca (TLS, certificate signed by a CA in database.sslrootcert); verify-full (verify-ca, and the certificate names database.hostname).",
    },
    {
      name: "database.sslrootcert",
      type: "string",
      importance: "medium",
      doc: "PEM file of the CA certificates the server's certificate must be signed by (default ~/.postgresql/root.crt), or `system` for the system's trusted CAs (with verify-full only).",
    },
    {
      name: "database.sslcert",
      type: "string",
      importance: "medium",
      doc: "PEM file of the client certificate (and its chain) for servers that ask for one (default ~/.postgresql/postgresql.crt when it exists).",
    },
    {
      name: "database.sslkey",
      type: "string",
      importance: "medium",
      doc: "The client certificate's private key: PEM (PKCS8 or PKCS1, may be encrypted) or PKCS8 DER (default ~/.postgresql/postgresql.key).",
    },
    {
      name: "database.sslpassword",
      type: "password",
      importance: "medium",
      doc: "Password of an encrypted database.sslkey.",
    },
    {
      name: "database.sslfactory",
      type: "string",
      importance: "low",
      doc: "The JDBC driver's socket factory class: org.postgresql.ssl.LibPQFactory (what database.sslmode describes), org.postgresql.ssl.NonValidatingFactory (no certificate check; not with verify-ca or verify-full) or org.postgresql.ssl.DefaultJavaSSLFactory (certificates checked against the system's trusted CAs); other classes are refused.",
    },
    {
      name: "topic.prefix",
      type: "string",
      required: true,
      aliases: ["database.server.name"],
      importance: "high",
      doc: "Prefix of every topic name; also the source partition's `server`.",
    },
    {
      name: "plugin.name",
      type: "string",
      default: "pgoutput",
      oneOf: ["pgoutput"],
      importance: "medium",
      doc: "The logical decoding plugin; Sluice decodes pgoutput, built into PostgreSQL 10+, and defaults to it (Debezium's default, decoderbufs, is a server extension stock PostgreSQL lacks).",
    },
    {
      name: "slot.name",
      type: "string",
      default: "debezium",
      importance: "medium",
      doc: "The name of the logical replication slot.",
    },
    {
      name: "slot.drop.on.stop",
      type: "boolean",
      default: false,
      importance: "low",
      doc: "Whether the task drops its replication slot when it stops gracefully (the next start then snapshots or starts from the current position).",
    },
    {
      name: "slot.failover",
      type: "boolean",
      default: false,
      importance: "medium",
      doc: "Whether the slot is created as a failover slot (CREATE_REPLICATION_SLOT ... (FAILOVER)), synchronized to standbys so the connector can follow a failover. Needs PostgreSQL 17 or later: on an older server the task refuses to start, where Debezium would quietly create an ordinary slot.",
    },
    {
      name: "publication.name",
      type: "string",
      default: "dbz_publication",
      importance: "medium",
      doc: "The publication streamed through pgoutput.",
    },
    {
      name: "publication.autocreate.mode",
      type: "string",
      default: "all_tables",
      oneOf: ["disabled", "all_tables", "filtered", "no_tables"],
      importance: "medium",
      doc: "disabled: the publication must exist; all_tables: created FOR ALL TABLES when missing; filtered: created (or set) for the tables the filters select; no_tables: created without tables when missing (tables are added to it by hand).",
    },
    {
      name: "schema.include.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching the schemas to capture.",
    },
    {
      name: "schema.exclude.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching schemas not to capture.",
    },
    {
      name: "table.include.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching `schema.table` of the tables to capture.",
    },
    {
      name: "table.exclude.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching `schema.table` of tables not to capture.",
    },
    {
      name: "column.include.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching `schema.table.column` of the columns to include.",
    },
    {
      name: "column.exclude.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching `schema.table.column` of columns to leave out.",
    },
    {
      name: "column.mask.with.<n>.chars",
      type: "list",
      pattern: /^column\.mask\.with\.\d+\.chars$/,
      importance: "medium",
      doc: "Regular expressions matching `schema.table.column` of character columns whose values are replaced by n asterisks (null values too); the schema gets the parameter masked=true. Other types keep their values.",
    },
    {
      name: "column.mask.hash.<algorithm>.with.salt.<salt>",
      type: "list",
      pattern: /^column\.mask\.hash\.[^.]+\.with\.salt\..+$/,
      importance: "medium",
      doc: "Regular expressions matching `schema.table.column` of character columns whose values are replaced by the hex digest (a JDK MessageDigest algorithm: MD5, SHA-1, SHA-256, SHA-512, ...) of the salt and the value as Java serializes a String, cut to the column's length; byte for byte Debezium's hash. Null stays null.",
    },
    {
      name: "column.mask.hash.v2.<algorithm>.with.salt.<salt>",
      type: "list",
      pattern: /^column\.mask\.hash\.v2\.[^.]+\.with\.salt\..+$/,
      importance: "medium",
      doc: "As column.mask.hash.<algorithm>.with.salt.<salt>, hashing the value's UTF-8 bytes alone, so the same value hashes the same anywhere.",
    },
    {
      name: "column.truncate.to.<n>.chars",
      type: "list",
      pattern: /^column\.truncate\.to\.\d+\.chars$/,
      importance: "medium",
      doc: "Regular expressions matching `schema.table.column` of string and binary columns whose values are cut to n characters (bytes); the schema gets the parameter truncateLength. Columns no longer than n are left alone.",
    },
    {
      name: "column.propagate.source.type",
      type: "list",
      importance: "low",
      doc: "Regular expressions matching `schema.table.column` of columns whose schema gets the parameters __debezium.source.column.type, __debezium.source.column.length, __debezium.source.column.scale and __debezium.source.column.name.",
    },
    {
      name: "datatype.propagate.source.type",
      type: "list",
      importance: "low",
      doc: "Regular expressions matching `schema.table.type` (PostgreSQL's type name: int4, varchar, numeric, ...) of columns whose schema gets the source type parameters, as column.propagate.source.type.",
    },
    {
      name: "message.key.columns",
      type: "string",
      importance: "low",
      doc: "Record keys from chosen columns instead of the primary key: `<schema>.<table>:<column>,<column>;...`, the table and each column a regular expression. Tables it does not match keep their primary key.",
    },
    {
      name: "snapshot.mode",
      type: "string",
      default: "initial",
      oneOf: ["initial", "never", "no_data", "initial_only", "always"],
      importance: "medium",
      doc: "initial: snapshot when no offset exists, then stream; always: snapshot at every start; initial_only: snapshot, then stop; no_data/never: stream only.",
    },
    {
      name: "tombstones.on.delete",
      type: "boolean",
      default: true,
      importance: "medium",
      doc: "Whether a delete is followed by a tombstone (null value) for the same key.",
    },
    {
      name: "extended.headers.enabled",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "Whether every change record carries Debezium's context headers (__debezium.context.connectorLogicalName, taskId, connectorName, runId).",
    },
    {
      name: "skipped.operations",
      type: "list",
      default: "t",
      importance: "low",
      doc: "Operations not emitted while streaming: c, u, d, t, or none.",
    },
    {
      name: "decimal.handling.mode",
      type: "string",
      default: "precise",
      oneOf: ["precise", "double", "string"],
      importance: "medium",
      doc: "How NUMERIC and DECIMAL columns are represented.",
    },
    {
      name: "money.fraction.digits",
      type: "int",
      default: 2,
      min: 0,
      importance: "medium",
      doc: "The number of fractional digits of a MONEY column's value as a decimal (decimal.handling.mode=precise), rounded half up.",
    },
    {
      name: "time.precision.mode",
      type: "string",
      default: "adaptive",
      oneOf: ["adaptive", "adaptive_time_microseconds", "connect"],
      importance: "medium",
      doc: "How time, date and timestamp columns are represented.",
    },
    {
      name: "heartbeat.interval.ms",
      type: "int",
      default: 0,
      min: 0,
      importance: "medium",
      doc: "How often a heartbeat record (topic `<topic.heartbeat.prefix>.<topic.prefix>`) carries the position forward, while streaming; 0 disables it.",
    },
    {
      name: "heartbeat.action.query",
      type: "string",
      importance: "low",
      doc: "A statement run on the connector's SQL connection before each heartbeat, e.g. an upsert into a heartbeat table in the publication: its change moves a quiet database's slot forward when the server's WAL grows from other databases or tables.",
    },
    {
      name: "topic.heartbeat.prefix",
      type: "string",
      default: "__debezium-heartbeat",
      importance: "low",
      doc: "The heartbeat topic is `<topic.heartbeat.prefix>.<topic.prefix>`.",
    },
    {
      name: "topic.heartbeat.name",
      type: "string",
      importance: "low",
      doc: "The whole name of the heartbeat topic, instead of `<topic.heartbeat.prefix>.<topic.prefix>` (connectors may share one).",
    },
    {
      name: "provide.transaction.metadata",
      type: "boolean",
      default: false,
      importance: "low",
      doc: "Whether streamed transactions get BEGIN and END records on `<topic.prefix>.<topic.transaction>` (with per-table event counts) and each change event a `transaction` block (id, total_order, data_collection_order).",
    },
    {
      name: "topic.transaction",
      type: "string",
      default: "transaction",
      importance: "low",
      doc: "The transaction metadata topic is `<topic.prefix>.<topic.transaction>`.",
    },
    {
      name: "snapshot.fetch.size",
      type: "int",
      min: 1,
      importance: "medium",
      doc: "Rows fetched at a time while snapshotting (10240 when not set).",
    },
    {
      name: "snapshot.max.threads",
      type: "int",
      default: 1,
      min: 1,
      importance: "medium",
      doc: "Tables the initial snapshot reads at once, each on a connection of its own in the same snapshot (Debezium's parallel initial snapshot). Their records interleave; each table's stay in order.",
    },
    {
      name: "snapshot.include.collection.list",
      type: "list",
      importance: "medium",
      doc: "Regular expressions matching `schema.table` of the captured tables the snapshot reads; the other captured tables are only streamed. Empty: every captured table.",
    },
    {
      name: "snapshot.select.statement.overrides",
      type: "list",
      importance: "medium",
      doc: "The tables (`schema.table`) the snapshot reads with a SELECT of their own, each given by snapshot.select.statement.overrides.<schema>.<table> (its columns are matched to the table's by name; one left out is null).",
    },
    {
      name: "notification.enabled.channels",
      type: "list",
      importance: "medium",
      doc: "Where the connector's notifications (snapshot started, table scanned, completed, aborted) go: sink (records on notification.sink.topic.name), log. Debezium's jmx and http channels are not available: named, they are warned about and get nothing.",
    },
    {
      name: "notification.sink.topic.name",
      type: "string",
      importance: "high",
      doc: "The topic of the notifications; required when notification.enabled.channels includes sink.",
    },
    {
      name: "snapshot.progress.interval.ms",
      type: "long",
      default: 5000,
      min: 1,
      importance: "low",
      doc: "Sluice-specific: how often, at most, a snapshot logs each table's progress (rows of the estimate, rate, time left).",
    },
    {
      name: "slot.lag.interval.ms",
      type: "long",
      default: 10000,
      min: 100,
      importance: "low",
      doc: "Sluice-specific: how often the task reads how much WAL its replication slot holds back (the slot lag gauges on /metrics and the console), on its SQL connection, apart from the replication stream.",
    },
    {
      name: "max.batch.size",
      type: "int",
      default: 2048,
      min: 1,
      importance: "medium",
      doc: "The most records one poll returns.",
    },
    {
      name: "poll.interval.ms",
      type: "int",
      default: 500,
      min: 1,
      importance: "medium",
      doc: "How long a poll waits for changes when there are none.",
    },
    {
      name: "errors.max.retries",
      type: "int",
      default: -1,
      min: -1,
      importance: "low",
      doc: "How many times the task reconnects after losing the database before it fails: -1 without limit, 0 never.",
    },
    {
      name: "retriable.restart.connector.wait.ms",
      type: "long",
      default: 10000,
      min: 0,
      importance: "low",
      doc: "How long the task waits after losing the database before it reconnects.",
    },
    {
      name: "signal.enabled.channels",
      type: "list",
      default: "source",
      validate: (value) => {
        const unknown = (value as string[]).filter(
          (c) => !SIGNAL_CHANNELS.includes(c.toLowerCase() as SignalChannelName),
        );
        return unknown.length > 0
          ? `Sluice's signal channels are ${SIGNAL_CHANNELS.join(", ")} (not ${unknown.join(", ")})`
          : undefined;
      },
      importance: "low",
      doc: "The channels signals come through: source (the signalling table), kafka (signal.kafka.topic), file (signal.file).",
    },
    {
      name: "signal.poll.interval.ms",
      type: "long",
      default: 5000,
      min: 0,
      importance: "low",
      doc: "How often, at most, the kafka and file signal channels are read, between batches.",
    },
    {
      name: "signal.kafka.topic",
      type: "string",
      importance: "high",
      doc: 'The topic signals come through with the kafka channel (default `<topic.prefix>-signal`): records whose key is topic.prefix, their value `{"id": …, "type": …, "data": {…}}`.',
    },
    {
      name: "signal.kafka.bootstrap.servers",
      type: "string",
      importance: "high",
      doc: "The Kafka cluster of signal.kafka.topic (host:port,…); required with the kafka channel. Its client's security settings are signal.consumer.* (signal.consumer.security.protocol, signal.consumer.sasl.*, signal.consumer.ssl.*).",
    },
    {
      name: "signal.kafka.groupId",
      type: "string",
      default: "kafka-signal",
      importance: "low",
      doc: "The consumer group whose committed offset says which signals of signal.kafka.topic were read (a restarted task goes on from there).",
    },
    {
      name: "signal.kafka.poll.timeout.ms",
      type: "int",
      default: 0,
      min: 0,
      importance: "low",
      doc: "How long one read of signal.kafka.topic waits for records (in the background: the task does not wait).",
    },
    {
      name: "signal.file",
      type: "string",
      default: DEFAULT_SIGNAL_FILE,
      importance: "high",
      doc: 'The file signals come through with the file channel, one JSON `{"id", "type", "data"}` a line, relative to the worker\'s working directory; each read empties it.',
    },
    {
      name: "signal.data.collection",
      type: "string",
      importance: "medium",
      doc: "The signalling table, `schema.table` with the columns id, type and data (text): rows inserted into it are signals (execute-snapshot, stop-snapshot, pause-snapshot, resume-snapshot, log), read from the WAL, so it must be in the publication (publication.autocreate.mode=filtered adds it). The incremental snapshot writes its watermarks into it.",
    },
    {
      name: "incremental.snapshot.chunk.size",
      type: "int",
      default: 1024,
      min: 1,
      importance: "medium",
      doc: "The most rows an incremental snapshot reads per chunk (between two watermarks).",
    },
    {
      name: "read.only",
      type: "boolean",
      default: false,
      importance: "low",
      doc: "Read-only incremental snapshots (PostgreSQL 13 or later): the connector writes nothing to the database; each chunk's watermarks are pg_current_snapshot() before and after its query, and the streamed transactions' ids close its window. Signals then come through the kafka or file channel (or rows others insert into signal.data.collection, with the source channel).",
    },
    ...debeziumUnsupportedSettings,
  ],
  // Pass through: the signal channel's consumer settings; each table's SELECT, read by selectOverrides().
  [SIGNAL_CONSUMER_PREFIX, SELECT_OVERRIDE_PREFIX],
);

const TLS_SETTING_NAMES = {
  mode: "database.sslmode",
  rootCert: "database.sslrootcert",
  cert: "database.sslcert",
  key: "database.sslkey",
  password: "database.sslpassword",
  factory: "database.sslfactory",
  host: "database.hostname",
};

export interface PostgresCdcConfig {
  readonly hostname: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly tls: PostgresTls;
  readonly topicPrefix: string;
  readonly slotName: string;
  readonly slotDropOnStop: boolean;
  readonly slotFailover: boolean;
  readonly publicationName: string;
  readonly publicationAutocreate: AutocreateMode;
  readonly filters: CaptureFilters;
  readonly snapshotMode: SnapshotMode;
  readonly tombstonesOnDelete: boolean;
  readonly extendedHeaders: boolean;
  /** task.id, as the connector hands it to its task (Debezium's context header). */
  readonly taskId: string;
  readonly skippedOperations: ReadonlySet<string>;
  /**
   * The operations a publication Sluice creates publishes (insert, update, delete, truncate): as
   * Debezium's, only those skipped.operations, when given, leaves; null when it is not given.
   */
  readonly publishedOperations: string | null;
  /** column.mask.*, column.truncate.*, *.propagate.source.type, message.key.columns. */
  readonly columnRules: ColumnRules;
  readonly decimalHandlingMode: DecimalHandlingMode;
  readonly moneyFractionDigits: number;
  readonly timePrecisionMode: TimePrecisionMode;
  readonly heartbeatIntervalMs: number;
  /** heartbeat.action.query; null when not set. */
  readonly heartbeatActionQuery: string | null;
  readonly heartbeatTopic: string;
  /** provide.transaction.metadata: the transaction topic's name, null when off. */
  readonly transactionTopic: string | null;
  readonly snapshotFetchSize: number;
  readonly snapshotMaxThreads: number;
  /** snapshot.include.collection.list: which captured tables the snapshot reads (empty: all). */
  readonly snapshotInclude: readonly RegExp[];
  /** snapshot.select.statement.overrides: the SELECT of a table, by `schema.table`. */
  readonly snapshotOverrides: ReadonlyMap<string, string>;
  readonly notificationChannels: ReadonlySet<NotificationChannelName>;
  /** Channels named that Sluice does not have (Debezium's jmx, http, custom ones): warned about at start. */
  readonly unavailableNotificationChannels: readonly string[];
  readonly notificationSinkTopic: string | null;
  readonly snapshotProgressIntervalMs: number;
  readonly slotLagIntervalMs: number;
  readonly maxBatchSize: number;
  readonly pollIntervalMs: number;
  readonly maxRetries: number;
  readonly restartWaitMs: number;
  /** signal.data.collection, when set. */
  readonly signalTable: { readonly schema: string; readonly table: string } | null;
  readonly incrementalChunkSize: number;
  /** read.only: the incremental snapshot writes nothing (watermarks from pg_current_snapshot()). */
  readonly readOnly: boolean;
  readonly signals: SignalSettings;
}

export interface SignalSettings {
  readonly channels: ReadonlySet<SignalChannelName>;
  readonly pollIntervalMs: number;
  readonly kafka: KafkaSignalSettings;
  readonly file: string;
}

/** Anchored regular expressions, as Debezium matches its include/exclude lists. */
export interface CaptureFilters {
  readonly schemaInclude: readonly RegExp[];
  readonly schemaExclude: readonly RegExp[];
  readonly tableInclude: readonly RegExp[];
  readonly tableExclude: readonly RegExp[];
  readonly columnInclude: readonly RegExp[];
  readonly columnExclude: readonly RegExp[];
}

export function parsePostgresCdcConfig(props: Record<string, string>): PostgresCdcConfig {
  const s = postgresCdcSettings.parse(props).values;
  const skipped = s.list("skipped.operations").map((op) => op.toLowerCase());
  const channels = s
    .list("notification.enabled.channels")
    .map((c) => c.toLowerCase())
    .filter((c) => c !== "");
  const sinkTopic = s.optionalString("notification.sink.topic.name") ?? null;
  if (channels.includes("sink") && sinkTopic === null)
    throw new ConfigError(
      "notification.sink.topic.name",
      "",
      "a topic name is required when notification.enabled.channels includes sink",
    );
  return {
    hostname: s.string("database.hostname"),
    port: s.int("database.port"),
    user: s.string("database.user"),
    password: s.string("database.password"),
    database: s.string("database.dbname"),
    tls: postgresTls(
      {
        mode: lower(s, "database.sslmode") as SslMode,
        rootCert: s.string("database.sslrootcert"),
        cert: s.string("database.sslcert"),
        key: s.string("database.sslkey"),
        password: s.string("database.sslpassword"),
        factory: s.string("database.sslfactory"),
      },
      "libpq",
      TLS_SETTING_NAMES,
    ),
    topicPrefix: s.string("topic.prefix"),
    slotName: s.string("slot.name"),
    slotDropOnStop: s.boolean("slot.drop.on.stop"),
    slotFailover: s.boolean("slot.failover"),
    publicationName: s.string("publication.name"),
    publicationAutocreate: lower(s, "publication.autocreate.mode") as AutocreateMode,
    filters: {
      schemaInclude: patterns(s, "schema.include.list"),
      schemaExclude: patterns(s, "schema.exclude.list"),
      tableInclude: patterns(s, "table.include.list"),
      tableExclude: patterns(s, "table.exclude.list"),
      columnInclude: patterns(s, "column.include.list"),
      columnExclude: patterns(s, "column.exclude.list"),
    },
    snapshotMode: lower(s, "snapshot.mode") as SnapshotMode,
    tombstonesOnDelete: s.boolean("tombstones.on.delete"),
    extendedHeaders: s.boolean("extended.headers.enabled"),
    taskId: props["task.id"] ?? "0",
    skippedOperations: new Set(skipped.includes("none") ? [] : skipped),
    publishedOperations: publishedOperations(props["skipped.operations"] === undefined ? null : skipped),
    columnRules: parseColumnRules(props),
    decimalHandlingMode: lower(s, "decimal.handling.mode") as DecimalHandlingMode,
    moneyFractionDigits: s.int("money.fraction.digits"),
    timePrecisionMode: lower(s, "time.precision.mode") as TimePrecisionMode,
    heartbeatIntervalMs: s.int("heartbeat.interval.ms"),
    heartbeatActionQuery: s.optionalString("heartbeat.action.query")?.trim() || null,
    heartbeatTopic:
      s.optionalString("topic.heartbeat.name") || `${s.string("topic.heartbeat.prefix")}.${s.string("topic.prefix")}`,
    transactionTopic: s.boolean("provide.transaction.metadata")
      ? `${s.string("topic.prefix")}.${s.string("topic.transaction")}`
      : null,
    snapshotFetchSize:
      s.optionalString("snapshot.fetch.size") === undefined
        ? DEFAULT_SNAPSHOT_FETCH_SIZE
        : s.int("snapshot.fetch.size"),
    snapshotMaxThreads: s.int("snapshot.max.threads"),
    snapshotInclude: patterns(s, "snapshot.include.collection.list"),
    snapshotOverrides: selectOverrides(s, props),
    notificationChannels: new Set(channels.filter(isNotificationChannel)),
    unavailableNotificationChannels: channels.filter((c) => !isNotificationChannel(c)),
    notificationSinkTopic: sinkTopic,
    snapshotProgressIntervalMs: s.int("snapshot.progress.interval.ms"),
    slotLagIntervalMs: s.int("slot.lag.interval.ms"),
    maxBatchSize: s.int("max.batch.size"),
    pollIntervalMs: s.int("poll.interval.ms"),
    maxRetries: s.int("errors.max.retries"),
    restartWaitMs: s.int("retriable.restart.connector.wait.ms"),
    signalTable: tableNameOf(s.optionalString("signal.data.collection")),
    incrementalChunkSize: s.int("incremental.snapshot.chunk.size"),
    readOnly: s.boolean("read.only"),
    signals: signalSettings(s, props),
  };
}

function signalSettings(s: ParsedSettings, props: Record<string, string>): SignalSettings {
  const channels = new Set(s.list("signal.enabled.channels").map((c) => c.toLowerCase() as SignalChannelName));
  const bootstrapServers = s
    .list("signal.kafka.bootstrap.servers")
    .map((server) => server.trim())
    .filter(Boolean);
  if (channels.has("kafka") && bootstrapServers.length === 0)
    throw new ConfigError(
      "signal.kafka.bootstrap.servers",
      "",
      "the Kafka cluster of the signal topic is required when signal.enabled.channels includes kafka",
    );
  return {
    channels,
    pollIntervalMs: s.int("signal.poll.interval.ms"),
    kafka: {
      topic: s.optionalString("signal.kafka.topic") ?? `${s.string("topic.prefix")}-signal`,
      bootstrapServers,
      groupId: s.string("signal.kafka.groupId"),
      pollTimeoutMs: s.int("signal.kafka.poll.timeout.ms"),
      consumer: channels.has("kafka") ? signalConsumerSettings(props) : {},
    },
    file: s.string("signal.file"),
  };
}

const isNotificationChannel = (c: string): c is NotificationChannelName =>
  (NOTIFICATION_CHANNELS as readonly string[]).includes(c);

/**
 * Each table of snapshot.select.statement.overrides with its statement. Debezium warns about a table
 * without one and reads it whole; Sluice refuses that, as the rows it meant to leave out would be read.
 */
function selectOverrides(s: ParsedSettings, props: Record<string, string>): Map<string, string> {
  const overrides = new Map<string, string>();
  for (const table of s.list("snapshot.select.statement.overrides")) {
    if (table === "") continue;
    const name = `${SELECT_OVERRIDE_PREFIX}${table}`;
    const statement = props[name]?.trim();
    if (!statement)
      throw new ConfigError(
        name,
        statement ?? "",
        `a SELECT statement is required: snapshot.select.statement.overrides names ${table}`,
      );
    overrides.set(table, statement);
  }
  return overrides;
}

const PUBLISHED = [
  ["c", "insert"],
  ["u", "update"],
  ["d", "delete"],
  ["t", "truncate"],
] as const;

function publishedOperations(given: string[] | null): string | null {
  const skipped = given?.filter((op) => op !== "") ?? [];
  if (skipped.length === 0 || skipped.includes("none")) return null;
  return PUBLISHED.filter(([op]) => !skipped.includes(op))
    .map(([, name]) => name)
    .join(",");
}
/** `schema.table` (a name without schema is in `public`, as PostgreSQL's default search path). */
function tableNameOf(name: string | undefined): { schema: string; table: string } | null {
  if (name === undefined || name.trim() === "") return null;
  const dot = name.indexOf(".");
  return dot < 0
    ? { schema: "public", table: name.trim() }
    : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

function lower(s: ParsedSettings, name: string): string {
  return s.string(name).toLowerCase();
}

function patterns(s: ParsedSettings, name: string): RegExp[] {
  return s
    .list(name)
    .filter((p) => p !== "")
    .map((p) => new RegExp(`^(?:${p})$`, "i"));
}

const matchesAny = (patterns: readonly RegExp[], name: string) => patterns.some((p) => p.test(name));

/** Whether the filters capture this table (Debezium's RelationalTableFilters). */
export function capturesTable(filters: CaptureFilters, schema: string, table: string): boolean {
  if (filters.schemaInclude.length > 0 && !matchesAny(filters.schemaInclude, schema)) return false;
  if (matchesAny(filters.schemaExclude, schema)) return false;
  const name = `${schema}.${table}`;
  if (filters.tableInclude.length > 0) return matchesAny(filters.tableInclude, name);
  return !matchesAny(filters.tableExclude, name);
}

export function capturesColumn(filters: CaptureFilters, schema: string, table: string, column: string): boolean {
  const name = `${schema}.${table}.${column}`;
  if (filters.columnInclude.length > 0) return matchesAny(filters.columnInclude, name);
  return !matchesAny(filters.columnExclude, name);
}
