// Keys of an incremental snapshot as Debezium keeps them in the offsets (incremental_snapshot_primary_key,
// incremental_snapshot_maximum_key): the key columns' values as a Java Object[] written by
// ObjectOutputStream, in hex. Sluice writes and reads that form, so an offset either connector wrote lets
// the other resume the snapshot. The Java class of a value is the one Debezium's chunk query reads it as
// (PostgresConnection.getColumnValue over PgJDBC), found by running Debezium 3.7 on each key type:
// int2/int4 Integer, int8/oid Long, uuid UUID, numeric/money BigDecimal (numeric NaN/±Infinity Double),
// date java.sql.Date, bool Boolean, float4 Float, float8 Double, bytea byte[], interval PGInterval;
// text types, name, "char", enums, bit, time(tz) and timestamp(tz) (read as strings) String; every other
// type (inet, cidr, macaddr, jsonb, varbit, ranges, tsvector, pg_lsn, extension types such as citext…) a
// PGobject of the type's name. Domains are their base type. Arrays go as String: Sluice resumes from
// them, Debezium 3.7 sends no row of such a table.
export type JavaKind =
  | "Integer"
  | "Long"
  | "String"
  | "UUID"
  | "BigDecimal"
  | "Double"
  | "Float"
  | "Boolean"
  | "Date"
  | "Bytes"
  | "PGobject"
  | "PGInterval";

/** The Java class of a key column's values; for a PGobject also its PostgreSQL type name. */
export interface KeyClass {
  readonly kind: JavaKind;
  readonly pgType?: string;
}

/** One key value: its Java class and its text as PostgreSQL prints it (null for SQL NULL). */
export interface KeyValue extends KeyClass {
  readonly text: string | null;
}

const INTEGERS = new Set([21, 23]); // int2, int4
const LONGS = new Set([20, 26]); // int8, oid
const KINDS = new Map<number, JavaKind>([
  [2950, "UUID"],
  [1700, "BigDecimal"], // numeric
  [1082, "Date"],
  [16, "Boolean"],
  [700, "Float"],
  [701, "Double"],
  [17, "Bytes"],
  [1186, "PGInterval"],
]);
/**
 * Types read as strings: PgJDBC's character types, and the time and timestamp types and bit that Debezium
 * reads with getString. PgJDBC hands the types it has no Java class for as a PGobject of their name.
 */
const STRINGS = new Set([25, 1043, 1042, 19, 18, 1560, 1083, 1266, 1114, 1184, 142]);
const MONEY = 790;

/**
 * The Java class Debezium reads a value of this column type as. `typeName` (pg_type.typname, a domain's
 * base type's) names a PGobject; without it, or for an enum or an array, the value goes as a String.
 */
export function javaKindOf(typeOid: number, typeName = "", isEnum = false): KeyClass {
  if (INTEGERS.has(typeOid)) return { kind: "Integer" };
  if (LONGS.has(typeOid)) return { kind: "Long" };
  // money's text ("$1,234.50") is read without its currency and separators
  if (typeOid === MONEY) return { kind: "BigDecimal", pgType: "money" };
  const kind = KINDS.get(typeOid);
  if (kind !== undefined) return { kind };
  // Arrays come as java.sql.Array (Debezium 3.7 sends no row of a table keyed by one): Sluice keeps text.
  if (STRINGS.has(typeOid) || isEnum || typeName === "" || typeName.startsWith("_")) return { kind: "String" };
  return { kind: "PGobject", pgType: typeName };
}

const MAGIC = [0xac, 0xed, 0x00, 0x05];
const TC_NULL = 0x70;
const TC_REFERENCE = 0x71;
const TC_CLASSDESC = 0x72;
const TC_OBJECT = 0x73;
const TC_STRING = 0x74;
const TC_ARRAY = 0x75;
const TC_BLOCKDATA = 0x77;
const TC_ENDBLOCKDATA = 0x78;
const SC_WRITE_METHOD = 0x01;
const SC_SERIALIZABLE = 0x02;
const BASE_HANDLE = 0x7e0000;

interface Field {
  /** Java's type code: I, J, Z, F, D, S, B, C; L or [ for an object (with its type signature). */
  readonly code: string;
  readonly name: string;
  readonly type?: string;
}

