// One put() = one transaction (Confluent's JdbcDbWriter): records are grouped by table into runs of
// the same kind (write or delete) and schemas, tables are created/evolved first (DDL outside the
// transaction, since MySQL commits implicitly on DDL), then every statement runs in a single
// transaction. When write() resolves the rows are committed, so the offsets of these records are safe.
// On PostgreSQL a large enough run goes in bulk: COPY straight into the table for inserts, COPY into a
// temporary stage then one INSERT … SELECT … ON CONFLICT for upserts and one DELETE … USING for
// deletes. Smaller runs, MySQL and update mode use multi-row statements, cut at batch.size rows, 65535
// parameters and (MySQL) max_allowed_packet bytes.
import type { Schema } from "../../connect/api/data/index.ts";
import { ConnectException } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import type { Database, SqlSession } from "./database.ts";
import { dialectFor } from "./dialects.ts";
import { copyText } from "./copy-text.ts";
import { keyValues, nonKeyValues, recordLayout, type RecordLayout } from "./record-fields.ts";
import type { JdbcSinkConfig } from "./settings.ts";
import { sqlParam, type SqlParam } from "./sql-values.ts";
import { SqlBuilder, tableIdOf, tableIdToString, type TableId } from "./statements.ts";
import { TableStructure } from "./table-structure.ts";

/** Both databases cap the number of bound parameters of one statement at 65535. */
const MAX_PARAMETERS = 65535;

// Where COPY starts to pay, measured with bench/jdbc-writer.ts (docs/benchmarks.md): straight into the
// table it passes a multi-row INSERT between 64 and 500 rows; through a stage, whose creation and
// drop cost a few milliseconds per transaction, an upsert needs some thousands of values to gain.
const COPY_MIN_ROWS = 200;
const STAGE_MIN_VALUES = 10_000;

/** Room left in a MySQL packet for the statement's own header and text. */
const PACKET_MARGIN = 4096;

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

/** Rows for `COPY … FROM STDIN`, in its text format. */
interface Copy {
  copy: string;
  data: string;
}

type Step = Statement | Copy;

export interface WriterOptions {
  /** Whether PostgreSQL runs go through COPY: by their size (the default), always or never. */
  copy?: "by-size" | "always" | "never";
}

function sameSchema(a: Schema | null, b: Schema | null): boolean {
  return a === b || (a !== null && b !== null && a.equals(b));
}

export class JdbcWriter {
  private readonly sql: SqlBuilder;
  private readonly structure: TableStructure;
  private readonly copy: "by-size" | "always" | "never";
  /** MySQL's max_allowed_packet, asked once. */
  private statementBytes: Promise<number | null> | undefined;
  /** Temporary stages made in the current write (they are dropped at its commit). */
  private stages = 0;

  constructor(
    private readonly config: JdbcSinkConfig,
    private readonly db: Database,
    options: WriterOptions = {},
  ) {
    this.sql = new SqlBuilder(dialectFor(config.target.dialect), config.quoteIdentifiers);
    this.structure = new TableStructure(db, this.sql, config);
    this.copy = config.target.dialect === "postgresql" ? (options.copy ?? "by-size") : "never";
  }

  async write(records: readonly SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    const runs = this.runs(records);
    const maxBytes = await this.maxStatementBytes();
    this.stages = 0;
    const steps: Step[] = [];
    for (const run of runs) {
      if (run.isDelete) {
        // Nothing to delete from a table that does not exist, and a tombstone never creates one.
        if (await this.structure.exists(run.table)) steps.push(...this.deletes(run));
      } else {
        await this.structure.ensure(run.table, [...run.layout.keyFields, ...run.layout.nonKeyFields]);
        steps.push(...this.writes(run, maxBytes));
      }
    }
    try {
      await this.db.transaction((session) => executeAll(session, steps));
    } catch (err) {
      this.structure.forget();
      throw err;
    }
  }

