// The initial snapshot: every captured table read in one REPEATABLE READ transaction that adopts the
// snapshot the slot exported when it was created, so the rows read are exactly the data before the
// slot's first change: nothing missed, nothing twice. Rows come in batches through a cursor, as the
// task asks for them, and carry Debezium's `snapshot` markers (first, last, per table). Which tables are
// read (snapshot.include.collection.list) and with which query (snapshot.select.statement.overrides)
// is decided by functions a snapshot of other kinds reuses.
import type { Sql } from "postgres";
import { ConnectException } from "../../connect/api/connector.ts";
import { logger } from "../../platform/log.ts";
import { tableOfCatalog, type CaptureOptions, type CapturedTable } from "./captured-table.ts";
import { capturedTables, describeTable, type CatalogTable, type TableName } from "./catalog.ts";
import { estimateRows } from "./row-estimate.ts";
import type { SnapshotMarker } from "./envelope.ts";
import type { Tuple } from "./pgoutput.ts";
import { quoteIdentifier } from "./replication-connection.ts";
import type { EstimatedTable, SnapshotListener } from "./snapshot-progress.ts";

const log = logger("postgres-cdc");

export interface SnapshotRow {
  readonly table: CapturedTable;
  readonly tuple: Tuple;
  readonly marker: SnapshotMarker;
}

/** Which captured tables a snapshot reads, and how (the config's, or a blocking snapshot's signal's). */
export interface SnapshotSelection {
  includes(table: TableName): boolean;
  /** The whole SELECT a table is read with instead of all its captured columns; undefined for the default. */
  select(table: TableName): string | undefined;
}

export const SNAPSHOT_EVERY_TABLE: SnapshotSelection = { includes: () => true, select: () => undefined };

/**
 * The initial snapshot's selection: snapshot.include.collection.list (empty: every captured table; as
 * Debezium's, a pattern matches `schema.table` or `"schema"."table"`) and snapshot.select.statement.overrides
 * (each table's SELECT, by `schema.table`).
 */
export function configuredSelection(
  include: readonly RegExp[],
  overrides: ReadonlyMap<string, string>,
): SnapshotSelection {
  return {
    includes: (t) =>
      include.length === 0 ||
      include.some((p) => p.test(`${t.schema}.${t.table}`) || p.test(`"${t.schema}"."${t.table}"`)),
    select: (t) => overrides.get(`${t.schema}.${t.table}`),
  };
}

/** The query that reads a table: `override`, or the captured columns of the whole table (null: none captured). */
export function snapshotQuery(
  name: TableName,
  table: CapturedTable,
  override: string | undefined,
): { sql: string; overridden: boolean } | null {
  // It becomes a cursor's query: a statement's closing semicolon would end the DECLARE.
  if (override !== undefined) return { sql: override.replace(/;\s*$/, ""), overridden: true };
  const selected = table.columns.flatMap((c) => (c === null ? [] : [quoteIdentifier(c.name)]));
  if (selected.length === 0) return null;
  return {
    sql: `SELECT ${selected.join(", ")} FROM ${quoteIdentifier(name.schema)}.${quoteIdentifier(name.table)}`,
    overridden: false,
  };
}

/**
 * For each column of a result, the table's tuple position its value goes to (null: a column the
 * filters leave out). An override's columns are matched by name, as Debezium matches them; one the
 * table does not have fails the snapshot, as Debezium's does.
 */
export function resultPositions(
  name: TableName,
  catalog: CatalogTable,
  table: CapturedTable,
  resultColumns: readonly string[],
): (number | null)[] {
  return resultColumns.map((column) => {
    const position = catalog.columns.findIndex((c) => c.name === column);
    if (position < 0)
      throw new ConnectException(
        `Column '${column}' of the snapshot query of ${name.schema}.${name.table} (snapshot.select.statement.overrides) is not a column of the table; its columns: ${catalog.columns.map((c) => c.name).join(", ")}`,
      );
    return table.columns[position] === null ? null : position;
  });
}

export interface SnapshotInfo {
  /** The snapshot transaction's id (Debezium reports it as the snapshot events' txId). */
  readonly txId: bigint;
}

/**
 * Reads the tables in the exported snapshot (initial_only has none: then in the transaction's own).
 * `onStart` hears the transaction's id before the first row; `listener` hears the tables with their
 * estimated sizes, each row read, each table's end and the snapshot's. The generator must run to its
 * end or be returned, which gives the connection back.
 */