interface ClassDesc {
  readonly name: string;
  readonly uid: bigint;
  /** Java serializes these fields in this order: primitives, then objects, each by name. */
  readonly fields: readonly Field[];
  readonly superclass: ClassDesc | null;
  /** The class has a writeObject method: its data ends with TC_ENDBLOCKDATA. */
  readonly writeMethod?: boolean;
}

const I = (name: string): Field => ({ code: "I", name });
const STRING_FIELD = (name: string): Field => ({ code: "L", name, type: "Ljava/lang/String;" });

const NUMBER: ClassDesc = { name: "java.lang.Number", uid: 0x86ac951d0b94e08bn, fields: [], superclass: null };
const number = (name: string, uid: bigint, code: string): ClassDesc => ({
  name,
  uid,
  fields: [{ code, name: "value" }],
  superclass: NUMBER,
});
const INTEGER = number("java.lang.Integer", 0x12e2a0a4f7818738n, "I");
const LONG = number("java.lang.Long", 0x3b8be490cc8f23dfn, "J");
const FLOAT = number("java.lang.Float", 0xdaedc9a2db3cf0ecn, "F");
const DOUBLE = number("java.lang.Double", 0x80b3c24a296bfb04n, "D");
const BOOLEAN: ClassDesc = {
  name: "java.lang.Boolean",
  uid: 0xcd207280d59cfaeen,
  fields: [{ code: "Z", name: "value" }],
  superclass: null,
};
const UUID: ClassDesc = {
  name: "java.util.UUID",
  uid: 0xbc9903f7986d852fn,
  fields: [
    { code: "J", name: "leastSigBits" },
    { code: "J", name: "mostSigBits" },
  ],
  superclass: null,
};
const BYTE_ARRAY: ClassDesc = { name: "[B", uid: 0xacf317f8060854e0n, fields: [], superclass: null };
const BIG_INTEGER: ClassDesc = {
  name: "java.math.BigInteger",
  uid: 0x8cfc9f1fa93bfb1dn,
  // Legacy fields written as -1/-2 (the values they had before Java 1.3 dropped them) ahead of the magnitude.
  fields: [
    I("bitCount"),
    I("bitLength"),
    I("firstNonzeroByteNum"),
    I("lowestSetBit"),
    I("signum"),
    { code: "[", name: "magnitude", type: "[B" },
  ],
  superclass: NUMBER,
  writeMethod: true,
};
const BIG_DECIMAL: ClassDesc = {
  name: "java.math.BigDecimal",
  uid: 0x54c71557f981284fn,
  fields: [I("scale"), { code: "L", name: "intVal", type: "Ljava/math/BigInteger;" }],
  superclass: NUMBER,
  writeMethod: true,
};
// java.sql.Date adds nothing to java.util.Date, whose writeObject writes the time (ms) as block data.
const SQL_DATE: ClassDesc = {
  name: "java.sql.Date",
  uid: 0x14fa46683f356697n,
  fields: [],
  superclass: { name: "java.util.Date", uid: 0x686a81014b597419n, fields: [], superclass: null, writeMethod: true },
};
const PG_OBJECT: ClassDesc = {
  name: "org.postgresql.util.PGobject",
  uid: 0x4bf895caac6f6444n,
  fields: [STRING_FIELD("type"), STRING_FIELD("value")],
  superclass: null,
};
const PG_INTERVAL: ClassDesc = {
  name: "org.postgresql.util.PGInterval",
  uid: 0x882be40e2cbd59bbn,
  fields: [
    I("days"),
    I("hours"),
    { code: "Z", name: "isNull" },
    I("microSeconds"),
    I("minutes"),
    I("months"),
    I("wholeSeconds"),
    I("years"),
  ],
  superclass: PG_OBJECT,
};
const OBJECT_ARRAY: ClassDesc = { name: "[Ljava.lang.Object;", uid: 0x90ce589f1073296cn, fields: [], superclass: null };

class Writer {
  private readonly bytes: number[] = [...MAGIC];
  /** Handles of what Java shares by identity: class descriptions and (interned) field type signatures. */
  private readonly shared = new Map<string, number>();
  private nextHandle = BASE_HANDLE;

