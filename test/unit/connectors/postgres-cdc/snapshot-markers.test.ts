// Debezium's snapshot markers as the snapshot hands rows on: one table after another, fetches ending
// anywhere, tables without rows, and tables read at once (snapshot.max.threads) whose rows interleave.
import { describe, expect, test } from "bun:test";
import type { CapturedTable } from "#src/connectors/postgres-cdc/captured-table.ts";
import type { Tuple } from "#src/connectors/postgres-cdc/pgoutput.ts";
import { SnapshotMarkers, type MarkedRow } from "#src/connectors/postgres-cdc/snapshot-markers.ts";

// Only a table's identity matters to the markers.
const table = (name: string) => ({ name }) as unknown as CapturedTable;
const tuples = (...ids: number[]): Tuple[] => ids.map((id) => [String(id)]);
const summary = (rows: MarkedRow[]) =>
  rows.map((r) => {
    const [value] = r.tuple;
    return `${(r.table as unknown as { name: string }).name}${typeof value === "string" ? value : ""}:${r.marker}`;
  });

describe("snapshot markers", () => {
  test("tables one after another, over fetches: first, first and last of each table, last of all", () => {
    const [a, b, empty, c] = [table("a"), table("b"), table("empty"), table("c")];
    const m = new SnapshotMarkers();
    const out = [
      ...m.rows(a, tuples(1, 2)),
      ...m.rows(a, tuples(3, 4)), // a full fetch, then a's end
      ...m.tableEnd(a),
      ...m.rows(b, tuples(1)),
      ...m.tableEnd(b),
      ...m.tableEnd(empty),
      ...m.rows(c, tuples(1, 2)),
      ...m.tableEnd(c),
      ...m.end(),
    ];
    expect(summary(out)).toEqual([
      "a1:first",
      "a2:true",
      "a3:true",
      "a4:last_in_data_collection",
      "b1:first_in_data_collection", // (Debezium's precedence: first of its table before last)
      "c1:first_in_data_collection",
      "c2:last",
    ]);
  });

  test("one row, and a snapshot whose last tables have no rows: the final row is the last of all", () => {
    const m = new SnapshotMarkers();
    const [a, b] = [table("a"), table("b")];
    expect(summary([...m.rows(a, tuples(1)), ...m.tableEnd(a), ...m.tableEnd(b), ...m.end()])).toEqual(["a1:last"]);
    expect(new SnapshotMarkers().end()).toEqual([]);
  });

  test("interleaved tables: each table's markers by its own rows, first and last of all by the order handed on", () => {
    const [a, b] = [table("a"), table("b")];
    const m = new SnapshotMarkers();
    const out = [
      ...m.rows(a, tuples(1, 2)),
      ...m.rows(b, tuples(1, 2)),
      ...m.rows(a, tuples(3)),
      ...m.tableEnd(a),
      ...m.rows(b, tuples(3)),
      ...m.tableEnd(b),
      ...m.end(),
    ];
    expect(summary(out)).toEqual([
      "a1:first",
      "b1:first_in_data_collection",
      "a2:true",
      "a3:last_in_data_collection",
      "b2:true",
      "b3:last",
    ]);
  });

  test("two tables ending one after the other: the earlier one's last row is the last of its table", () => {
    const [a, b] = [table("a"), table("b")];
    const m = new SnapshotMarkers();
    const out = [...m.rows(a, tuples(1)), ...m.rows(b, tuples(1, 2)), ...m.tableEnd(b), ...m.tableEnd(a), ...m.end()];
    expect(summary(out)).toEqual(["b1:first", "b2:last_in_data_collection", "a1:last"]);
  });
});
