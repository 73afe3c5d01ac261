// Incremental snapshot keys of every common key type, byte for byte as Debezium 3.7 writes them.
import { describe, expect, test } from "bun:test";
import {
  dateMillisOf,
  dateTextOf,
  decodeKey,
  encodeKey,
  intervalOf,
  javaKindOf,
  type KeyValue,
} from "#src/connectors/postgres-cdc/incremental-snapshot-key.ts";

// Captured from Debezium 3.7 (Kafka Connect 4.1.1, JVM in UTC, PostgreSQL 15) with
// test/interop/postgres-cdc-debezium-incremental-keys.test.ts: a table whose primary key has one column
// of each type below, four rows, chunk size 2, snapshot paused after its first chunk; these are the
// offsets' incremental_snapshot_primary_key (the second row) and incremental_snapshot_maximum_key (the
// fourth), from GET /connectors/<name>/offsets.
const DEBEZIUM_LAST_SENT =
  "aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c020000787000000014737200146a61" +
  "76612e6d6174682e426967446563696d616c54c71557f981284f0300024900057363616c654c0006696e7456616c7400164c" +
  "6a6176612f6d6174682f426967496e74656765723b787200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b02" +
  "0000787000000002737200146a6176612e6d6174682e426967496e74656765728cfc9f1fa93bfb1d03000649000862697443" +
  "6f756e744900096269744c656e67746849001366697273744e6f6e7a65726f427974654e756d49000c6c6f77657374536574" +
  "4269744900067369676e756d5b00096d61676e69747564657400025b427871007e0004fffffffffffffffffffffffeffffff" +
  "fe00000001757200025b42acf317f8060854e002000078700000000204e278787372000d6a6176612e73716c2e4461746514" +
  "fa46683f3566970200007872000e6a6176612e7574696c2e44617465686a81014b59741903000078707708000000dc65a950" +
  "0078740013313939392d31322d33312032333a35393a3539740016313939392d31322d33312032333a35393a35392b303074" +
  "000830303a30303a303074000b30303a30303a30302b3030737200116a6176612e6c616e672e426f6f6c65616ecd207280d5" +
  "9cfaee0200015a000576616c75657870017372000f6a6176612e6c616e672e466c6f6174daedc9a2db3cf0ec020001460005" +
  "76616c75657871007e00043dcccccd737200106a6176612e6c616e672e446f75626c6580b3c24a296bfb0402000144000576" +
  "616c75657871007e0004400921fb54442d187571007e000900000000740005c3a9e298837400057820202020740000737200" +
  "1c6f72672e706f737467726573716c2e7574696c2e50476f626a6563744bf895caac6f64440200024c000474797065740012" +
  "4c6a6176612f6c616e672f537472696e673b4c000576616c756571007e001d7870740006636974657874740002c39f737200" +
  "116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c75657871007e000400007fff740005" +
  "68617070797371007e0002000000027371007e0006fffffffffffffffffffffffefffffffeffffffff7571007e0009000000" +
  "019678787372001e6f72672e706f737467726573716c2e7574696c2e5047496e74657276616c882be40e2cbd59bb02000849" +
  "000464617973490005686f7572735a000669734e756c6c49000c6d6963726f5365636f6e64734900076d696e757465734900" +
  "066d6f6e74687349000c77686f6c655365636f6e647349000579656172737871007e001c740008696e74657276616c700000" +
  "000000000000000000000000000000fffffffd00000000000000007371007e001c740004696e65747400033a3a317372000e" +
  "6a6176612e6c616e672e4c6f6e673b8be490cc8f23df0200014a000576616c75657871007e000400000000ffffffff";