  u8(v: number): void {
    this.bytes.push(v & 0xff);
  }
  u16(v: number): void {
    this.u8(v >> 8);
    this.u8(v);
  }
  i32(v: number): void {
    for (let shift = 24; shift >= 0; shift -= 8) this.u8(v >> shift);
  }
  i64(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    for (let shift = 56n; shift >= 0n; shift -= 8n) this.u8(Number((u >> shift) & 0xffn));
  }
  raw(bytes: Iterable<number>): void {
    for (const b of bytes) this.u8(b);
  }
  utf(s: string): void {
    const encoded = modifiedUtf8(s);
    this.u16(encoded.length);
    this.raw(encoded);
  }
  handle(): void {
    this.nextHandle++;
  }
  /** A String object (never shared: each value is its own object in Debezium's key). */
  string(s: string | null): void {
    if (s === null) return this.u8(TC_NULL);
    this.u8(TC_STRING);
    this.handle();
    this.utf(s);
  }
  private reference(key: string): boolean {
    const known = this.shared.get(key);
    if (known === undefined) return false;
    this.u8(TC_REFERENCE);
    this.i32(known);
    return true;
  }
  classDesc(desc: ClassDesc | null): void {
    if (desc === null) return this.u8(TC_NULL);
    if (this.reference(`class ${desc.name}`)) return;
    this.u8(TC_CLASSDESC);
    this.utf(desc.name);
    this.i64(desc.uid);
    this.shared.set(`class ${desc.name}`, this.nextHandle++);
    this.u8(SC_SERIALIZABLE | (desc.writeMethod ? SC_WRITE_METHOD : 0));
    this.u16(desc.fields.length);
    for (const field of desc.fields) {
      this.u8(field.code.charCodeAt(0));
      this.utf(field.name);
      if (field.type !== undefined && !this.reference(`type ${field.type}`)) {
        this.shared.set(`type ${field.type}`, this.nextHandle);
        this.string(field.type);
      }
    }
    this.u8(TC_ENDBLOCKDATA);
    this.classDesc(desc.superclass);
  }
  /** TC_OBJECT of `desc`, its data written by `data`. */
  object(desc: ClassDesc, data: () => void): void {
    this.u8(TC_OBJECT);
    this.classDesc(desc);
    this.handle();
    data();
  }
  /**
   * An object Java hands out once per value (Boolean.TRUE, Integer.valueOf(7), …), named by `identity`:
   * written the first time, a reference to it after (null: a new object each time).
   */
  sharedObject(identity: string | null, desc: ClassDesc, data: () => void): void {
    if (identity !== null && this.reference(`object ${identity}`)) return;
    this.u8(TC_OBJECT);
    this.classDesc(desc);
    if (identity !== null) this.shared.set(`object ${identity}`, this.nextHandle);
    this.handle();
    data();
  }
  /** A String Java shares (a literal, or a name from PgJDBC's type cache): written once, referred to after. */
  sharedString(s: string): void {
    if (this.reference(`string ${s}`)) return;
    this.shared.set(`string ${s}`, this.nextHandle);
    this.string(s);
  }
  byteArray(bytes: Uint8Array): void {
    this.u8(TC_ARRAY);
    this.classDesc(BYTE_ARRAY);
    this.handle();
    this.i32(bytes.length);
    this.raw(bytes);
  }
  hex(): string {
    return Buffer.from(this.bytes).toString("hex");
  }
}

/** Java's modified UTF-8 (NUL as two bytes; characters outside the BMP as two 3-byte surrogates). */
function modifiedUtf8(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 1 && c <= 0x7f) out.push(c);
    else if (c <= 0x7ff) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return out;
}

function uuidHalves(text: string): [bigint, bigint] {
  const hex = text.replaceAll("-", "");
  return [BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))];
}

function float32Bits(v: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, v);
  return view.getInt32(0);
}

function float64Bits(v: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigInt64(0);
}

/** Java's Float/Double reads of PostgreSQL's float text ("NaN", "Infinity", "-Infinity", "1e+30"…). */
const floatOf = (text: string) => Number(text);

// ---- numeric and money: BigDecimal -----------------------------------------------------------------

interface Decimal {
  readonly unscaled: bigint;
  readonly scale: number;
}

