// What differs between the databases we write to, following Confluent's PostgreSqlDatabaseDialect and
// MySqlDatabaseDialect: identifier quotes, parameter placeholders, column types for auto.create and
// auto.evolve, and the upsert clause. Everything else is standard SQL in statements.ts.
import { ConnectDate, Decimal, Time, Timestamp, type Schema } from "../../connect/api/data/index.ts";
import type { DialectName } from "./connection-url.ts";

/** A column the sink writes: a record field (or Kafka coordinate) and whether it is in the primary key. */
export interface SinkField {
  readonly name: string;
  readonly schema: Schema;
  readonly isPrimaryKey: boolean;
}

export interface Dialect {
  readonly name: DialectName;
  readonly quote: string;
  /** The n-th (1-based) bound parameter. */
  placeholder(n: number): string;
  columnType(field: SinkField): string;
  /** The clause after `INSERT ... VALUES (...)` that turns it into an upsert. */
  upsertClause(keyColumns: string[], nonKeyColumns: string[]): string;
  /** The name the server stores for an unquoted identifier (PostgreSQL folds it to lower case). */
  unquotedName(name: string): string;
  /** A string literal for DEFAULT clauses (DDL cannot take parameters). */
  stringLiteral(text: string): string;
}

function logicalType(
  schema: Schema,
  types: { decimal: (scale: number) => string; date: string; time: string; timestamp: string },
): string | undefined {
  switch (schema.name) {
    case Decimal.LOGICAL_NAME:
      return types.decimal(Decimal.scale(schema));
    case ConnectDate.LOGICAL_NAME:
      return types.date;
    case Time.LOGICAL_NAME:
      return types.time;
    case Timestamp.LOGICAL_NAME:
      return types.timestamp;
    default:
      return undefined;
  }
}

const PG_TYPES: Record<string, string> = {
  INT8: "SMALLINT",
  INT16: "SMALLINT",
  INT32: "INT",
  INT64: "BIGINT",
  FLOAT32: "REAL",
  FLOAT64: "DOUBLE PRECISION",
  BOOLEAN: "BOOLEAN",
  STRING: "TEXT",
  BYTES: "BYTEA",
};

export const postgresDialect: Dialect = {
  name: "postgresql",
  quote: '"',
  placeholder: (n) => `$${n}`,
  columnType(field) {
    const type =
      logicalType(field.schema, { decimal: () => "DECIMAL", date: "DATE", time: "TIME", timestamp: "TIMESTAMP" }) ??
      PG_TYPES[field.schema.type];
    if (type === undefined)
      throw new Error(`No PostgreSQL type for field '${field.name}' of type ${field.schema.type}`);
    return type;
  },
  upsertClause(keyColumns, nonKeyColumns) {
    const conflict = `ON CONFLICT (${keyColumns.join(",")})`;
    if (nonKeyColumns.length === 0) return `${conflict} DO NOTHING`;
    return `${conflict} DO UPDATE SET ${nonKeyColumns.map((c) => `${c}=EXCLUDED.${c}`).join(",")}`;
  },
  unquotedName: (name) => name.toLowerCase(),
  stringLiteral: (text) => `'${text.replaceAll("'", "''")}'`,
};

const MYSQL_TYPES: Record<string, string> = {
  INT8: "TINYINT",
  INT16: "SMALLINT",
  INT32: "INT",
  INT64: "BIGINT",
  FLOAT32: "FLOAT",
  FLOAT64: "DOUBLE",
  BOOLEAN: "TINYINT",
  STRING: "TEXT",
  BYTES: "VARBINARY(1024)",
};

export const mysqlDialect: Dialect = {
  name: "mysql",
  quote: "`",
  placeholder: () => "?",
  columnType(field) {
    // MySQL cannot index a TEXT column without a prefix length, so string keys get a bounded VARCHAR.
    if (field.isPrimaryKey && field.schema.type === "STRING" && field.schema.name === null) return "VARCHAR(256)";
    // 65 is MySQL's maximum DECIMAL precision.
    const type =
      logicalType(field.schema, {
        decimal: (scale) => `DECIMAL(65,${scale})`,
        date: "DATE",
        time: "TIME(3)",
        timestamp: "DATETIME(3)",
      }) ?? MYSQL_TYPES[field.schema.type];
    if (type === undefined) throw new Error(`No MySQL type for field '${field.name}' of type ${field.schema.type}`);
    return type;
  },
  upsertClause(keyColumns, nonKeyColumns) {
    // VALUES() rather than MySQL 8's row alias: MariaDB knows only VALUES().
    const updated = nonKeyColumns.length === 0 ? keyColumns : nonKeyColumns;
    return `ON DUPLICATE KEY UPDATE ${updated.map((c) => `${c}=VALUES(${c})`).join(",")}`;
  },
  unquotedName: (name) => name,
  // Backslash is an escape character in MySQL string literals unless NO_BACKSLASH_ESCAPES is set.
  stringLiteral: (text) => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`,
};

export function dialectFor(name: DialectName): Dialect {
  return name === "postgresql" ? postgresDialect : mysqlDialect;
}