const DEBEZIUM_MAXIMUM =
  "aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c020000787000000014737200146a61" +
  "76612e6d6174682e426967446563696d616c54c71557f981284f0300024900057363616c654c0006696e7456616c7400164c" +
  "6a6176612f6d6174682f426967496e74656765723b787200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b02" +
  "000078700000000a737200146a6176612e6d6174682e426967496e74656765728cfc9f1fa93bfb1d03000649000862697443" +
  "6f756e744900096269744c656e67746849001366697273744e6f6e7a65726f427974654e756d49000c6c6f77657374536574" +
  "4269744900067369676e756d5b00096d61676e69747564657400025b427871007e0004fffffffffffffffffffffffeffffff" +
  "fe00000001757200025b42acf317f8060854e002000078700000001103a0c92075c0dbf3b8acbc5f968c04d5157878737200" +
  "0d6a6176612e73716c2e4461746514fa46683f3566970200007872000e6a6176612e7574696c2e44617465686a81014b5974" +
  "1903000078707708ffffc63b105d28007874001a313937302d30312d30312030303a30303a30302e30303030303174001631" +
  "3930302d30362d30312031323a30303a30302b303074000831323a30303a303074000b31323a30303a30302b303073720011" +
  "6a6176612e6c616e672e426f6f6c65616ecd207280d59cfaee0200015a000576616c75657870007372000f6a6176612e6c61" +
  "6e672e466c6f6174daedc9a2db3cf0ec02000146000576616c75657871007e0004f149f2ca737200106a6176612e6c616e67" +
  "2e446f75626c6580b3c24a296bfb0402000144000576616c75657871007e00047e37e43c8800759c7571007e000900000004" +
  "deadbeef7400046c6173747400056c617374207400046c6173747372001c6f72672e706f737467726573716c2e7574696c2e" +
  "50476f626a6563744bf895caac6f64440200024c0004747970657400124c6a6176612f6c616e672f537472696e673b4c0005" +
  "76616c756571007e001d78707400066369746578747400044c415354737200116a6176612e6c616e672e496e746567657212" +
  "e2a0a4f781873802000149000576616c75657871007e0004ffff80007400037361647371007e0002000000027371007e0006" +
  "fffffffffffffffffffffffefffffffe000000017571007e00090000000398967f78787372001e6f72672e706f7374677265" +
  "73716c2e7574696c2e5047496e74657276616c882be40e2cbd59bb02000849000464617973490005686f7572735a00066973" +
  "4e756c6c49000c6d6963726f5365636f6e64734900076d696e757465734900066d6f6e74687349000c77686f6c655365636f" +
  "6e647349000579656172737871007e001c740008696e74657276616c70000000000000000000000000000000000000000000" +
  "00000000000000017371007e001c740004696e657474000b323030313a6462383a3a317372000e6a6176612e6c616e672e4c" +
  "6f6e673b8be490cc8f23df0200014a000576616c75657871007e00040000000000000007";

const COLUMNS: [string, string, ReturnType<typeof javaKindOf>][] = [
  ["n", "numeric", javaKindOf(1700)],
  ["d", "date", javaKindOf(1082)],
  ["ts", "timestamp", javaKindOf(1114)],
  ["tstz", "timestamptz", javaKindOf(1184)],
  ["t", "time", javaKindOf(1083)],
  ["ttz", "timetz", javaKindOf(1266)],
  ["b", "bool", javaKindOf(16)],
  ["f4", "float4", javaKindOf(700)],
  ["f8", "float8", javaKindOf(701)],
  ["by", "bytea", javaKindOf(17)],
  ["vc", "varchar", javaKindOf(1043)],
  ["ch", "char", javaKindOf(1042)],
  ["tx", "text", javaKindOf(25)],
  ["ci", "citext", javaKindOf(16385, "citext")],
  ["i2", "int2", javaKindOf(21)],
  ["en", "enum", javaKindOf(16390, "mood", true)],
  ["mo", "money", javaKindOf(790)],
  ["iv", "interval", javaKindOf(1186)],
  ["ip", "inet", javaKindOf(869)],
  ["o", "oid", javaKindOf(26)],
];
/** The key's values as PostgreSQL prints them (what Sluice's chunk query reads). */
const key = (texts: string[]): KeyValue[] => COLUMNS.map(([, , c], i) => ({ ...c, text: texts[i]! }));
const LAST_SENT = key([
  "12.50",
  "1999-12-31",
  "1999-12-31 23:59:59",
  "1999-12-31 23:59:59+00",
  "00:00:00",
  "00:00:00+00",
  "t",
  "0.1",
  "3.141592653589793",
  "\\x",
  "é☃",
  "x    ",
  "",
  "ß",
  "32767",
  "happy",
  "-$1.50",
  "-3 mons",
  "::1",
  "4294967295",
]);
const MAXIMUM = key([
  "123456789012345678901234567890.0123456789",
  "0044-03-15 BC",
  "1970-01-01 00:00:00.000001",
  "1900-06-01 12:00:00+00",
  "12:00:00",
  "12:00:00+00",
  "f",
  "-1e+30",
  "1e+300",
  "\\xdeadbeef",
  "last",
  "last ",
  "last",
  "LAST",
  "-32768",
  "sad",
  "$99,999.99",
  "1 year",
  "2001:db8::1",
  "7",
]);

