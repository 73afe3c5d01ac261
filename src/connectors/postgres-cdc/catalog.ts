// What the Relation message does not say, read from the catalog over an ordinary connection: the
// primary key, nullability, defaults and the user types (enum labels, array elements) of a table's columns;
// the tables the filters capture; and the publication pgoutput streams.
import type { Sql } from "postgres";
import { ConnectException } from "../../connect/api/connector.ts";
import { capturesTable, type AutocreateMode, type CaptureFilters } from "./config.ts";
import { quoteIdentifier } from "./replication-connection.ts";
import { EXTENSION_TYPES, type ExtensionTypeName, type UserType } from "./column-types.ts";

export interface CatalogColumn {
  readonly name: string;
  readonly typeOid: number;
  readonly typeModifier: number;
  /** pg_type.typname (int4, varchar, bpchar, an enum's name, ...): Debezium's name of the type. */
  readonly typeName: string;
  readonly optional: boolean;
  readonly isPrimaryKey: boolean;
  /** DEFAULT as pg_get_expr prints it (JDBC's COLUMN_DEF), or null. */
  readonly defaultExpression: string | null;
}

export interface TableName {
  readonly schema: string;
  readonly table: string;
}

export interface CatalogTable {
  /** In column order, without dropped and generated columns (those pgoutput does not send). */
  readonly columns: readonly CatalogColumn[];
  readonly userTypes: ReadonlyMap<number, UserType>;
}

export async function describeTable(sql: Sql, name: TableName): Promise<CatalogTable> {
  const rows = await sql<
    {
      name: string;
      type_oid: string;
      type_modifier: number;
      type_name: string;
      not_null: boolean;
      primary_key: boolean;
      default_expression: string | null;
    }[]
  >`
    SELECT a.attname AS name, a.atttypid::int8 AS type_oid, a.atttypmod AS type_modifier, t.typname AS type_name,
           a.attnotnull AS not_null,
           COALESCE(a.attnum = ANY(i.indkey), false) AS primary_key, pg_get_expr(d.adbin, d.adrelid) AS default_expression
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_type t ON t.oid = a.atttypid
      LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname = ${name.schema} AND c.relname = ${name.table} AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     ORDER BY a.attnum`;
  const columns = rows.map((r) => ({
    name: r.name,
    typeOid: Number(r.type_oid),
    typeModifier: r.type_modifier,
    typeName: r.type_name,
    optional: !r.not_null,
    isPrimaryKey: r.primary_key,
    defaultExpression: r.default_expression,
  }));
  return {
    columns,
    userTypes: await userTypes(
      sql,
      columns.map((c) => c.typeOid),
    ),
  };
}

/**
 * Enums, arrays and the extension types Debezium knows (citext, ...) among these types (and the enums
 * those arrays hold). Built-in types need no entry.
 */
async function userTypes(sql: Sql, oids: number[]): Promise<Map<number, UserType>> {
  const rows = await sql<{ oid: string; type_type: string; element: string; name: string; labels: string[] }[]>`
    SELECT t.oid::int8 AS oid, t.typtype AS type_type, t.typelem::int8 AS element, t.typname AS name,
           ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS labels
      FROM pg_type t
     WHERE t.oid = ANY(${oids}::oid[])
        OR t.oid IN (SELECT typelem FROM pg_type WHERE oid = ANY(${oids}::oid[]) AND typcategory = 'A')`;
  const types = new Map<number, UserType>();
  for (const row of rows) {
    if (row.type_type === "e") types.set(Number(row.oid), { kind: "enum", values: row.labels });
    else if (row.type_type === "b" && (EXTENSION_TYPES as readonly string[]).includes(row.name))
      types.set(Number(row.oid), { kind: "extension", name: row.name as ExtensionTypeName });
    else if (Number(row.element) !== 0) types.set(Number(row.oid), { kind: "array", elementOid: Number(row.element) });
  }
  return types;
}

/** A type as a query's result reports it: a domain's base type (however deep), its name, whether an enum. */
export interface ResultType {
  readonly oid: number;
  readonly name: string;
  readonly isEnum: boolean;
}

/** The result type of each of these column types (PostgreSQL sends a domain's base type in row descriptions). */
export async function resultTypes(sql: Sql, oids: number[]): Promise<Map<number, ResultType>> {
  const rows = await sql<{ oid: string; base: string; name: string; type_type: string }[]>`
    WITH RECURSIVE resolved(oid, current) AS (
      SELECT t.oid, t.oid FROM pg_type t WHERE t.oid = ANY(${oids}::oid[])
      UNION ALL
      SELECT r.oid, t.typbasetype FROM resolved r JOIN pg_type t ON t.oid = r.current WHERE t.typtype = 'd'
    )
    SELECT r.oid::int8 AS oid, t.oid::int8 AS base, t.typname AS name, t.typtype AS type_type
      FROM resolved r JOIN pg_type t ON t.oid = r.current
     WHERE t.typtype <> 'd'`;
  return new Map(rows.map((r) => [Number(r.oid), { oid: Number(r.base), name: r.name, isEnum: r.type_type === "e" }]));
}

/** Ordinary and partitioned tables the filters capture, in name order (the snapshot's order). */
export async function capturedTables(sql: Sql, filters: CaptureFilters): Promise<TableName[]> {
  const rows = await sql<TableName[]>`
    SELECT n.nspname AS schema, c.relname AS table
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'
     ORDER BY 1, 2`;
  return rows
    .map((r) => ({ schema: r.schema, table: r.table }))
    .filter((t) => capturesTable(filters, t.schema, t.table));
}

/** Makes sure the publication exists as publication.autocreate.mode asks. */
export async function ensurePublication(
  sql: Sql,
  publication: string,
  mode: AutocreateMode,
  filters: CaptureFilters,
  /** The publication's `publish` parameter when Sluice creates it (as Debezium, from skipped.operations), or null for all. */
  publish: string | null = null,
  /** Published besides the captured tables in `filtered` mode: the signalling table, as Debezium's filter has it. */
  alsoPublished: readonly TableName[] = [],
): Promise<void> {
  const existing = await sql`SELECT 1 FROM pg_publication WHERE pubname = ${publication}`;
  const name = quoteIdentifier(publication);
  const withPublish = publish === null ? "" : ` WITH (publish = '${publish}')`;
  switch (mode) {
    case "disabled":
      if (existing.length === 0)
        throw new ConnectException(
          `Publication '${publication}' does not exist and publication.autocreate.mode is 'disabled'`,
        );
      return;
    case "all_tables":
      if (existing.length === 0) await sql.unsafe(`CREATE PUBLICATION ${name} FOR ALL TABLES${withPublish}`);
      return;
    case "no_tables":
      if (existing.length === 0) await sql.unsafe(`CREATE PUBLICATION ${name}${withPublish}`);
      return;
    case "filtered": {
      const tables = await capturedTables(sql, filters);
      for (const extra of alsoPublished)
        if (!tables.some((t) => t.schema === extra.schema && t.table === extra.table)) tables.push(extra);
      if (tables.length === 0)
        throw new ConnectException(
          `No table matches the filters, so publication '${publication}' (publication.autocreate.mode 'filtered') would be empty`,
        );
      const list = tables.map((t) => `${quoteIdentifier(t.schema)}.${quoteIdentifier(t.table)}`).join(", ");
      await sql.unsafe(
        existing.length === 0
          ? `CREATE PUBLICATION ${name} FOR TABLE ${list}${withPublish}`
          : `ALTER PUBLICATION ${name} SET TABLE ${list}`,
      );
      return;
    }
  }
}
