// Connect ↔ Avro as Confluent's AvroData maps them: the Avro schema text derived from Connect schemas
// (what gets registered), Connect schemas read from plain Avro schemas, and values both ways through
// the Avro binary encoding; plus random schemas and values round-tripping.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { AvroData } from "#src/connect/converters/avro-data.ts";
import { avscType } from "#src/connect/converters/avro.ts";
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
import { avroFormat } from "#src/schema/avro/index.ts";
import { fieldValueOf, registrySchema, type RegistrySchemaOptions } from "../../../fixtures/connect-data.ts";

const data = new AvroData();
const avroText = (schema: Schema | null, d = data) => d.fromConnectSchema(schema).canonical;

/** Connect value → Avro bytes → Connect, as the converter does it. */
function roundTrip(schema: Schema | null, value: unknown, d = data): { schema: Schema | null; value: unknown } {
  const parsed = d.fromConnectSchema(schema);
  const type = avscType(parsed.root);
  const bytes = type.toBuffer(d.fromConnectData(schema, parsed.root, value));
  return d.toConnectData(parsed.root, type.fromBuffer(bytes));
}

/** A plain Avro schema (as another producer registers it) read back as Connect data. */
function fromAvro(schema: object, value: unknown, d = data) {
  const parsed = avroFormat.parse(JSON.stringify(schema), []);
  const type = avscType(parsed.root);
  return d.toConnectData(parsed.root, type.fromBuffer(type.toBuffer(value)));
}