describe("incremental snapshot keys of every common type, as Debezium 3.7 writes them", () => {
  test("the Java class of each key column follows Debezium's read of it", () => {
    expect(COLUMNS.map(([name, , c]) => [name, c.kind, c.pgType])).toEqual([
      ["n", "BigDecimal", undefined],
      ["d", "Date", undefined],
      ["ts", "String", undefined],
      ["tstz", "String", undefined],
      ["t", "String", undefined],
      ["ttz", "String", undefined],
      ["b", "Boolean", undefined],
      ["f4", "Float", undefined],
      ["f8", "Double", undefined],
      ["by", "Bytes", undefined],
      ["vc", "String", undefined],
      ["ch", "String", undefined],
      ["tx", "String", undefined],
      ["ci", "PGobject", "citext"],
      ["i2", "Integer", undefined],
      ["en", "String", undefined],
      ["mo", "BigDecimal", "money"],
      ["iv", "PGInterval", undefined],
      ["ip", "PGobject", "inet"],
      ["o", "Long", undefined],
    ]);
  });

  test("Sluice writes Debezium's bytes", () => {
    expect(encodeKey(LAST_SENT)).toBe(DEBEZIUM_LAST_SENT);
    expect(encodeKey(MAXIMUM)).toBe(DEBEZIUM_MAXIMUM);
  });

  test("Sluice reads Debezium's bytes back to values PostgreSQL reads as the same key", () => {
    const read = decodeKey(DEBEZIUM_MAXIMUM)!;
    expect(read.map((v) => [v.kind, v.text])).toEqual([
      ["BigDecimal", "123456789012345678901234567890.0123456789"],
      ["Date", "0044-03-15 BC"],
      ["String", "1970-01-01 00:00:00.000001"],
      ["String", "1900-06-01 12:00:00+00"],
      ["String", "12:00:00"],
      ["String", "12:00:00+00"],
      ["Boolean", "f"],
      ["Float", "-1e+30"],
      ["Double", "1e+300"],
      ["Bytes", "\\xdeadbeef"],
      ["String", "last"],
      ["String", "last "],
      ["String", "last"],
      ["PGobject", "LAST"],
      ["Integer", "-32768"],
      ["String", "sad"],
      ["BigDecimal", "99999.99"],
      ["PGInterval", "1 years 0 mons 0 days 0 hours 0 mins 0.000000 secs"],
      ["PGobject", "2001:db8::1"],
      ["Long", "7"],
    ]);
    // What Sluice read it as, it writes back the same.
    expect(encodeKey(read)).toBe(DEBEZIUM_MAXIMUM);
    expect(encodeKey(decodeKey(DEBEZIUM_LAST_SENT))).toBe(DEBEZIUM_LAST_SENT);
  });
});

