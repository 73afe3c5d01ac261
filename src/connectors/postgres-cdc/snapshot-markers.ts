// Debezium's `snapshot` markers of the rows a snapshot hands on, in the order it hands them on. A row's
// marker depends on what comes after it (is it the last of its table, the last of all?), so the last
// row read of each table is held back until that table's next rows, and a finished table's last row
// until any other row follows (then it is the last of its table) or the snapshot ends (the last of all).
// With snapshot.max.threads, several tables' rows interleave; the markers follow the order handed on,
// so "last" is always the final record (its offset says the snapshot completed).
import type { CapturedTable } from "./captured-table.ts";
import type { SnapshotMarker } from "./envelope.ts";
import type { Tuple } from "./pgoutput.ts";

export interface MarkedRow {
  readonly table: CapturedTable;
  readonly tuple: Tuple;
  readonly marker: SnapshotMarker;
}

interface HeldRow {
  readonly table: CapturedTable;
  readonly tuple: Tuple;
  readonly firstInTable: boolean;
}

export class SnapshotMarkers {
  private readonly held = new Map<CapturedTable, HeldRow>();
  private finished: HeldRow | null = null;
  private firstOverall = true;

  /** Rows read from a table: those that can be marked now, in order. */
  rows(table: CapturedTable, tuples: readonly Tuple[]): MarkedRow[] {
    const out: MarkedRow[] = [];
    if (tuples.length === 0) return out;
    this.handOnFinished(out);
    let held = this.held.get(table);
    let firstInTable = held === undefined;
    for (const tuple of tuples) {
      if (held !== undefined) out.push(this.mark(held, false, false));
      held = { table, tuple, firstInTable };
      firstInTable = false;
    }
    this.held.set(table, held!);
    return out;
  }

  /** A table read to its end. A table without rows never had any held. */
  tableEnd(table: CapturedTable): MarkedRow[] {
    const held = this.held.get(table);
    if (held === undefined) return [];
    this.held.delete(table);
    const out: MarkedRow[] = [];
    this.handOnFinished(out);
    this.finished = held;
    return out;
  }

  /** The snapshot's end: the last row of all. */
  end(): MarkedRow[] {
    const out: MarkedRow[] = [];
    for (const table of [...this.held.keys()]) out.push(...this.tableEnd(table));
    if (this.finished !== null) out.push(this.mark(this.finished, true, true));
    this.finished = null;
    return out;
  }

  private handOnFinished(out: MarkedRow[]): void {
    if (this.finished !== null) out.push(this.mark(this.finished, true, false));
    this.finished = null;
  }

  /** Debezium's precedence: last of all, first of all, first of its table, last of its table, else true. */
  private mark(row: HeldRow, lastInTable: boolean, lastOverall: boolean): MarkedRow {
    const firstOverall = this.firstOverall;
    this.firstOverall = false;
    const marker: SnapshotMarker = lastOverall
      ? "last"
      : firstOverall
        ? "first"
        : row.firstInTable
          ? "first_in_data_collection"
          : lastInTable
            ? "last_in_data_collection"
            : "true";
    return { table: row.table, tuple: row.tuple, marker };
  }
}
