import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import { DataException, SchemaBuilderException } from "#src/connect/api/data/errors.ts";
import { ConnectDate, Decimal, Time, Timestamp } from "#src/connect/api/data/logical.ts";
import {
  ConnectSchema,
  Field,
  Schema,
  SchemaBuilder,
  Type,
  typeName,
  validateValue,
} from "#src/connect/api/data/schema.ts";
import { Struct } from "#src/connect/api/data/struct.ts";
import { schemaArbitrary } from "../../../../fixtures/connect-data.ts";

/** The message of what `run` throws, checking it is a DataException. */
function dataError(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(DataException);
    return (e as Error).message;
  }
  throw new Error("expected a DataException");
}

describe("predefined schemas and types", () => {
  test("constants are built as Kafka's", () => {
    expect(Schema.INT32_SCHEMA.type).toBe("INT32");
    expect(Schema.INT32_SCHEMA.optional).toBe(false);
    expect(Schema.OPTIONAL_STRING_SCHEMA.optional).toBe(true);
    expect(Schema.OPTIONAL_BYTES_SCHEMA.equals(SchemaBuilder.bytes().optional().build())).toBe(true);
    expect(Schema.Type.STRUCT).toBe(Type.STRUCT);
    expect(typeName("FLOAT32")).toBe("float32");
    for (const s of [Schema.INT8_SCHEMA, Schema.BOOLEAN_SCHEMA]) {
      expect(s.name).toBeNull();
      expect(s.version).toBeNull();
      expect(s.doc).toBeNull();
      expect(s.parameters).toBeNull();
      expect(s.defaultValue).toBeNull();
    }
  });

  test("toString", () => {
    expect(String(Schema.INT32_SCHEMA)).toBe("Schema{INT32}");
    expect(String(Decimal.schema(2))).toBe("Schema{org.apache.kafka.connect.data.Decimal:BYTES}");
    expect(String(new Field("a", 0, Schema.STRING_SCHEMA))).toBe("Field{name=a, index=0, schema=Schema{STRING}}");
  });
});

