// Connect ↔ Protobuf as Confluent's ProtobufData maps them: the .proto file derived from Connect
// schemas (what gets registered), Connect schemas read from plain .proto files, and values through
// the Protobuf encoding, with proto3's rules (unset scalars read as their zero value).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type protobuf from "protobufjs";
import { ProtobufData } from "#src/connect/converters/protobuf-data.ts";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import {
  DataException,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  Schema,
  SchemaBuilder,
  Struct,
} from "#src/connect/api/data/index.ts";
import { messageForIndexes, protobufFormat, type ProtobufParsedSchema } from "#src/schema/protobuf/index.ts";
import { structAndValue, type RegistrySchemaOptions } from "../../../fixtures/connect-data.ts";

const data = new ProtobufData();
const protoText = (schema: Schema, d = data) => d.fromConnectSchema(schema).parsed.canonical;

/** Connect value → message bytes → Connect, as the converter does it. */
function roundTrip(schema: Schema, value: unknown, d = data): { schema: Schema; value: unknown } {
  const { parsed } = d.fromConnectSchema(schema);
  return decode(parsed, encode(d, schema, parsed, value), d);
}

function encode(d: ProtobufData, schema: Schema, parsed: ProtobufParsedSchema, value: unknown): Uint8Array {
  const type = messageForIndexes(parsed, [0]);
  return type.encode(d.fromConnectData(schema, type, value)!).finish();
}

function decode(
  parsed: ProtobufParsedSchema,
  bytes: Uint8Array,
  d = data,
  indexes = [0],
): { schema: Schema; value: unknown } {
  const type = messageForIndexes(parsed, indexes);
  const schema = d.toConnectSchema(parsed, type);
  return { schema, value: d.toConnectData(schema, type, type.decode(bytes) as unknown as Record<string, unknown>) };
}

const tag = (n: number) => ["io.confluent.connect.protobuf.Tag", String(n)] as const;

