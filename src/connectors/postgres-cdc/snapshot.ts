// The initial snapshot: every captured table read in one REPEATABLE READ transaction that adopts the
// snapshot the slot exported when it was created, so the rows read are exactly the data before the
// slot's first change: nothing missed, nothing twice. Rows come in batches through a cursor, as the
// task asks for them, and carry Debezium's `snapshot` markers (first, last, per table).
import type { Sql } from "postgres";
import { tableOfCatalog, type CaptureOptions, type CapturedTable } from "./captured-table.ts";
import { capturedTables, describeTable, type TableName } from "./catalog.ts";
import { estimateRows } from "./row-estimate.ts";
import type { SnapshotMarker } from "./envelope.ts";
import type { Tuple } from "./pgoutput.ts";
import { quoteIdentifier } from "./replication-connection.ts";
import type { EstimatedTable, SnapshotListener } from "./snapshot-progress.ts";

export interface SnapshotRow {
  readonly table: CapturedTable;
  readonly tuple: Tuple;
  readonly marker: SnapshotMarker;
}

/** Which captured tables a snapshot reads, and how (a blocking snapshot's signal names them). */
export interface SnapshotSelection {
  includes(table: TableName): boolean;
  /** The whole SELECT a table is read with instead of all its captured columns; undefined for the default. */
  select(table: TableName): string | undefined;
}

const EVERY_TABLE: SnapshotSelection = { includes: () => true, select: () => undefined };

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
  selection: SnapshotSelection = EVERY_TABLE,
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

/** Debezium's precedence: first of all, last of all, first of its table, last of its table, else true. */
function marker(
  firstInTable: boolean,
  lastInTable: boolean,
  firstOverall: boolean,
  lastOverall: boolean,
): SnapshotMarker {
  if (firstOverall) return "first";
  if (lastOverall) return "last";
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
      const table = tableOfCatalog(name, await describeTable(connection, name), options);
      const selected = table.columns.flatMap((c) => (c === null ? [] : [quoteIdentifier(c.name)]));
      if (selected.length === 0) {
        listener.tableDone(qualified);
        continue;
      }
      // Only captured columns are read, unless a SELECT of its own is given; columns are matched by name,
      // and the tuple keeps the table's positions so rowOf() lines up.
      const select =
        selection.select(name) ??
        `SELECT ${selected.join(", ")} FROM ${quoteIdentifier(name.schema)}.${quoteIdentifier(name.table)}`;
      await connection.unsafe(`DECLARE sluice_snapshot NO SCROLL CURSOR FOR ${select}`);
      let positions: (number | undefined)[] | null = null;
      for (;;) {
        const rows = await connection.unsafe(`FETCH ${fetchSize} FROM sluice_snapshot`).raw();
        positions ??= resultPositions(table, rows.columns);
        for (const raw of rows) {
          const tuple: Tuple = table.columns.map(() => ({ kind: "null" }) as const);
          positions.forEach((position, i) => {
            if (position === undefined) return; // a column the filters leave out
            const value = raw[i] as Buffer | null;
            (tuple as Tuple[number][])[position] =
              value === null ? { kind: "null" } : { kind: "text", value: value.toString("utf8") };
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

/** For each column of a result, the position of the captured column of that name (undefined: not captured). */
function resultPositions(table: CapturedTable, columns: readonly { name: string }[]): (number | undefined)[] {
  const byName = new Map<string, number>();
  table.columns.forEach((c, i) => {
    if (c !== null) byName.set(c.name, i);
  });
  return columns.map((c) => byName.get(c.name));
}
