// The part of java.text.SimpleDateFormat that Connect transforms use, fixed to UTC (TimestampRouter
// and TimestampConverter set the UTC zone; Values.dateFormatFor assumes a UTC JVM).
//
// Pattern letters supported: G y M L d H k K h m s S E u a D z Z X, quoted text ('...' and '' for a
// quote). Other Java letters (Y w W F) are rejected as unsupported; letters Java does not know are
// rejected as Java does ("Illegal pattern character"). Dates use the proleptic Gregorian calendar
// (Java switches to Julian before 1582-10-15). Parsing is lenient like Java's default: out-of-range
// fields roll over, and text after the last pattern element is ignored.

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const JAVA_LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX";
const SUPPORTED = "GyMLDdEuaHkKhmsSzZX";
const NUMERIC = "yMLDduHkKhmsS";

export class DateFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IllegalArgumentException";
  }
}

export class DateParseError extends Error {
  constructor(
    message: string,
    readonly errorOffset: number,
  ) {
    super(message);
    this.name = "ParseException";
  }
}

type Token = { kind: "field"; letter: string; count: number } | { kind: "literal"; text: string };

export class SimpleDateFormat {
  private readonly tokens: readonly Token[];

  /** Throws DateFormatError for a pattern Java would reject, or one using letters we do not support. */
  constructor(readonly pattern: string) {
    this.tokens = tokenize(pattern);
  }

  toPattern(): string {
    return this.pattern;
  }

  format(date: Date): string {
    const ms = date.getTime();
    let out = "";
    for (const t of this.tokens) out += t.kind === "literal" ? t.text : formatField(t.letter, t.count, date, ms);
    return out;
  }

  /** DateFormat.parse(String): parses from the start; throws DateParseError when nothing could be parsed. */
  parse(text: string): Date {
    const f = {
      year: 1970,
      month: 0,
      day: 1,
      hour: 0,
      minute: 0,
      second: 0,
      millis: 0,
      pm: null as boolean | null,
      hour12: false,
      offsetMinutes: 0,
      bc: false,
      dayOfYear: null as number | null,
    };
    let pos = 0;
    for (let i = 0; i < this.tokens.length; i++) {
      const t = this.tokens[i];
      if (t.kind === "literal") {
        if (!text.startsWith(t.text, pos)) throw new DateParseError(`Unparseable date: "${text}"`, pos);
        pos += t.text.length;
        continue;
      }
      const next = this.tokens[i + 1];
      const abutting =
        next !== undefined &&
        next.kind === "field" &&
        NUMERIC.includes(next.letter) &&
        !(next.letter === "M" && next.count >= 3) &&
        !(next.letter === "L" && next.count >= 3);
      const fail = (): never => {
        throw new DateParseError(`Unparseable date: "${text}"`, pos);
      };
      const number = (): number => {
        let end = pos;
        if (abutting) end = Math.min(text.length, pos + t.count);
        else while (end < text.length && isDigit(text[end])) end++;
        const digits = text.slice(pos, end);
        if (digits === "" || !/^\d+$/.test(digits)) fail();
        pos = end;
        return Number(digits);
      };
      const names = (list: readonly string[]): number => {
        for (const candidates of [list, list.map((n) => n.slice(0, 3))]) {
          const index = candidates.findIndex((n) => text.slice(pos, pos + n.length).toLowerCase() === n.toLowerCase());
          if (index >= 0) {
            pos += candidates[index].length;
            return index;
          }
        }
        return fail();
      };
      switch (t.letter) {
        case "G": {
          const era = text.slice(pos, pos + 2).toUpperCase();
          if (era !== "AD" && era !== "BC") fail();
          f.bc = era === "BC";
          pos += 2;
          break;
        }
        case "y": {
          const start = pos;
          const negative = text[pos] === "-" && !abutting;
          if (negative) pos++;
          const year = number();
          const digitCount = pos - start - (negative ? 1 : 0);
          // Java: with a pattern of at most two letters, exactly two digits name a year near today.
          f.year = t.count <= 2 && digitCount === 2 && !negative ? twoDigitYear(year) : negative ? -year : year;
          break;
        }
        case "M":
        case "L":
          f.month = t.count >= 3 ? names(MONTHS) : number() - 1;
          break;
        case "d":
          f.day = number();
          break;
        case "D":
          f.dayOfYear = number();
          break;
        case "E":
          names(DAYS);
          break;
        case "u":
          number();
          break;
        case "H":
          f.hour = number();
          break;
        case "k": {
          const h = number();
          f.hour = h === 24 ? 0 : h;
          break;
        }
        case "K":
          f.hour = number();
          f.hour12 = true;
          break;
        case "h": {
          const h = number();
          f.hour = h === 12 ? 0 : h;
          f.hour12 = true;
          break;
        }
        case "a": {
          const marker = text.slice(pos, pos + 2).toUpperCase();
          if (marker !== "AM" && marker !== "PM") fail();
          f.pm = marker === "PM";
          pos += 2;
          break;
        }
        case "m":
          f.minute = number();
          break;
        case "s":
          f.second = number();
          break;
        case "S":
          f.millis = number();
          break;
        case "z":
        case "Z":
        case "X": {
          const parsed = parseZone(text, pos);
          if (parsed === null) fail();
          else {
            f.offsetMinutes = parsed.minutes;
            pos = parsed.end;
          }
          break;
        }
      }
    }
    let hour = f.hour;
    if (f.pm === true && (f.hour12 || hour < 12)) hour += 12;
    const year = f.bc ? 1 - f.year : f.year;
    const d = new Date(0);
    if (f.dayOfYear !== null) d.setUTCFullYear(year, 0, f.dayOfYear);
    else d.setUTCFullYear(year, f.month, f.day);
    d.setUTCHours(hour, f.minute, f.second, f.millis);
    return new Date(d.getTime() - f.offsetMinutes * 60_000);
  }
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  const literal = (text: string) => {
    const last = tokens[tokens.length - 1];
    if (last !== undefined && last.kind === "literal")
      tokens[tokens.length - 1] = { kind: "literal", text: last.text + text };
    else tokens.push({ kind: "literal", text });
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        literal("'");
        i += 2;
        continue;
      }
      let text = "";
      i++;
      for (;;) {
        if (i >= pattern.length) throw new DateFormatError("Unterminated quote");
        if (pattern[i] === "'") {
          if (pattern[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += pattern[i++];
      }
      literal(text);
      continue;
    }
    if ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z")) {
      if (!JAVA_LETTERS.includes(c)) throw new DateFormatError(`Illegal pattern character '${c}'`);
      if (!SUPPORTED.includes(c)) throw new DateFormatError(`Unsupported pattern character '${c}'`);
      let count = 1;
      while (pattern[i + count] === c) count++;
      tokens.push({ kind: "field", letter: c, count });
      i += count;
      continue;
    }
    literal(c);
    i++;
  }
  return tokens;
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, "0");
  return n < 0 ? "-" + s : s;
}