export async function* snapshotRows(
  sql: Sql,
  snapshotName: string | null,
  options: CaptureOptions,
  fetchSize: number,
  onStart: (info: SnapshotInfo) => void,
  listener: SnapshotListener,
  selection: SnapshotSelection = SNAPSHOT_EVERY_TABLE,
): AsyncGenerator<SnapshotRow> {
  let previous: { table: CapturedTable; tuple: Tuple; first: boolean } | null = null;
  let firstOverall = true;
  for await (const { table, tuple } of tableRows(sql, snapshotName, options, fetchSize, onStart, listener, selection)) {
    // One row of lookahead: a row's marker depends on whether the next one is of the same table.
    if (previous !== null) {
      yield {
        table: previous.table,
        tuple: previous.tuple,
        marker: marker(previous.first, previous.table !== table, firstOverall, false),
      };
      firstOverall = false;
    }
    previous = { table, tuple, first: previous === null || previous.table !== table };
  }
  if (previous !== null)
    yield { table: previous.table, tuple: previous.tuple, marker: marker(previous.first, true, firstOverall, true) };
}

/**
 * Debezium's precedence: last of all (Debezium re-marks the record it holds back when the snapshot ends,
 * so a snapshot of one row says "last"), first of all, first of its table, last of its table, else true.
 */
function marker(
  firstInTable: boolean,
  lastInTable: boolean,
  firstOverall: boolean,
  lastOverall: boolean,
): SnapshotMarker {
  if (lastOverall) return "last";
  if (firstOverall) return "first";
  if (firstInTable) return "first_in_data_collection";
  if (lastInTable) return "last_in_data_collection";
  return "true";
}

async function* tableRows(
  sql: Sql,
  snapshotName: string | null,
  options: CaptureOptions,
  fetchSize: number,
  onStart: (info: SnapshotInfo) => void,
  listener: SnapshotListener,
  selection: SnapshotSelection,
): AsyncGenerator<{ table: CapturedTable; tuple: Tuple }> {
  const connection = await sql.reserve();
  try {
    await connection.unsafe("BEGIN ISOLATION LEVEL REPEATABLE READ");
    // Must be the transaction's first statement: from here on it sees what the slot's start saw.
    if (snapshotName !== null)
      await connection.unsafe(`SET TRANSACTION SNAPSHOT '${snapshotName.replaceAll("'", "''")}'`);
    const [{ txid }] = (await connection.unsafe("SELECT txid_current()::text AS txid")) as unknown as [
      { txid: string },
    ];
    onStart({ txId: BigInt(txid) });
    const names = (await capturedTables(connection, options.filters)).filter((name) => selection.includes(name));
    const estimated: EstimatedTable[] = [];
    for (const name of names) {
      const { rows, basis } = await estimateRows(connection, name);
      estimated.push({ name: `${name.schema}.${name.table}`, estimate: rows, basis });
    }
    listener.tables(estimated);
    for (const name of names) {
      const qualified = `${name.schema}.${name.table}`;
      listener.tableStarted(qualified);
      const catalog = await describeTable(connection, name);
      const table = tableOfCatalog(name, catalog, options);
      const query = snapshotQuery(name, table, selection.select(name));
      if (query === null) {
        listener.tableDone(qualified);
        continue;
      }
      if (query.overridden)
        log.info({ table: qualified, query: query.sql }, `snapshot of ${qualified} with its override query`);
      await connection.unsafe(`DECLARE sluice_snapshot NO SCROLL CURSOR FOR ${query.sql}`);
      // The tuple keeps the table's positions so rowOf() lines up; columns not read stay null.
      let positions: (number | null)[] | null = null;
      for (;;) {
        const rows = await connection.unsafe(`FETCH ${fetchSize} FROM sluice_snapshot`).raw();
        if (rows.length > 0)
          positions ??= resultPositions(
            name,
            catalog,
            table,
            rows.columns.map((c) => c.name),
          );
        for (const raw of rows) {
          const tuple: Tuple = table.columns.map(() => ({ kind: "null" }) as const);
          positions!.forEach((position, i) => {
            const value = raw[i] as Buffer | null;
            if (position !== null && value !== null)
              (tuple as Tuple[number][])[position] = { kind: "text", value: value.toString("utf8") };
          });
          listener.row(qualified);
          yield { table, tuple };
        }
        if (rows.length < fetchSize) break;
      }
      await connection.unsafe("CLOSE sluice_snapshot");
      listener.tableDone(qualified);
    }
    await connection.unsafe("COMMIT");
    listener.done();
  } finally {
    connection.release();
  }
}
