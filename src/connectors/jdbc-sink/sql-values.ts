// Connect values as bound parameters. Logical types become the text form both databases parse for the
// column types we create (and the JDBC drivers send), in UTC as Confluent's default db.timezone; INT64
// becomes text so values beyond 2^53 survive; bytes stay binary.
import { BigDecimal, ConnectDate, Time, Timestamp, type Schema } from "../../connect/data/index.ts";
import type { DialectName } from "./connection-url.ts";

export type SqlParam = string | number | boolean | Uint8Array | null;

function iso(date: Date): string {
  return date.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ, always UTC
}

export function sqlParam(value: unknown, schema: Schema, dialect: DialectName): SqlParam {
  if (value === null || value === undefined) return null;
  if (value instanceof BigDecimal) return value.toPlainString();
  if (value instanceof Date) {
    const text = iso(value);
    switch (schema.name) {
      case ConnectDate.LOGICAL_NAME:
        return text.slice(0, 10);
      case Time.LOGICAL_NAME:
        return text.slice(11, 23);
      case Timestamp.LOGICAL_NAME:
      default:
        return `${text.slice(0, 10)} ${text.slice(11, 23)}`;
    }
  }
  if (typeof value === "bigint") return value.toString();
  // MySQL has no boolean type (BOOLEAN is TINYINT(1)).
  if (typeof value === "boolean") return dialect === "mysql" ? (value ? 1 : 0) : value;
  if (typeof value === "number" || typeof value === "string" || value instanceof Uint8Array) return value;
  throw new TypeError(`Cannot bind a ${typeof value} for a ${schema.type} column`);
}