describe("key values' edge cases round-trip within Sluice", () => {
  const roundTrip = (values: KeyValue[]) => decodeKey(encodeKey(values))!.map((v) => v.text);

  test("numeric: zero, negatives, scales, and NaN/Infinity as Debezium's Double", () => {
    const numeric = (text: string): KeyValue => ({ kind: "BigDecimal", text });
    expect(roundTrip(["0", "0.000", "-1", "-0.0001", "256", "99999999999999999999.5"].map(numeric))).toEqual([
      "0",
      "0.000",
      "-1",
      "-0.0001",
      "256",
      "99999999999999999999.5",
    ]);
    const special = decodeKey(encodeKey(["NaN", "Infinity", "-Infinity"].map(numeric)))!;
    expect(special).toEqual([
      { kind: "Double", text: "NaN" },
      { kind: "Double", text: "Infinity" },
      { kind: "Double", text: "-Infinity" },
    ]);
  });

  test("dates: Java's calendar is Julian before 1582-10-15; ±infinity are PgJDBC's special dates", () => {
    expect(dateMillisOf("1970-01-01")).toBe(0n);
    expect(dateMillisOf("1999-12-31")).toBe(946598400000n);
    // The last Julian day and the first Gregorian one are consecutive days for Java.
    expect(dateMillisOf("1582-10-15") - dateMillisOf("1582-10-04")).toBe(86_400_000n);
    for (const text of ["1582-10-04", "1582-10-15", "0001-01-01", "0001-12-31 BC", "0044-03-15 BC", "2400-02-29"])
      expect(dateTextOf(dateMillisOf(text))).toBe(text);
    expect(dateTextOf(dateMillisOf("infinity"))).toBe("infinity");
    expect(dateTextOf(dateMillisOf("-infinity"))).toBe("-infinity");
    // Midnight of a JVM east or west of UTC is still that day.
    expect(dateTextOf(dateMillisOf("2024-02-29") - 2n * 3_600_000n)).toBe("2024-02-29");
    expect(dateTextOf(dateMillisOf("2024-02-29") + 5n * 3_600_000n)).toBe("2024-02-29");
  });

  test("floats: the shortest text that reads back as the same value", () => {
    const floats = ["0.1", "-1e+30", "3.4028235e+38", "1e-45", "NaN", "-Infinity"].map(
      (text): KeyValue => ({ kind: "Float", text }),
    );
    expect(roundTrip(floats)).toEqual(["0.1", "-1e+30", "3.4028235e+38", "1e-45", "NaN", "-Infinity"]);
    expect(
      roundTrip([
        { kind: "Double", text: "-0" },
        { kind: "Double", text: "5e-324" },
      ]),
    ).toEqual(["0", "5e-324"]);
  });

  test("intervals: PostgreSQL's text as PGInterval's fields, a negative time negating each part", () => {
    expect(intervalOf("1 year 2 mons -3 days -04:05:06.5")).toEqual({
      years: 1,
      months: 2,
      days: -3,
      hours: -4,
      minutes: -5,
      wholeSeconds: -6,
      microSeconds: -500000,
    });
    const text = roundTrip([{ kind: "PGInterval", text: "1 year 2 mons -3 days -04:05:06.5" }])[0]!;
    expect(intervalOf(text)).toEqual(intervalOf("1 year 2 mons -3 days -04:05:06.5"));
  });

  test("bytea alone describes byte[]'s class itself; booleans; PGobjects keep their type", () => {
    const values: KeyValue[] = [
      { kind: "Bytes", text: "\\x0001ff" },
      { kind: "Bytes", text: "\\x" },
      { kind: "Boolean", text: "t" },
      { kind: "PGobject", pgType: "macaddr", text: "08:00:2b:01:02:03" },
      { kind: "PGobject", pgType: "citext", text: null },
    ];
    expect(decodeKey(encodeKey(values))).toEqual([...values.slice(0, 4), { kind: "String", text: null }]);
  });
});
