// The initial snapshot: every captured table read in one REPEATABLE READ transaction that adopts the
// snapshot the slot exported when it was created, so the rows read are exactly the data before the
// slot's first change: nothing missed, nothing twice. Rows come in batches through a cursor, as the
// task asks for them, and carry Debezium's `snapshot` markers (first, last, per table). Which tables are
// read (snapshot.include.collection.list) and with which query (snapshot.select.statement.overrides)
// is decided by functions a snapshot of other kinds reuses.
import type { ReservedSql, Sql } from "postgres";
import { ConnectException } from "../../connect/api/connector.ts";
import { logger } from "../../platform/log.ts";
import { tableOfCatalog, type CaptureOptions, type CapturedTable } from "./captured-table.ts";
import { capturedTables, describeTable, type CatalogTable, type TableName } from "./catalog.ts";
import { estimateRows } from "./row-estimate.ts";
import type { Tuple, TupleValue } from "./pgoutput.ts";
import { quoteIdentifier } from "./replication-connection.ts";
import { Handover } from "./handover.ts";
import { SnapshotMarkers, type MarkedRow } from "./snapshot-markers.ts";
import type { EstimatedTable, SnapshotListener } from "./snapshot-progress.ts";

const log = logger("postgres-cdc");

export type SnapshotRow = MarkedRow;

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
 * cursor's fetch at a time; with `threads` > 1 (snapshot.max.threads), that many tables at once, each on
 * a connection of its own in the same snapshot. `onStart` hears the transaction's id before the first
 * row; `listener` hears the tables with their estimated sizes, each row read, each table's end and the
 * snapshot's. The generator must run to its end or be returned, which gives the connections back.
 */
export async function* snapshotRows(
  sql: Sql,
  snapshotName: string | null,
  options: CaptureOptions,
  read: { fetchSize: number; threads: number },
  onStart: (info: SnapshotInfo) => void,
  listener: SnapshotListener,
  selection: SnapshotSelection = SNAPSHOT_EVERY_TABLE,
): AsyncGenerator<SnapshotRow[]> {
  const markers = new SnapshotMarkers();
  for await (const fetched of tableFetches(sql, snapshotName, options, read, onStart, listener, selection)) {
    const rows =
      fetched.tuples === null ? markers.tableEnd(fetched.table) : markers.rows(fetched.table, fetched.tuples);
    if (rows.length > 0) yield rows;
  }
  const last = markers.end();
  if (last.length > 0) yield last;
}

/** A fetch of a table's rows, or (tuples null) the table's end. */
interface TableFetch {
  table: CapturedTable;
  tuples: Tuple[] | null;
}

async function* tableFetches(
  sql: Sql,
  snapshotName: string | null,
  options: CaptureOptions,
  read: { fetchSize: number; threads: number },
  onStart: (info: SnapshotInfo) => void,
  listener: SnapshotListener,
  selection: SnapshotSelection,
): AsyncGenerator<TableFetch> {
  const connections: ReservedSql[] = [await sql.reserve()];
  // Each reader hands on one fetch at a time and waits for it to be taken: memory stays at a fetch per reader.
  const fetches = new Handover<TableFetch>();
  let readers: Promise<void>[] = [];
  try {
    const [first] = connections as [ReservedSql];
    await inSnapshot(first, snapshotName);
    const [{ txid }] = (await first.unsafe("SELECT txid_current()::text AS txid")) as unknown as [{ txid: string }];
    onStart({ txId: BigInt(txid) });
    const names = (await capturedTables(first, options.filters)).filter((name) => selection.includes(name));
    const estimated: EstimatedTable[] = [];
    for (const name of names) {
      const { rows, basis } = await estimateRows(first, name);
      estimated.push({ name: `${name.schema}.${name.table}`, estimate: rows, basis });
    }
    listener.tables(estimated);
    const count = Math.max(1, Math.min(read.threads, names.length));
    if (count > 1) {
      // The others see exactly what the first sees: its snapshot, exported while its transaction is open.
      const [{ exported }] = (await first.unsafe("SELECT pg_export_snapshot() AS exported")) as unknown as [
        { exported: string },
      ];
      for (let i = 1; i < count; i++) {
        const connection = await sql.reserve();
        connections.push(connection);
        await inSnapshot(connection, exported);
      }
    }
    const queue = [...names];
    readers = connections.map(async (connection) => {
      for (let name = queue.shift(); name !== undefined && !fetches.closed; name = queue.shift())
        await readTable(connection, name, options, read.fetchSize, listener, selection, fetches);
      await connection.unsafe("COMMIT");
    });
    void Promise.all(readers).then(
      () => fetches.end(),
      (err: unknown) => fetches.fail(err),
    );
    for (let next = await fetches.take(); next !== null; next = await fetches.take()) yield next;
    listener.done();
  } finally {
    fetches.close(); // readers stop at their next fetch (answered before their connection goes back)
    await Promise.allSettled(readers);
    for (const connection of connections) connection.release();
  }
}