/** A numeric's text ("-12.50") as BigDecimal's unscaled value and scale (1250, 2). */
export function decimalOf(text: string): Decimal {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (match === null) throw new KeyDecodingError(`not a decimal: ${text}`);
  const [, sign, whole, fraction = ""] = match;
  const digits = BigInt(`${whole}${fraction}` || "0");
  return { unscaled: sign === "-" ? -digits : digits, scale: fraction.length };
}

/** Money's text ("-$1,234.50", "($1.50)") as PgJDBC and Debezium read it: currency and separators dropped. */
export function moneyDecimalOf(text: string): Decimal {
  const negative = text.startsWith("-") || text.startsWith("(");
  const digits = text.replace(/[^0-9.]/g, "");
  return decimalOf(`${negative ? "-" : ""}${digits}`);
}

function decimalText({ unscaled, scale }: Decimal): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale <= 0) digits += "0".repeat(-scale);
  else {
    digits = digits.padStart(scale + 1, "0");
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return `${negative ? "-" : ""}${digits}`;
}

/** BigInteger's magnitude: the absolute value big-endian, without leading zero bytes (empty for zero). */
function magnitude(v: bigint): number[] {
  let rest = v < 0n ? -v : v;
  const out: number[] = [];
  while (rest > 0n) {
    out.unshift(Number(rest & 0xffn));
    rest >>= 8n;
  }
  return out;
}

/**
 * PgJDBC reads a short numeric with BigDecimal.valueOf(unscaled, scale), which answers one object per value
 * for 0 to 10 (scale 0) and for zero of scale 0 to 15; money is parsed into a new object each time.
 */
function cachedDecimal({ unscaled, scale }: Decimal): string | null {
  const cached = (scale === 0 && unscaled >= 0n && unscaled <= 10n) || (unscaled === 0n && scale < 16);
  return cached ? `BigDecimal ${unscaled} ${scale}` : null;
}

function writeBigDecimal(w: Writer, { unscaled, scale }: Decimal, identity: string | null): void {
  w.sharedObject(identity, BIG_DECIMAL, () => {
    w.i32(scale);
    // BigInteger.valueOf answers one object per value from -16 to 16: written once, referred to after.
    const cached = unscaled >= -16n && unscaled <= 16n ? `BigInteger ${unscaled}` : null;
    w.sharedObject(cached, BIG_INTEGER, () => {
      for (const legacy of [-1, -1, -2, -2]) w.i32(legacy);
      w.i32(unscaled === 0n ? 0 : unscaled < 0n ? -1 : 1);
      w.byteArray(Uint8Array.from(magnitude(unscaled)));
      w.u8(TC_ENDBLOCKDATA);
    });
    w.u8(TC_ENDBLOCKDATA);
  });
}

// ---- date: java.sql.Date ------------------------------------------------------------------------

const DAY_MS = 86_400_000;
/** PgJDBC's java.sql.Date of `infinity` and `-infinity` (PGStatement.DATE_POSITIVE/NEGATIVE_INFINITY). */
const DATE_INFINITY = 9223372036825200000n;
const DATE_MINUS_INFINITY = -9223372036832400000n;
/** 1582-10-15, where java.util.GregorianCalendar switches from the Julian calendar (epoch day). */
const GREGORIAN_CUTOVER_DAY = -141427;
const UNIX_EPOCH_JDN = 2440588;

/** The Julian Day Number of a date of the Julian (`julian`) or proleptic Gregorian calendar; `year` astronomical. */
function julianDayNumber(year: number, month: number, day: number, julian: boolean): number {
  const a = Math.floor((14 - month) / 12);
  const y = year + 4800 - a;
  const m = month + 12 * a - 3;
  const base = day + Math.floor((153 * m + 2) / 5) + 365 * y + Math.floor(y / 4);
  return julian ? base - 32083 : base - Math.floor(y / 100) + Math.floor(y / 400) - 32045;
}

