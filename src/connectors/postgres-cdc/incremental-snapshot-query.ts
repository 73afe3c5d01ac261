// The queries of an incremental snapshot, as Debezium builds them: a chunk is the next `limit` rows in
// key order after the last key read and not past the table's maximum key (read once, when the table's
// turn comes), with the signal's additional condition; the first chunk of a table has no key bounds.
// Key values are written as quoted literals, which PostgreSQL reads as the key column's own type.
import { quoteIdentifier } from "./replication-connection.ts";

export interface ChunkTable {
  readonly schema: string;
  readonly table: string;
  /** The columns read, in table order. */
  readonly columns: readonly string[];
  /** The columns chunks are ordered and bounded by: the primary key's, or the surrogate key. */
  readonly keyColumns: readonly string[];
  /** The signal's additional condition for this table ("" when none). */
  readonly condition: string;
}

export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** `(k1 > ?) OR (k1 = ? AND k2 > ?) …`: strictly after `key` in key order. */
function after(keyColumns: readonly string[], key: readonly (string | null)[]): string {
  const literal = (i: number) => (key[i] === null ? "NULL" : quoteLiteral(key[i]!));
  const terms = keyColumns.map(
    (_, i) =>
      `(${keyColumns
        .slice(0, i + 1)
        .map((c, j) => `${quoteIdentifier(c)} ${j === i ? ">" : "="} ${literal(j)}`)
        .join(" AND ")})`,
  );
  return terms.length > 1 ? `(${terms.join(" OR ")})` : terms[0]!;
}

function select(table: ChunkTable, where: string[], orderBy: string, limit: number): string {
  if (table.condition !== "") where.push(table.condition);
  const from = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.table)}`;
  const columns = table.columns.map(quoteIdentifier).join(", ");
  return `SELECT ${columns} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${orderBy} LIMIT ${limit}`;
}

/** The next chunk: after `from` (null: the table's first chunk) and not after `maximum`. */
export function chunkQuery(
  table: ChunkTable,
  limit: number,
  from: readonly (string | null)[] | null,
  maximum: readonly (string | null)[] | null,
): string {
  const where =
    from === null || maximum === null
      ? []
      : [`${after(table.keyColumns, from)} AND NOT ${after(table.keyColumns, maximum)}`];
  return select(table, where, table.keyColumns.map(quoteIdentifier).join(", "), limit);
}

/** The rows the table's snapshot reads (with the additional condition), as notifications count them. */
export function rowCountQuery(table: ChunkTable): string {
  const from = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.table)}`;
  return `SELECT count(*) FROM ${from}${table.condition === "" ? "" : ` WHERE ${table.condition}`}`;
}

/** The row of the table's largest key (with the additional condition): where its snapshot ends. */
export function maximumKeyQuery(table: ChunkTable): string {
  return select(table, [], table.keyColumns.map((c) => `${quoteIdentifier(c)} DESC`).join(", "), 1);
}

/**
 * The rows of one chunk by their event key until its window closes: a change streamed for a key between
 * the window's open and close watermarks removes the row, since the change is newer than what was read.
 */
export class ChunkWindow<T> {
  private readonly rows = new Map<string, T>();

  put(key: string, row: T): void {
    this.rows.set(key, row);
  }

  /** A change of `key` was streamed inside the window: the chunk's row of it is stale. */
  remove(key: string): boolean {
    return this.rows.delete(key);
  }

  get size(): number {
    return this.rows.size;
  }

  /** The rows left, in the order read (key order); empties the window. */
  drain(): T[] {
    const rows = [...this.rows.values()];
    this.rows.clear();
    return rows;
  }

  clear(): void {
    this.rows.clear();
  }
}

/** The text of an event key, the same for a streamed tuple and a chunk row of one key. */
export function windowKey(values: readonly (string | null)[]): string {
  return JSON.stringify(values);
}