/** Opens a REPEATABLE READ transaction on the connection, in the exported snapshot when there is one. */
async function inSnapshot(connection: ReservedSql, snapshotName: string | null): Promise<void> {
  await connection.unsafe("BEGIN ISOLATION LEVEL REPEATABLE READ");
  // Must be the transaction's first statement: from here on it sees what the slot's start saw.
  if (snapshotName !== null)
    await connection.unsafe(`SET TRANSACTION SNAPSHOT '${snapshotName.replaceAll("'", "''")}'`);
}

/** One table through a cursor, a fetch at a time; the next fetch is asked for before a fetch's rows are handed on. */
async function readTable(
  connection: ReservedSql,
  name: TableName,
  options: CaptureOptions,
  fetchSize: number,
  listener: SnapshotListener,
  selection: SnapshotSelection,
  fetches: Handover<TableFetch>,
): Promise<void> {
  const qualified = `${name.schema}.${name.table}`;
  listener.tableStarted(qualified);
  const catalog = await describeTable(connection, name);
  const table = tableOfCatalog(name, catalog, options);
  const query = snapshotQuery(name, table, selection.select(name));
  if (query === null) {
    listener.tableDone(qualified);
    return;
  }
  if (query.overridden)
    log.info({ table: qualified, query: query.sql }, `snapshot of ${qualified} with its override query`);
  await connection.unsafe(`DECLARE sluice_snapshot NO SCROLL CURSOR FOR ${query.sql}`);
  const fetch = () =>
    connection.unsafe(`FETCH ${fetchSize} FROM sluice_snapshot`).raw() as unknown as Promise<RawFetch>;
  // The tuple keeps the table's positions so rowOf() lines up; columns not read stay null.
  let positions: (number | null)[] | null = null;
  let next: Promise<RawFetch> | null = fetch();
  try {
    while (next !== null) {
      const rows: RawFetch = await next;
      // The server reads the next rows while these are decoded and sent on.
      next = rows.length === fetchSize ? fetch() : null;
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
        const tuple = new Array<TupleValue>(table.columns.length).fill(null);
        for (let i = 0; i < positions!.length; i++) {
          const position = positions![i]!;
          const value = raw[i]!;
          if (position !== null && value !== null) tuple[position] = value.toString("utf8");
        }
        tuples[r] = tuple;
        listener.row(qualified);
      }
      if (tuples.length > 0 && !(await fetches.put({ table, tuples }))) return;
    }
  } finally {
    await next?.catch(() => undefined); // a fetch under way is answered before the connection is given back
  }
  await connection.unsafe("CLOSE sluice_snapshot");
  listener.tableDone(qualified);
  await fetches.put({ table, tuples: null });
}

/** A raw fetch: each row's values as bytes (null for SQL NULL), with the result's column names. */
interface RawFetch extends ReadonlyArray<readonly (Buffer | null)[]> {
  readonly columns: readonly { name: string }[];
}
