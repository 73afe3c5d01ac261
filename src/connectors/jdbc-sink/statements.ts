// The SQL the sink runs, built from names only: values are always bound parameters (placeholders), the
// one exception being column DEFAULTs in DDL, which cannot be parameters and are written as escaped
// literals. Pure functions, so every dialect/mode combination is unit-testable.
import { BigDecimal, type Schema } from "../../connect/api/data/index.ts";
import type { Dialect, SinkField } from "./dialects.ts";

/** `table` or `schema.table` (MySQL: `database.table`), as table.name.format produced it. */
export interface TableId {
  readonly schema: string | null;
  readonly table: string;
}

export function tableIdOf(name: string): TableId {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? { schema: null, table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

export function tableIdToString(id: TableId): string {
  return id.schema === null ? id.table : `${id.schema}.${id.table}`;
}

export class SqlBuilder {
  constructor(
    readonly dialect: Dialect,
    readonly quoteIdentifiers: boolean,
  ) {}

  identifier(name: string): string {
    if (!this.quoteIdentifiers) return name;
    const q = this.dialect.quote;
    return q + name.replaceAll(q, q + q) + q;
  }

  table(id: TableId): string {
    return id.schema === null
      ? this.identifier(id.table)
      : `${this.identifier(id.schema)}.${this.identifier(id.table)}`;
  }

  /** CREATE TABLE with the key fields as PRIMARY KEY; optional fields are NULL, the others NOT NULL. */
  createTable(id: TableId, fields: readonly SinkField[]): string {
    const columns = fields.map((f) => this.columnDefinition(f));
    const keys = fields.filter((f) => f.isPrimaryKey).map((f) => this.identifier(f.name));
    if (keys.length > 0) columns.push(`PRIMARY KEY(${keys.join(",")})`);
    return `CREATE TABLE ${this.table(id)} (\n${columns.join(",\n")})`;
  }

  /** One ALTER TABLE adding every missing column. */
  alterTable(id: TableId, fields: readonly SinkField[]): string {
    return `ALTER TABLE ${this.table(id)} ${fields.map((f) => `ADD ${this.columnDefinition(f)}`).join(", ")}`;
  }

  /** A multi-row INSERT (or upsert) of `rows` rows; parameters row by row, key columns first. */
  insert(
    id: TableId,
    keyColumns: readonly string[],
    nonKeyColumns: readonly string[],
    rows: number,
    upsert: boolean,
  ): string {
    const columns = [...keyColumns, ...nonKeyColumns];
    const width = columns.length;
    const tuples = Array.from(
      { length: rows },
      (_, r) => `(${columns.map((_, c) => this.dialect.placeholder(r * width + c + 1)).join(",")})`,
    );
    const insert = `INSERT INTO ${this.table(id)}(${this.columnList(columns)}) VALUES ${tuples.join(",")}`;
    return upsert ? `${insert} ${this.upsertClause(keyColumns, nonKeyColumns)}` : insert;
  }

  private upsertClause(keyColumns: readonly string[], nonKeyColumns: readonly string[]): string {
    return this.dialect.upsertClause(
      keyColumns.map((c) => this.identifier(c)),
      nonKeyColumns.map((c) => this.identifier(c)),
    );
  }

  private columnList(columns: readonly string[]): string {
    return columns.map((c) => this.identifier(c)).join(",");
  }

  /**
   * PostgreSQL: a temporary table with `columns` of the target's own types, dropped at commit, which a
   * COPY fills before one INSERT … SELECT or DELETE … USING applies it to the target.
   */
  stageTable(stage: string, id: TableId, columns: readonly string[]): string {
    return `CREATE TEMP TABLE ${stage} ON COMMIT DROP AS SELECT ${this.columnList(columns)} FROM ${this.table(id)} WITH NO DATA`;
  }

  /** PostgreSQL: `COPY … FROM STDIN` in the text format, into a table (or stage) by name. */
  copyFrom(table: string, columns: readonly string[]): string {
    return `COPY ${table}(${this.columnList(columns)}) FROM STDIN`;
  }

  /** The staged rows upserted into the target (inserts COPY straight into the target instead). */
  upsertFromStage(id: TableId, stage: string, keyColumns: readonly string[], nonKeyColumns: readonly string[]): string {
    const columns = this.columnList([...keyColumns, ...nonKeyColumns]);
    return `INSERT INTO ${this.table(id)}(${columns}) SELECT ${columns} FROM ${stage} ${this.upsertClause(keyColumns, nonKeyColumns)}`;
  }

  /** The target's rows whose keys are staged, deleted. */
  deleteFromStage(id: TableId, stage: string, keyColumns: readonly string[]): string {
    const match = keyColumns.map((c) => `d.${this.identifier(c)} = s.${this.identifier(c)}`).join(" AND ");
    return `DELETE FROM ${this.table(id)} AS d USING ${stage} AS s WHERE ${match}`;
  }

  /** UPDATE by primary key; parameters: the non-key columns, then the key columns. */
  update(id: TableId, keyColumns: readonly string[], nonKeyColumns: readonly string[]): string {
    const set = nonKeyColumns.map((c, i) => `${this.identifier(c)} = ${this.dialect.placeholder(i + 1)}`);
    return `UPDATE ${this.table(id)} SET ${set.join(", ")} WHERE ${this.keyCondition(keyColumns, nonKeyColumns.length)}`;
  }

  /** DELETE by primary key; parameters: the key columns. */
  delete(id: TableId, keyColumns: readonly string[]): string {
    return `DELETE FROM ${this.table(id)} WHERE ${this.keyCondition(keyColumns, 0)}`;
  }

  private keyCondition(keyColumns: readonly string[], offset: number): string {
    return keyColumns
      .map((c, i) => `${this.identifier(c)} = ${this.dialect.placeholder(offset + i + 1)}`)
      .join(" AND ");
  }

  private columnDefinition(field: SinkField): string {
    const parts = [this.identifier(field.name), this.dialect.columnType(field)];
    const literal = defaultLiteral(field.schema, this.dialect);
    if (literal !== undefined) parts.push(`DEFAULT ${literal}`);
    parts.push(field.schema.optional ? "NULL" : "NOT NULL");
    return parts.join(" ");
  }
}

/** The schema's default as a SQL literal, for the types that have a safe literal form. */
function defaultLiteral(schema: Schema, dialect: Dialect): string | undefined {
  const value = schema.defaultValue;
  if (value === null || value === undefined) return undefined;
  if (value instanceof BigDecimal) return value.toPlainString();
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? String(value) : undefined;
    case "bigint":
      return String(value);
    case "boolean":
      return dialect.name === "postgresql" ? String(value).toUpperCase() : value ? "1" : "0";
    case "string":
      return dialect.stringLiteral(value);
    default:
      // Dates and bytes: no default in the DDL (as a NOT NULL column, an ALTER then needs an empty table).
      return undefined;
  }
}