describe("Connect schema → .proto", () => {
  test.each([
    [
      "unnamed struct: ConnectDefault1; int8 keeps its Connect type; arrays are repeated",
      SchemaBuilder.struct()
        .field("a", Schema.INT8_SCHEMA)
        .field("b", Schema.OPTIONAL_STRING_SCHEMA)
        .field("c", SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build())
        .build(),
      'syntax = "proto3";\n\nmessage ConnectDefault1 {\n  int32 a = 1 [(confluent.field_meta) = {\n    params: [\n      {\n        key: "connect.type",\n        value: "int8"\n      }\n    ]\n  }];\n  string b = 2;\n  repeated double c = 3;\n}\n',
    ],
    [
      "package from the name; maps are repeated entry messages; nested structs are nested messages",
      SchemaBuilder.struct()
        .name("com.x.R")
        .field(
          "m",
          SchemaBuilder.map(
            Schema.STRING_SCHEMA,
            SchemaBuilder.struct().name("com.x.V").field("v", Schema.BYTES_SCHEMA).build(),
          ).build(),
        )
        .build(),
      'syntax = "proto3";\npackage com.x;\n\nmessage R {\n  repeated ConnectDefault1Entry m = 1;\n\n  message ConnectDefault1Entry {\n    string key = 1;\n    V value = 2;\n  \n    message V {\n      bytes v = 1;\n    }\n  }\n}\n',
    ],
    [
      "Decimal and Timestamp: well-known messages, imported",
      SchemaBuilder.struct()
        .name("R")
        .field("d", Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
        .field("t", Timestamp.SCHEMA)
        .build(),
      'syntax = "proto3";\n\nimport "confluent/type/decimal.proto";\nimport "google/protobuf/timestamp.proto";\n\nmessage R {\n  confluent.type.Decimal d = 1 [(confluent.field_meta) = {\n    params: [\n      {\n        value: "10",\n        key: "precision"\n      },\n      {\n        value: "2",\n        key: "scale"\n      }\n    ]\n  }];\n  google.protobuf.Timestamp t = 2;\n}\n',
    ],
    [
      "union struct: a oneof (members keep their tags)",
      SchemaBuilder.struct()
        .name("R")
        .field(
          "u",
          SchemaBuilder.struct()
            .name("io.confluent.connect.protobuf.Union.u")
            .field(
              "a",
              SchemaBuilder.int32()
                .optional()
                .parameter(...tag(1))
                .build(),
            )
            .field(
              "b",
              SchemaBuilder.string()
                .optional()
                .parameter(...tag(2))
                .build(),
            )
            .optional()
            .build(),
        )
        .field(
          "x",
          SchemaBuilder.int64()
            .optional()
            .parameter(...tag(3))
            .build(),
        )
        .build(),
      'syntax = "proto3";\n\nmessage R {\n  int64 x = 3;\n\n  oneof u {\n    int32 a = 1;\n    string b = 2;\n  }\n}\n',
    ],
    [
      "enum",
      SchemaBuilder.struct()
        .name("R")
        .field(
          "e",
          SchemaBuilder.string()
            .name("Color")
            .optional()
            .parameter("io.confluent.connect.protobuf.Enum", "Color")
            .parameter("io.confluent.connect.protobuf.Enum.RED", "0")
            .parameter("io.confluent.connect.protobuf.Enum.BLUE", "1")
            .build(),
        )
        .build(),
      'syntax = "proto3";\n\nmessage R {\n  Color e = 1;\n\n  enum Color {\n    RED = 0;\n    BLUE = 1;\n  }\n}\n',
    ],
  ])("%s", (_, schema, expected) => {
    expect(protoText(schema)).toBe(expected);
  });

  test("optional.for.nullables writes proto3 optional labels", () => {
    const schema = SchemaBuilder.struct()
      .name("R")
      .field("i", Schema.INT32_SCHEMA)
      .field("s", Schema.OPTIONAL_STRING_SCHEMA)
      .build();
    expect(protoText(schema, new ProtobufData({ useOptionalForNullables: true }))).toBe(
      'syntax = "proto3";\n\nmessage R {\n  int32 i = 1;\n  optional string s = 2;\n}\n',
    );
  });

  test("a message type named like its field gets the Message suffix", () => {
    const schema = SchemaBuilder.struct()
      .name("R")
      .field("inner", SchemaBuilder.struct().name("inner").field("x", Schema.INT32_SCHEMA).build())
      .build();
    expect(protoText(schema)).toContain("innerMessage inner = 1;");
  });

  test("only structs can be written", () => {
    expect(() => data.fromConnectSchema(Schema.STRING_SCHEMA)).toThrow(DataException);
  });
});

describe(".proto → Connect schema", () => {
  const parsed = protobufFormat.parse(
    `syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  int64 id = 1;
  uint32 qty = 2;
  sint32 delta = 3;
  repeated string tags = 4;
  map<string, int32> counts = 5;
  Status status = 6;
  google.protobuf.Timestamp at = 7;
  Line line = 8;
  optional string note = 9;
  oneof pay {
    string card = 10;
    int64 points = 11;
  }
  enum Status { NEW = 0; PAID = 1; }
  message Line { string sku = 1; }
}
`,
    [],
  );
  const type = messageForIndexes(parsed, [0]);

  test("every field optional with its tag; oneofs are union structs first", () => {
    const schema = data.toConnectSchema(parsed, type);
    expect(schema.name).toBe("Order");
    expect(schema.fields.map((f) => f.name)).toEqual([
      "pay_0",
      "id",
      "qty",
      "delta",
      "tags",
      "counts",
      "status",
      "at",
      "line",
      "note",
    ]);
    const field = (n: string) => schema.field(n)!.schema;
    expect(
      field("id").equals(
        SchemaBuilder.int64()
          .optional()
          .parameter(...tag(1))
          .build(),
      ),
    ).toBe(true);
    expect(
      field("qty").equals(
        SchemaBuilder.int64()
          .parameter("io.confluent.connect.protobuf.Type", "uint32")
          .optional()
          .parameter(...tag(2))
          .build(),
      ),
    ).toBe(true);
    expect(field("delta").parameters).toEqual(new Map([["io.confluent.connect.protobuf.Type", "sint32"], tag(3)]));
    expect(
      field("tags").equals(
        SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA)
          .optional()
          .parameter(...tag(4))
          .build(),
      ),
    ).toBe(true);
    expect(field("counts").name).toBe("counts");
    expect(field("counts").keySchema!.type).toBe("STRING");
    expect(field("status").parameters).toEqual(
      new Map([
        ["io.confluent.connect.protobuf.Enum", "Status"],
        ["io.confluent.connect.protobuf.Enum.NEW", "0"],
        ["io.confluent.connect.protobuf.Enum.PAID", "1"],
        tag(6),
      ]),
    );
    expect(field("at").name).toBe(Timestamp.LOGICAL_NAME);
    expect(field("line").name).toBe("Line");
    expect(field("pay_0").name).toBe("io.confluent.connect.protobuf.Union.pay");
    expect(field("pay_0").fields.map((f) => f.name)).toEqual(["card", "points"]);
  });

  test("values: proto3 zero values for unset scalars, null for unset messages and unset optionals", () => {
    const bytes = type
      .encode({
        id: "5",
        qty: 4000000000,
        tags: ["a"],
        counts: { x: 2 },
        status: 1,
        at: { seconds: "1", nanos: 2_000_000 },
        points: "7",
      })
      .finish();
    const { value } = decode(parsed, bytes);
    const order = value as Struct;
    expect(order.get("id")).toBe(5n);
    expect(order.get("qty")).toBe(4000000000n);
    expect(order.get("delta")).toBe(0);
    expect(order.get("tags")).toEqual(["a"]);
    expect(order.get("counts")).toEqual(new Map([["x", 2]]));
    expect(order.get("status")).toBe("PAID");
    expect(order.get("at")).toEqual(new Date(1002));
    expect(order.get("line")).toBeNull();
    expect(order.get("note")).toBeNull();
    expect(order.getStruct("pay_0")!.get("points")).toBe(7n);
  });
});