describe("SchemaBuilder", () => {
  test("fluent struct with indexed fields, builders accepted as field schemas", () => {
    const schema = SchemaBuilder.struct()
      .name("com.example.Person")
      .version(2)
      .doc("someone")
      .parameter("p", "1")
      .field("name", Schema.STRING_SCHEMA)
      .field("age", SchemaBuilder.int32().optional())
      .optional()
      .build();
    expect(schema.type).toBe("STRUCT");
    expect(schema.optional).toBe(true);
    expect(schema.name).toBe("com.example.Person");
    expect(schema.version).toBe(2);
    expect(schema.doc).toBe("someone");
    expect([...schema.parameters!]).toEqual([["p", "1"]]);
    expect(schema.fields.map((f) => [f.name, f.index, f.schema.type, f.schema.optional])).toEqual([
      ["name", 0, "STRING", false],
      ["age", 1, "INT32", true],
    ]);
    expect(schema.field("age")!.index).toBe(1);
    expect(schema.field("nope")).toBeNull();
  });

  test("arrays and maps", () => {
    const map = SchemaBuilder.map(Schema.STRING_SCHEMA, SchemaBuilder.array(Schema.INT64_SCHEMA)).build();
    expect(map.keySchema).toBe(Schema.STRING_SCHEMA);
    expect(map.valueSchema!.type).toBe("ARRAY");
    expect(map.valueSchema!.valueSchema).toBe(Schema.INT64_SCHEMA);
  });

  test("parameters keep insertion order; an empty set leaves them null", () => {
    expect(SchemaBuilder.string().parameters({}).build().parameters).toBeNull();
    const s = SchemaBuilder.string()
      .parameter("z", "1")
      .parameters(
        new Map([
          ["a", "2"],
          ["z", "3"],
        ]),
      )
      .build();
    expect([...s.parameters!]).toEqual([
      ["z", "3"],
      ["a", "2"],
    ]);
  });

  test("a built schema does not change with its builder", () => {
    const b = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA);
    const first = b.build();
    b.field("b", Schema.INT8_SCHEMA).parameter("x", "y");
    expect(first.fields.length).toBe(1);
    expect(first.parameters).toBeNull();
  });

  test("each attribute once, with Kafka's messages", () => {
    const cases: [() => unknown, string][] = [
      [() => SchemaBuilder.string().name("a").name("b"), "Invalid SchemaBuilder call: name has already been set."],
      [() => SchemaBuilder.string().version(1).version(2), "Invalid SchemaBuilder call: version has already been set."],
      [() => SchemaBuilder.string().doc("a").doc("b"), "Invalid SchemaBuilder call: doc has already been set."],
      [
        () => SchemaBuilder.string().optional().required(),
        "Invalid SchemaBuilder call: optional has already been set.",
      ],
      [
        () => SchemaBuilder.string().defaultValue("a").defaultValue("b"),
        "Invalid SchemaBuilder call: default has already been set.",
      ],
      [() => SchemaBuilder.int32().field("a", Schema.INT32_SCHEMA), "Cannot create fields on type INT32"],
      [() => SchemaBuilder.struct().field("", Schema.INT32_SCHEMA), "fieldName cannot be null."],
      [() => SchemaBuilder.struct().field("a", null as unknown as Schema), "fieldSchema for field a cannot be null."],
      [
        () => SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("a", Schema.INT8_SCHEMA),
        "Cannot create field because of field name duplication a",
      ],
      [() => SchemaBuilder.array(null as unknown as Schema), "valueSchema cannot be null."],
      [() => SchemaBuilder.map(null as unknown as Schema, Schema.INT8_SCHEMA), "keySchema cannot be null."],
      [() => SchemaBuilder.map(Schema.INT8_SCHEMA, null as unknown as Schema), "valueSchema cannot be null."],
      [() => new SchemaBuilder(null as unknown as Type), "type cannot be null"],
    ];
    for (const [run, message] of cases) {
      expect(run).toThrow(SchemaBuilderException);
      expect(dataError(run)).toBe(message);
    }
    // Setting the same value again is allowed.
    expect(SchemaBuilder.string().name("a").name("a").optional().optional().build().name).toBe("a");
  });

  test("defaults are validated against the builder as it stands", () => {
    expect(SchemaBuilder.int32().defaultValue(5).build().defaultValue).toBe(5);
    expect(SchemaBuilder.int32().optional().defaultValue(null).build().defaultValue).toBeNull();
    try {
      SchemaBuilder.int32().defaultValue("x");
      throw new Error("no error");
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaBuilderException);
      expect((e as Error).message).toBe("Invalid default value");
      expect(((e as Error).cause as Error).message).toBe(
        "Invalid Java object for schema with type INT32: class java.lang.String for value",
      );
    }
    expect(() => SchemaBuilder.int32().defaultValue(null)).toThrow("Invalid default value");
    // As in Kafka, a builder never equals a built schema, so struct defaults are refused.
    const b = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA);
    expect(() => b.defaultValue(new Struct(b.build()).put("a", 1))).toThrow("Invalid default value");
  });
});

describe("non-applicable attributes throw as in Kafka", () => {
  test("fields, key and value schemas", () => {
    expect(dataError(() => Schema.INT32_SCHEMA.fields)).toBe("Cannot list fields on non-struct type");
    expect(dataError(() => Schema.INT32_SCHEMA.field("a"))).toBe("Cannot look up fields on non-struct type");
    expect(dataError(() => Schema.INT32_SCHEMA.keySchema)).toBe("Cannot look up key schema on non-map type");
    expect(dataError(() => SchemaBuilder.array(Schema.INT8_SCHEMA).build().keySchema)).toBe(
      "Cannot look up key schema on non-map type",
    );
    expect(dataError(() => Schema.INT32_SCHEMA.valueSchema)).toBe(
      "Cannot look up value schema on non-array and non-map type",
    );
  });
});

