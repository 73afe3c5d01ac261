import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { JsonConverter } from "#src/connect/converters/json.ts";
import { readPayload, SLOW } from "#src/connect/converters/json-payload.ts";
import { valuesEqual } from "#src/connect/api/data/index.ts";
import { schemaAndValueArbitrary } from "../../../fixtures/connect-data.ts";

const bytes = (s: string) => Buffer.from(s);

function converter(config: Record<string, string> = {}): JsonConverter {
  const c = new JsonConverter();
  c.configure(config, false);
  return c;
}

/** Schema and value, or the error's message and cause, as one converter answers. */
function answer(c: JsonConverter, json: Uint8Array) {
  try {
    const { schema, value } = c.toConnectData("t", json);
    return { schema: schema?.toString(), value };
  } catch (e) {
    return { error: (e as Error).message, cause: String((e as Error).cause) };
  }
}

const field = (name: string, schema: string) => `{${schema.slice(1, -1)},"field":"${name}"}`;
const struct = (...fields: string[]) => `{"type":"struct","fields":[${fields.join(",")}],"optional":false}`;
const T = (type: string, extra = "") => `{"type":"${type}","optional":false${extra}}`;
const OPT = (type: string) => `{"type":"${type}","optional":true}`;

/** Schemas, each with payloads that JSON.parse and Jackson could tell apart, or that Kafka refuses. */
const CASES: [schema: string, payloads: string[]][] = [
  [
    struct(
      field("i8", T("int8")),
      field("i16", T("int16")),
      field("i32", T("int32")),
      field("i64", T("int64")),
      field("f32", T("float")),
      field("f64", T("double")),
      field("b", T("boolean")),
      field("s", OPT("string")),
      field("y", OPT("bytes")),
    ),
    [
      '{"i8":1,"i16":2,"i32":3,"i64":4,"f32":0.5,"f64":0.25,"b":true,"s":"x","y":"AQI="}',
      '{"i8":300,"i16":70000,"i32":4294967297,"i64":-9007199254740991,"f32":0.1,"f64":-1e300,"b":false,"s":null,"y":null}',
      '{"i8":1.0,"i16":1e2,"i32":2.5,"i64":1.9,"f32":1,"f64":-0,"b":1,"s":5,"y":5}',
      '{"i8":1,"i16":2,"i32":3,"i64":9007199254740993,"f32":0.5,"f64":-0.0,"b":true,"s":"x","y":"AQI"}',
      '{"i8":1,"i16":2,"i32":3,"i64":12345678901234567890,"f32":16777217,"f64":0.1000000000000000055511151231257827,"b":true,"s":"x","y":"*"}',
      '{"i8":1,"i16":2,"i32":1999999999.9999999,"i64":45035996273704.957e2,"f32":1.00000005960464477539062,"f64":1e400,"b":true,"s":"x","y":null}',
      '{"i8":"1","i16":[],"i32":{},"i64":null,"f32":"x","f64":true,"b":null,"s":"a\\u0000\\ud800","y":""}',
      '{"i8":1,"i16":2,"i32":3,"i64":4,"f32":5,"f64":6,"b":true,"s":"dup","s":"last","y":null}',
      '{"i8":1,"i16":2,"i32":3,"i64":4,"f32":5,"f64":6,"b":true,"s":"ÿ ✓ 😀","constructor":1}',
      '{"i8":1,"i16":2,"i32":3,"i64":4,"f32":5,"f64":6,"b":true}',
      '{"i8":01,"i16":2,"i32":3,"i64":4,"f32":5,"f64":6,"b":true}',
      '{"i8":1,"i16":2,"i32":3,"i64":4,"f32":5,"f64":6,"b":true} x',
      "[1,2]",
      "7",
    ],
  ],
  [
    struct(
      field("d", T("int32", ',"name":"org.apache.kafka.connect.data.Date","version":1')),
      field("t", T("int32", ',"name":"org.apache.kafka.connect.data.Time","version":1')),
      field("ts", T("int64", ',"name":"org.apache.kafka.connect.data.Timestamp","version":1')),
      field(
        "dec",
        T("bytes", ',"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}'),
      ),
    ),
    [
      '{"d":19000,"t":3600000,"ts":1700000000000,"dec":"AQI="}',
      '{"d":19000.0,"t":3600000,"ts":1700000000000,"dec":"AQI="}',
      '{"d":19000,"t":3600000,"ts":1.7e12,"dec":"AQI="}',
      '{"d":3000000000,"t":1,"ts":1,"dec":1.50}',
      '{"d":1,"t":1,"ts":1,"dec":"not base64"}',
      '{"d":"1","t":1,"ts":1,"dec":"AQI="}',
    ],
  ],
  [
    struct(
      field("m", `{"type":"map","keys":${T("string")},"values":${OPT("int32")},"optional":false}`),
      field("n", `{"type":"map","keys":${T("int32")},"values":${T("string")},"optional":false}`),
      field("a", `{"type":"array","items":${OPT("int64")},"optional":false}`),
      field("o", `{"type":"int32","optional":true,"default":42}`),
    ),
    [
      '{"m":{"b":1,"a":null},"n":[[1,"x"],[2,"y"]],"a":[1,null,3],"o":null}',
      '{"m":{"b":1,"2":2,"1":1},"n":[],"a":[],"o":7}',
      '{"m":{"__proto__":1,"b":2,"b":3},"n":[[1,"x",3]],"a":{"x":1},"o":1}',
      '{"m":[],"n":{"1":"x"},"a":5,"o":"x"}',
      '{"m":{},"n":[[1.5,"x"]],"a":[[1]]}',
    ],
  ],
];

