// One put() = one transaction (Confluent's JdbcDbWriter): records are grouped by table into runs of
// the same kind (write or delete) and schemas, tables are created/evolved first (DDL outside the
// transaction, since MySQL commits implicitly on DDL), then every statement runs in a single
// transaction. When write() resolves the rows are committed, so the offsets of these records are safe.
import type { Schema } from "../../connect/api/data/index.ts";
import { ConnectException } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import type { Database, SqlSession } from "./database.ts";
import { dialectFor } from "./dialects.ts";
import { keyValues, nonKeyValues, recordLayout, type RecordLayout } from "./record-fields.ts";
import type { JdbcSinkConfig } from "./settings.ts";
import { sqlParam, type SqlParam } from "./sql-values.ts";
import { SqlBuilder, tableIdOf, tableIdToString, type TableId } from "./statements.ts";
import { TableStructure } from "./table-structure.ts";

/** Both databases cap the number of bound parameters of one statement at 65535. */
const MAX_PARAMETERS = 65535;

interface Run {
  table: TableId;
  isDelete: boolean;
  keySchema: Schema | null;
  valueSchema: Schema | null;
  layout: RecordLayout;
  records: SinkRecord[];
}

interface Statement {
  sql: string;
  params: SqlParam[];
}

function sameSchema(a: Schema | null, b: Schema | null): boolean {
  return a === b || (a !== null && b !== null && a.equals(b));
}

export class JdbcWriter {
  private readonly sql: SqlBuilder;
  private readonly structure: TableStructure;

  constructor(
    private readonly config: JdbcSinkConfig,
    private readonly db: Database,
  ) {
    this.sql = new SqlBuilder(dialectFor(config.target.dialect), config.quoteIdentifiers);
    this.structure = new TableStructure(db, this.sql, config);
  }

  async write(records: readonly SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    const runs = this.runs(records);
    const statements: Statement[] = [];
    for (const run of runs) {
      if (run.isDelete) {
        // Nothing to delete from a table that does not exist, and a tombstone never creates one.
        if (await this.structure.exists(run.table)) statements.push(...this.deletes(run));
      } else {
        await this.structure.ensure(run.table, [...run.layout.keyFields, ...run.layout.nonKeyFields]);
        statements.push(...this.writes(run));
      }
    }
    try {
      await this.db.transaction((session) => executeAll(session, statements));
    } catch (err) {
      this.structure.forget();
      throw err;
    }
  }

  /** Consecutive records of one table with the same kind and schemas share a run (and a layout). */
  private runs(records: readonly SinkRecord[]): Run[] {
    const runs: Run[] = [];
    const lastByTable = new Map<string, Run>();
    for (const record of records) {
      const isDelete = record.value === null || record.value === undefined;
      this.validate(record, isDelete);
      const name = this.config.tableNameFormat.replaceAll("${topic}", record.topic);
      const valueSchema = isDelete ? null : record.valueSchema;
      const last = lastByTable.get(name);
      if (
        last &&
        last.isDelete === isDelete &&
        sameSchema(last.keySchema, record.keySchema) &&
        sameSchema(last.valueSchema, valueSchema)
      ) {
        last.records.push(record);
        continue;
      }
      const table = tableIdOf(name);
      const layout = recordLayout(this.config, tableIdToString(table), record.keySchema, valueSchema);
      const run: Run = { table, isDelete, keySchema: record.keySchema, valueSchema, layout, records: [record] };
      runs.push(run);
      lastByTable.set(name, run);
    }
    return runs;
  }