describe("Connect values ↔ Protobuf messages", () => {
  const inner = SchemaBuilder.struct().name("com.x.Inner").field("x", Schema.STRING_SCHEMA).build();
  const schema = SchemaBuilder.struct()
    .name("com.x.Rec")
    .field("i8", Schema.INT8_SCHEMA)
    .field("l", Schema.INT64_SCHEMA)
    .field("f", Schema.FLOAT32_SCHEMA)
    .field("dec", Decimal.schema(2))
    .field("day", ConnectDate.SCHEMA)
    .field("time", Time.SCHEMA)
    .field("ts", Timestamp.SCHEMA)
    .field("m", SchemaBuilder.map(Schema.INT32_SCHEMA, inner).build())
    .field("inner", inner)
    .field("opt", SchemaBuilder.struct().name("com.x.Opt").field("y", Schema.BYTES_SCHEMA).optional().build())
    .build();

  test("a struct comes back with proto3's view of it", () => {
    const value = new Struct(schema)
      .put("i8", -3)
      .put("l", -(2n ** 63n))
      .put("f", 1.5)
      .put("dec", new BigDecimal(-12345n, 2))
      .put("day", new Date(-86_400_000))
      .put("time", new Date(45_296_789))
      .put("ts", new Date(-1))
      .put("m", new Map([[1, new Struct(inner).put("x", "a")]]))
      .put("inner", new Struct(inner).put("x", ""));
    const back = roundTrip(schema, value);
    const s = back.value as Struct;
    expect(s.get("i8")).toBe(-3);
    expect(s.get("l")).toBe(-(2n ** 63n));
    expect(s.get("f")).toBe(1.5);
    expect(s.get("dec")).toEqual(new BigDecimal(-12345n, 2));
    expect(s.get("day")).toEqual(new Date(-86_400_000));
    expect(s.get("time")).toEqual(new Date(45_296_789));
    expect(s.get("ts")).toEqual(new Date(-1));
    expect((s.get("m") as Map<unknown, Struct>).get(1)!.get("x")).toBe("a");
    expect(s.getStruct("inner")!.get("x")).toBe("");
    expect(s.get("opt")).toBeNull();
    expect(back.schema.field("i8")!.schema.type).toBe("INT8");
  });

  test("proto3 leaves zero scalars off the wire", () => {
    const flat = SchemaBuilder.struct()
      .field("a", Schema.INT32_SCHEMA)
      .field("b", Schema.STRING_SCHEMA)
      .field("c", Schema.INT64_SCHEMA)
      .build();
    const { parsed } = data.fromConnectSchema(flat);
    expect(encode(data, flat, parsed, new Struct(flat).put("a", 0).put("b", "").put("c", 0n))).toEqual(
      new Uint8Array(0),
    );
  });

  test("bad values are DataExceptions", () => {
    const type: protobuf.Type = messageForIndexes(data.fromConnectSchema(schema).parsed, [0]);
    const other = SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build();
    expect(() => data.fromConnectData(schema, type, new Struct(other).put("x", 1))).toThrow(
      "Mismatching struct schema",
    );
    expect(() => data.fromConnectData(schema, type, "x")).toThrow("Invalid type for STRUCT: class java.lang.String");
  });
});