describe("Connect schema → Avro schema", () => {
  test.each([
    ["int8", Schema.INT8_SCHEMA, '{"type":"int","connect.type":"int8"}'],
    ["int16", Schema.INT16_SCHEMA, '{"type":"int","connect.type":"int16"}'],
    ["int32", Schema.INT32_SCHEMA, '"int"'],
    ["int64", Schema.INT64_SCHEMA, '"long"'],
    ["float32", Schema.FLOAT32_SCHEMA, '"float"'],
    ["float64", Schema.FLOAT64_SCHEMA, '"double"'],
    ["boolean", Schema.BOOLEAN_SCHEMA, '"boolean"'],
    ["string", Schema.STRING_SCHEMA, '"string"'],
    ["bytes", Schema.BYTES_SCHEMA, '"bytes"'],
    ["optional: null first", Schema.OPTIONAL_INT64_SCHEMA, '["null","long"]'],
    [
      "optional with a default: null last",
      SchemaBuilder.float32().optional().defaultValue(1.5).build(),
      '[{"type":"float","connect.default":1.5},"null"]',
    ],
    ["array", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build(), '{"type":"array","items":["null","string"]}'],
    [
      "map with string keys",
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
      '{"type":"map","values":"int"}',
    ],
    [
      "map with other keys: array of MapEntry",
      SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(),
      '{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}',
    ],
    [
      "map with optional string keys",
      SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
      '{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":["null","string"],"default":null},{"name":"value","type":"int"}]}}',
    ],
    [
      "named map with other keys",
      SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).name("com.x.M").build(),
      '{"type":"array","items":{"type":"record","name":"M","namespace":"com.x","fields":[{"name":"key","type":"int"},{"name":"value","type":"int"}],"connect.internal.type":"MapEntry"},"connect.name":"com.x.M"}',
    ],
    [
      "Decimal",
      Decimal.schema(2),
      '{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}',
    ],
    [
      "Decimal with a precision",
      Decimal.builder(2).parameter("connect.decimal.precision", "10").build(),
      '{"type":"bytes","scale":2,"precision":10,"connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"10"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}',
    ],
    [
      "Date",
      ConnectDate.SCHEMA,
      '{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}',
    ],
    [
      "Time",
      Time.SCHEMA,
      '{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}',
    ],
    [
      "Timestamp",
      Timestamp.SCHEMA,
      '{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}',
    ],
    [
      "metadata as connect.* properties",
      SchemaBuilder.string().doc("d").version(2).parameter("k", "v").name("com.x.S").defaultValue("a").build(),
      '{"type":"string","connect.doc":"d","connect.version":2,"connect.parameters":{"k":"v"},"connect.default":"a","connect.name":"com.x.S"}',
    ],
    [
      "bytes default as ISO-8859-1 text",
      SchemaBuilder.bytes()
        .defaultValue(new Uint8Array([0, 255, 65]))
        .build(),
      '{"type":"bytes","connect.default":"\\u0000ÿA"}',
    ],
    [
      "unnamed structs: ConnectDefault, ConnectDefault2, ...",
      SchemaBuilder.struct()
        .field("a", SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).build())
        .field("c", SchemaBuilder.struct().field("b", Schema.INT64_SCHEMA).build())
        .build(),
      '{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"a","type":{"type":"record","name":"ConnectDefault2","fields":[{"name":"b","type":"int"}]}},{"name":"c","type":{"type":"record","name":"ConnectDefault3","fields":[{"name":"b","type":"long"}]}}]}',
    ],
    [
      "named struct, optional fields default to null, a reused struct is referenced",
      (() => {
        const point = SchemaBuilder.struct().name("com.x.Point").field("x", Schema.INT32_SCHEMA).build();
        return SchemaBuilder.struct()
          .name("com.x.Line")
          .doc("a line")
          .version(3)
          .field("from", point)
          .field("to", point)
          .field("label", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
      })(),
      '{"type":"record","name":"Line","namespace":"com.x","fields":[{"name":"from","type":{"type":"record","name":"Point","fields":[{"name":"x","type":"int"}],"connect.name":"com.x.Point"}},{"name":"to","type":"Point"},{"name":"label","type":["null","string"],"default":null}],"connect.doc":"a line","connect.version":3,"connect.name":"com.x.Line"}',
    ],
    [
      "field defaults (a float32 default passes through Avro's JacksonUtils as a double)",
      SchemaBuilder.struct()
        .field("n", SchemaBuilder.int32().defaultValue(7).build())
        .field("f", SchemaBuilder.float32().defaultValue(0.1).build())
        .build(),
      '{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"n","type":{"type":"int","connect.default":7},"default":7},{"name":"f","type":{"type":"float","connect.default":0.1},"default":0.10000000149011612}]}',
    ],
    [
      "optional struct: the record holds the metadata",
      SchemaBuilder.struct().name("com.x.O").field("a", Schema.INT32_SCHEMA).optional().build(),
      '["null",{"type":"record","name":"O","namespace":"com.x","fields":[{"name":"a","type":"int"}],"connect.name":"com.x.O"}]',
    ],
    [
      "union struct",
      SchemaBuilder.struct()
        .name("io.confluent.connect.avro.Union")
        .field("int", Schema.OPTIONAL_INT32_SCHEMA)
        .field("string", Schema.OPTIONAL_STRING_SCHEMA)
        .build(),
      '["int","string"]',
    ],
    [
      "fixed (BYTES with connect.fixed.size)",
      SchemaBuilder.bytes().name("com.x.F").parameter("connect.fixed.size", "4").build(),
      '{"type":"fixed","name":"F","namespace":"com.x","size":4,"connect.parameters":{"connect.fixed.size":"4"},"connect.name":"com.x.F"}',
    ],
  ])("%s", (_, schema, expected) => {
    expect(avroText(schema)).toBe(expected);
  });

  test("schemaless data is the Anything record", () => {
    expect(avroText(null)).toStartWith(
      '{"type":"record","name":"Anything","namespace":"io.confluent.connect.avro","fields":[{"name":"boolean","type":["null","boolean"],"default":null}',
    );
  });

  test("connect.meta.data=false writes no connect.* properties", () => {
    const schema = SchemaBuilder.struct()
      .name("com.x.R")
      .doc("doc")
      .field("x", SchemaBuilder.int32().defaultValue(7).build())
      .field("b", Schema.INT8_SCHEMA)
      .build();
    expect(avroText(schema, new AvroData({ connectMetaData: false }))).toBe(
      '{"type":"record","name":"R","namespace":"com.x","fields":[{"name":"x","type":"int","default":7},{"name":"b","type":"int"}]}',
    );
  });

  test("enhanced.avro.schema.support turns enum parameters into an Avro enum", () => {
    const color = SchemaBuilder.string()
      .name("com.x.Color")
      .parameter("io.confluent.connect.avro.Enum", "com.x.Color")
      .parameter("io.confluent.connect.avro.Enum.RED", "RED")
      .parameter("io.confluent.connect.avro.Enum.BLUE", "BLUE")
      .build();
    expect(avroText(color)).toStartWith('{"type":"string"');
    expect(avroText(color, new AvroData({ enhancedSchemaSupport: true }))).toBe(
      '{"type":"enum","name":"Color","namespace":"com.x","symbols":["RED","BLUE"],"connect.parameters":{"io.confluent.connect.avro.Enum":"com.x.Color","io.confluent.connect.avro.Enum.RED":"RED","io.confluent.connect.avro.Enum.BLUE":"BLUE"},"connect.name":"com.x.Color"}',
    );
  });

  test("scrub.invalid.names makes names Avro names", () => {
    const schema = SchemaBuilder.struct().name("com.x-y.1Rec").field("a-b", Schema.INT32_SCHEMA).build();
    expect(() => avroText(schema)).toThrow(DataException);
    expect(avroText(schema, new AvroData({ scrubInvalidNames: true }))).toBe(
      '{"type":"record","name":"x1Rec","namespace":"com.x_y","fields":[{"name":"a_b","type":"int"}],"connect.name":"com.x-y.1Rec"}',
    );
  });

  test("the text is what the registry stores (its canonical form)", () => {
    const schema = SchemaBuilder.struct()
      .name("com.x.R")
      .field("d", Decimal.schema(3))
      .field("m", SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
      .build();
    const text = avroText(schema);
    expect(avroFormat.parse(text, []).canonical).toBe(text);
  });
});

