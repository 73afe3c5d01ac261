// Connect values as bound parameters. Logical types become the text form both databases parse for the
// column types we create (and the JDBC drivers send), as wall-clock time in db.timezone (UTC unless set,
// as in Confluent's sink, which applies the zone to Date and Time values too); INT64 becomes text so
// values beyond 2^53 survive; bytes stay binary.
import { BigDecimal, ConnectDate, Time, type Schema } from "../../connect/api/data/index.ts";
import type { DialectName } from "./connection-url.ts";

export type SqlParam = string | number | boolean | Uint8Array | null;

/** Wall-clock time of an instant in one zone, as `YYYY-MM-DDTHH:MM:SS.mmm`. */
export type WallClock = (date: Date) => string;

const utc: WallClock = (date) => date.toISOString().slice(0, 23);

/** The wall clock of an IANA zone (or UTC); throws RangeError for a zone the runtime does not know. */
export function wallClock(timeZone: string): WallClock {
  if (timeZone === "UTC") return utc;
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    ...{
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      fractionalSecondDigits: 3,
    },
  });
  return (date) => {
    const part: Record<string, string> = {};
    for (const p of format.formatToParts(date)) part[p.type] = p.value;
    return `${part.year!.padStart(4, "0")}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}.${part.fractionalSecond}`;
  };
}

export function sqlParam(value: unknown, schema: Schema, dialect: DialectName, clock: WallClock = utc): SqlParam {
  if (value === null || value === undefined) return null;
  if (value instanceof BigDecimal) return value.toPlainString();
  if (value instanceof Date) {
    const text = clock(value);
    switch (schema.name) {
      case ConnectDate.LOGICAL_NAME:
        return text.slice(0, 10);
      case Time.LOGICAL_NAME:
        return text.slice(11, 23);
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