describe("validateValue", () => {
  const accepts: [Schema, unknown[]][] = [
    [Schema.INT8_SCHEMA, [0, -128, 127]],
    [Schema.INT16_SCHEMA, [-32768, 32767]],
    [Schema.INT32_SCHEMA, [-2147483648, 2147483647]],
    [Schema.INT64_SCHEMA, [0, Number.MAX_SAFE_INTEGER, -(2n ** 63n), 2n ** 63n - 1n]],
    [Schema.FLOAT32_SCHEMA, [0.1, NaN, Infinity, 3]],
    [Schema.FLOAT64_SCHEMA, [0.1, -0, 3]],
    [Schema.BOOLEAN_SCHEMA, [true, false]],
    [Schema.STRING_SCHEMA, ["", "x"]],
    [Schema.BYTES_SCHEMA, [new Uint8Array(), Buffer.from("x")]],
    [SchemaBuilder.array(Schema.INT8_SCHEMA).build(), [[], [1, 2]]],
    [
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(),
      [new Map(), new Map([["a", 1]]), { a: 1 }, {}],
    ],
    [SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT8_SCHEMA).build(), [new Map([[1, 1]])]],
    [Decimal.schema(2), [new BigDecimal(1n, 2), new BigDecimal(1n, 5)]],
    [ConnectDate.SCHEMA, [new Date(0)]],
    [Time.SCHEMA, [new Date(0)]],
    [Timestamp.SCHEMA, [new Date(0)]],
  ];
  test("accepts each type's JS representations", () => {
    for (const [schema, values] of accepts)
      for (const v of values) expect(() => validateValue(schema, v)).not.toThrow();
  });

  test("rejects others with Kafka's messages, naming the Java class", () => {
    const cases: [Schema, unknown, string][] = [
      [Schema.INT8_SCHEMA, 128, "Invalid Java object for schema with type INT8: class java.lang.Integer for value"],
      [Schema.INT16_SCHEMA, 1.5, "Invalid Java object for schema with type INT16: class java.lang.Double for value"],
      [Schema.INT32_SCHEMA, 2 ** 31, "Invalid Java object for schema with type INT32: class java.lang.Long for value"],
      [Schema.INT32_SCHEMA, 1n, "Invalid Java object for schema with type INT32: class java.lang.Long for value"],
      [
        Schema.INT64_SCHEMA,
        2 ** 60,
        "Invalid Java object for schema with type INT64: class java.lang.Double for value",
      ],
      [
        Schema.INT64_SCHEMA,
        2n ** 63n,
        "Invalid Java object for schema with type INT64: class java.math.BigInteger for value",
      ],
      [
        Schema.FLOAT64_SCHEMA,
        "1",
        "Invalid Java object for schema with type FLOAT64: class java.lang.String for value",
      ],
      [Schema.BOOLEAN_SCHEMA, 1, "Invalid Java object for schema with type BOOLEAN: class java.lang.Integer for value"],
      [
        Schema.STRING_SCHEMA,
        true,
        "Invalid Java object for schema with type STRING: class java.lang.Boolean for value",
      ],
      [Schema.BYTES_SCHEMA, [1], "Invalid Java object for schema with type BYTES: class java.util.ArrayList for value"],
      [
        Schema.STRING_SCHEMA,
        new Map(),
        "Invalid Java object for schema with type STRING: class java.util.HashMap for value",
      ],
      [Schema.STRING_SCHEMA, new Uint8Array(), "Invalid Java object for schema with type STRING: class [B for value"],
      [
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(),
        [],
        "Invalid Java object for schema with type MAP: class java.util.ArrayList for value",
      ],
      [
        ConnectDate.SCHEMA,
        5,
        'Invalid Java object for schema "org.apache.kafka.connect.data.Date" with type INT32: class java.lang.Integer for value',
      ],
      [
        Decimal.schema(2),
        1.5,
        'Invalid Java object for schema "org.apache.kafka.connect.data.Decimal" with type BYTES: class java.lang.Double for value',
      ],
      [
        Schema.INT64_SCHEMA,
        new Date(0),
        "Invalid Java object for schema with type INT64: class java.util.Date for value",
      ],
      [Schema.INT32_SCHEMA, null, "Invalid value: null used for required value, schema type: INT32"],
      [Schema.INT32_SCHEMA, undefined, "Invalid value: null used for required value, schema type: INT32"],
      [
        SchemaBuilder.array(Schema.STRING_SCHEMA).build(),
        ["a", null],
        "Invalid value: null used for required element of array value, schema type: STRING",
      ],
      [
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(),
        new Map([[null, 1]]),
        "Invalid value: null used for required key of map value, schema type: STRING",
      ],
      [
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(),
        { a: "x" },
        "Invalid Java object for schema with type INT8: class java.lang.String for value of map value",
      ],
      [
        SchemaBuilder.map(Schema.INT8_SCHEMA, Schema.INT8_SCHEMA).build(),
        { "1": 1 },
        "Invalid Java object for schema with type INT8: class java.lang.String for key of map value",
      ],
    ];
    for (const [schema, value, message] of cases) expect(dataError(() => validateValue(schema, value))).toBe(message);
  });

  test("optional accepts null; the field name appears in messages", () => {
    expect(() => validateValue(Schema.OPTIONAL_INT32_SCHEMA, null)).not.toThrow();
    expect(dataError(() => validateValue(Schema.INT32_SCHEMA, "x", "age"))).toBe(
      'Invalid Java object for schema with type INT32: class java.lang.String for field: "age"',
    );
    expect(dataError(() => Schema.STRING_SCHEMA.validateValue(null))).toBe(
      "Invalid value: null used for required value, schema type: STRING",
    );
  });

  test("structs must carry an equal schema and be valid", () => {
    const a = SchemaBuilder.struct().field("x", Schema.INT8_SCHEMA).build();
    const b = SchemaBuilder.struct().field("x", Schema.INT16_SCHEMA).build();
    const sameAsA = SchemaBuilder.struct().field("x", Schema.INT8_SCHEMA).build();
    expect(() => validateValue(a, new Struct(sameAsA).put("x", 1))).not.toThrow();
    expect(dataError(() => validateValue(a, new Struct(b).put("x", 1)))).toBe("Struct schemas do not match.");
    expect(dataError(() => validateValue(a, new Struct(a)))).toBe(
      'Invalid value: null used for required field: "x", schema type: INT8',
    );
    expect(dataError(() => validateValue(a, { x: 1 }))).toBe(
      "Invalid Java object for schema with type STRUCT: class java.util.HashMap for value",
    );
  });
});

