// Connect ↔ JSON Schema as Confluent's JsonSchemaData maps them: the schema text derived from
// Connect schemas (key order as Everit prints it), Connect schemas read from plain JSON schemas,
// values as JSON text both ways, and random schemas and values round-tripping.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { JsonSchemaData } from "#src/connect/converters/jsonschema-data.ts";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import {
  valuesEqual,
  DataException,
  ConnectDate,
  Decimal,
  Timestamp,
  Schema,
  SchemaBuilder,
  Struct,
} from "#src/connect/api/data/index.ts";
import { jsonSchemaFormat } from "#src/schema/jsonschema/index.ts";
import { readTree } from "#src/schema/jsonschema/json.ts";
import { fieldValueOf, registrySchema, type RegistrySchemaOptions } from "../../../fixtures/connect-data.ts";

const data = new JsonSchemaData();
const schemaText = (schema: Schema, d = data) => d.fromConnectSchema(schema).canonical;

function roundTrip(schema: Schema, value: unknown, d = data): { schema: Schema; value: unknown; text: string | null } {
  const text = d.fromConnectData(schema, value);
  const back = d.toConnectSchema(d.fromConnectSchema(schema));
  return { schema: back, value: text === null ? null : d.toConnectData(back, readTree(text)), text };
}

describe("Connect schema → JSON Schema", () => {
  test.each([
    ["int8", Schema.INT8_SCHEMA, '{"type":"integer","connect.type":"int8"}'],
    ["int64", Schema.INT64_SCHEMA, '{"type":"integer","connect.type":"int64"}'],
    ["float32", Schema.FLOAT32_SCHEMA, '{"type":"number","connect.type":"float32"}'],
    ["boolean (its type comes last)", Schema.BOOLEAN_SCHEMA, '{"type":"boolean"}'],
    ["string", Schema.STRING_SCHEMA, '{"type":"string"}'],
    ["bytes", Schema.BYTES_SCHEMA, '{"type":"string","connect.type":"bytes"}'],
    ["optional", Schema.OPTIONAL_STRING_SCHEMA, '{"oneOf":[{"type":"null"},{"type":"string"}]}'],
    [
      "default (printed as org.json prints numbers)",
      SchemaBuilder.float64().defaultValue(1.0).build(),
      '{"type":"number","default":1,"connect.type":"float64"}',
    ],
    [
      "name, doc, version and parameters (io.confluent.connect.json.* ones are dropped)",
      SchemaBuilder.string()
        .name("N")
        .doc("D")
        .version(2)
        .parameter("k", "v")
        .parameter("io.confluent.connect.json.x", "y")
        .build(),
      '{"type":"string","title":"N","description":"D","connect.version":2,"connect.parameters":{"k":"v"}}',
    ],
    [
      "Decimal",
      Decimal.schema(2),
      '{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"}}',
    ],
    [
      "unprocessed keywords in the order of Everit's copied HashMap",
      SchemaBuilder.struct().field("d", Decimal.schema(2)).build(),
      '{"type":"object","properties":{"d":{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.index":0,"connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"}}}}',
    ],
    [
      "map with string keys",
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
      '{"type":"object","connect.type":"map","additionalProperties":{"type":"integer","connect.type":"int32"}}',
    ],
    [
      "map with other keys (properties in Everit's hash order)",
      SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).build(),
      '{"type":"array","connect.type":"map","items":{"type":"object","properties":{"value":{"type":"integer","connect.index":1,"connect.type":"int32"},"key":{"type":"integer","connect.index":0,"connect.type":"int32"}}}}',
    ],
    [
      "struct: title, properties with connect.index",
      SchemaBuilder.struct()
        .name("R")
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .field("c", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .build(),
      '{"type":"object","title":"R","properties":{"a":{"type":"integer","connect.index":0,"connect.type":"int32"},"b":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"boolean"}]},"c":{"type":"array","connect.index":2,"items":{"type":"string"}}}}',
    ],
    [
      "union struct: oneOf",
      SchemaBuilder.struct()
        .name("io.confluent.connect.json.OneOf")
        .field("io.confluent.connect.json.OneOf.field.0", Schema.OPTIONAL_INT32_SCHEMA)
        .field("io.confluent.connect.json.OneOf.field.1", Schema.OPTIONAL_STRING_SCHEMA)
        .build(),
      '{"oneOf":[{"type":"integer","connect.index":0,"connect.type":"int32"},{"type":"string","connect.index":1}]}',
    ],
    [
      "enum",
      SchemaBuilder.string()
        .parameter("io.confluent.connect.json.Enum", "")
        .parameter("io.confluent.connect.json.Enum.a", "a")
        .parameter("io.confluent.connect.json.Enum.b", "b")
        .build(),
      '{"enum":["a","b"]}',
    ],
  ])("%s", (_, schema, expected) => {
    expect(schemaText(schema)).toBe(expected);
  });

  test("decimal.format=NUMERIC and object.additional.properties=false", () => {
    expect(schemaText(Decimal.schema(2), new JsonSchemaData({ decimalNumeric: true }))).toStartWith(
      '{"type":"number","title":"org.apache.kafka.connect.data.Decimal"',
    );
    expect(
      schemaText(
        SchemaBuilder.struct().field("a", Schema.BOOLEAN_SCHEMA).build(),
        new JsonSchemaData({ allowAdditionalProperties: false }),
      ),
    ).toBe('{"type":"object","additionalProperties":false,"properties":{"a":{"connect.index":0,"type":"boolean"}}}');
  });

  test("the text is what the registry stores", () => {
    const schema = SchemaBuilder.struct()
      .name("R")
      .field("d", Decimal.schema(3))
      .field("m", SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
      .build();
    const text = schemaText(schema);
    expect(jsonSchemaFormat.parse(text, []).canonical).toBe(text);
  });
});

describe("JSON Schema → Connect schema", () => {
  const plain = jsonSchemaFormat.parse(
    JSON.stringify({
      type: "object",
      title: "Person",
      properties: {
        id: { type: "integer" },
        nick: { type: ["string", "null"] },
        level: { enum: ["LOW", "HIGH"] },
        either: { oneOf: [{ type: "integer" }, { type: "string" }] },
        tags: { type: "array", items: { type: "string" } },
        score: { type: "number", default: 1.5 },
      },
      required: ["id"],
    }),
    [],
  );

  test("types without connect.* keywords", () => {
    const schema = data.toConnectSchema(plain);
    expect(schema.name).toBe("Person");
    const field = (name: string) => schema.field(name)!.schema;
    expect(field("id").equals(Schema.INT64_SCHEMA)).toBe(true);
    expect(field("nick").equals(Schema.OPTIONAL_STRING_SCHEMA)).toBe(true);
    expect(field("level").parameters).toEqual(
      new Map([
        ["io.confluent.connect.json.Enum", ""],
        ["io.confluent.connect.json.Enum.LOW", "LOW"],
        ["io.confluent.connect.json.Enum.HIGH", "HIGH"],
      ]),
    );
    expect(field("either").name).toBe("io.confluent.connect.json.OneOf");
    expect(field("either").fields.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
      ["io.confluent.connect.json.OneOf.field.0", "INT64", true],
      ["io.confluent.connect.json.OneOf.field.1", "STRING", true],
    ]);
    expect(field("tags").equals(SchemaBuilder.array(Schema.STRING_SCHEMA).build())).toBe(true);
    expect(field("score").defaultValue).toBe(1.5);
    expect(new Set(schema.fields.map((f) => f.name))).toEqual(
      new Set(["id", "nick", "level", "either", "tags", "score"]),
    );
  });

  test("use.optional.for.nonrequired makes properties not in `required` optional", () => {
    const schema = new JsonSchemaData({ useOptionalForNonRequired: true }).toConnectSchema(plain);
    expect(schema.field("id")!.schema.optional).toBe(false);
    expect(schema.field("tags")!.schema.optional).toBe(true);
  });

  test("values: a oneOf member is picked by the JSON type; a missing property takes the default", () => {
    const schema = data.toConnectSchema(plain);
    const value = data.toConnectData(
      schema,
      readTree('{"id":12345678901234567890,"either":"x","tags":["a"],"nick":null}'),
    ) as Struct;
    expect(value.get("id")).toBe(BigInt.asIntN(64, 12345678901234567890n)); // Jackson's longValue wraps
    expect(value.getStruct("either")!.get("io.confluent.connect.json.OneOf.field.1")).toBe("x");
    expect(value.get("score")).toBe(1.5);
    expect(value.get("nick")).toBeNull();
  });
});

