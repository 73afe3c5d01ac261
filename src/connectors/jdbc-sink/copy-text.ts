// Rows in PostgreSQL's COPY text format (tab-separated columns, one line per row, `\N` for NULL). Text
// rather than binary: the server parses each field with the column's own input function, exactly as it
// parses the text parameters the statement path binds, so COPY and statements store the same values
// whatever the target column's type (a user's table may hold numeric, varchar(n), uuid, jsonb…), where
// binary would need every column's exact type and an encoder for each.
import type { SqlParam } from "./sql-values.ts";

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = new RegExp(SPECIAL.source, "g");
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function field(value: SqlParam): string {
  if (value === null) return "\\N";
  if (typeof value === "string") return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c]!) : value;
  if (typeof value === "boolean") return value ? "t" : "f";
  // bytea's hex input form; its backslash is doubled for COPY.
  if (value instanceof Uint8Array)
    return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
  // As the statement path's client writes a number parameter.
  return String(value);
}

/** Each row's fields in column order, as one COPY text document. */
export function copyText(rows: readonly (readonly SqlParam[])[]): string {
  let text = "";
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += i === 0 ? field(row[i] ?? null) : `\t${field(row[i] ?? null)}`;
    text += "\n";
  }
  return text;
}
