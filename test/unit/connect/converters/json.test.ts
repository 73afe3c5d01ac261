import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConfigError } from "#src/platform/settings.ts";
import { JsonConverter } from "#src/connect/converters/json.ts";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import {
  valuesEqual,
  DataException,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  Schema,
  SchemaBuilder,
  Struct,
} from "#src/connect/api/data/index.ts";
import { schemaAndValueArbitrary } from "../../../fixtures/connect-data.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));
const bytes = (s: string) => new TextEncoder().encode(s);

function converter(config: Record<string, string> = {}, isKey = false): JsonConverter {
  const c = new JsonConverter();
  c.configure(config, isKey);
  return c;
}

function dataError(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(DataException);
    return (e as Error).message;
  }
  throw new Error("expected a DataException");
}

describe("JsonConverter: Connect → JSON", () => {
  test("the envelope, with Kafka's schema key order", () => {
    const item = SchemaBuilder.struct()
      .name("shop.Item")
      .version(1)
      .field("id", Schema.INT32_SCHEMA)
      .field("price", Decimal.builder(2).optional())
      .field("ts", Timestamp.builder().optional())
      .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA).optional())
      .build();
    const value = new Struct(item)
      .put("id", 7)
      .put("price", new BigDecimal(3n, 2))
      .put("ts", new Date(1_700_000_000_000))
      .put("m", new Map([["a", 1n]]));
    expect(text(converter().fromConnectData("t", item, value))).toBe(
      '{"schema":{"type":"struct","fields":[' +
        '{"type":"int32","optional":false,"field":"id"},' +
        '{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"price"},' +
        '{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},' +
        '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int64","optional":true},"optional":true,"field":"m"}],' +
        '"optional":false,"name":"shop.Item","version":1},' +
        '"payload":{"id":7,"price":"Aw==","ts":1700000000000,"m":{"a":1}}}',
    );
    expect(text(converter({ "schemas.enable": "false" }).fromConnectData("t", item, value))).toBe(
      '{"id":7,"price":"Aw==","ts":1700000000000,"m":{"a":1}}',
    );
  });

  test("envelopes of one schema written again and again: the schema's bytes once, each the same as the whole text encoded", () => {
    const row = SchemaBuilder.struct()
      .name("r")
      .field("id", Schema.INT32_SCHEMA)
      .field("name", Schema.OPTIONAL_STRING_SCHEMA)
      .build();
    const json = converter();
    const payloadOnly = converter({ "schemas.enable": "false" });
    // The last names are longer than the scratch space a payload is encoded in (64 KiB, 3 bytes per unit).
    const names = [
      "plain",
      "ünïcödé",
      "emoji 😀 and 中文",
      'quote " back \\ slash',
      "",
      null,
      "中".repeat(21_800),
      "中".repeat(21_850),
    ];
    names.forEach((name, id) => {
      const value = new Struct(row).put("id", id).put("name", name);
      const payload = text(payloadOnly.fromConnectData("t", row, value));
      const written = json.fromConnectData("t", row, value)!;
      expect([...written]).toEqual([...bytes(`{"schema":${json.asJsonSchema(row)},"payload":${payload}}`)]);
    });
    expect(text(json.fromConnectData("t", row, new Struct(row).put("id", 1).put("name", "ü😀")))).toEndWith(
      '"payload":{"id":1,"name":"ü\\uD83D\\uDE00"}}',
    );
  });

  test("doc, parameters and default come last, in that order", () => {
    const s = SchemaBuilder.string()
      .optional()
      .doc("d")
      .name("n")
      .version(2)
      .parameter("b", "1")
      .parameter("a", "2")
      .defaultValue("x")
      .build();
    expect(converter().asJsonSchema(s)).toBe(
      '{"type":"string","optional":true,"name":"n","version":2,"doc":"d","parameters":{"b":"1","a":"2"},"default":"x"}',
    );
    expect(converter().asJsonSchema(null)).toBeNull();
  });

  test("numbers as Java prints them; NaN and infinities as strings", () => {
    const c = converter({ "schemas.enable": "false" });
    const list = (schema: Schema, values: unknown[]) =>
      text(c.fromConnectData("t", SchemaBuilder.array(schema).build(), values));
    expect(list(Schema.FLOAT64_SCHEMA, [1, 0.1, 1e-7, 1e21, -0, NaN, -Infinity])).toBe(
      '[1.0,0.1,1.0E-7,1.0E21,-0.0,"NaN","-Infinity"]',
    );
    expect(list(Schema.FLOAT32_SCHEMA, [0.1, 3.4e38, Infinity])).toBe('[0.1,3.4E38,"Infinity"]');
    expect(list(Schema.INT64_SCHEMA, [2n ** 63n - 1n, -5])).toBe("[9223372036854775807,-5]");
    // Without a schema a number is a Double and a bigint a Long.
    expect(text(c.fromConnectData("t", null, [1, 1.5, 7n]))).toBe("[1.0,1.5,7]");
  });

  test("strings escaped as Jackson does", () => {
    const c = converter({ "schemas.enable": "false" });
    expect(text(c.fromConnectData("t", Schema.STRING_SCHEMA, 'a"b\\c/\u0001\u001f\b\t\n\f\r\u007f é 😀 \ud800'))).toBe(
      '"a\\"b\\\\c/\\u0001\\u001F\\b\\t\\n\\f\\r\u007f é \\uD83D\\uDE00 \\uD800"',
    );
  });

  test("maps: string keys as objects, others as pairs", () => {
    const c = converter({ "schemas.enable": "false" });
    expect(
      text(
        c.fromConnectData(
          "t",
          SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(),
          new Map([
            [2, "b"],
            [1, "a"],
          ]),
        ),
      ),
    ).toBe('[[2,"b"],[1,"a"]]');
    expect(
      text(c.fromConnectData("t", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), { z: 1, a: 2 })),
    ).toBe('{"z":1,"a":2}');
    expect(
      text(
        c.fromConnectData(
          "t",
          null,
          new Map<unknown, unknown>([
            ["a", 1n],
            [2n, "b"],
          ]),
        ),
      ),
    ).toBe('[["a",1],[2,"b"]]');
    // An optional string key that is null is written as the text "null", colliding with "null".
    expect(
      text(
        c.fromConnectData(
          "t",
          SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT8_SCHEMA).build(),
          new Map([
            [null, 1],
            ["null", 2],
          ]),
        ),
      ),
    ).toBe('{"null":2}');
  });

  test("logical types", () => {
    const c = converter({ "schemas.enable": "false" });
    expect(text(c.fromConnectData("t", Decimal.schema(2), new BigDecimal(-129n, 2)))).toBe('"/38="');
    expect(
      text(
        converter({ "schemas.enable": "false", "decimal.format": "numeric" }).fromConnectData(
          "t",
          Decimal.schema(2),
          new BigDecimal(-129n, 2),
        ),
      ),
    ).toBe("-1.29");
    expect(
      text(
        converter({ "schemas.enable": "false", "decimal.format": "NUMERIC" }).fromConnectData(
          "t",
          Decimal.schema(0),
          new BigDecimal(5n, -3),
        ),
      ),
    ).toBe("5E+3");
    expect(text(c.fromConnectData("t", ConnectDate.SCHEMA, new Date(Date.UTC(2024, 1, 29))))).toBe("19782");
    expect(text(c.fromConnectData("t", Time.SCHEMA, new Date(1000)))).toBe("1000");
    expect(text(c.fromConnectData("t", Timestamp.SCHEMA, new Date(-1)))).toBe("-1");
  });

  test("nulls: tombstones, defaults, optional, required", () => {
    const withDefault = SchemaBuilder.int32().optional().defaultValue(42).build();
    expect(converter().fromConnectData("t", null, null)).toBeNull();
    expect(text(converter().fromConnectData("t", withDefault, null))).toBe(
      '{"schema":{"type":"int32","optional":true,"default":42},"payload":42}',
    );
    expect(text(converter({ "replace.null.with.default": "false" }).fromConnectData("t", withDefault, null))).toBe(
      '{"schema":{"type":"int32","optional":true,"default":42},"payload":null}',
    );
    expect(
      text(converter({ "schemas.enable": "false" }).fromConnectData("t", Schema.OPTIONAL_STRING_SCHEMA, null)),
    ).toBe("null");
    expect(dataError(() => converter().fromConnectData("t", Schema.STRING_SCHEMA, null))).toBe(
      "Conversion error: null value for field that is required and has no default value",
    );
  });

  test("type errors with Kafka's messages", () => {
    const c = converter();
    expect(dataError(() => c.fromConnectData("t", Schema.INT8_SCHEMA, 300))).toBe(
      "Invalid type for INT8: class java.lang.Integer",
    );
    expect(dataError(() => c.fromConnectData("t", Schema.STRING_SCHEMA, 1))).toBe(
      "Invalid type for STRING: class java.lang.Integer",
    );
    expect(dataError(() => c.fromConnectData("t", Schema.BYTES_SCHEMA, "x"))).toBe(
      "Invalid type for bytes type: class java.lang.String",
    );
    expect(dataError(() => c.fromConnectData("t", Decimal.schema(1), 1))).toBe(
      "Invalid type for Decimal, expected BigDecimal but was class java.lang.Integer",
    );
    expect(dataError(() => c.fromConnectData("t", Decimal.schema(1), new BigDecimal(1n, 2)))).toBe(
      "Decimal value has mismatching scale for given Decimal schema. Schema has scale 1, value has scale 2.",
    );
    expect(dataError(() => c.fromConnectData("t", ConnectDate.SCHEMA, 1))).toBe(
      "Invalid type for Date, expected Date but was class java.lang.Integer",
    );
    expect(dataError(() => c.fromConnectData("t", null, new Date(0)))).toBe(
      "Java class class java.util.Date does not have corresponding schema type.",
    );
    const s = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA).build();
    expect(dataError(() => c.fromConnectData("t", null, new Struct(s).put("a", 1)))).toBe("Mismatching schema.");
    expect(dataError(() => c.fromConnectData("t", SchemaBuilder.struct().build(), new Struct(s)))).toBe(
      "Mismatching schema.",
    );
  });
});

