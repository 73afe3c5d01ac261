import { describe, expect, test } from "bun:test";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import { DataException, Decimal, Schema, SchemaBuilder, type Struct } from "#src/connect/api/data/index.ts";
import {
  columnMapping,
  Oid,
  sourceColumnType,
  type ColumnMapping,
  type TimePrecisionMode,
  type TypeMappingOptions,
  type UserType,
} from "#src/connectors/postgres-cdc/column-types.ts";

const MOOD = 16390;
const MOOD_ARRAY = 16389;
const userTypes = new Map<number, UserType>([
  [MOOD, { kind: "enum", values: ["sad", "ok", "happy"] }],
  [MOOD_ARRAY, { kind: "array", elementOid: MOOD }],
]);
const defaults: TypeMappingOptions = { decimalHandlingMode: "precise", timePrecisionMode: "adaptive", userTypes };

function mapping(
  typeOid: number,
  typeModifier = -1,
  options: Partial<TypeMappingOptions> = {},
  optional = true,
  defaultExpression: string | null = null,
): ColumnMapping {
  const m = columnMapping({ typeOid, typeModifier, optional, defaultExpression }, { ...defaults, ...options });
  if (m === null) throw new Error(`no mapping for ${typeOid}`);
  return m;
}

/** Converts, then checks the value fits the schema, as a Struct.put would. */
function convert(typeOid: number, text: string, typeModifier = -1, options: Partial<TypeMappingOptions> = {}): unknown {
  const m = mapping(typeOid, typeModifier, options);
  const value = m.convert(text);
  m.schema.validateValue(value);
  return value;
}

const numericTypmod = (precision: number, scale: number) => ((precision << 16) | (scale & 0x7ff)) + 4;
const named = (builder: SchemaBuilder, name: string) => builder.name(name).version(1).optional().build();