describe("Connect values ↔ JSON text", () => {
  const schema = SchemaBuilder.struct()
    .field("i", Schema.INT64_SCHEMA)
    .field("f", Schema.FLOAT32_SCHEMA)
    .field("d", Schema.FLOAT64_SCHEMA)
    .field("b", Schema.BYTES_SCHEMA)
    .field("dec", Decimal.schema(2))
    .field("day", ConnectDate.SCHEMA)
    .field("ts", Timestamp.SCHEMA)
    .field("m", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build())
    .field("o", Schema.OPTIONAL_STRING_SCHEMA)
    .build();
  const value = new Struct(schema)
    .put("i", 2n ** 62n)
    .put("f", Math.fround(0.1))
    .put("d", 1e20)
    .put("b", new Uint8Array([1, 2, 3]))
    .put("dec", new BigDecimal(-5n, 2))
    .put("day", new Date(86_400_000))
    .put("ts", new Date(1234))
    .put("m", new Map([[1, null]]));

  test("written as Jackson writes the JsonNode, read back equal", () => {
    const { text, value: back } = roundTrip(schema, value);
    expect(text).toBe(
      '{"i":4611686018427387904,"f":0.1,"d":1.0E20,"b":"AQID","dec":"+w==","day":1,"ts":1234,"m":[{"key":1,"value":null}],"o":null}',
    );
    expect(valuesEqual(back, value)).toBe(true);
  });

  test("decimal.format=NUMERIC writes decimals as numbers", () => {
    const numeric = new JsonSchemaData({ decimalNumeric: true });
    expect(numeric.fromConnectData(Decimal.schema(2), new BigDecimal(-5n, 2))).toBe("-0.05");
    expect(numeric.toConnectData(Decimal.schema(2), readTree("-0.05"))).toEqual(new BigDecimal(-5n, 2));
  });

  test("nulls: a default replaces them, an optional schema writes null, a required one writes nothing", () => {
    expect(data.fromConnectData(SchemaBuilder.int32().optional().defaultValue(3).build(), null)).toBe("3");
    expect(data.fromConnectData(Schema.OPTIONAL_INT32_SCHEMA, null)).toBe("null");
    expect(data.fromConnectData(Schema.INT32_SCHEMA, null)).toBeNull();
    expect(() => data.toConnectData(Schema.INT32_SCHEMA, null)).toThrow("Invalid null value for required INT32 field");
  });

  test("bad values are DataExceptions", () => {
    expect(() => data.fromConnectData(Schema.INT32_SCHEMA, "x")).toThrow(
      new DataException("Invalid type for INT32: class java.lang.String"),
    );
    expect(() =>
      data.toConnectData(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), readTree("[1]")),
    ).toThrow("Maps with string fields should be encoded as JSON objects, but found ARRAY");
  });
});

describe("random Connect schemas and values round-trip through JSON Schema", () => {
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
        registrySchema(options).chain((schema) =>
          fieldValueOf(schema, options).map((value) => [schema, value] as const),
        ),
        ([schema, value]) => {
          const back = roundTrip(schema, value);
          expect(back.schema.equals(schema)).toBe(true);
          expect(valuesEqual(back.value, value)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
