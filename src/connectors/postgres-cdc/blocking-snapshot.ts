// Debezium's blocking snapshot (execute-snapshot with "type": "blocking"): streaming pauses, the tables
// the signal names are read in one transaction and emitted as `op: r` records, then streaming goes on
// from where it stopped. The records' offsets stay the last streamed change's, marked as Debezium marks
// a blocking snapshot's (snapshot BLOCKING), so a commit meanwhile never lets the slot pass a change
// not yet emitted, and a restart in the middle streams on from there (as Debezium, without taking the
// blocking snapshot again).
import type { TableName } from "./catalog.ts";
import type { SnapshotRequest } from "./signals/dispatcher.ts";
import type { SnapshotSelection } from "./snapshot.ts";

/**
 * The tables of a blocking snapshot: those of the captured ones that one of the signal's data-collections
 * matches (regular expressions, each entry possibly a comma-separated list, whole-name and ignoring case,
 * against `schema.table` or `"schema"."table"`), each read with its additional condition's SELECT when the
 * signal gives one, else with `overrides` (snapshot.select.statement.overrides, where Sluice has it).
 */
export function blockingSelection(
  request: SnapshotRequest,
  overrides: (table: TableName) => string | undefined = () => undefined,
): SnapshotSelection {
  const patterns = request.dataCollections.flatMap((entry) =>
    entry
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => new RegExp(`^(?:${p})$`, "i")),
  );
  const selects = new Map(request.additionalConditions.map((c) => [c.dataCollection, c.filter]));
  return {
    includes: ({ schema, table }) =>
      patterns.some((p) => p.test(`${schema}.${table}`) || p.test(`"${schema}"."${table}"`)),
    select: (name) => selects.get(`${name.schema}.${name.table}`) ?? overrides(name),
  };
}

const SNAPSHOT_KEYS = ["snapshot", "last_snapshot_record", "snapshot_completed"];

/**
 * The offset of a blocking snapshot's record: the last streamed position (`streamed`, the offset of the
 * last record handed on), marked as Debezium's PostgresOffsetContext marks a blocking snapshot in progress.
 * The last record carries the streamed position alone: the snapshot is over.
 */
export function blockingSnapshotOffset(streamed: Record<string, unknown>, last: boolean): Record<string, unknown> {
  const position = Object.fromEntries(Object.entries(streamed).filter(([k]) => !SNAPSHOT_KEYS.includes(k)));
  if (last) return position;
  return { ...position, snapshot: "BLOCKING", last_snapshot_record: false, snapshot_completed: false };
}