function dateOfJulianDayNumber(jdn: number, julian: boolean): [number, number, number] {
  let c: number;
  let century = 0;
  if (julian) c = jdn + 32082;
  else {
    const a = jdn + 32044;
    century = Math.floor((4 * a + 3) / 146097);
    c = a - Math.floor((146097 * century) / 4);
  }
  const d = Math.floor((4 * c + 3) / 1461);
  const e = c - Math.floor((1461 * d) / 4);
  const m = Math.floor((5 * e + 2) / 153);
  const day = e - Math.floor((153 * m + 2) / 5) + 1;
  const month = m + 3 - 12 * Math.floor(m / 10);
  return [100 * century + d - 4800 + Math.floor(m / 10), month, day];
}

/**
 * A date's text as PgJDBC's java.sql.Date: midnight of that day (Debezium's JVM in UTC, as Sluice
 * assumes), its fields read in Java's calendar, which is Julian before 1582-10-15.
 */
export function dateMillisOf(text: string): bigint {
  if (text === "infinity") return DATE_INFINITY;
  if (text === "-infinity") return DATE_MINUS_INFINITY;
  const match = /^(\d+)-(\d\d)-(\d\d)( BC)?$/.exec(text);
  if (match === null) throw new KeyDecodingError(`not a date: ${text}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const astronomical = match[4] ? 1 - year : year;
  const julian = astronomical * 10000 + month * 100 + day < 15821015;
  return BigInt(julianDayNumber(astronomical, month, day, julian) - UNIX_EPOCH_JDN) * BigInt(DAY_MS);
}

/** The date a java.sql.Date stands for, as PostgreSQL prints it (ISO); the time of day is rounded off. */
export function dateTextOf(millis: bigint): string {
  if (millis === DATE_INFINITY) return "infinity";
  if (millis === DATE_MINUS_INFINITY) return "-infinity";
  // Midnight in a JVM zone east or west of UTC is hours from UTC's: the nearest midnight is the day.
  const epochDay = Math.floor((Number(millis) + DAY_MS / 2) / DAY_MS);
  const [year, month, day] = dateOfJulianDayNumber(epochDay + UNIX_EPOCH_JDN, epochDay < GREGORIAN_CUTOVER_DAY);
  const two = (n: number) => String(n).padStart(2, "0");
  const shown = year > 0 ? year : 1 - year;
  return `${String(shown).padStart(4, "0")}-${two(month)}-${two(day)}${year > 0 ? "" : " BC"}`;
}

// ---- interval: PGInterval -----------------------------------------------------------------------

interface Interval {
  years: number;
  months: number;
  days: number;
  hours: number;
  minutes: number;
  wholeSeconds: number;
  microSeconds: number;
}

/**
 * An interval's text (IntervalStyle postgres: "1 year 2 mons -3 days -04:05:06.5", or the unit form
 * intervalText writes) as PgJDBC's PGInterval fields; a negative time of day negates each of its parts.
 */
export function intervalOf(text: string): Interval {
  const out: Interval = { years: 0, months: 0, days: 0, hours: 0, minutes: 0, wholeSeconds: 0, microSeconds: 0 };
  const seconds = (s: string) => {
    const { unscaled, scale } = decimalOf(s);
    const micros = scale <= 6 ? unscaled * 10n ** BigInt(6 - scale) : unscaled / 10n ** BigInt(scale - 6);
    out.wholeSeconds = Number(micros / 1_000_000n);
    out.microSeconds = Number(micros % 1_000_000n);
  };
  const tokens = text.trim().split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.includes(":")) {
      const negative = token.startsWith("-");
      const [h = "0", m = "0", s = "0"] = token.replace(/^[+-]/, "").split(":");
      out.hours = Number(h) * (negative ? -1 : 1);
      out.minutes = Number(m) * (negative ? -1 : 1);
      seconds(`${negative ? "-" : ""}${s}`);
      continue;
    }
    const unit = tokens[++i] ?? "";
    if (unit.startsWith("year")) out.years = Number(token);
    else if (unit.startsWith("mon")) out.months = Number(token);
    else if (unit.startsWith("day")) out.days = Number(token);
    else if (unit.startsWith("hour")) out.hours = Number(token);
    else if (unit.startsWith("min")) out.minutes = Number(token);
    else if (unit.startsWith("sec")) seconds(token);
    else throw new KeyDecodingError(`not an interval: ${text}`);
  }
  return out;
}

function intervalText(v: Interval): string {
  const micros = BigInt(v.wholeSeconds) * 1_000_000n + BigInt(v.microSeconds);
  const seconds = decimalText({ unscaled: micros, scale: 6 });
  return `${v.years} years ${v.months} mons ${v.days} days ${v.hours} hours ${v.minutes} mins ${seconds} secs`;
}

// ---- the key ------------------------------------------------------------------------------------

/** Integer.valueOf and Long.valueOf answer one object per value from -128 to 127. */
function boxCached(text: string, kind = "Integer"): string | null {
  const n = Number(text);
  return n >= -128 && n <= 127 ? `${kind} ${n}` : null;
}

function writeValue(w: Writer, { kind, text, pgType }: KeyValue): void {
  if (text === null) return w.u8(TC_NULL);
  switch (kind) {
    case "String":
      return w.string(text);
    case "Integer":
      return w.sharedObject(boxCached(text), INTEGER, () => w.i32(Number(text)));
    case "Long":
      return w.sharedObject(boxCached(text, "Long"), LONG, () => w.i64(BigInt(text)));
    case "UUID":
      return w.object(UUID, () => {
        const [most, least] = uuidHalves(text);
        w.i64(least);
        w.i64(most);
      });
    case "BigDecimal":
      // Debezium keeps numeric's NaN and infinities, which BigDecimal cannot hold, as a Double.
      if (/^[+-]?(NaN|Infinity)$/.test(text)) return w.object(DOUBLE, () => w.i64(float64Bits(floatOf(text))));
      if (pgType === "money") return writeBigDecimal(w, moneyDecimalOf(text), null);
      return writeBigDecimal(w, decimalOf(text), cachedDecimal(decimalOf(text)));
    case "Double":
      return w.object(DOUBLE, () => w.i64(float64Bits(floatOf(text))));
    case "Float":
      return w.object(FLOAT, () => w.i32(float32Bits(floatOf(text))));
    case "Boolean": {
      const value = text === "t" || text === "true";
      return w.sharedObject(`Boolean ${value}`, BOOLEAN, () => w.u8(value ? 1 : 0));
    }
    case "Date":
      return w.object(SQL_DATE, () => {
        w.u8(TC_BLOCKDATA);
        w.u8(8);
        w.i64(dateMillisOf(text));
        w.u8(TC_ENDBLOCKDATA);
      });
    case "Bytes":
      return w.byteArray(Buffer.from(text.replace(/^\\x/, ""), "hex"));
    case "PGobject":
      return w.object(PG_OBJECT, () => {
        w.sharedString(pgType ?? "");
        w.string(text);
      });
    case "PGInterval":
      return w.object(PG_INTERVAL, () => {
        const v = intervalOf(text);
        w.sharedString("interval");
        w.u8(TC_NULL); // PGInterval keeps its value in its own fields
        for (const n of [v.days, v.hours]) w.i32(n);
        w.u8(0); // isNull
        for (const n of [v.microSeconds, v.minutes, v.months, v.wholeSeconds, v.years]) w.i32(n);
      });
  }
}

/**
 * The key as Debezium stores it: ObjectOutputStream's bytes of the Object[] in lower-case hex; null (no
 * row sent yet, no maximum read yet) is Java's serialized null.
 */
export function encodeKey(values: readonly KeyValue[] | null): string {
  const w = new Writer();
  if (values === null) {
    w.u8(TC_NULL);
    return w.hex();
  }
  w.u8(TC_ARRAY);
  w.classDesc(OBJECT_ARRAY);
  w.handle();
  w.i32(values.length);
  for (const value of values) writeValue(w, value);
  return w.hex();
}

export class KeyDecodingError extends Error {}

/** Reads a key Debezium or Sluice stored (null for a serialized null); throws KeyDecodingError on what neither writes. */
export function decodeKey(hex: string): KeyValue[] | null {
  const r = new Reader(Buffer.from(hex, "hex"));
  for (const b of MAGIC) if (r.u8() !== b) throw new KeyDecodingError("not a Java serialization stream");
  const array = r.content();
  if (array === null) return null;
  if (!(array instanceof JavaArray) || !Array.isArray(array.items))
    throw new KeyDecodingError("the stored key is not an array");
  return array.items.map(keyValueOf);
}

/** A deserialized object: its class, its fields by name, and what its writeObject wrote as block data. */
class JavaObject {
  readonly fields = new Map<string, unknown>();
  readonly blockData: number[] = [];
  constructor(readonly desc: ClassDesc) {}
}

class JavaArray {
  items: unknown[] | Buffer = [];
  constructor(readonly desc: ClassDesc) {}
}

class Reader {
  private at = 0;
  private readonly handles: unknown[] = [];
  constructor(private readonly bytes: Buffer) {}

  u8(): number {
    if (this.at >= this.bytes.length) throw new KeyDecodingError("the stored key ends early");
    return this.bytes[this.at++]!;
  }
  u16(): number {
    return (this.u8() << 8) | this.u8();
  }
  private take(n: number): Buffer {
    if (n < 0 || this.at + n > this.bytes.length) throw new KeyDecodingError("the stored key ends early");
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  i32(): number {
    return this.take(4).readInt32BE(0);
  }
  i64(): bigint {
    return this.take(8).readBigInt64BE(0);
  }
  utf(): string {
    return this.take(this.u16()).toString("utf8");
  }
  private handle<T>(value: T): T {
    this.handles.push(value);
    return value;
  }
  private referenced(): unknown {
    const index = this.i32() - BASE_HANDLE;
    if (index < 0 || index >= this.handles.length)
      throw new KeyDecodingError("a reference to nothing in the stored key");
    return this.handles[index];
  }
  content(): unknown {
    const tc = this.u8();
    switch (tc) {
      case TC_NULL:
        return null;
      case TC_REFERENCE:
        return this.referenced();
      case TC_STRING:
        return this.handle(this.utf());
      case TC_CLASSDESC:
        this.at--;
        return this.classDesc();
      case TC_ARRAY: {
        const desc = this.classDesc();
        if (desc === null) throw new KeyDecodingError("an array without class");
        const array = this.handle(new JavaArray(desc));
        const length = this.i32();
        if (desc.name === "[B") array.items = Buffer.from(this.take(length));
        else {
          const items: unknown[] = [];
          for (let i = 0; i < length; i++) items.push(this.content());
          array.items = items;
        }
        return array;
      }
      case TC_OBJECT:
        return this.object();
      default:
        throw new KeyDecodingError(`unexpected type code 0x${tc.toString(16)} in the stored key`);
    }
  }
  private classDesc(): ClassDesc | null {
    const tc = this.u8();
    if (tc === TC_NULL) return null;
    if (tc === TC_REFERENCE) return this.referenced() as ClassDesc;
    if (tc !== TC_CLASSDESC) throw new KeyDecodingError(`expected a class description, found 0x${tc.toString(16)}`);
    const name = this.utf();
    const uid = this.i64();
    const slot = this.handles.length;
    this.handles.push(null);
    const flags = this.u8();
    const fields: Field[] = [];
    for (let n = this.u16(); n > 0; n--) {
      const code = String.fromCharCode(this.u8());
      const fieldName = this.utf();
      const type = code === "L" || code === "[" ? String(this.content()) : undefined;
      fields.push({ code, name: fieldName, type });
    }
    if (this.u8() !== TC_ENDBLOCKDATA) throw new KeyDecodingError("class annotations are not supported");
    const desc: { -readonly [K in keyof ClassDesc]: ClassDesc[K] } = {
      name,
      uid,
      fields,
      superclass: null,
      writeMethod: (flags & SC_WRITE_METHOD) !== 0,
    };
    this.handles[slot] = desc;
    desc.superclass = this.classDesc();
    return desc;
  }
  private object(): JavaObject {
    const desc = this.classDesc();
    if (desc === null) throw new KeyDecodingError("an object without class");
    const object = this.handle(new JavaObject(desc));
    const chain: ClassDesc[] = [];
    for (let d: ClassDesc | null = desc; d !== null; d = d.superclass) chain.unshift(d);
    for (const d of chain) {
      for (const f of d.fields) object.fields.set(f.name, this.field(f.code));
      if (!d.writeMethod) continue;
      // What writeObject wrote after the fields: block data and objects, up to TC_ENDBLOCKDATA.
      for (let tc = this.u8(); tc !== TC_ENDBLOCKDATA; tc = this.u8()) {
        if (tc === TC_BLOCKDATA) object.blockData.push(...this.take(this.u8()));
        else {
          this.at--;
          this.content();
        }
      }
    }
    return object;
  }
  private field(code: string): unknown {
    switch (code) {
      case "B":
        return (this.u8() << 24) >> 24;
      case "Z":
        return this.u8() !== 0;
      case "C":
      case "S":
        return (this.u16() << 16) >> 16;
      case "I":
        return this.i32();
      case "J":
        return this.i64();
      case "F":
        return this.take(4).readFloatBE(0);
      case "D":
        return this.take(8).readDoubleBE(0);
      case "L":
      case "[":
        return this.content();
      default:
        throw new KeyDecodingError(`field type ${code} is not supported`);
    }
  }
}

/** Double's text, -0 kept (PostgreSQL reads "-0" as negative zero). */
function doubleText(v: number): string {
  return Object.is(v, -0) ? "-0" : String(v);
}

/** Float's shortest text that reads back as the same float4. */
function float32Text(v: number): string {
  if (!Number.isFinite(v) || v === 0) return doubleText(v);
  for (let digits = 1; digits < 9; digits++) {
    const text = v.toPrecision(digits);
    if (Math.fround(Number(text)) === v) return String(Number(text));
  }
  return String(Number(v.toPrecision(9)));
}

function keyValueOf(value: unknown): KeyValue {
  if (value === null) return { kind: "String", text: null };
  if (typeof value === "string") return { kind: "String", text: value };
  if (value instanceof JavaArray && Buffer.isBuffer(value.items))
    return { kind: "Bytes", text: `\\x${value.items.toString("hex")}` };
  if (!(value instanceof JavaObject)) throw new KeyDecodingError("unexpected element in the stored key");
  const field = (name: string) => value.fields.get(name);
  switch (value.desc.name) {
    case "java.lang.Integer":
    case "java.lang.Short":
      return { kind: "Integer", text: String(field("value")) };
    case "java.lang.Long":
      return { kind: "Long", text: String(field("value")) };
    case "java.lang.Boolean":
      return { kind: "Boolean", text: field("value") ? "t" : "f" };
    case "java.lang.Float":
      return { kind: "Float", text: float32Text(field("value") as number) };
    case "java.lang.Double":
      return { kind: "Double", text: doubleText(field("value") as number) };
    case "java.util.UUID": {
      const hex = (v: unknown) =>
        BigInt.asUintN(64, v as bigint)
          .toString(16)
          .padStart(16, "0");
      const h = hex(field("mostSigBits")) + hex(field("leastSigBits"));
      return {
        kind: "UUID",
        text: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
      };
    }
    case "java.math.BigDecimal": {
      const intVal = field("intVal");
      const mag = intVal instanceof JavaObject ? intVal.fields.get("magnitude") : undefined;
      if (!(mag instanceof JavaArray) || !Buffer.isBuffer(mag.items))
        throw new KeyDecodingError("a BigDecimal without its digits");
      const abs = mag.items.length === 0 ? 0n : BigInt(`0x${mag.items.toString("hex")}`);
      const signum = (intVal as JavaObject).fields.get("signum") as number;
      return {
        kind: "BigDecimal",
        text: decimalText({ unscaled: signum < 0 ? -abs : abs, scale: field("scale") as number }),
      };
    }
    case "java.sql.Date": {
      if (value.blockData.length !== 8) throw new KeyDecodingError("a date without its time");
      return { kind: "Date", text: dateTextOf(Buffer.from(value.blockData).readBigInt64BE(0)) };
    }
    case "org.postgresql.util.PGobject":
      return { kind: "PGobject", pgType: field("type") as string, text: field("value") as string | null };
    case "org.postgresql.util.PGInterval": {
      const n = (name: string) => field(name) as number;
      return {
        kind: "PGInterval",
        text: intervalText({
          years: n("years"),
          months: n("months"),
          days: n("days"),
          hours: n("hours"),
          minutes: n("minutes"),
          wholeSeconds: n("wholeSeconds"),
          microSeconds: n("microSeconds"),
        }),
      };
    }
    default:
      throw new KeyDecodingError(`key values of class ${value.desc.name} are not supported`);
  }
}