describe("JsonConverter: JSON → Connect", () => {
  test("envelope required with schemas.enable", () => {
    const message =
      'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';
    for (const json of ['{"a":1}', '{"schema":null}', '{"schema":null,"payload":1,"x":1}', "[1]", "5", ""])
      expect(dataError(() => converter().toConnectData("t", bytes(json)))).toBe(message);
    expect(converter().toConnectData("t", null)).toEqual({ schema: null, value: null });
  });

  test("schemaless JSON: integers int64 (bigint), other numbers float64, objects maps", () => {
    const c = converter({ "schemas.enable": "false" });
    const read = c.toConnectData(
      "t",
      bytes('{"i":12345678901234567890,"f":1.0,"s":"x","b":true,"n":null,"a":[1,{"k":[]}]}'),
    );
    expect(read.schema).toBeNull();
    expect(read.value).toEqual(
      new Map<string, unknown>([
        ["i", 12345678901234567890n - 2n ** 64n],
        ["f", 1],
        ["s", "x"],
        ["b", true],
        ["n", null],
        ["a", [1n, new Map([["k", []]])]],
      ]),
    );
    expect(c.toConnectData("t", bytes("  ")).value).toBeNull();
    expect(c.toConnectData("t", bytes("007")).value).toBe(7n);
  });

  test("schemas are read back with every attribute", () => {
    const json =
      '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"float","optional":true,"default":1.5},"optional":true,"name":"n","version":3,"doc":"d","parameters":{"p":"v"}}';
    const schema = converter().asConnectSchema(json)!;
    expect(
      schema.equals(
        SchemaBuilder.map(Schema.STRING_SCHEMA, SchemaBuilder.float32().optional().defaultValue(1.5))
          .optional()
          .name("n")
          .version(3)
          .doc("d")
          .parameter("p", "v")
          .build(),
      ),
    ).toBe(true);
    expect(converter().asConnectSchema("null")).toBeNull();
  });

  test("Kafka's lenient conversions", () => {
    const c = converter();
    const read = (schema: string, payload: string) =>
      c.toConnectData("t", bytes(`{"schema":${schema},"payload":${payload}}`)).value;
    expect(read('{"type":"int8"}', "300")).toBe(44);
    expect(read('{"type":"int16"}', "70000.9")).toBe(4464);
    expect(read('{"type":"int32"}', '"abc"')).toBe(0);
    expect(read('{"type":"int64"}', "1e19")).toBe(BigInt.asIntN(64, 10n ** 19n));
    expect(read('{"type":"double"}', '"NaN"')).toBe(0);
    expect(read('{"type":"float"}', "0.1")).toBe(Math.fround(0.1));
    expect(read('{"type":"boolean"}', "1")).toBe(false);
    expect(read('{"type":"string","optional":true}', "5")).toBeNull();
    expect(read('{"type":"array","items":{"type":"int32"}}', '{"a":1,"b":2}')).toEqual([1, 2]);
    expect(read('{"type":"bytes","optional":true}', "5")).toBeNull();
    expect(read('{"type":"bytes"}', '"AQID"')).toEqual(new Uint8Array([1, 2, 3]));
    expect(
      (
        read(
          '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}',
          "1.50",
        ) as BigDecimal
      ).toString(),
    ).toBe("1.50");
    expect(
      (
        read(
          '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}',
          '"/w=="',
        ) as BigDecimal
      ).toString(),
    ).toBe("-0.01");
    expect(read('{"type":"int32","name":"org.apache.kafka.connect.data.Date"}', "1")).toEqual(new Date(86_400_000));
    expect(read('{"type":"struct","fields":[{"type":"int32","field":"a","default":7}]}', "{}")).toEqual(
      new Struct(SchemaBuilder.struct().field("a", SchemaBuilder.int32().defaultValue(7).build()).build()).put("a", 7),
    );
  });

  test("read errors with Kafka's messages", () => {
    const c = converter();
    const read = (schema: string, payload = "null") =>
      dataError(() => c.toConnectData("t", bytes(`{"schema":${schema},"payload":${payload}}`)));
    expect(read('{"optional":true}')).toBe("Schema must contain 'type' field");
    expect(read('"int32"')).toBe("Schema must contain 'type' field");
    expect(read('{"type":"uuid"}')).toBe("Unknown schema type: uuid");
    // Names of Object's members are no types either (they once found Object's prototype and called it).
    for (const type of ["constructor", "__proto__", "toString"])
      expect(read(`{"type":"${type}"}`)).toBe(`Unknown schema type: ${type}`);
    expect(read('{"type":"array"}')).toBe("Array schema did not specify the element type");
    expect(read('{"type":"map","values":{"type":"int8"}}')).toBe("Map schema did not specify the key type");
    expect(read('{"type":"map","keys":{"type":"int8"}}')).toBe("Map schema did not specify the value type");
    expect(read('{"type":"map","keys":null,"values":{"type":"int8"}}')).toBe("keySchema cannot be null.");
    expect(read('{"type":"struct"}')).toBe('Struct schema\'s "fields" argument is not an array.');
    expect(read('{"type":"struct","fields":[{"type":"int8"}]}')).toBe(
      "Struct schema's field name not specified properly",
    );
    expect(read('{"type":"int8","parameters":{"a":1}}')).toBe("Schema parameters must have string values.");
    expect(read('{"type":"int8","default":"x","name":"org.apache.kafka.connect.data.Date"}')).toBe(
      "Invalid type for Date, underlying representation should be integer but was STRING",
    );
    expect(read('{"type":"int8"}')).toBe("Invalid null value for required INT8 field");
    expect(read('{"type":"struct","fields":[]}', "[]")).toBe(
      "Structs should be encoded as JSON objects, but found ARRAY",
    );
    expect(read('{"type":"struct","fields":[{"type":"int8","field":"a"}]}', "{}")).toBe(
      "Invalid null value for required INT8 field",
    );
    expect(read('{"type":"map","keys":{"type":"string"},"values":{"type":"int8"}}', "[]")).toBe(
      "Maps with string fields should be encoded as JSON objects, but found ARRAY",
    );
    expect(read('{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}', "{}")).toBe(
      "Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT",
    );
    expect(read('{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}', "[1]")).toBe(
      "Found invalid map entry instead of array tuple: NUMBER",
    );
    expect(read('{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}', "[[1]]")).toBe(
      "Found invalid map entry, expected length 2 but found :1",
    );
    expect(read('{"type":"bytes"}', '"AQI"')).toBe("Invalid bytes field");
    expect(
      read('{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}', "true"),
    ).toBe("Invalid type for Decimal, underlying representation should be numeric or bytes but was BOOLEAN");
    expect(read('{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal"}', '"AQ=="')).toBe(
      "Invalid bytes for Decimal field",
    );
    expect(read('{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"}', "1.5")).toBe(
      "Invalid type for Timestamp, underlying representation should be integral but was NUMBER",
    );
    expect(dataError(() => c.toConnectData("t", bytes("{")))).toBe(
      "Converting byte[] to Kafka Connect data failed due to serialization error: ",
    );
  });

  test("bytes in Confluent's wire format: the cause names the schema id and the converter that reads them", () => {
    const causeOf = (value: Uint8Array) => {
      try {
        converter().toConnectData("t", value);
      } catch (e) {
        return ((e as Error).cause as Error).message;
      }
    };
    const framed = (id: number, payload: Uint8Array) =>
      new Uint8Array([0, 0, 0, (id >> 8) & 255, id & 255, ...payload]);
    expect(causeOf(framed(300, bytes('{"a":1}')))).toContain(
      "schema id 300: a schema registry serializer wrote them, and JsonConverter cannot read them; use io.confluent.connect.json.JsonSchemaConverter",
    );
    expect(causeOf(framed(7, new Uint8Array([4, 104, 105])))).toContain(
      "use io.confluent.connect.avro.AvroConverter or io.confluent.connect.protobuf.ProtobufConverter",
    );
    expect(causeOf(bytes("{"))).not.toContain("magic byte");
  });

  test("schemas read from the same text are cached as one instance", () => {
    const c = converter();
    const json = bytes('{"schema":{"type":"struct","fields":[{"type":"int8","field":"a"}]},"payload":{"a":1}}');
    const first = c.toConnectData("t", json);
    const second = c.toConnectData("t", json);
    expect(second.schema).toBe(first.schema!);
    const uncached = converter({ "schemas.cache.size": "0" });
    expect(uncached.toConnectData("t", json).schema).not.toBe(uncached.toConnectData("t", json).schema!);
  });
});

