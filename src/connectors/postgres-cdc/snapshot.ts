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
import type { Tuple, TupleValue } from "./pgoutput.ts";
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
 * Reads the tables in the exported snapshot (initial_only has none: then in the transaction's own), a
 * cursor's fetch at a time. `onStart` hears the transaction's id before the first row; `listener` hears
 * the tables with their estimated sizes, each row read, each table's end and the snapshot's. The
 * generator must run to its end or be returned, which gives the connection back.
 */
export async function* snapshotRows(
  sql: Sql,
  snapshotName: string | null,
  options: CaptureOptions,
  fetchSize: number,
  onStart: (info: SnapshotInfo) => void,
  listener: SnapshotListener,
  selection: SnapshotSelection = SNAPSHOT_EVERY_TABLE,
): AsyncGenerator<SnapshotRow[]> {
  // One row of lookahead: a row's marker depends on whether the next one is of the same table, so the
  // last row of each fetch waits for the next fetch (or the end).
  let held: { table: CapturedTable; tuple: Tuple; first: boolean } | null = null;
  let firstOverall = true;
  for await (const { table, tuples } of tableRows(
    sql,
    snapshotName,
    options,
    fetchSize,
    onStart,
    listener,
    selection,
  )) {
    const batch: SnapshotRow[] = [];
    for (const tuple of tuples) {
      if (held !== null) {
        batch.push({
          table: held.table,
          tuple: held.tuple,
          marker: marker(held.first, held.table !== table, firstOverall, false),
        });
        firstOverall = false;
      }
      held = { table, tuple, first: held === null || held.table !== table };
    }
    if (batch.length > 0) yield batch;
  }
  if (held !== null)
    yield [{ table: held.table, tuple: held.tuple, marker: marker(held.first, true, firstOverall, true) }];
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

/** The rows of each table, one fetch of the cursor at a time; the next fetch is asked for before a fetch's rows are handed on. */
async function* tableRows(
  sql: Sql,
  snapshotName: string | null,
  options: CaptureOptions,
  fetchSize: number,
  onStart: (info: SnapshotInfo) => void,
  listener: SnapshotListener,
  selection: SnapshotSelection,
): AsyncGenerator<{ table: CapturedTable; tuples: Tuple[] }> {
  const connection = await sql.reserve();
  // A fetch under way when the reader is returned early: answered before the connection goes back.
  let fetching: Promise<unknown> | null = null;
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
      const fetch = () => {
        const rows = connection.unsafe(`FETCH ${fetchSize} FROM sluice_snapshot`).raw();
        fetching = rows;
        return rows;
      };
      // The tuple keeps the table's positions so rowOf() lines up; columns not read stay null.
      let positions: (number | null)[] | null = null;
      for (let next = fetch(); ; ) {
        const rows = await next;
        fetching = null;
        // The server reads the next rows while these are decoded and sent on.
        if (rows.length === fetchSize) next = fetch();
        if (rows.length > 0)
          positions ??= resultPositions(
            name,
            catalog,
            table,
            rows.columns.map((c) => c.name),
          );
        const tuples: Tuple[] = new Array(rows.length);
        for (let r = 0; r < rows.length; r++) {
          const raw = rows[r]!;
          const tuple: TupleValue[] = table.columns.map(() => NULL_VALUE);
          for (let i = 0; i < positions!.length; i++) {
            const position = positions![i]!;
            const value = raw[i] as Buffer | null;
            if (position !== null && value !== null) tuple[position] = { kind: "text", value: value.toString("utf8") };
          }
          tuples[r] = tuple;
          listener.row(qualified);
        }
        if (tuples.length > 0) yield { table, tuples };
        if (rows.length < fetchSize) break;
      }
      await connection.unsafe("CLOSE sluice_snapshot");
      listener.tableDone(qualified);
    }
    await connection.unsafe("COMMIT");
    listener.done();
  } finally {
    await (fetching as Promise<unknown> | null)?.catch(() => undefined);
    connection.release();
  }
}

const NULL_VALUE: TupleValue = { kind: "null" };