  private validate(record: SinkRecord, isDelete: boolean): void {
    const where = `(topic='${record.topic}',partition=${record.kafkaPartition},offset=${record.kafkaOffset},timestamp=${record.timestamp})`;
    if (isDelete) {
      if (!this.config.deleteEnabled)
        throw new ConnectException(
          `Sink connector is configured with 'delete.enabled=false' and 'pk.mode=${this.config.pkMode}' and therefore requires records with a non-null Struct value and non-null Struct schema, but found record at ${where} with a null value and ${record.valueSchema === null ? "null" : record.valueSchema.type} value schema.`,
        );
      return;
    }
    if (record.valueSchema === null || record.valueSchema.type !== "STRUCT")
      throw new ConnectException(
        `Sink connector requires records with a non-null Struct value and non-null Struct schema, but found record at ${where} with a ${typeof record.value} value and ${record.valueSchema === null ? "null" : record.valueSchema.type} value schema. Use a converter with schemas (e.g. JsonConverter with schemas.enable=true, or Avro).`,
      );
  }

  private params(run: Run, record: SinkRecord): { keys: SqlParam[]; values: SqlParam[] } {
    const dialect = this.config.target.dialect;
    const keys = keyValues(this.config, run.layout, record).map((v, i) =>
      sqlParam(v, run.layout.keyFields[i]!.schema, dialect, this.config.clock),
    );
    const values = run.isDelete
      ? []
      : nonKeyValues(run.layout, record).map((v, i) =>
          sqlParam(v, run.layout.nonKeyFields[i]!.schema, dialect, this.config.clock),
        );
    return { keys, values };
  }

  private requireKeys(run: Run, mode: string): string[] {
    const keys = run.layout.keyFields.map((f) => f.name);
    if (keys.length === 0)
      throw new ConnectException(
        `Write to table '${tableIdToString(run.table)}' in ${mode} mode requires key field names to be known, check the primary key configuration`,
      );
    return keys;
  }

  private writes(run: Run): Statement[] {
    const nonKeyColumns = run.layout.nonKeyFields.map((f) => f.name);
    if (this.config.insertMode === "update") {
      const keyColumns = this.requireKeys(run, "UPDATE");
      // A table made of key columns only has nothing to update.
      if (nonKeyColumns.length === 0) return [];
      const sql = this.sql.update(run.table, keyColumns, nonKeyColumns);
      return run.records.map((record) => {
        const { keys, values } = this.params(run, record);
        return { sql, params: [...values, ...keys] };
      });
    }
    const upsert = this.config.insertMode === "upsert";
    const keyColumns = upsert ? this.requireKeys(run, "UPSERT") : run.layout.keyFields.map((f) => f.name);
    const width = keyColumns.length + nonKeyColumns.length;
    const maxRows = Math.max(1, Math.min(this.config.batchSize, Math.floor(MAX_PARAMETERS / width)));
    const statements: Statement[] = [];
    let rows: SqlParam[][] = [];
    let keysInChunk = new Set<string>();
    const emit = () => {
      if (rows.length === 0) return;
      statements.push({
        sql: this.sql.insert(run.table, keyColumns, nonKeyColumns, rows.length, upsert),
        params: rows.flat(),
      });
      rows = [];
      keysInChunk = new Set();
    };
    for (const record of run.records) {
      const { keys, values } = this.params(run, record);
      // PostgreSQL refuses an upsert touching the same row twice in one statement: start a new one.
      const identity = upsert ? keyIdentity(keys) : "";
      if (rows.length >= maxRows || (upsert && keysInChunk.has(identity))) emit();
      keysInChunk.add(identity);
      rows.push([...keys, ...values]);
    }
    emit();
    return statements;
  }

  private deletes(run: Run): Statement[] {
    const sql = this.sql.delete(run.table, this.requireKeys(run, "DELETE"));
    return run.records.map((record) => ({ sql, params: this.params(run, record).keys }));
  }
}

function keyIdentity(keys: SqlParam[]): string {
  return JSON.stringify(keys.map((k) => (k instanceof Uint8Array ? Buffer.from(k).toString("base64") : k)));
}

/**
 * Issues every statement without waiting for the previous one: both clients send them in order on the
 * transaction's connection (PostgreSQL pipelines them), and the first failure rolls everything back.
 */
async function executeAll(session: SqlSession, statements: readonly Statement[]): Promise<void> {
  await Promise.all(statements.map((s) => session.execute(s.sql, s.params)));
}
