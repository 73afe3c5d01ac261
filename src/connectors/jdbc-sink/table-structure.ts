// Makes a table fit the columns records need (Confluent's DbStructure): CREATE it when missing
// (auto.create), ADD missing columns (auto.evolve), never drop or change existing ones. What cannot be
// applied fails with Confluent's message. Column sets are cached per table and re-read after DDL.
import { logger } from "../../platform/log.ts";
import { ConnectException } from "../../connect/api/connector.ts";
import type { Database } from "./database.ts";
import type { SinkField } from "./dialects.ts";
import { tableIdToString, type SqlBuilder, type TableId } from "./statements.ts";

const log = logger("jdbc-sink");

/** A table that cannot be made to fit the records (Confluent's TableAlterOrCreateException). */
export class TableAlterOrCreateException extends ConnectException {
  override readonly name = "io.confluent.connect.jdbc.sink.TableAlterOrCreateException";
}

export class TableStructure {
  private readonly known = new Map<string, Set<string>>();

  constructor(
    private readonly db: Database,
    private readonly sql: SqlBuilder,
    private readonly options: { autoCreate: boolean; autoEvolve: boolean },
  ) {}

  /** Whether the table exists (for deletes, which never create one). */
  async exists(table: TableId): Promise<boolean> {
    return (await this.columns(table)) !== null;
  }

  async ensure(table: TableId, fields: readonly SinkField[]): Promise<void> {
    const name = tableIdToString(table);
    let columns = await this.columns(table);
    if (columns === null) {
      if (!this.options.autoCreate)
        throw new TableAlterOrCreateException(`Table ${name} is missing and auto-creation is disabled`);
      const failure = await this.applyDdl(table, this.sql.createTable(table, fields));
      columns = await this.columns(table);
      if (columns === null) throw new TableAlterOrCreateException(`Failed to create table ${name}`, failure);
    }
    const missing = missingFields(fields, columns);
    if (missing.length === 0) return;
    for (const field of missing) {
      if (!field.schema.optional && field.schema.defaultValue === null)
        throw new TableAlterOrCreateException(
          `Cannot ALTER TABLE ${name} to add missing field ${field.name}, as it is not optional and does not have a default value`,
        );
    }
    if (!this.options.autoEvolve)
      throw new TableAlterOrCreateException(
        `Table ${name} is missing fields (${missing.map((f) => f.name).join(", ")}) and auto-evolution is disabled`,
      );
    const failure = await this.applyDdl(table, this.sql.alterTable(table, missing));
    const after = await this.columns(table);
    const still = after === null ? missing : missingFields(missing, after);
    if (still.length > 0)
      throw new TableAlterOrCreateException(
        `Failed to amend table '${name}' to add missing fields: ${still.map((f) => f.name).join(", ")}`,
        failure,
      );
  }

  /** Drops cached column sets (after a failed write the table may have changed under us). */
  forget(): void {
    this.known.clear();
  }

  /**
   * Runs DDL and returns its error instead of throwing: the caller re-reads the table first, since
   * another task may have made the same change at the same time.
   */
  private async applyDdl(table: TableId, statement: string): Promise<unknown> {
    this.known.delete(this.cacheKey(table));
    try {
      await this.db.ddl(statement);
      log.info({ table: tableIdToString(table), statement }, `ran DDL: ${statement.replace(/\s+/g, " ")}`);
      return undefined;
    } catch (err) {
      return err;
    }
  }

  private async columns(table: TableId): Promise<Set<string> | null> {
    const key = this.cacheKey(table);
    const cached = this.known.get(key);
    if (cached) return cached;
    // Unquoted names are stored the way the server folds them (PostgreSQL: lower case).
    const stored = this.sql.quoteIdentifiers
      ? table
      : {
          schema: table.schema && this.sql.dialect.unquotedName(table.schema),
          table: this.sql.dialect.unquotedName(table.table),
        };
    const columns = await this.db.columns(stored);
    if (columns !== null) this.known.set(key, columns);
    return columns;
  }

  private cacheKey(table: TableId): string {
    return tableIdToString(table);
  }
}

/** Fields without a column, by exact name and then ignoring case (as Confluent). */
function missingFields(fields: readonly SinkField[], columns: Set<string>): SinkField[] {
  const lower = new Set([...columns].map((c) => c.toLowerCase()));
  return fields.filter((f) => !columns.has(f.name) && !lower.has(f.name.toLowerCase()));
}