/** Connect data as plain JS, with proto3's reading of nulls: what a value should look like after Protobuf. */
function expected(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) {
    if (
      schema.name === Decimal.LOGICAL_NAME ||
      schema.name === ConnectDate.LOGICAL_NAME ||
      schema.name === Time.LOGICAL_NAME ||
      schema.name === Timestamp.LOGICAL_NAME
    )
      return null;
    switch (schema.type) {
      case "INT8":
      case "INT16":
      case "INT32":
      case "FLOAT32":
      case "FLOAT64":
        return 0;
      case "INT64":
        return "0";
      case "BOOLEAN":
        return false;
      case "STRING":
        return "";
      case "BYTES":
        return "";
      case "ARRAY":
      case "MAP":
        return [];
      case "STRUCT":
        return null;
    }
  }
  return plain(schema, value);
}

/** A Connect value as plain JS, compared by field name (the schemas differ after Protobuf). */
function plain(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof BigDecimal) return value.toString();
  if (value instanceof Date) return value.getTime();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  if (typeof value === "bigint" || (typeof value === "number" && schema.type === "INT64")) return String(value);
  switch (schema.type) {
    case "ARRAY":
      return (value as unknown[]).map((e) => expected(schema.valueSchema!, e));
    case "MAP":
      return [...(value as Map<unknown, unknown>)].map(([k, v]) => [
        expected(schema.keySchema!, k),
        expected(schema.valueSchema!, v),
      ]);
    case "STRUCT":
      return Object.fromEntries(
        schema.fields.map((f) => [f.name, expected(f.schema, (value as Struct).getWithoutDefault(f.name))]),
      );
    default:
      return value;
  }
}

/** The decoded value as plain JS (its own schema says nothing about proto3 defaults any more). */
function decodedPlain(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof BigDecimal) return value.toString();
  if (value instanceof Date) return value.getTime();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  if (typeof value === "bigint") return String(value);
  switch (schema.type) {
    case "ARRAY":
      return (value as unknown[]).map((e) => decodedPlain(schema.valueSchema!, e));
    case "MAP":
      return [...(value as Map<unknown, unknown>)].map(([k, v]) => [
        decodedPlain(schema.keySchema!, k),
        decodedPlain(schema.valueSchema!, v),
      ]);
    case "STRUCT":
      return Object.fromEntries(
        schema.fields.map((f) => [f.name, decodedPlain(f.schema, (value as Struct).get(f.name))]),
      );
    default:
      return value;
  }
}

describe("random Connect structs and values through Protobuf", () => {
  const options: RegistrySchemaOptions = {
    optionalStructs: false,
    anyMapKeys: true,
    nullElements: false,
    defaults: false,
    decorations: false,
    nestedArrays: false,
    flatCollections: true,
    maxDepth: 3,
  };

  test("values come back as proto3 reads them", () => {
    fc.assert(
      fc.property(structAndValue(options), ([schema, value]) => {
        const back = roundTrip(schema, value);
        expect(decodedPlain(back.schema, back.value)).toEqual(plain(schema, value));
      }),
      { numRuns: 200 },
    );
  });
});