describe("equality", () => {
  test("every attribute counts", () => {
    const base = () =>
      SchemaBuilder.struct().name("n").version(1).doc("d").parameter("k", "v").field("f", Schema.INT8_SCHEMA);
    const reference = base().build();
    expect(base().build().equals(reference)).toBe(true);
    const variants = [
      SchemaBuilder.struct().version(1).doc("d").parameter("k", "v").field("f", Schema.INT8_SCHEMA),
      SchemaBuilder.struct().name("n").doc("d").parameter("k", "v").field("f", Schema.INT8_SCHEMA),
      SchemaBuilder.struct().name("n").version(1).parameter("k", "v").field("f", Schema.INT8_SCHEMA),
      SchemaBuilder.struct().name("n").version(1).doc("d").field("f", Schema.INT8_SCHEMA),
      base().parameter("k", "w"),
      base().optional(),
      base().field("g", Schema.INT8_SCHEMA),
      SchemaBuilder.struct().name("n").version(1).doc("d").parameter("k", "v").field("f", Schema.INT16_SCHEMA),
      SchemaBuilder.struct().name("n").version(1).doc("d").parameter("k", "v").field("g", Schema.INT8_SCHEMA),
    ];
    for (const v of variants) expect(v.build().equals(reference)).toBe(false);
    expect(Schema.INT8_SCHEMA.equals(Schema.INT16_SCHEMA)).toBe(false);
    expect(Schema.INT8_SCHEMA.equals(null)).toBe(false);
  });

  test("defaults compare deeply", () => {
    const bytes = () =>
      SchemaBuilder.bytes()
        .defaultValue(new Uint8Array([1, 2]))
        .build();
    expect(bytes().equals(bytes())).toBe(true);
    expect(
      bytes().equals(
        SchemaBuilder.bytes()
          .defaultValue(new Uint8Array([1, 3]))
          .build(),
      ),
    ).toBe(false);
    const map = (v: number) =>
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA)
        .defaultValue(new Map([["a", v]]))
        .build();
    expect(map(1).equals(map(1))).toBe(true);
    expect(map(1).equals(map(2))).toBe(false);
    expect(SchemaBuilder.int64().defaultValue(5).build().equals(SchemaBuilder.int64().defaultValue(5n).build())).toBe(
      true,
    );
    expect(
      Decimal.builder(2)
        .defaultValue(new BigDecimal(10n, 2))
        .build()
        .equals(Decimal.builder(2).defaultValue(new BigDecimal(10n, 2)).build()),
    ).toBe(true);
  });

  test("a schema equals itself and an identical construction (property)", () => {
    fc.assert(
      fc.property(schemaArbitrary({ defaults: true }), (schema) => {
        const copy = new ConnectSchema({
          type: schema.type,
          optional: schema.optional,
          defaultValue: schema.defaultValue,
          name: schema.name,
          version: schema.version,
          doc: schema.doc,
          parameters: schema.parameters === null ? null : new Map(schema.parameters),
          fields: schema.type === "STRUCT" ? schema.fields.map((f) => new Field(f.name, f.index, f.schema)) : null,
          keySchema: schema.type === "MAP" ? schema.keySchema : null,
          valueSchema: schema.type === "MAP" || schema.type === "ARRAY" ? schema.valueSchema : null,
        });
        return schema.equals(schema) && schema.equals(copy) && copy.equals(schema);
      }),
      { numRuns: 200 },
    );
  });
});