  private async maxStatementBytes(): Promise<number | null> {
    try {
      return await (this.statementBytes ??= this.db.maxStatementBytes());
    } catch (err) {
      this.statementBytes = undefined; // asked again with the next batch
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
    // Put together only for the message: this runs for every record.
    const where = () =>
      `(topic='${record.topic}',partition=${record.kafkaPartition},offset=${record.kafkaOffset},timestamp=${record.timestamp})`;
    if (isDelete) {
      if (!this.config.deleteEnabled)
        throw new ConnectException(
          `Sink connector is configured with 'delete.enabled=false' and 'pk.mode=${this.config.pkMode}' and therefore requires records with a non-null Struct value and non-null Struct schema, but found record at ${where()} with a null value and ${record.valueSchema === null ? "null" : record.valueSchema.type} value schema.`,
        );
      return;
    }
    if (record.valueSchema === null || record.valueSchema.type !== "STRUCT")
      throw new ConnectException(
        `Sink connector requires records with a non-null Struct value and non-null Struct schema, but found record at ${where()} with a ${typeof record.value} value and ${record.valueSchema === null ? "null" : record.valueSchema.type} value schema. Use a converter with schemas (e.g. JsonConverter with schemas.enable=true, or Avro).`,
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

  private writes(run: Run, maxBytes: number | null): Step[] {
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
    const rows = run.records.map((record) => {
      const { keys, values } = this.params(run, record);
      return [...keys, ...values];
    });
    const columns = [...keyColumns, ...nonKeyColumns];
    if (this.copies(rows.length, columns.length, upsert)) {
      if (!upsert) return this.copyRows(this.sql.table(run.table), columns, rows);
      // One INSERT … ON CONFLICT may not touch a row twice: the last record of each key is the one that counts.
      const stage = this.stageName();
      return [
        { sql: this.sql.stageTable(stage, run.table, columns), params: [] },
        ...this.copyRows(stage, columns, lastOfEachKey(rows, keyColumns.length)),
        { sql: this.sql.upsertFromStage(run.table, stage, keyColumns, nonKeyColumns), params: [] },
      ];
    }
    const width = columns.length;
    const maxRows = Math.max(1, Math.min(this.config.batchSize, Math.floor(MAX_PARAMETERS / width)));
    const budget = maxBytes === null ? Infinity : maxBytes - PACKET_MARGIN;
    const statements: Statement[] = [];
    let chunk: SqlParam[][] = [];
    let chunkBytes = 0;
    let keysInChunk = new Set<string>();
    const emit = () => {
      if (chunk.length === 0) return;
      statements.push({
        sql: this.sql.insert(run.table, keyColumns, nonKeyColumns, chunk.length, upsert),
        params: chunk.flat(),
      });
      chunk = [];
      chunkBytes = 0;
      keysInChunk = new Set();
    };
    for (const row of rows) {
      // PostgreSQL refuses an upsert touching the same row twice in one statement: start a new one.
      const identity = upsert ? keyIdentity(row.slice(0, keyColumns.length)) : "";
      const bytes = budget === Infinity ? 0 : boundBytes(row);
      if (
        chunk.length >= maxRows ||
        (upsert && keysInChunk.has(identity)) ||
        (chunk.length > 0 && chunkBytes + bytes > budget)
      )
        emit();
      keysInChunk.add(identity);
      chunk.push(row);
      chunkBytes += bytes;
    }
    emit();
    return statements;
  }

  private deletes(run: Run): Step[] {
    const keyColumns = this.requireKeys(run, "DELETE");
    const keys = run.records.map((record) => this.params(run, record).keys);
    if (this.copies(keys.length, keyColumns.length, true)) {
      const stage = this.stageName();
      return [
        { sql: this.sql.stageTable(stage, run.table, keyColumns), params: [] },
        ...this.copyRows(stage, keyColumns, keys),
        { sql: this.sql.deleteFromStage(run.table, stage, keyColumns), params: [] },
      ];
    }
    const sql = this.sql.delete(run.table, keyColumns);
    return keys.map((params) => ({ sql, params }));
  }

  /** Whether a run of `rows` rows of `width` columns goes through COPY (into a stage when `staged`). */
  private copies(rows: number, width: number, staged: boolean): boolean {
    if (this.copy !== "by-size") return this.copy === "always";
    return staged ? rows * width >= STAGE_MIN_VALUES : rows >= COPY_MIN_ROWS;
  }

  /** COPYs of batch.size rows each, so that no one document grows without bound. */
  private copyRows(table: string, columns: readonly string[], rows: readonly SqlParam[][]): Copy[] {
    const copy = this.sql.copyFrom(table, columns);
    const copies: Copy[] = [];
    for (let i = 0; i < rows.length; i += this.config.batchSize)
      copies.push({ copy, data: copyText(rows.slice(i, i + this.config.batchSize)) });
    return copies;
  }

  private stageName(): string {
    return `sluice_stage_${++this.stages}`;
  }
}

/** Rows whose key columns (the first `keyWidth`) repeat keep only their last occurrence, in order. */
function lastOfEachKey(rows: readonly SqlParam[][], keyWidth: number): SqlParam[][] {
  const last = new Map<string, number>();
  rows.forEach((row, i) => last.set(keyIdentity(row.slice(0, keyWidth)), i));
  return last.size === rows.length
    ? [...rows]
    : rows.filter((row, i) => last.get(keyIdentity(row.slice(0, keyWidth))) === i);
}

/** What a row's bound values take in a MySQL execute packet, roughly: each value and its length prefix. */
function boundBytes(row: readonly SqlParam[]): number {
  let bytes = 0;
  for (const value of row) {
    if (typeof value === "string") bytes += Buffer.byteLength(value) + 9;
    else if (value instanceof Uint8Array) bytes += value.byteLength + 9;
    else bytes += 9;
  }
  return bytes;
}

function keyIdentity(keys: SqlParam[]): string {
  return JSON.stringify(keys.map((k) => (k instanceof Uint8Array ? Buffer.from(k).toString("base64") : k)));
}

/**
 * Issues every statement without waiting for the previous one: both clients send them in order on the
 * transaction's connection (PostgreSQL pipelines them), and the first failure rolls everything back. A
 * COPY starts once what was sent before it is done.
 */
async function executeAll(session: SqlSession, steps: readonly Step[]): Promise<void> {
  let inFlight: Promise<void>[] = [];
  for (const step of steps) {
    if ("sql" in step) {
      inFlight.push(session.execute(step.sql, step.params));
      continue;
    }
    await Promise.all(inFlight);
    inFlight = [];
    if (!session.copyFrom) throw new Error("COPY needs a PostgreSQL session");
    await session.copyFrom(step.copy, step.data);
  }
  await Promise.all(inFlight);
}