function formatField(letter: string, count: number, d: Date, ms: number): string {
  const fullYear = d.getUTCFullYear();
  // Java's y is the year of era: 1 BC is year 1.
  const yearOfEra = fullYear <= 0 ? 1 - fullYear : fullYear;
  switch (letter) {
    case "G":
      return fullYear <= 0 ? "BC" : "AD";
    case "y":
      return count === 2 ? pad(yearOfEra % 100, 2) : pad(yearOfEra, count);
    case "M":
    case "L": {
      const month = d.getUTCMonth();
      if (count >= 4) return MONTHS[month];
      if (count === 3) return MONTHS[month].slice(0, 3);
      return pad(month + 1, count);
    }
    case "d":
      return pad(d.getUTCDate(), count);
    case "D": {
      const start = new Date(0);
      start.setUTCFullYear(fullYear, 0, 1);
      return pad(Math.floor((ms - start.getTime()) / 86_400_000) + 1, count);
    }
    case "E":
      return count >= 4 ? DAYS[d.getUTCDay()] : DAYS[d.getUTCDay()].slice(0, 3);
    case "u":
      return pad(d.getUTCDay() === 0 ? 7 : d.getUTCDay(), count);
    case "a":
      return d.getUTCHours() < 12 ? "AM" : "PM";
    case "H":
      return pad(d.getUTCHours(), count);
    case "k":
      return pad(d.getUTCHours() === 0 ? 24 : d.getUTCHours(), count);
    case "K":
      return pad(d.getUTCHours() % 12, count);
    case "h":
      return pad(d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12, count);
    case "m":
      return pad(d.getUTCMinutes(), count);
    case "s":
      return pad(d.getUTCSeconds(), count);
    case "S":
      return pad(d.getUTCMilliseconds(), count);
    case "z":
      return count >= 4 ? "Coordinated Universal Time" : "UTC";
    case "Z":
      return "+0000";
    case "X":
      return "Z";
  }
  return "";
}

/** SimpleDateFormat's default century: two-digit years fall within 80 years before and 20 after now. */
function twoDigitYear(yy: number): number {
  const now = new Date();
  const start = now.getUTCFullYear() - 80;
  let year = Math.floor(start / 100) * 100 + yy;
  if (year < start) year += 100;
  return year;
}

function parseZone(text: string, pos: number): { minutes: number; end: number } | null {
  if (text[pos] === "Z") return { minutes: 0, end: pos + 1 };
  let i = pos;
  if (text.startsWith("UTC", i) || text.startsWith("GMT", i)) {
    i += 3;
    if (text[i] !== "+" && text[i] !== "-") return { minutes: 0, end: i };
  }
  const m = /^([+-])(\d{2}):?(\d{2})?/.exec(text.slice(i));
  if (m === null) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return { minutes: m[1] === "-" ? -minutes : minutes, end: i + m[0].length };
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}
