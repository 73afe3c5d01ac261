// Confluent's JdbcSinkConfig settings (names, defaults, allowed values), and the checks across settings
// that Confluent makes when the task starts.
import { ConfigError, SettingsDefinition } from "../../platform/settings.ts";
import { jdbcSinkUnsupportedSettings } from "./unsupported-settings.ts";
import { ConnectException } from "../../connect/api/connector.ts";
import { parseConnectionUrl, type ConnectionTarget } from "./connection-url.ts";
import { wallClock, type WallClock } from "./sql-values.ts";

export type InsertMode = "insert" | "upsert" | "update";
export type PkMode = "none" | "kafka" | "record_key" | "record_value";

export const KAFKA_PK_NAMES = ["__connect_topic", "__connect_partition", "__connect_offset"] as const;

/** A URL whose subprotocol no dialect serves is refused while validating, not when the task starts. */
function urlProblem(value: unknown): string | undefined {
  try {
    parseConnectionUrl(String(value));
    return undefined;
  } catch (err) {
    return err instanceof ConfigError ? err.allowed : String(err);
  }
}

export const jdbcSinkSettings = new SettingsDefinition([
  {
    name: "connection.url",
    type: "string",
    required: true,
    validate: urlProblem,
    importance: "high",
    group: "Connection",
    displayName: "JDBC URL",
    doc: "JDBC connection URL: jdbc:postgresql://host:port/db, jdbc:mysql://host:port/db or jdbc:mariadb://host:port/db.",
  },
  {
    name: "connection.user",
    aliases: ["connection.username"],
    type: "string",
    importance: "high",
    group: "Connection",
    displayName: "JDBC User",
    doc: "JDBC connection user.",
  },
  {
    name: "connection.password",
    type: "password",
    importance: "high",
    group: "Connection",
    displayName: "JDBC Password",
    doc: "JDBC connection password.",
  },
  {
    name: "connection.attempts",
    type: "int",
    default: 3,
    min: 1,
    importance: "low",
    group: "Connection",
    doc: "Maximum number of attempts to get a valid JDBC connection.",
  },
  {
    name: "connection.backoff.ms",
    type: "long",
    default: 10000,
    min: 0,
    importance: "low",
    group: "Connection",
    doc: "Backoff time in milliseconds between connection attempts.",
  },
  {
    name: "dialect.name",
    type: "string",
    default: "",
    oneOf: ["", "PostgreSqlDatabaseDialect", "MySqlDatabaseDialect"],
    importance: "low",
    group: "Connection",
    doc: "The database dialect; empty chooses it from connection.url.",
  },
  {
    name: "insert.mode",
    type: "string",
    default: "insert",
    oneOf: ["insert", "upsert", "update"],
    importance: "high",
    group: "Writes",
    doc: "insert: plain INSERT; upsert: INSERT ... ON CONFLICT/ON DUPLICATE KEY UPDATE; update: UPDATE by primary key.",
  },
  {
    name: "batch.size",
    type: "int",
    default: 3000,
    min: 0,
    importance: "medium",
    group: "Writes",
    doc: "How many records to write together in one statement, when possible.",
  },
  {
    name: "delete.enabled",
    type: "boolean",
    default: false,
    importance: "medium",
    group: "Writes",
    doc: "Whether to treat null record values as deletes. Requires pk.mode to be record_key.",
  },
  {
    name: "table.name.format",
    type: "string",
    default: "${topic}",
    importance: "medium",
    group: "Data Mapping",
    doc: "Destination table name; '${topic}' is replaced by the record's topic.",
  },
  {
    name: "pk.mode",
    type: "string",
    default: "none",
    oneOf: ["none", "kafka", "record_key", "record_value"],
    importance: "high",
    group: "Data Mapping",
    doc: "Where the primary key comes from: none, kafka (topic, partition, offset), record_key or record_value.",
  },
  {
    name: "pk.fields",
    type: "list",
    default: [],
    importance: "medium",
    group: "Data Mapping",
    doc: "Primary key field names; their meaning depends on pk.mode.",
  },
  {
    name: "fields.whitelist",
    aliases: ["fields.include"],
    type: "list",
    default: [],
    importance: "medium",
    group: "Data Mapping",
    doc: "Record value fields to write (all when empty); primary key fields are chosen by pk.fields.",
  },
  {
    name: "auto.create",
    type: "boolean",
    default: false,
    importance: "medium",
    group: "DDL Support",
    doc: "Whether to CREATE the destination table from the record schema when it is missing.",
  },
  {
    name: "auto.evolve",
    type: "boolean",
    default: false,
    importance: "medium",
    group: "DDL Support",
    doc: "Whether to ALTER the destination table to ADD columns missing relative to the record schema.",
  },
  {
    name: "quote.sql.identifiers",
    type: "string",
    default: "always",
    oneOf: ["always", "never"],
    importance: "medium",
    group: "DDL Support",
    doc: "When to quote table and column names in SQL statements.",
  },
  {
    name: "db.timezone",
    type: "string",
    default: "UTC",
    importance: "medium",
    group: "Writes",
    displayName: "DB Time Zone",
    doc: "Name of the time zone whose wall-clock time is written for Timestamp, Date and Time values.",
  },
  {
    name: "max.retries",
    type: "int",
    default: 10,
    min: 0,
    importance: "medium",
    group: "Retries",
    doc: "The maximum number of times to retry on database errors before failing the task.",
  },
  {
    name: "retry.backoff.ms",
    type: "int",
    default: 3000,
    min: 0,
    importance: "medium",
    group: "Retries",
    doc: "The time in milliseconds to wait after a database error before retrying.",
  },
  ...jdbcSinkUnsupportedSettings,
]);