describe("JsonConverter: Jackson's nesting limit on writing (1000)", () => {
  const nestedValue = (depth: number): unknown => (depth === 0 ? "x" : [nestedValue(depth - 1)]);
  const nestedSchema = (depth: number): Schema =>
    depth === 0 ? Schema.STRING_SCHEMA : SchemaBuilder.array(nestedSchema(depth - 1)).build();
  const tooDeep = "Converting Kafka Connect data to byte[] failed due to serialization error: ";

  test("the envelope's level counts: a schema whose JSON nests 999 deep fits, 1000 does not; again for the same schema", () => {
    const c = converter();
    for (let round = 0; round < 2; round++) {
      expect(c.fromConnectData("t", nestedSchema(998), nestedValue(998))).not.toBeNull();
      expect(dataError(() => c.fromConnectData("t", nestedSchema(999), nestedValue(999)))).toBe(tooDeep);
    }
  });

  test("without the envelope, a value nested 1000 deep fits and 1001 does not", () => {
    const c = converter({ "schemas.enable": "false" });
    expect(c.fromConnectData("t", null, nestedValue(1000))).not.toBeNull();
    expect(dataError(() => c.fromConnectData("t", null, nestedValue(1001)))).toBe(tooDeep);
  });
});

describe("JsonConverter: an envelope whose schema was read before", () => {
  const S = '{"type":"struct","fields":[{"type":"int8","optional":true,"field":"a"}],"optional":false}';
  /** The answer (schema and value, or the error's message and cause) of a converter in a given state. */
  const answer = (c: JsonConverter, json: Uint8Array) => {
    try {
      const { schema, value } = c.toConnectData("t", json);
      return { schema: schema?.toString(), value };
    } catch (e) {
      return { error: (e as Error).message, cause: String((e as Error).cause) };
    }
  };
  const documents = [
    `{"schema":${S},"payload":{"a":1}}`,
    `{"schema":${S},"payload":{"a":1},"payload":{"a":2}}`,
    `{"schema":${S},"payload":{"a":1}} `,
    `{"schema":${S},"payload":{"a":1}}}`,
    `{"schema":${S},"payload":{"a":1}} {}`,
    `{"schema":${S},"payload":{"a":"x"}}`,
    `{"schema":${S},"payload":}`,
    `{"schema":${S},"payload":{"a":1}`,
    `{"schema":${S},"payload": {"a": 1} }`,
    `{"schema":${S},"payload":null}`,
    `{"schema":${S},"payload":{"a":1},"extra":1}`,
    `{"schema": ${S},"payload":{"a":1}}`,
    `{"schema":${S},"payload":{"a":01}}`,
    `{"schema":${S},"payload":{"a":1}/}`,
  ];

  test("answers as a converter reading the whole document", () => {
    for (const doc of documents) {
      const warmed = converter();
      warmed.toConnectData("t", bytes(`{"schema":${S},"payload":{"a":7}}`));
      expect({ doc, ...answer(warmed, bytes(doc)) }).toEqual({ doc, ...answer(converter(), bytes(doc)) });
    }
    // Not UTF-8 after a known schema.
    const invalid = new Uint8Array([...bytes(`{"schema":${S},"payload":{"a":"`), 0xff, ...bytes('"}}')]);
    const warmed = converter();
    warmed.toConnectData("t", bytes(`{"schema":${S},"payload":{"a":7}}`));
    expect(answer(warmed, invalid)).toEqual(answer(converter(), invalid));
  });

  test("a schema holding the text that follows schemas, and one with non-ASCII text", () => {
    for (const schema of [
      '{"type":"int8","optional":false,"parameters":{"a":"b","payload":"c"}}',
      '{"type":"int8","optional":false,"doc":"Größe ✓"}',
    ]) {
      const c = converter();
      const doc = bytes(`{"schema":${schema},"payload":5}`);
      const first = c.toConnectData("t", doc);
      const again = c.toConnectData("t", doc);
      expect(again.schema).toBe(first.schema!);
      expect(again.value).toBe(5);
      expect(answer(c, bytes(`{"schema":${schema},"payload":"x"}`))).toEqual(
        answer(converter(), bytes(`{"schema":${schema},"payload":"x"}`)),
      );
    }
  });

  test("random schemas and values read twice: the second read equals the first", () => {
    const c = converter();
    fc.assert(
      fc.property(schemaAndValueArbitrary({ finiteFloats: true, defaults: true }), ([schema, value]) => {
        const json = c.fromConnectData("topic", schema, value);
        const first = c.toConnectData("topic", json);
        const second = c.toConnectData("topic", json);
        return second.schema === first.schema && valuesEqual(second.value, first.value);
      }),
      { numRuns: 300 },
    );
  });
});