describe("Avro schema → Connect schema", () => {
  test("a record from another producer: names, docs, enums, unions, defaults", () => {
    const { schema } = fromAvro(
      {
        type: "record",
        name: "Order",
        namespace: "shop",
        doc: "an order",
        fields: [
          { name: "id", type: "long", doc: "the id" },
          { name: "note", type: ["null", "string"], default: null },
          { name: "qty", type: "int", default: 1 },
          { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"] } },
          { name: "either", type: ["int", "string"] },
          { name: "tags", type: { type: "map", values: "string" } },
          { name: "hash", type: { type: "fixed", name: "Hash", size: 2 } },
          { name: "day", type: { type: "int", logicalType: "date" } },
        ],
      },
      { id: 1n, note: null, qty: 2, status: "NEW", either: { int: 1 }, tags: {}, hash: Buffer.from([1, 2]), day: 3 },
    );
    const expected = SchemaBuilder.struct()
      .name("shop.Order")
      .parameter("io.confluent.connect.avro.record.doc", "an order")
      .parameter("io.confluent.connect.avro.field.doc.id", "the id")
      .field("id", Schema.INT64_SCHEMA)
      .field("note", Schema.OPTIONAL_STRING_SCHEMA)
      .field(
        "qty",
        SchemaBuilder.int32().parameter("io.confluent.connect.avro.field.default", "true").defaultValue(1).build(),
      )
      .field(
        "status",
        SchemaBuilder.string()
          .name("shop.Status")
          .parameter("io.confluent.connect.avro.Enum", "shop.Status")
          .parameter("io.confluent.connect.avro.Enum.NEW", "NEW")
          .parameter("io.confluent.connect.avro.Enum.PAID", "PAID")
          .build(),
      )
      .field(
        "either",
        SchemaBuilder.struct()
          .name("io.confluent.connect.avro.Union")
          .field("int", Schema.OPTIONAL_INT32_SCHEMA)
          .field("string", Schema.OPTIONAL_STRING_SCHEMA)
          .build(),
      )
      .field("tags", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
      .field("hash", SchemaBuilder.bytes().name("shop.Hash").parameter("connect.fixed.size", "2").build())
      .field("day", ConnectDate.SCHEMA)
      .build();
    expect(schema!.equals(expected)).toBe(true);
  });

  test("values of a plain Avro record", () => {
    const { schema, value } = fromAvro(
      {
        type: "record",
        name: "R",
        fields: [
          { name: "either", type: ["int", "string"] },
          { name: "ts", type: { type: "long", logicalType: "timestamp-millis" } },
          { name: "b", type: "bytes" },
        ],
      },
      { either: { string: "x" }, ts: 1700000000000n, b: Buffer.from("hi") },
    );
    const struct = value as Struct;
    expect(struct.getStruct("either")!.get("string")).toBe("x");
    expect(struct.get("ts")).toEqual(new Date(1700000000000));
    expect(struct.getBytes("b")).toEqual(new Uint8Array([104, 105]));
    expect(schema!.name).toBe("R");
  });

  test("decimal precision other than 64 is kept; a top-level primitive maps to itself", () => {
    const { schema, value } = fromAvro(
      { type: "bytes", logicalType: "decimal", precision: 5, scale: 2 },
      Buffer.from([0x30, 0x39]),
    );
    expect(schema!.equals(Decimal.builder(2).parameter("connect.decimal.precision", "5").build())).toBe(true);
    expect(value).toEqual(new BigDecimal(12345n, 2));
  });

  test("an int with an unknown connect.type, recursive records and a standalone null are errors", () => {
    const read = (s: object) => data.toConnectSchema(avroFormat.parse(JSON.stringify(s), []).root);
    expect(() => read({ type: "int", "connect.type": "int32" })).toThrow(
      "Connect type annotation for Avro int field is null",
    );
    expect(() => read({ type: "record", name: "L", fields: [{ name: "next", type: ["null", "L"] }] })).toThrow(
      DataException,
    );
    expect(() => read({ type: "null" })).toThrow("Standalone null schemas are not supported by this converter");
  });
});

describe("Connect values ↔ Avro values", () => {
  const line = SchemaBuilder.struct()
    .name("com.x.Rec")
    .field("i8", Schema.INT8_SCHEMA)
    .field("l", Schema.OPTIONAL_INT64_SCHEMA)
    .field("dec", Decimal.schema(2))
    .field("ts", Timestamp.SCHEMA)
    .field("m", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
    .field(
      "u",
      SchemaBuilder.struct()
        .name("io.confluent.connect.avro.Union")
        .field("int", Schema.OPTIONAL_INT32_SCHEMA)
        .field("string", Schema.OPTIONAL_STRING_SCHEMA)
        .optional()
        .build(),
    )
    .build();

  test("a struct round-trips, 64-bit longs and union members included", () => {
    const union = line.field("u")!.schema;
    const value = new Struct(line)
      .put("i8", -3)
      .put("l", -(2n ** 63n))
      .put("dec", new BigDecimal(-12345n, 2))
      .put("ts", new Date(-1))
      .put("m", new Map([[1, "one"]]))
      .put("u", new Struct(union).put("string", "s"));
    const back = roundTrip(line, value);
    // An optional union's field default (null) comes back flagged as an Avro field default, as in Java.
    expect(back.schema!.field("u")!.schema.parameters).toEqual(
      new Map([["io.confluent.connect.avro.field.default", "true"]]),
    );
    expect(
      back.schema!.fields.filter((f) => f.name !== "u").every((f) => f.schema.equals(line.field(f.name)!.schema)),
    ).toBe(true);
    expect(String(back.value)).toBe(String(value));
    expect(valuesEqual((back.value as Struct).get("m"), value.get("m"))).toBe(true);
  });

  test("schemaless values go through Anything", () => {
    const value = new Map<unknown, unknown>([
      ["a", [1.5, "x", true, 3n]],
      [7n, new Map([["k", null]])],
    ]);
    const back = roundTrip(null, value);
    expect(back.schema).toBeNull();
    expect(valuesEqual(back.value, value)).toBe(true);
    expect(() => data.fromConnectData(null, data.fromConnectSchema(null).root, new Date())).toThrow(
      "Unknown Java type for schemaless data: class java.util.Date",
    );
  });

  test("bad values are DataExceptions", () => {
    const root = data.fromConnectSchema(line).root;
    expect(() =>
      data.fromConnectData(Schema.INT32_SCHEMA, data.fromConnectSchema(Schema.INT32_SCHEMA).root, null),
    ).toThrow("Found null value for non-optional schema");
    expect(() =>
      data.fromConnectData(Schema.INT32_SCHEMA, data.fromConnectSchema(Schema.INT32_SCHEMA).root, "x"),
    ).toThrow("Invalid type for INT32: class java.lang.String");
    const other = SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build();
    expect(() => data.fromConnectData(line, root, new Struct(other).put("x", 1))).toThrow("Mismatching struct schema");
    expect(() => data.fromConnectData(Decimal.schema(2), data.fromConnectSchema(Decimal.schema(2)).root, 1.5)).toThrow(
      "Invalid type for Decimal, expected BigDecimal but was class java.lang.Double",
    );
  });

  test("a null field takes the default; ignore.default.for.nullables keeps the null", () => {
    const schema = SchemaBuilder.struct().field("n", SchemaBuilder.int32().optional().defaultValue(5).build()).build();
    const value = new Struct(schema);
    expect((roundTrip(schema, value).value as Struct).get("n")).toBe(5);
    const keepNull = roundTrip(schema, value, new AvroData({ ignoreDefaultForNullables: true })).value as Struct;
    expect(keepNull.getWithoutDefault("n")).toBeNull();
  });
});

/** At most one unnamed map with non-string keys (each would be io.confluent.connect.avro.MapEntry). */
function oneMapEntryRecord(schema: Schema): boolean {
  const entries: Schema[] = [];
  const walk = (s: Schema): void => {
    if (s.type === "MAP" && !(s.keySchema!.type === "STRING" && !s.keySchema!.optional)) {
      if (!entries.some((e) => e.keySchema!.equals(s.keySchema) && e.valueSchema!.equals(s.valueSchema)))
        entries.push(s);
    }
    if (s.type === "STRUCT") s.fields.forEach((f) => walk(f.schema));
    if (s.type === "ARRAY") walk(s.valueSchema!);
    if (s.type === "MAP") {
      walk(s.keySchema!);
      walk(s.valueSchema!);
    }
  };
  walk(schema);
  return entries.length <= 1;
}

describe("random Connect schemas and values round-trip through Avro", () => {
  const options: RegistrySchemaOptions = {
    optionalStructs: true,
    anyMapKeys: true,
    nullElements: true,
    defaults: true,
    decorations: true,
    nestedArrays: true,
    maxDepth: 3,
  };

  test("schema and value come back equal", () => {
    fc.assert(
      fc.property(
        registrySchema(options)
          .filter(oneMapEntryRecord)
          .chain((schema) => fieldValueOf(schema, options).map((value) => [schema, value] as const)),
        ([schema, value]) => {
          if (value === null) return;
          const back = roundTrip(schema, value);
          expect(back.schema!.equals(schema)).toBe(true);
          expect(valuesEqual(back.value, value)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