export interface JdbcSinkConfig {
  target: ConnectionTarget;
  user: string | undefined;
  password: string | undefined;
  connectionAttempts: number;
  connectionBackoffMs: number;
  insertMode: InsertMode;
  batchSize: number;
  deleteEnabled: boolean;
  tableNameFormat: string;
  pkMode: PkMode;
  pkFields: string[];
  fieldsWhitelist: string[];
  autoCreate: boolean;
  autoEvolve: boolean;
  quoteIdentifiers: boolean;
  maxRetries: number;
  retryBackoffMs: number;
  timeZone: string;
  clock: WallClock;
}

/** Typed settings; throws ConfigError or ConnectException (Confluent's messages) on bad combinations. */
export function parseJdbcSinkConfig(props: Record<string, string>): JdbcSinkConfig {
  const v = jdbcSinkSettings.parse(props).values;
  const url = v.string("connection.url");
  const dialectName = v.string("dialect.name");
  const target = parseConnectionUrl(url);
  if (dialectName === "PostgreSqlDatabaseDialect") target.dialect = "postgresql";
  if (dialectName === "MySqlDatabaseDialect") target.dialect = "mysql";
  const pkMode = v.string("pk.mode") as PkMode;
  const deleteEnabled = v.boolean("delete.enabled");
  if (deleteEnabled && pkMode !== "record_key")
    throw new ConfigError("pk.mode", pkMode, "Primary key mode must be 'record_key' when delete support is enabled");
  const pkFields = v.list("pk.fields");
  if (pkMode === "kafka" && pkFields.length !== 0 && pkFields.length !== KAFKA_PK_NAMES.length)
    throw new ConnectException(
      `PK mode is kafka so there should either be no field names defined for defaults ${KAFKA_PK_NAMES.join(",")} to be applicable, or exactly 3, defined fields are: ${pkFields.join(",")}`,
    );
  const timeZone = v.string("db.timezone");
  let clock: WallClock;
  try {
    clock = wallClock(timeZone);
  } catch {
    throw new ConfigError("db.timezone", timeZone, "Invalid time zone identifier");
  }
  return {
    target,
    user: v.optionalString("connection.user") ?? target.user,
    password: v.optionalString("connection.password") ?? target.password,
    connectionAttempts: v.int("connection.attempts"),
    connectionBackoffMs: v.int("connection.backoff.ms"),
    insertMode: v.string("insert.mode") as InsertMode,
    batchSize: v.int("batch.size"),
    deleteEnabled,
    tableNameFormat: v.string("table.name.format"),
    pkMode,
    pkFields,
    fieldsWhitelist: v.list("fields.whitelist"),
    autoCreate: v.boolean("auto.create"),
    autoEvolve: v.boolean("auto.evolve"),
    quoteIdentifiers: v.string("quote.sql.identifiers") === "always",
    maxRetries: v.int("max.retries"),
    retryBackoffMs: v.int("retry.backoff.ms"),
    timeZone,
    clock,
  };
}
