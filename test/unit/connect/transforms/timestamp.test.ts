import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { ConnectDate, Schema, SchemaBuilder, Struct, Time, Timestamp } from "#src/connect/api/data/index.ts";
import { SimpleDateFormat, TimestampConverter, TimestampRouter } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

// 2017-01-03T06:30:01.864Z and its parts.
const MS = Date.UTC(2017, 0, 3, 6, 30, 1, 864);
const DATE = new Date(Date.UTC(2017, 0, 3));
const TIME = new Date(Date.UTC(1970, 0, 1, 6, 30, 1, 864));
const TS = new Date(MS);
const FORMAT = "yyyy MM dd HH:mm:ss SSS z";
const STRING = "2017 01 03 06:30:01 864 UTC";

describe("TimestampRouter", () => {
  test("default format ${topic}-${timestamp} with yyyyMMdd", () => {
    const out = configured(new TimestampRouter(), {}).apply(source({ topic: "test", timestamp: 1_483_425_001_864 }));
    expect(out.topic).toBe("test-20170103");
  });

  test("custom formats and the missing-timestamp error", () => {
    const t = configured(new TimestampRouter(), {
      "topic.format": "${timestamp}_${topic}_${topic}",
      "timestamp.format": "yyyy-MM-dd'T'HH",
    });
    expect(t.apply(source({ topic: "a", timestamp: MS })).topic).toBe("2017-01-03T06_a_a");
    expect(() => t.apply(source({ topic: "a" }))).toThrow(/^Timestamp missing on record: SourceRecord\{/);
    expect(() => new TimestampRouter().configure({ "timestamp.format": "yyyy-bb" })).toThrow(ConfigError);
  });
});

describe("SimpleDateFormat", () => {
  test("formats the supported letters in UTC", () => {
    expect(new SimpleDateFormat(FORMAT).format(TS)).toBe(STRING);
    expect(new SimpleDateFormat("EEE, d MMM yyyy hh:mm a Z").format(TS)).toBe("Tue, 3 Jan 2017 06:30 AM +0000");
    expect(new SimpleDateFormat("EEEE MMMM yy D k K h X 'o''clock'").format(TS)).toBe(
      "Tuesday January 17 3 6 6 6 Z o'clock",
    );
    expect(new SimpleDateFormat("S").format(TS)).toBe("864");
  });

  test("parses what it formats; lenient roll-over; trailing text ignored", () => {
    for (const pattern of [FORMAT, "yyyy-MM-dd'T'HH:mm:ss.SSSX", "yyyyMMddHHmmssSSS", "dd/MMM/yyyy:HH:mm:ss.SSS Z"]) {
      const f = new SimpleDateFormat(pattern);
      expect(f.parse(f.format(TS)).getTime()).toBe(MS);
    }
    expect(new SimpleDateFormat("yyyy-MM-dd").parse("2017-13-01").getTime()).toBe(Date.UTC(2018, 0, 1));
    expect(new SimpleDateFormat("yyyy-MM-dd").parse("2017-01-03 and more").getTime()).toBe(DATE.getTime());
    expect(new SimpleDateFormat("yyyy-MM-dd'T'HH:mmXXX").parse("2017-01-03T08:30+02:00").getTime()).toBe(
      Date.UTC(2017, 0, 3, 6, 30),
    );
    expect(() => new SimpleDateFormat("yyyy-MM-dd").parse("nope")).toThrow('Unparseable date: "nope"');
  });

  test("rejects illegal and unsupported pattern letters", () => {
    expect(() => new SimpleDateFormat("yyyy-qq")).toThrow("Illegal pattern character 'q'");
    expect(() => new SimpleDateFormat("YYYY")).toThrow("Unsupported pattern character 'Y'");
  });
});

describe("TimestampConverter", () => {
  const convert = (config: Record<string, string>, side: "key" | "value" = "value") =>
    configured(new TimestampConverter(side), config);

  test("schemaless whole values between every type", () => {
    const v = (config: Record<string, string>, value: unknown) => convert(config).apply(source({ value })).value;
    expect(v({ "target.type": "Timestamp" }, BigInt(MS))).toEqual(TS);
    expect(v({ "target.type": "Date" }, TS)).toEqual(DATE);
    expect(v({ "target.type": "Time" }, TS)).toEqual(TIME);
    expect(v({ "target.type": "unix" }, TS)).toBe(BigInt(MS));
    expect(v({ "target.type": "string", format: FORMAT }, TS)).toBe(STRING);
    expect(v({ "target.type": "Timestamp", format: FORMAT }, STRING)).toEqual(TS);
    expect(v({ "target.type": "unix", "unix.precision": "seconds" }, TS)).toBe(1_483_425_001n);
    expect(v({ "target.type": "unix", "unix.precision": "microseconds" }, TS)).toBe(BigInt(MS) * 1000n);
    expect(v({ "target.type": "Timestamp", "unix.precision": "nanoseconds" }, BigInt(MS) * 1_000_000n + 999n)).toEqual(
      TS,
    );
    expect(v({ "target.type": "Timestamp", "unix.precision": "seconds" }, 1_483_425_001)).toEqual(
      new Date(1_483_425_001_000),
    );
    expect(v({ "target.type": "Timestamp" }, null)).toBeNull();
  });

  test("schema'd whole values pick the source type from the schema", () => {
    const out = convert({ "target.type": "Timestamp" }).apply(source({ valueSchema: ConnectDate.SCHEMA, value: DATE }));
    expect(out.valueSchema).toBe(Timestamp.SCHEMA);
    expect(out.value).toEqual(DATE);
    const unix = convert({ "target.type": "Date" }).apply(
      source({ valueSchema: Schema.OPTIONAL_INT64_SCHEMA, value: BigInt(MS) }),
    );
    expect(unix.valueSchema!.name).toBe(ConnectDate.LOGICAL_NAME);
    expect(unix.valueSchema!.optional).toBe(true);
    expect(unix.value).toEqual(DATE);
    const str = convert({ "target.type": "Time", format: FORMAT }, "key").apply(
      source({ keySchema: Schema.STRING_SCHEMA, key: STRING }),
    );
    expect(str.keySchema).toBe(Time.SCHEMA);
    expect(str.key).toEqual(TIME);
    expect(() =>
      convert({ "target.type": "Date" }).apply(source({ valueSchema: Schema.INT32_SCHEMA, value: 5 })),
    ).toThrow("Schema Schema{INT32} does not correspond to a known timestamp type format");
  });

  test("a field of a Struct or map", () => {
    const schema = SchemaBuilder.struct()
      .name("row")
      .field("id", Schema.INT32_SCHEMA)
      .field("ts", Timestamp.SCHEMA)
      .build();
    const out = convert({ field: "ts", "target.type": "string", format: "yyyy-MM-dd" }).apply(
      source({ valueSchema: schema, value: new Struct(schema).put("id", 1).put("ts", TS) }),
    );
    expect(out.valueSchema!.name).toBe("row");
    expect(out.valueSchema!.field("ts")!.schema).toBe(Schema.STRING_SCHEMA);
    expect((out.value as Struct).get("ts")).toBe("2017-01-03");
    expect((out.value as Struct).get("id")).toBe(1);
    const map = convert({ field: "ts", "target.type": "unix" }).apply(source({ value: { id: 1, ts: TS } }));
    expect(map.value).toEqual({ id: 1, ts: BigInt(MS) });
  });

  test("errors", () => {
    expect(() => convert({ "target.type": "Timestamp", format: FORMAT }).apply(source({ value: "garbage" }))).toThrow(
      `Could not parse timestamp: value (garbage) does not match pattern (${FORMAT})`,
    );
    expect(() => convert({ "target.type": "Timestamp" }).apply(source({ value: 4.5 }))).toThrow(
      "TimestampConverter does not support class java.lang.Double objects as timestamps",
    );
    expect(() =>
      convert({ "target.type": "unix" }).apply(source({ valueSchema: Timestamp.SCHEMA, value: "x" })),
    ).toThrow("Expected Timestamp to be a java.util.Date, but found class java.lang.String");
  });

  test("settings validation", () => {
    expect(() => new TimestampConverter().configure({})).toThrow(ConfigError);
    expect(() => new TimestampConverter().configure({ "target.type": "bogus" })).toThrow(ConfigError);
    expect(() => new TimestampConverter().configure({ "target.type": "string" })).toThrow(
      "TimestampConverter requires format option to be specified when using string timestamps",
    );
    expect(() => new TimestampConverter().configure({ "target.type": "string", format: "qq" })).toThrow(
      /TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: qq/,
    );
    expect(() => new TimestampConverter().configure({ "target.type": "unix", "unix.precision": "minutes" })).toThrow(
      ConfigError,
    );
  });
});