describe("JsonConverter: a known envelope's payload through JSON.parse", () => {
  test("answers as a converter reading the whole document, and as Kafka for what it refuses", () => {
    for (const [schema, payloads] of CASES)
      for (const payload of payloads) {
        const doc = bytes(`{"schema":${schema},"payload":${payload}}`);
        const warmed = converter();
        warmed.toConnectData("t", bytes(`{"schema":${schema},"payload":${payloads[0]}}`));
        expect({ payload, ...answer(warmed, doc) }).toEqual({ payload, ...answer(converter(), doc) });
      }
  });

  test("with replace.null.with.default off, a null stays null", () => {
    const schema = struct(field("o", `{"type":"int32","optional":true,"default":42}`));
    const doc = bytes(`{"schema":${schema},"payload":{"o":null}}`);
    const warmed = converter({ "replace.null.with.default": "false" });
    warmed.toConnectData("t", doc);
    expect(answer(warmed, doc)).toEqual(answer(converter({ "replace.null.with.default": "false" }), doc));
  });

  test("ordinary payloads take it; those where the number's text or the engine's order would differ do not", () => {
    const c = converter();
    /** readPayload under `schema` as the converter reads it (as an empty array's items: no value needed). */
    const read = (schema: string, payload: string) => {
      const array = c.toConnectData(
        "t",
        bytes(`{"schema":{"type":"array","items":${schema},"optional":false},"payload":[]}`),
      );
      return readPayload(array.schema!.valueSchema!, payload, true);
    };
    const row = struct(field("id", T("int64")), field("x", T("double")), field("s", T("string")));
    expect(read(row, '{"id":1,"x":0.5,"s":"d41d8cd98f00b204e9800998ecf8427e"}')).not.toBe(SLOW);
    expect(read(row, '{"id":1,"x":0.0,"s":"3.7.0.Final"}')).not.toBe(SLOW);
    for (const slow of [
      '{"id":1234567890123456,"x":0.5,"s":""}',
      '{"id":1,"x":-0.0,"s":""}',
      '{"id":1.5,"x":0.5,"s":""}',
      '{"id":1,"x":0.5,"s":"a"',
    ])
      expect(read(row, slow)).toBe(SLOW);
    const timestamped = struct(
      field("ts", T("int64", ',"name":"org.apache.kafka.connect.data.Timestamp","version":1')),
    );
    expect(read(timestamped, '{"ts":1700000000000}')).not.toBe(SLOW);
    expect(read(timestamped, '{"ts":1700000000000.0}')).toBe(SLOW);
    const map = `{"type":"map","keys":${T("string")},"values":${T("int32")},"optional":false}`;
    expect(read(map, '{"a":1,"b":2}')).not.toBe(SLOW);
    expect(read(map, '{"a":1,"1":2}')).toBe(SLOW);
  });

  test("random schemas and values: the second read, through JSON.parse where it can, equals the first", () => {
    for (const config of [{}, { "decimal.format": "NUMERIC" }] as Record<string, string>[]) {
      const c = converter(config);
      fc.assert(
        fc.property(schemaAndValueArbitrary({ finiteFloats: true, defaults: true }), ([schema, value]) => {
          const json = c.fromConnectData("topic", schema, value);
          const first = converter(config).toConnectData("topic", json);
          c.toConnectData("topic", json);
          const second = c.toConnectData("topic", json);
          return valuesEqual(second.value, first.value) && second.schema?.equals(first.schema) !== false;
        }),
        { numRuns: 500 },
      );
    }
  });
});