describe("JsonConverter round trip", () => {
  for (const config of [{}, { "decimal.format": "NUMERIC" }] as Record<string, string>[]) {
    test(`random schemas and values come back equal ${JSON.stringify(config)}`, () => {
      const c = converter(config);
      fc.assert(
        fc.property(schemaAndValueArbitrary({ finiteFloats: true, defaults: true }), ([schema, value]) => {
          const back = c.toConnectData("topic", c.fromConnectData("topic", schema, value));
          return (back.schema?.equals(schema) ?? false) && valuesEqual(back.value, value);
        }),
        { numRuns: 300 },
      );
    });
  }

  test("schemaless values come back equal", () => {
    const c = converter({ "schemas.enable": "false" });
    const json = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
        fc.string(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 4 }),
        fc
          .uniqueArray(fc.tuple(fc.string(), tie("value")), { maxLength: 4, selector: ([k]) => k })
          .map((e) => new Map(e)),
      ),
    })).value;
    fc.assert(
      fc.property(
        json,
        (value) =>
          value === null || valuesEqual(c.toConnectData("t", c.fromConnectData("t", null, value)).value, value),
      ),
    );
  });

  test("configuration is validated", () => {
    expect(() => converter({ "decimal.format": "HEX" })).toThrow(ConfigError);
    expect(() => converter({ "schemas.enable": "maybe" })).toThrow(ConfigError);
    expect(() => converter({ "schemas.cache.size": "-1" })).toThrow(ConfigError);
    expect(
      converter()
        .config()
        .settings.map((s) => s.name),
    ).toContain("replace.null.with.default");
  });

  test("header conversion is the same as data conversion", () => {
    const c = converter({}, true);
    const encoded = c.fromConnectHeader("t", "h", Schema.STRING_SCHEMA, "v");
    expect(text(encoded)).toBe('{"schema":{"type":"string","optional":false},"payload":"v"}');
    expect(c.toConnectHeader("t", "h", encoded).value).toBe("v");
  });
});
