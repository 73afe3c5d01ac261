// Parsers for PostgreSQL's text output of the types CDC maps (what pgoutput sends by default), with
// the server's default DateStyle (ISO) and IntervalStyle (postgres, or iso_8601). Dates and times use
// the proleptic Gregorian calendar PostgreSQL uses; instants are bigint microseconds because the
// server's range (4713 BC to 294276 AD) is far beyond what a double holds to the microsecond.

export type PgInfinity = "infinity" | "-infinity";

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_DAY = 86_400n * MICROS_PER_SECOND;

function isInfinity(text: string): text is PgInfinity {
  return text === "infinity" || text === "-infinity";
}

function invalid(what: string, text: string): SyntaxError {
  return new SyntaxError(`Not a PostgreSQL ${what}: ${JSON.stringify(text)}`);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (year 0 is 1 BC). */
export function epochDay(year: number, month: number, day: number): number {
  // Howard Hinnant's days_from_civil: eras of 400 years starting in March.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** The inverse of epochDay. */
export function civilDate(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const DATE = /^(\d{4,})-(\d\d)-(\d\d)/;
const TIME = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?/;
const OFFSET = /^([+-])(\d\d)(?::?(\d\d))?(?::(\d\d))?/;
const ERA = /^ BC$/;

/** A cursor over one value's text, so date, time, offset and era parse in sequence. */
class TextCursor {
  constructor(
    private rest: string,
    private readonly what: string,
    private readonly text: string,
  ) {}

  date(): number {
    const m = this.take(DATE);
    return epochDaysChecked(Number(m[1]), Number(m[2]), Number(m[3]), this.what, this.text);
  }

  literal(s: string): void {
    if (!this.rest.startsWith(s)) throw invalid(this.what, this.text);
    this.rest = this.rest.slice(s.length);
  }

  /** Microseconds since midnight; 24:00:00 is allowed, as PostgreSQL allows it. */
  time(): bigint {
    const m = this.take(TIME);
    const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const micros = BigInt(((h * 60 + min) * 60 + s) * 1_000_000) + BigInt((m[4] ?? "").padEnd(6, "0"));
    if (min > 59 || s > 59 || micros > MICROS_PER_DAY) throw invalid(this.what, this.text);
    return micros;
  }

  /** The UTC offset in seconds (east positive). */
  offset(): number {
    const m = this.take(OFFSET);
    const seconds = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    return m[1] === "-" ? -seconds : seconds;
  }

  /** True when the value ends in " BC". */
  era(): boolean {
    if (this.rest === "") return false;
    this.take(ERA);
    return true;
  }

  end(): void {
    if (this.rest !== "") throw invalid(this.what, this.text);
  }

  private take(pattern: RegExp): RegExpExecArray {
    const m = pattern.exec(this.rest);
    if (!m) throw invalid(this.what, this.text);
    this.rest = this.rest.slice(m[0].length);
    return m;
  }
}

function epochDaysChecked(year: number, month: number, day: number, what: string, text: string): number {
  const days = epochDay(year, month, day);
  const back = civilDate(days);
  if (back.month !== month || back.day !== day) throw invalid(what, text);
  return days;
}

/** Moves a date parsed as year Y to year 1-Y (Y BC), keeping month and day. */
function toBc(days: number): number {
  const { year, month, day } = civilDate(days);
  return epochDay(1 - year, month, day);
}

/** A `date` as days since 1970-01-01. */
export function parseDate(text: string): number | PgInfinity {
  if (isInfinity(text)) return text;
  const cursor = new TextCursor(text, "date", text);
  const days = cursor.date();
  const bc = cursor.era();
  cursor.end();
  return bc ? toBc(days) : days;
}

/** A `time` as microseconds since midnight (up to 24:00:00). */
export function parseTime(text: string): bigint {
  const cursor = new TextCursor(text, "time", text);
  const micros = cursor.time();
  cursor.end();
  return micros;
}

/** A `timetz`: the local time and its UTC offset. */
export function parseTimeTz(text: string): { micros: bigint; offsetSeconds: number } {
  const cursor = new TextCursor(text, "time with time zone", text);
  const micros = cursor.time();
  const offsetSeconds = cursor.offset();
  cursor.end();
  return { micros, offsetSeconds };
}

/** A `timestamp` as microseconds since 1970-01-01 00:00 (read as UTC). */
export function parseTimestamp(text: string): bigint | PgInfinity {
  if (isInfinity(text)) return text;
  return timestampMicros(text, "timestamp", false);
}

/** A `timestamptz` (printed in the session's time zone) as microseconds since the Unix epoch. */
export function parseTimestampTz(text: string): bigint | PgInfinity {
  if (isInfinity(text)) return text;
  return timestampMicros(text, "timestamp with time zone", true);
}

function timestampMicros(text: string, what: string, zoned: boolean): bigint {
  const cursor = new TextCursor(text, what, text);
  let days = cursor.date();
  cursor.literal(" ");
  const time = cursor.time();
  const offset = zoned ? cursor.offset() : 0;
  if (cursor.era()) days = toBc(days);
  cursor.end();
  return BigInt(days) * MICROS_PER_DAY + time - BigInt(offset) * MICROS_PER_SECOND;
}

/** An `interval` split the way the JDBC driver's PGInterval splits it; seconds carry the fraction. */
export interface IntervalParts {
  readonly years: number;
  readonly months: number;
  readonly days: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
}

const ISO_INTERVAL =
  /^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$/;
const INTERVAL_UNIT = /^([+-]?\d+) (years?|mons?|days?)$/;
const INTERVAL_CLOCK = /^([+-]?)(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/;

/** IntervalStyle `postgres` ("1 year 2 mons -3 days -04:05:06.78") or `iso_8601` ("P1Y2M-3DT-4H-5M-6.78S"). */
export function parseInterval(text: string): IntervalParts {
  const iso = ISO_INTERVAL.exec(text);
  if (iso) {
    const n = (i: number) => Number(iso[i] ?? 0);
    return { years: n(1), months: n(2), days: n(3), hours: n(4), minutes: n(5), seconds: n(6) };
  }
  const parts = { years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };
  const tokens = text.split(" ");
  for (let i = 0; i < tokens.length; i++) {
    const clock = INTERVAL_CLOCK.exec(tokens[i]);
    if (clock && i === tokens.length - 1) {
      const sign = clock[1] === "-" ? -1 : 1;
      parts.hours = sign * Number(clock[2]);
      parts.minutes = sign * Number(clock[3]);
      // As PGInterval: whole seconds plus microseconds / 1e6, so the double matches the JVM's.
      parts.seconds = sign * Number(clock[4]) + (sign * Number((clock[5] ?? "").padEnd(6, "0"))) / 1e6;
      continue;
    }
    const unit = INTERVAL_UNIT.exec(`${tokens[i]} ${tokens[i + 1] ?? ""}`);
    if (!unit) throw invalid("interval", text);
    const value = Number(unit[1]);
    if (unit[2].startsWith("year")) parts.years = value;
    else if (unit[2].startsWith("mon")) parts.months = value;
    else parts.days = value;
    i++;
  }
  return parts;
}

/**
 * A one-dimensional array's text form as its elements' texts (null for NULL), quotes and
 * backslash escapes removed. Multi-dimensional arrays are refused: no Connect schema describes them.
 */
export function parseArray(text: string): (string | null)[] {
  // Arrays with non-default lower bounds are printed as "[2:3]={...}".
  const body = text.startsWith("[") ? text.slice(text.indexOf("=") + 1) : text;
  if (!body.startsWith("{") || !body.endsWith("}")) throw invalid("array", text);
  const elements: (string | null)[] = [];
  let i = 1;
  const end = body.length - 1;
  if (body.slice(1, end).trim() === "") return elements;
  while (i <= end) {
    while (body[i] === " ") i++;
    if (body[i] === "{") throw new SyntaxError(`Multi-dimensional arrays are not supported: ${JSON.stringify(text)}`);
    let value = "";
    let quoted = false;
    if (body[i] === '"') {
      quoted = true;
      i++;
      while (i < end && body[i] !== '"') {
        if (body[i] === "\\") i++;
        value += body[i++];
      }
      if (body[i] !== '"') throw invalid("array", text);
      i++;
    } else {
      while (i < end && body[i] !== ",") {
        if (body[i] === "\\") i++;
        value += body[i++];
      }
      value = value.trim();
    }
    while (body[i] === " ") i++;
    elements.push(!quoted && value.toUpperCase() === "NULL" ? null : value);
    if (i === end) break;
    if (body[i] !== ",") throw invalid("array", text);
    i++;
  }
  return elements;
}

/** A `bytea` in the hex output format ("\x0a0b"), or the older escape format ("a\\\012"). */
export function parseBytea(text: string): Uint8Array {
  if (text.startsWith("\\x")) {
    const hex = text.slice(2);
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw invalid("bytea", text);
    return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  }
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\\") {
      const code = text.charCodeAt(i);
      if (code > 0x7f) throw invalid("bytea", text);
      bytes.push(code);
    } else if (text[i + 1] === "\\") {
      bytes.push(0x5c);
      i++;
    } else if (/^[0-3][0-7][0-7]$/.test(text.slice(i + 1, i + 4))) {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else throw invalid("bytea", text);
  }
  return Uint8Array.from(bytes);
}
