// How many rows a table holds, for the snapshot's progress (percent, time left). As Debezium's, from
// the statistics (pg_class.reltuples); a table never analysed has none (-1 on PostgreSQL 14+, 0 before),
// so, as the planner does then, from its size on disk: its pages now times the rows a page holds at the
// width its column types suggest. Rough, so it says where it comes from, and ANALYZE makes it exact.
import type { Sql } from "postgres";
import type { TableName } from "./catalog.ts";

export type EstimateBasis = "statistics" | "size";

export interface RowEstimate {
  /** null when the table is gone. */
  readonly rows: number | null;
  readonly basis: EstimateBasis;
}

/** Tuple header (23 bytes, aligned) and line pointer per row; page header per page. */
const TUPLE_OVERHEAD = 24 + 4;
const PAGE_HEADER = 24;
/** The planner's guess of a variable-width column's width without statistics (get_typavgwidth). */
export const VARIABLE_WIDTH = 32;

/** Rows in `pages` pages of `blockSize` bytes, for rows of `width` bytes of data. */
export function rowsFromSize(pages: number, blockSize: number, width: number): number {
  const perPage = Math.max(1, Math.floor((blockSize - PAGE_HEADER) / (width + TUPLE_OVERHEAD)));
  return Math.round(pages * perPage);
}

export async function estimateRows(sql: Sql, name: TableName): Promise<RowEstimate> {
  // A partitioned table's pages are its partitions'; the data width comes from the column types.
  const [row] = await sql<{ reltuples: number; pages: number; block_size: number; width: number }[]>`
    SELECT c.reltuples::float8 AS reltuples,
           CASE WHEN c.relkind = 'p'
                THEN (SELECT COALESCE(sum(pg_relation_size(p.relid)), 0) FROM pg_partition_tree(c.oid) p WHERE p.isleaf)
                ELSE pg_relation_size(c.oid) END::float8 / current_setting('block_size')::float8 AS pages,
           current_setting('block_size')::int AS block_size,
           (SELECT COALESCE(sum(CASE WHEN a.attlen > 0 THEN a.attlen ELSE ${VARIABLE_WIDTH} END), 0)
              FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)::float8 AS width
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = ${name.schema} AND c.relname = ${name.table}`;
  if (row === undefined) return { rows: null, basis: "statistics" };
  // No pages: empty, analysed or not. 0 rows in pages of data: a table PostgreSQL <14 never analysed.
  if (row.pages === 0) return { rows: 0, basis: "statistics" };
  if (row.reltuples > 0) return { rows: Math.round(row.reltuples), basis: "statistics" };
  return { rows: rowsFromSize(Math.ceil(row.pages), row.block_size, row.width), basis: "size" };
}
