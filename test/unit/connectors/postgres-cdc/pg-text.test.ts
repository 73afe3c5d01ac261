import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  civilDate,
  epochDay,
  parseArray,
  parseBytea,
  parseDate,
  parseInterval,
  parseTime,
  parseTimestamp,
  parseTimestampTz,
  parseTimeTz,
} from "#src/connectors/postgres-cdc/pg-text.ts";

const utcMicros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;

describe("PostgreSQL text values", () => {
  test("epochDay and civilDate agree with JS Date and with each other", () => {
    expect(epochDay(1970, 1, 1)).toBe(0);
    expect(epochDay(2000, 3, 1)).toBe(11017);
    expect(epochDay(1969, 12, 31)).toBe(-1);
    fc.assert(
      fc.property(fc.integer({ min: -5_000_000, max: 5_000_000 }), (days) => {
        const { year, month, day } = civilDate(days);
        return epochDay(year, month, day) === days;
      }),
    );
    fc.assert(
      fc.property(fc.date({ min: new Date("0001-01-01"), max: new Date("9999-12-31"), noInvalidDate: true }), (d) => {
        const days = Math.floor(d.getTime() / 86_400_000);
        return epochDay(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()) === days;
      }),
    );
  });

  test("date: ISO, BC, five-digit years, infinities; nonsense refused", () => {
    expect(parseDate("2016-11-04")).toBe(17109);
    expect(parseDate("1900-01-01")).toBe(-25567);
    expect(parseDate("0001-01-01 BC")).toBe(epochDay(0, 1, 1));
    expect(parseDate("4714-11-24 BC")).toBe(epochDay(-4713, 11, 24));
    expect(parseDate("21016-11-04")).toBe(epochDay(21016, 11, 4));
    expect(parseDate("infinity")).toBe("infinity");
    expect(parseDate("-infinity")).toBe("-infinity");
    for (const bad of ["2016-02-30", "2016-13-01", "16-11-04", "2016-11-04 AD", "2016-11-04x", ""])
      expect(() => parseDate(bad)).toThrow(SyntaxError);
  });

  test("time: microseconds since midnight, 24:00:00 allowed", () => {
    expect(parseTime("13:51:30")).toBe(49_890_000_000n);
    expect(parseTime("13:51:30.123")).toBe(49_890_123_000n);
    expect(parseTime("00:00:00.000001")).toBe(1n);
    expect(parseTime("24:00:00")).toBe(86_400_000_000n);
    for (const bad of ["24:00:00.000001", "12:60:00", "12:00:60", "1:00:00", "12:00:00.1234567", "12:00"])
      expect(() => parseTime(bad)).toThrow(SyntaxError);
  });

  test("timetz: local time and offset, including minutes and seconds of offset", () => {
    expect(parseTimeTz("13:51:30.123789+02")).toEqual({ micros: 49_890_123_789n, offsetSeconds: 7200 });
    expect(parseTimeTz("01:02:03-05:30")).toEqual({ micros: 3_723_000_000n, offsetSeconds: -19800 });
    expect(parseTimeTz("00:00:00+05:53:28")).toEqual({ micros: 0n, offsetSeconds: 21208 });
    expect(() => parseTimeTz("13:51:30")).toThrow(SyntaxError);
  });

  test("timestamp: read as UTC; fractions, BC, far future, infinities", () => {
    expect(parseTimestamp("2016-11-04 13:51:30.123456")).toBe(utcMicros("2016-11-04T13:51:30.123Z") + 456n);
    expect(parseTimestamp("1936-10-25 22:10:12.608")).toBe(utcMicros("1936-10-25T22:10:12.608Z"));
    expect(parseTimestamp("1969-12-31 23:59:59.999999")).toBe(-1n);
    expect(parseTimestamp("294247-01-01 23:59:59.999999")).toBe(9_223_371_331_200_000_000n - 1n);
    expect(parseTimestamp("4713-12-31 23:59:59.999999 BC")).toBe(-210_831_897_600_000_001n);
    expect(parseTimestamp("infinity")).toBe("infinity");
    expect(parseTimestamp("-infinity")).toBe("-infinity");
    expect(() => parseTimestamp("2016-11-04T13:51:30")).toThrow(SyntaxError);
    expect(() => parseTimestamp("2016-11-04 13:51:30+00")).toThrow(SyntaxError);
  });

  test("timestamptz: the offset is taken away", () => {
    expect(parseTimestampTz("2016-11-04 13:51:30.123456+02")).toBe(utcMicros("2016-11-04T11:51:30.123Z") + 456n);
    expect(parseTimestampTz("2016-11-04 13:51:30-03:30")).toBe(utcMicros("2016-11-04T17:21:30Z"));
    expect(parseTimestampTz("1900-01-01 00:00:00+01:34:08")).toBe(utcMicros("1899-12-31T22:25:52Z"));
    expect(parseTimestampTz("4714-12-31 23:59:59.999999+00 BC")).toBe(
      BigInt(epochDay(-4713, 12, 31) + 1) * 86_400_000_000n - 1n,
    );
    expect(parseTimestampTz("-infinity")).toBe("-infinity");
    expect(() => parseTimestampTz("2016-11-04 13:51:30")).toThrow(SyntaxError);
  });

  test("interval: postgres and iso_8601 styles, signs per field", () => {
    expect(parseInterval("1 year 2 mons 3 days 04:05:06.78")).toEqual({
      years: 1,
      months: 2,
      days: 3,
      hours: 4,
      minutes: 5,
      seconds: 6.78,
    });
    expect(parseInterval("-1 years -2 mons +3 days -04:05:06.5")).toEqual({
      years: -1,
      months: -2,
      days: 3,
      hours: -4,
      minutes: -5,
      seconds: -6.5,
    });
    expect(parseInterval("00:00:00")).toEqual({ years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 });
    expect(parseInterval("1 day")).toEqual({ years: 0, months: 0, days: 1, hours: 0, minutes: 0, seconds: 0 });
    expect(parseInterval("100:00:00.000001")).toEqual({
      years: 0,
      months: 0,
      days: 0,
      hours: 100,
      minutes: 0,
      seconds: 0.000001,
    });
    expect(parseInterval("P1Y2M3DT4H5M6.78S")).toEqual({
      years: 1,
      months: 2,
      days: 3,
      hours: 4,
      minutes: 5,
      seconds: 6.78,
    });
    expect(parseInterval("P-1Y-2M3DT-4H-5M-6S")).toEqual({
      years: -1,
      months: -2,
      days: 3,
      hours: -4,
      minutes: -5,
      seconds: -6,
    });
    expect(parseInterval("PT0S")).toEqual({ years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 });
    for (const bad of ["", "1 fortnight", "1 year 2", "1-2 3 4:05:06", "04:05:06 1 day"])
      expect(() => parseInterval(bad)).toThrow(SyntaxError);
  });

  test("arrays: NULLs, quoted elements with commas, quotes, backslashes and spaces", () => {
    expect(parseArray("{}")).toEqual([]);
    expect(parseArray("{1,2,3}")).toEqual(["1", "2", "3"]);
    expect(parseArray("{1,NULL,3}")).toEqual(["1", null, "3"]);
    expect(parseArray('{"NULL",null,""}')).toEqual(["NULL", null, ""]);
    expect(parseArray('{"a,b","say \\"hi\\"","back\\\\slash"," padded "}')).toEqual([
      "a,b",
      'say "hi"',
      "back\\slash",
      " padded ",
    ]);
    expect(parseArray('{"2016-11-04 13:51:30+00","2016-11-04 13:51:31+00"}')).toEqual([
      "2016-11-04 13:51:30+00",
      "2016-11-04 13:51:31+00",
    ]);
    expect(parseArray("[2:3]={7,8}")).toEqual(["7", "8"]);
    expect(parseArray("{ a , b }")).toEqual(["a", "b"]);
    expect(() => parseArray("{{1,2},{3,4}}")).toThrow(/Multi-dimensional/);
    for (const bad of ["", "1,2", "{1,2", '{"open}', '{"a"b}']) expect(() => parseArray(bad)).toThrow(SyntaxError);
  });

  test("bytea: hex and escape formats", () => {
    expect(parseBytea("\\x")).toEqual(new Uint8Array());
    expect(parseBytea("\\x010203ff")).toEqual(Uint8Array.of(1, 2, 3, 255));
    expect(parseBytea("\\xDEADbeef")).toEqual(Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    expect(parseBytea("ab\\\\c\\000\\377")).toEqual(Uint8Array.of(0x61, 0x62, 0x5c, 0x63, 0, 255));
    for (const bad of ["\\x0", "\\xzz", "\\9", "é"]) expect(() => parseBytea(bad)).toThrow(SyntaxError);
  });
});