describe("Debezium type mapping: schemas", () => {
  test("primitives, optional or not as the column says", () => {
    expect(mapping(Oid.BOOL).schema.equals(Schema.OPTIONAL_BOOLEAN_SCHEMA)).toBe(true);
    expect(mapping(Oid.INT2, -1, {}, false).schema.equals(Schema.INT16_SCHEMA)).toBe(true);
    expect(mapping(Oid.INT4).schema.equals(Schema.OPTIONAL_INT32_SCHEMA)).toBe(true);
    expect(mapping(Oid.INT8).schema.equals(Schema.OPTIONAL_INT64_SCHEMA)).toBe(true);
    expect(mapping(Oid.OID).schema.equals(Schema.OPTIONAL_INT64_SCHEMA)).toBe(true);
    expect(mapping(Oid.FLOAT4).schema.equals(Schema.OPTIONAL_FLOAT32_SCHEMA)).toBe(true);
    expect(mapping(Oid.FLOAT8).schema.equals(Schema.OPTIONAL_FLOAT64_SCHEMA)).toBe(true);
    for (const oid of [Oid.TEXT, Oid.VARCHAR, Oid.BPCHAR, Oid.CHAR, Oid.NAME])
      expect(mapping(oid).schema.equals(Schema.OPTIONAL_STRING_SCHEMA)).toBe(true);
    expect(mapping(Oid.BYTEA).schema.equals(Schema.OPTIONAL_BYTES_SCHEMA)).toBe(true);
  });

  test("Debezium semantic types: names, version 1, parameters", () => {
    expect(mapping(Oid.JSON).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Json"))).toBe(true);
    expect(mapping(Oid.JSONB).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Json"))).toBe(true);
    expect(mapping(Oid.UUID).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Uuid"))).toBe(true);
    expect(mapping(Oid.XML).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Xml"))).toBe(true);
    expect(
      mapping(Oid.TIMESTAMPTZ).schema.equals(named(SchemaBuilder.string(), "io.debezium.time.ZonedTimestamp")),
    ).toBe(true);
    expect(mapping(Oid.TIMETZ).schema.equals(named(SchemaBuilder.string(), "io.debezium.time.ZonedTime"))).toBe(true);
    expect(mapping(Oid.INTERVAL).schema.equals(named(SchemaBuilder.int64(), "io.debezium.time.MicroDuration"))).toBe(
      true,
    );
    expect(mapping(Oid.DATE).schema.equals(named(SchemaBuilder.int32(), "io.debezium.time.Date"))).toBe(true);
    const mood = mapping(MOOD).schema;
    expect(mood.name).toBe("io.debezium.data.Enum");
    expect(mood.version).toBe(1);
    expect([...(mood.parameters ?? [])]).toEqual([["allowed", "sad,ok,happy"]]);
  });

  test("time and timestamp by time.precision.mode and the column's precision", () => {
    const name = (oid: number, typmod: number, mode: TimePrecisionMode) =>
      mapping(oid, typmod, { timePrecisionMode: mode }).schema.name;
    expect(name(Oid.TIME, -1, "adaptive")).toBe("io.debezium.time.MicroTime");
    expect(name(Oid.TIME, 3, "adaptive")).toBe("io.debezium.time.Time");
    expect(name(Oid.TIME, 0, "adaptive")).toBe("io.debezium.time.Time");
    expect(name(Oid.TIME, 4, "adaptive")).toBe("io.debezium.time.MicroTime");
    expect(name(Oid.TIME, 3, "adaptive_time_microseconds")).toBe("io.debezium.time.MicroTime");
    expect(name(Oid.TIME, -1, "connect")).toBe("org.apache.kafka.connect.data.Time");
    expect(name(Oid.TIMESTAMP, -1, "adaptive")).toBe("io.debezium.time.MicroTimestamp");
    expect(name(Oid.TIMESTAMP, 3, "adaptive")).toBe("io.debezium.time.Timestamp");
    expect(name(Oid.TIMESTAMP, 3, "adaptive_time_microseconds")).toBe("io.debezium.time.Timestamp");
    expect(name(Oid.TIMESTAMP, 6, "connect")).toBe("org.apache.kafka.connect.data.Timestamp");
    expect(name(Oid.DATE, -1, "connect")).toBe("org.apache.kafka.connect.data.Date");
    expect(mapping(Oid.TIME, 3).schema.type).toBe("INT32");
    expect(mapping(Oid.TIME, 6).schema.type).toBe("INT64");
  });

  test("numeric by decimal.handling.mode and whether the column has a scale", () => {
    expect(
      mapping(Oid.NUMERIC, numericTypmod(3, 2)).schema.equals(
        Decimal.builder(2).parameter("connect.decimal.precision", "3").optional().build(),
      ),
    ).toBe(true);
    expect(
      mapping(Oid.NUMERIC, numericTypmod(4, 0)).schema.equals(
        Decimal.builder(0).parameter("connect.decimal.precision", "4").optional().build(),
      ),
    ).toBe(true);
    const variable = mapping(Oid.NUMERIC).schema;
    expect(variable.name).toBe("io.debezium.data.VariableScaleDecimal");
    expect(variable.doc).toBe("Variable scaled decimal");
    expect(variable.fields.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
      ["scale", "INT32", false],
      ["value", "BYTES", false],
    ]);
    expect(
      mapping(Oid.NUMERIC, -1, { decimalHandlingMode: "double" }).schema.equals(Schema.OPTIONAL_FLOAT64_SCHEMA),
    ).toBe(true);
    expect(
      mapping(Oid.NUMERIC, numericTypmod(3, 2), { decimalHandlingMode: "string" }).schema.equals(
        Schema.OPTIONAL_STRING_SCHEMA,
      ),
    ).toBe(true);
  });

  test("arrays: optional elements of the element's schema; enum arrays as Debezium builds them", () => {
    expect(mapping(1007).schema.equals(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build())).toBe(
      true,
    );
    expect(mapping(1009).schema.equals(SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())).toBe(
      true,
    );
    expect(
      mapping(1185).schema.valueSchema?.equals(named(SchemaBuilder.string(), "io.debezium.time.ZonedTimestamp")),
    ).toBe(true);
    expect(mapping(1231, numericTypmod(5, 2)).schema.valueSchema?.parameters?.get("scale")).toBe("2");
    expect(mapping(1231).schema.valueSchema?.name).toBe("io.debezium.data.VariableScaleDecimal");
    const moods = mapping(MOOD_ARRAY).schema.valueSchema;
    expect(moods?.name).toBe("io.debezium.data.Enum");
    expect(moods?.optional).toBe(false);
  });

  test("types Debezium leaves out have no mapping", () => {
    for (const oid of [3220 /* pg_lsn */, 1187 /* interval[] */, 99999])
      expect(columnMapping({ typeOid: oid, typeModifier: -1, optional: true }, defaults)).toBeNull();
  });
});

describe("Debezium type mapping: values from pgoutput text", () => {
  test("booleans, integers, floats with their special values", () => {
    expect(convert(Oid.BOOL, "t")).toBe(true);
    expect(convert(Oid.BOOL, "f")).toBe(false);
    expect(convert(Oid.INT2, "-32768")).toBe(-32768);
    expect(convert(Oid.INT4, "2147483647")).toBe(2147483647);
    expect(convert(Oid.INT8, "-9223372036854775808")).toBe(-9223372036854775808n);
    expect(convert(Oid.OID, "4000000000")).toBe(4000000000n);
    expect(convert(Oid.FLOAT4, "3.3")).toBe(3.3);
    expect(convert(Oid.FLOAT8, "-1.5e-300")).toBe(-1.5e-300);
    expect(convert(Oid.FLOAT8, "NaN")).toBeNaN();
    expect(convert(Oid.FLOAT8, "Infinity")).toBe(Infinity);
    expect(convert(Oid.FLOAT4, "-Infinity")).toBe(-Infinity);
    expect(() => convert(Oid.BOOL, "true")).toThrow(DataException);
    expect(() => convert(Oid.INT2, "32768")).toThrow(DataException);
    expect(() => convert(Oid.INT4, "1.0")).toThrow(DataException);
    expect(() => convert(Oid.FLOAT8, "abc")).toThrow(DataException);
  });

  test("strings, bytea (hex), json, uuid and enums pass their text through", () => {
    expect(convert(Oid.BPCHAR, "ab  ")).toBe("ab  ");
    expect(convert(Oid.TEXT, "")).toBe("");
    expect(convert(Oid.BYTEA, "\\x00ff10")).toEqual(Uint8Array.of(0, 255, 16));
    expect(convert(Oid.JSONB, '{"bar": "baz"}')).toBe('{"bar": "baz"}');
    expect(convert(Oid.UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")).toBe("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    expect(convert(MOOD, "happy")).toBe("happy");
  });

  test("numeric(p,s) as Decimal keeps the column's scale, negative values included", () => {
    expect(convert(Oid.NUMERIC, "1.10", numericTypmod(3, 2))).toEqual(new BigDecimal(110n, 2));
    expect(convert(Oid.NUMERIC, "-22.2200", numericTypmod(6, 4))).toEqual(new BigDecimal(-222200n, 4));
    expect(convert(Oid.NUMERIC, "-0.01", numericTypmod(3, 2))).toEqual(new BigDecimal(-1n, 2));
    expect(convert(Oid.NUMERIC, "12300", numericTypmod(5, -2))).toEqual(new BigDecimal(123n, -2));
  });

  test("unconstrained numeric as VariableScaleDecimal: trailing zeros stripped, two's-complement bytes", () => {
    const vsd = (text: string) => convert(Oid.NUMERIC, text) as Struct;
    const parts = (text: string) => {
      const s = vsd(text);
      return [s.getInt32("scale"), [...(s.getBytes("value") ?? [])]];
    };
    expect(parts("10.1111")).toEqual([4, [0x01, 0x8a, 0xf7]]); // 101111
    expect(parts("22")).toEqual([0, [22]]);
    expect(parts("22.000")).toEqual([0, [22]]);
    expect(parts("100")).toEqual([0, [100]]);
    expect(parts("-1.50")).toEqual([1, [0xf1]]); // -15
    expect(parts("-128")).toEqual([0, [0x80]]);
    expect(parts("0.000")).toEqual([0, [0]]);
    // Python: (1234567890123456789012345678905).to_bytes(13, "big", signed=True)
    expect(parts("123456789012345678901234567890.5")).toEqual([
      1,
      [0x0f, 0x95, 0x1a, 0x9f, 0xa3, 0xa2, 0x86, 0xc9, 0x4f, 0x0e, 0x76, 0x6c, 0x39],
    ]);
  });

  test("NaN and infinite numerics: refused when precise, special values when double or string", () => {
    expect(() => convert(Oid.NUMERIC, "NaN")).toThrow(/special value \(NaN\).*'string'/);
    expect(() => convert(Oid.NUMERIC, "Infinity", numericTypmod(3, 2))).toThrow(DataException);
    const asDouble = (t: string, typmod = -1) => convert(Oid.NUMERIC, t, typmod, { decimalHandlingMode: "double" });
    expect(asDouble("NaN")).toBeNaN();
    expect(asDouble("-Infinity")).toBe(-Infinity);
    expect(asDouble("-1.10", numericTypmod(3, 2))).toBe(-1.1);
    const asString = (t: string, typmod = -1) => convert(Oid.NUMERIC, t, typmod, { decimalHandlingMode: "string" });
    expect(asString("NaN")).toBe("NAN");
    expect(asString("Infinity")).toBe("POSITIVE_INFINITY");
    expect(asString("-Infinity")).toBe("NEGATIVE_INFINITY");
    expect(asString("22.2200", numericTypmod(6, 4))).toBe("22.2200");
    expect(asString("0.0000001")).toBe("0.0000001");
    expect(() => convert(Oid.NUMERIC, "1,5")).toThrow(DataException);
  });

  test("dates: days since the epoch, Debezium's infinity sentinels (streamed or read by the snapshot), Connect Dates in connect mode", () => {
    expect(convert(Oid.DATE, "2016-11-04")).toBe(17109);
    expect(convert(Oid.DATE, "1969-12-31")).toBe(-1);
    // What Debezium 3.7.0.Final wrote, run on the same table (test/interop/postgres-cdc-debezium.test.ts).
    expect(convert(Oid.DATE, "infinity")).toBe(2146033979);
    expect(convert(Oid.DATE, "-infinity")).toBe(-2147472691);
    expect(convert(Oid.DATE, "infinity", -1, { readBy: "snapshot" })).toBe(-622191234);
    expect(convert(Oid.DATE, "-infinity", -1, { readBy: "snapshot" })).toBe(-625821272);
    expect(convert(Oid.DATE, "2016-11-04", -1, { readBy: "snapshot" })).toBe(17109);
    expect(convert(Oid.DATE, "2016-11-04", -1, { timePrecisionMode: "connect" })).toEqual(
      new Date("2016-11-04T00:00:00Z"),
    );
    expect(() => convert(Oid.DATE, "infinity", -1, { timePrecisionMode: "connect" })).toThrow(/connect/);
  });

  test("times: ms or µs since midnight by precision, 24:00:00 kept", () => {
    expect(convert(Oid.TIME, "13:51:30")).toBe(49_890_000_000n);
    expect(convert(Oid.TIME, "13:51:30.123", 3)).toBe(49_890_123);
    expect(convert(Oid.TIME, "13:51:30.123", 3, { timePrecisionMode: "adaptive_time_microseconds" })).toBe(
      49_890_123_000n,
    );
    expect(convert(Oid.TIME, "24:00:00")).toBe(86_400_000_000n);
    expect(convert(Oid.TIME, "00:00:01.5", -1, { timePrecisionMode: "connect" })).toEqual(new Date(1500));
  });

  test("timestamps: µs or ms since the epoch, before 1970, beyond year 9999, ±infinity", () => {
    const micros = BigInt(Date.parse("2016-11-04T13:51:30.123Z")) * 1000n + 456n;
    expect(convert(Oid.TIMESTAMP, "2016-11-04 13:51:30.123456")).toBe(micros);
    expect(convert(Oid.TIMESTAMP, "2016-11-04 13:51:30.123456", 3)).toBe(1478267490123n);
    expect(convert(Oid.TIMESTAMP, "1936-10-25 22:10:12.608")).toBe(
      BigInt(Date.parse("1936-10-25T22:10:12.608Z")) * 1000n,
    );
    expect(convert(Oid.TIMESTAMP, "1969-12-31 23:59:59.9995", 3)).toBe(-1n);
    expect(convert(Oid.TIMESTAMP, "21016-11-04 13:51:30.123457")).toBe(
      BigInt(Date.parse("+021016-11-04T13:51:30.123Z")) * 1000n + 457n,
    );
    // Debezium 3.7.0.Final: Long.MAX/MIN_VALUE in µs; in ms the JDBC driver's sentinels themselves.
    expect(convert(Oid.TIMESTAMP, "infinity")).toBe(9_223_372_036_854_775_807n);
    expect(convert(Oid.TIMESTAMP, "-infinity")).toBe(-9_223_372_036_854_775_808n);
    expect(convert(Oid.TIMESTAMP, "infinity", 3)).toBe(9_223_372_036_825_200_000n);
    expect(convert(Oid.TIMESTAMP, "-infinity", 3)).toBe(-9_223_372_036_832_400_000n);
    expect(convert(Oid.TIMESTAMP, "2016-11-04 13:51:30.123456", -1, { timePrecisionMode: "connect" })).toEqual(
      new Date("2016-11-04T13:51:30.123Z"),
    );
    expect(() => convert(Oid.TIMESTAMP, "-infinity", -1, { timePrecisionMode: "connect" })).toThrow(/connect/);
  });

  test("timestamptz: UTC ISO-8601 with the column's fractional digits, as Debezium writes it", () => {
    expect(convert(Oid.TIMESTAMPTZ, "2016-11-04 13:51:30.123456+02")).toBe("2016-11-04T11:51:30.123456Z");
    expect(convert(Oid.TIMESTAMPTZ, "2020-04-01 13:51:02+02")).toBe("2020-04-01T11:51:02.000000Z");
    expect(convert(Oid.TIMESTAMPTZ, "2020-04-01 13:51:02.5+02", 3)).toBe("2020-04-01T11:51:02.500Z");
    expect(convert(Oid.TIMESTAMPTZ, "2020-04-01 13:51:02.5+02", 0)).toBe("2020-04-01T11:51:02.5Z");
    expect(convert(Oid.TIMESTAMPTZ, "2020-04-01 13:51:00+02", 0)).toBe("2020-04-01T11:51:00Z");
    expect(convert(Oid.TIMESTAMPTZ, "2020-01-01 00:30:00+05:30")).toBe("2019-12-31T19:00:00.000000Z");
    expect(convert(Oid.TIMESTAMPTZ, "21016-11-04 13:51:30.123456+07")).toBe("+21016-11-04T06:51:30.123456Z");
    expect(convert(Oid.TIMESTAMPTZ, "21016-11-04 13:51:30+07")).toBe("+21016-11-04T06:51:30.000000Z");
    expect(convert(Oid.TIMESTAMPTZ, "294247-01-01 23:59:59.999999+00")).toBe("+294247-01-01T23:59:59.999999Z");
    expect(convert(Oid.TIMESTAMPTZ, "4714-12-31 23:59:59.999999+00 BC")).toBe("-4713-12-31T23:59:59.999999Z");
    expect(convert(Oid.TIMESTAMPTZ, "0001-01-01 00:00:00+00 BC")).toBe("0000-01-01T00:00:00.000000Z");
    expect(convert(Oid.TIMESTAMPTZ, "infinity")).toBe("infinity");
    expect(convert(Oid.TIMESTAMPTZ, "-infinity")).toBe("-infinity");
  });

  test("timetz: moved to UTC, fraction as short as it can be, wrapping around midnight", () => {
    expect(convert(Oid.TIMETZ, "13:51:30.123789+02")).toBe("11:51:30.123789Z");
    expect(convert(Oid.TIMETZ, "13:51:30.123+02")).toBe("11:51:30.123Z");
    expect(convert(Oid.TIMETZ, "13:51:30.120+02")).toBe("11:51:30.12Z");
    expect(convert(Oid.TIMETZ, "13:51:02+02")).toBe("11:51:02Z");
    expect(convert(Oid.TIMETZ, "01:00:00+02")).toBe("23:00:00Z");
    expect(convert(Oid.TIMETZ, "23:30:00-01:30")).toBe("01:00:00Z");
    expect(convert(Oid.TIMETZ, "24:00:00+00")).toBe("24:00:00Z");
    expect(convert(Oid.TIMETZ, "24:00:00+02")).toBe("22:00:00Z");
  });

  test("interval: Debezium's MicroDuration (a month is 365.25/12 days)", () => {
    // 1y2m = 14 × 30.4375 days; + 3 days 04:05:06.78
    expect(convert(Oid.INTERVAL, "1 year 2 mons 3 days 04:05:06.78")).toBe(37_091_106_780_000n);
    expect(convert(Oid.INTERVAL, "P1Y2M3DT4H5M6.78S")).toBe(37_091_106_780_000n);
    expect(convert(Oid.INTERVAL, "-00:00:01.5")).toBe(-1_500_000n);
    expect(convert(Oid.INTERVAL, "1 mon")).toBe(2_629_800_000_000n);
    expect(convert(Oid.INTERVAL, "00:00:00")).toBe(0n);
  });

  test("arrays: NULL elements, quoted elements, converted element by element", () => {
    expect(convert(1007, "{1,NULL,-3}")).toEqual([1, null, -3]);
    expect(convert(1016, "{9223372036854775807}")).toEqual([9223372036854775807n]);
    expect(convert(1009, '{"a,b",NULL,"NULL","quote \\"q\\""}')).toEqual(["a,b", null, "NULL", 'quote "q"']);
    expect(convert(1000, "{t,f,NULL}")).toEqual([true, false, null]);
    expect(convert(1001, '{"\\\\x0102",NULL}')).toEqual([Uint8Array.of(1, 2), null]);
    expect(convert(1231, "{1.10,-2.50}", numericTypmod(5, 2))).toEqual([
      new BigDecimal(110n, 2),
      new BigDecimal(-250n, 2),
    ]);
    expect(convert(1185, '{"2020-04-01 13:51:02+02",NULL}')).toEqual(["2020-04-01T11:51:02.000000Z", null]);
    expect(convert(1270, '{"13:51:02+02"}')).toEqual(["11:51:02Z"]);
    // Debezium has the JDBC driver parse arrays, which shows in edge values (as Debezium 3.7.0.Final wrote them):
    // a date ±infinity is the driver's sentinel, a timestamp before 1582-10-15 a Julian calendar date, a
    // timestamptz -infinity the driver's sentinel instant.
    expect(convert(1182, "{2016-11-04,infinity}")).toEqual([17109, -622191234]);
    expect(convert(1115, '{"0001-01-01 00:00:00","1582-10-15 00:00:00",infinity}')).toEqual([
      -62135769600000000n,
      -12219292800000000n,
      9_223_372_036_854_775_807n,
    ]);
    expect(convert(1185, "{-infinity,infinity}")).toEqual(["+292269055-12-02T23:00:00.000000Z", "infinity"]);
    expect(convert(MOOD_ARRAY, "{sad,happy}")).toEqual(["sad", "happy"]);
    expect(convert(1007, "{}")).toEqual([]);
  });
});

describe("Debezium type mapping: column defaults in the schema", () => {
  /** The schema's default for a column whose DEFAULT pg_get_expr prints as `expression` (undefined: none). */
  const defaultOf = (
    typeOid: number,
    expression: string,
    typeModifier = -1,
    options: Partial<TypeMappingOptions> = {},
  ) => {
    const value = mapping(typeOid, typeModifier, options, true, expression).schema.defaultValue;
    return value === null ? undefined : value;
  };

  // The defaults Debezium 3.7.0.Final put in its schemas for these columns (test/interop/postgres-cdc-debezium.test.ts).
  test("literals, bare or cast, converted as the column's values are", () => {
    expect(defaultOf(Oid.INT4, "42")).toBe(42);
    expect(defaultOf(Oid.INT2, "'-3'::integer")).toBe(-3);
    expect(defaultOf(Oid.INT8, "'9223372036854775807'::bigint")).toBe(9223372036854775807n);
    expect(defaultOf(Oid.BOOL, "true")).toBe(true);
    expect(defaultOf(Oid.NUMERIC, "1.5", numericTypmod(6, 2))).toEqual(new BigDecimal(150n, 2));
    expect(defaultOf(Oid.NUMERIC, "1.5", numericTypmod(6, 2), { decimalHandlingMode: "string" })).toBe("1.50");
    expect(defaultOf(Oid.FLOAT4, "0.1")).toBe(0.1);
    expect(defaultOf(Oid.FLOAT8, "'-25000000000'::numeric")).toBe(-2.5e10);
    // Double.parseDouble trims the literal and takes a suffix; it refuses Unicode spaces.
    expect(defaultOf(Oid.FLOAT8, "' 2.5'::double precision")).toBe(2.5);
    expect(defaultOf(Oid.FLOAT4, "'-1e3f'::real")).toBe(-1000);
    expect(defaultOf(Oid.FLOAT8, "'\u00a02.5'::double precision")).toBeUndefined();
    expect(defaultOf(Oid.VARCHAR, "'it''s'::character varying")).toBe("it's");
    expect(defaultOf(Oid.BPCHAR, "'x'::bpchar")).toBe("x");
    expect(defaultOf(Oid.TEXT, "'hello'::text")).toBe("hello");
    expect(defaultOf(Oid.DATE, "'2020-02-29'::date")).toBe(18321);
    expect(defaultOf(Oid.TIME, "'12:34:56.789'::time without time zone", 3)).toBe(45296789);
    expect(defaultOf(Oid.TIMESTAMP, "'2020-01-01 01:02:03.456789'::timestamp without time zone")).toBe(
      1577840523456789n,
    );
    expect(defaultOf(Oid.TIMESTAMPTZ, "'2019-12-31 23:02:03+00'::timestamp with time zone")).toBe(
      "2019-12-31T23:02:03.000000Z",
    );
    expect(defaultOf(Oid.INTERVAL, "'1 day 02:00:00'::interval")).toBe(93600000000n);
    expect(defaultOf(Oid.JSONB, `'{"a": 1}'::jsonb`)).toBe('{"a": 1}');
    expect(defaultOf(MOOD, "'ok'::mood")).toBe("ok");
    expect(defaultOf(Oid.DATE, "'2020-02-29'::date", -1, { timePrecisionMode: "connect" })).toEqual(
      new Date("2020-02-29T00:00:00Z"),
    );
  });

  test("a function call or CURRENT_* stands for a placeholder: zero, epoch, empty, the nil UUID", () => {
    expect(defaultOf(Oid.INT8, "nextval('t_d_serial_seq'::regclass)")).toBe(0n);
    expect(defaultOf(Oid.DATE, "CURRENT_DATE")).toBe(0);
    expect(defaultOf(Oid.TIMESTAMP, "now()")).toBe(0n);
    expect(defaultOf(Oid.TIMESTAMPTZ, "now()")).toBe("1970-01-01T00:00:00.000000Z");
    expect(defaultOf(Oid.UUID, "gen_random_uuid()")).toBe("00000000-0000-0000-0000-000000000000");
    expect(defaultOf(Oid.TEXT, "upper('x'::text)")).toBe("");
  });

  test("none: NULL, expressions, unconstrained numeric (a struct), types without a parser", () => {
    expect(defaultOf(Oid.TEXT, "NULL::text")).toBeUndefined();
    expect(defaultOf(Oid.INT4, "(1 + 2)")).toBeUndefined();
    expect(defaultOf(Oid.NUMERIC, "7")).toBeUndefined();
    expect(defaultOf(Oid.NUMERIC, "7", -1, { decimalHandlingMode: "string" })).toBe("7");
    expect(defaultOf(Oid.BYTEA, "'\\x00'::bytea")).toBeUndefined();
    expect(defaultOf(1007, "'{1}'::integer[]")).toBeUndefined();
  });
});

describe("the source type, as Debezium's column rules see it (pgjdbc's metadata)", () => {
  const typeOf = (typeOid: number, typeModifier = -1, more: { typeName?: string; defaultExpression?: string } = {}) =>
    sourceColumnType({ typeOid, typeModifier, optional: true, ...more }, userTypes);

  test("name, length and scale of the types Debezium's side-by-side test shows", () => {
    // numeric(10,2), varchar(30), char(3), timestamp, json, int4, as Debezium 3.7 wrote them.
    expect(typeOf(Oid.NUMERIC, (10 << 16) + 2 + 4, { typeName: "numeric" })).toEqual({
      typeName: "numeric",
      length: 10,
      scale: 2,
      isCharacter: false,
    });
    expect(typeOf(Oid.VARCHAR, 30 + 4)).toMatchObject({ typeName: "varchar", length: 30, scale: 0, isCharacter: true });
    expect(typeOf(Oid.BPCHAR, 3 + 4)).toMatchObject({ typeName: "bpchar", length: 3, isCharacter: true });
    expect(typeOf(Oid.TIMESTAMP)).toMatchObject({ typeName: "timestamp", length: 29, scale: 6 });
    expect(typeOf(Oid.JSON)).toMatchObject({ typeName: "json", length: 2147483647, scale: 0, isCharacter: false });
    expect(typeOf(Oid.INT4)).toMatchObject({ typeName: "int4", length: 10, scale: 0 });
  });

  test("unbounded and time types take pgjdbc's display sizes; a sequence-filled column is a serial", () => {
    expect(typeOf(Oid.NUMERIC)).toMatchObject({ length: 131089, scale: 0 });
    // The snapshot reads the driver's getColumns, which has no size or digits for it (Debezium 3.7's output).
    expect(
      sourceColumnType({ typeOid: Oid.NUMERIC, typeModifier: -1, optional: true }, userTypes, "snapshot"),
    ).toMatchObject({
      length: 0,
      scale: null,
    });
    expect(typeOf(Oid.TIMESTAMPTZ, 3)).toMatchObject({ length: 32, scale: 3 });
    expect(typeOf(Oid.TIME, 0)).toMatchObject({ length: 8, scale: 0 });
    expect(
      typeOf(Oid.INT8, -1, { typeName: "int8", defaultExpression: "nextval('t_id_seq'::regclass)" }),
    ).toMatchObject({
      typeName: "bigserial",
      length: 19,
    });
    expect(typeOf(MOOD, -1, { typeName: "mood" })).toMatchObject({ typeName: "mood", isCharacter: true });
  });
});

describe("Debezium type mapping: money, network addresses, ranges and extension types", () => {
  const CITEXT = 16500;
  const LTREE = 16600;
  const extensions = new Map<number, UserType>([
    [CITEXT, { kind: "extension", name: "citext" }],
    [LTREE, { kind: "extension", name: "ltree" }],
  ]);

  test("money is a Decimal of money.fraction.digits, exact to the cent", () => {
    expect(mapping(Oid.MONEY).schema.equals(Decimal.builder(2).optional().build())).toBe(true);
    expect(
      mapping(Oid.MONEY, -1, { moneyFractionDigits: 4 }).schema.equals(Decimal.builder(4).optional().build()),
    ).toBe(true);
    expect(convert(Oid.MONEY, "$1,234.56")).toEqual(BigDecimal.parse("1234.56"));
    expect(convert(Oid.MONEY, "-$0.01")).toEqual(BigDecimal.parse("-0.01"));
    expect(convert(Oid.MONEY, "$0.00")).toEqual(BigDecimal.parse("0.00"));
    // money's limits, past 2^53 cents: exact, as Debezium 3.7 emits them.
    expect(convert(Oid.MONEY, "$92,233,720,368,547,758.07")).toEqual(BigDecimal.parse("92233720368547758.07"));
    expect(convert(Oid.MONEY, "-$92,233,720,368,547,758.08")).toEqual(BigDecimal.parse("-92233720368547758.08"));
    expect(convert(Oid.MONEY, "$1.5", -1, { moneyFractionDigits: 0 })).toEqual(BigDecimal.parse("2"));
    expect(() => convert(Oid.MONEY, "twelve")).toThrow(DataException);
  });

  test("money under decimal.handling.mode double and string: the amount as a double, and as text", () => {
    expect(
      mapping(Oid.MONEY, -1, { decimalHandlingMode: "double" }).schema.equals(Schema.OPTIONAL_FLOAT64_SCHEMA),
    ).toBe(true);
    expect(convert(Oid.MONEY, "-$1,234.50", -1, { decimalHandlingMode: "double" })).toBe(-1234.5);
    expect(mapping(Oid.MONEY, -1, { decimalHandlingMode: "string" }).schema.equals(Schema.OPTIONAL_STRING_SCHEMA)).toBe(
      true,
    );
    expect(convert(Oid.MONEY, "$1,234.50", -1, { decimalHandlingMode: "string" })).toBe("1234.50");
    expect(convert(Oid.MONEY, "$12,345,678.00", -1, { decimalHandlingMode: "string" })).toBe("12345678.00");
  });

  test("inet, cidr, macaddr, macaddr8 and the built-in ranges are their text, in plain strings", () => {
    for (const oid of [
      Oid.INET,
      Oid.CIDR,
      Oid.MACADDR,
      Oid.MACADDR8,
      Oid.INT4RANGE,
      Oid.INT8RANGE,
      Oid.NUMRANGE,
      Oid.TSRANGE,
      Oid.TSTZRANGE,
      Oid.DATERANGE,
    ])
      expect(mapping(oid).schema.equals(Schema.OPTIONAL_STRING_SCHEMA)).toBe(true);
    expect(convert(Oid.INET, "192.168.1.10/24")).toBe("192.168.1.10/24");
    expect(convert(Oid.CIDR, "2001:db8::/32")).toBe("2001:db8::/32");
    expect(convert(Oid.MACADDR8, "08:00:2b:01:02:03:04:05")).toBe("08:00:2b:01:02:03:04:05");
    expect(convert(Oid.INT4RANGE, "empty")).toBe("empty");
    expect(convert(Oid.TSTZRANGE, '["2024-01-01 08:00:00+00",)')).toBe('["2024-01-01 08:00:00+00",)');
  });

  test("citext is a plain string and ltree io.debezium.data.Ltree, known by the catalog's type name", () => {
    const options = { userTypes: extensions };
    expect(mapping(CITEXT, -1, options).schema.equals(Schema.OPTIONAL_STRING_SCHEMA)).toBe(true);
    expect(mapping(LTREE, -1, options).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Ltree"))).toBe(
      true,
    );
    expect(convert(CITEXT, "MiXeD", -1, options)).toBe("MiXeD");
    expect(convert(LTREE, "Top.Science", -1, options)).toBe("Top.Science");
    // Without the catalog's word, an unknown OID stays unmapped (and is warned of by the caller).
    expect(columnMapping({ typeOid: CITEXT, typeModifier: -1, optional: true }, defaults)).toBeNull();
  });
});

describe("Debezium type mapping: bit strings, tsvector and point", () => {
  test("bit(1) is a boolean; longer bit strings are io.debezium.data.Bits, little-endian", () => {
    expect(mapping(Oid.BIT, 1).schema.equals(Schema.OPTIONAL_BOOLEAN_SCHEMA)).toBe(true);
    expect(convert(Oid.BIT, "1", 1)).toBe(true);
    expect(convert(Oid.BIT, "0", 1)).toBe(false);
    const bits = (length: string) =>
      SchemaBuilder.bytes().name("io.debezium.data.Bits").version(1).parameter("length", length).optional().build();
    expect(mapping(Oid.BIT, 8).schema.equals(bits("8"))).toBe(true);
    expect(mapping(Oid.VARBIT).schema.equals(bits("2147483647"))).toBe(true);
    expect(convert(Oid.BIT, "10100001", 8)).toEqual(Uint8Array.of(0xa1));
    expect(convert(Oid.VARBIT, "1010000111")).toEqual(Uint8Array.of(0x87, 0x02));
    expect(convert(Oid.VARBIT, "0000000000000001")).toEqual(Uint8Array.of(0x01));
    expect(convert(Oid.BIT, "00000000", 8)).toEqual(new Uint8Array(0));
    expect(convert(Oid.VARBIT, "")).toEqual(new Uint8Array(0));
    expect(() => convert(Oid.VARBIT, "102")).toThrow(DataException);
  });

  test("tsvector is its text, named io.debezium.data.Tsvector", () => {
    expect(mapping(Oid.TSVECTOR).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Tsvector"))).toBe(true);
    expect(convert(Oid.TSVECTOR, "'a' 'cat' 'fat'")).toBe("'a' 'cat' 'fat'");
  });

  test("point is io.debezium.data.geometry.Point: x, y and their WKB", () => {
    const value = convert(Oid.POINT, "(1.5,-2)") as Struct;
    expect(value.schema.name).toBe("io.debezium.data.geometry.Point");
    expect(value.get("x")).toBe(1.5);
    expect(value.get("y")).toBe(-2);
    expect(Buffer.from(value.get("wkb") as Uint8Array).toString("base64")).toBe("AQEAAAAAAAAAAAD4PwAAAAAAAADA");
    expect(value.get("srid")).toBeNull();
  });
});

describe("Debezium type mapping: hstore (hstore.handling.mode json)", () => {
  const HSTORE = 16800;
  const options = { userTypes: new Map<number, UserType>([[HSTORE, { kind: "extension", name: "hstore" }]]) };

  test("JSON text named io.debezium.data.Json, in java.util.HashMap's order", () => {
    expect(mapping(HSTORE, -1, options).schema.equals(named(SchemaBuilder.string(), "io.debezium.data.Json"))).toBe(
      true,
    );
    // Buckets of a 16-slot table: zz 0, a 1, b 2, "c d" 7, k10 10.
    expect(convert(HSTORE, '"a"=>"1", "b"=>NULL, "zz"=>"2", "k10"=>"3", "c d"=>"x\\"y"', -1, options)).toBe(
      '{"zz":"2","a":"1","b":null,"c d":"x\\"y","k10":"3"}',
    );
    expect(convert(HSTORE, "", -1, options)).toBe("{}");
    expect(() => convert(HSTORE, '"a"=>1', -1, options)).toThrow(DataException);
  });
});
