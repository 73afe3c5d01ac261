import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import { DataException } from "#src/connect/api/data/errors.ts";
import { Decimal, Timestamp } from "#src/connect/api/data/logical.ts";
import { Schema, SchemaBuilder } from "#src/connect/api/data/schema.ts";
import { Struct } from "#src/connect/api/data/struct.ts";
import { valueArbitrary, schemaArbitrary } from "../../../../fixtures/connect-data.ts";

const person = SchemaBuilder.struct()
  .name("com.example.Person")
  .field("name", Schema.STRING_SCHEMA)
  .field("age", SchemaBuilder.int32().optional().defaultValue(18).build())
  .field("id", Schema.INT64_SCHEMA)
  .field("score", Schema.OPTIONAL_FLOAT32_SCHEMA)
  .field("tags", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build())
  .field("balance", Decimal.builder(2).optional().build())
  .field("seen", Timestamp.builder().optional().build())
  .build();

describe("Struct", () => {
  test("put validates and get falls back to the default", () => {
    const s = new Struct(person).put("name", "Alice").put("id", 7n);
    expect(s.get("name")).toBe("Alice");
    expect(s.get("age")).toBe(18);
    expect(s.getWithoutDefault("age")).toBeNull();
    expect(s.get(person.field("age")!)).toBe(18);
    expect(() => s.put("age", "x")).toThrow(
      new DataException('Invalid Java object for schema with type INT32: class java.lang.String for field: "age"'),
    );
    expect(() => s.put("name", null)).toThrow(
      new DataException('Invalid value: null used for required field: "name", schema type: STRING'),
    );
    expect(() => s.put("nope", 1)).toThrow(new DataException("nope is not a valid field name"));
    expect(() => s.get("nope")).toThrow(new DataException("nope is not a valid field name"));
  });

  test("typed getters check the field type and do not apply defaults", () => {
    const s = new Struct(person)
      .put("name", "Bob")
      .put("id", 5)
      .put("tags", { a: "b" })
      .put("balance", new BigDecimal(150n, 2));
    expect(s.getString("name")).toBe("Bob");
    expect(s.getInt32("age")).toBeNull();
    expect(s.getInt64("id")).toBe(5n);
    expect(s.getFloat32("score")).toBeNull();
    expect(s.getMap("tags")).toEqual(new Map([["a", "b"]]));
    expect(s.getDecimal("balance")!.toString()).toBe("1.50");
    expect(() => s.getInt32("name")).toThrow(new DataException("Field 'name' is not of type INT32"));
    expect(() => s.getDecimal("name")).toThrow(new DataException("Field 'name' is not of type BYTES"));
  });

  test("validate() wants required fields unless they have a default", () => {
    const s = new Struct(person).put("name", "Carol");
    expect(() => s.validate()).toThrow(
      new DataException('Invalid value: null used for required field: "id", schema type: INT64'),
    );
    s.put("id", 1n);
    expect(() => s.validate()).not.toThrow();
    const withRequiredDefault = SchemaBuilder.struct().field("n", SchemaBuilder.int8().defaultValue(1).build()).build();
    expect(() => new Struct(withRequiredDefault).validate()).not.toThrow();
  });

  test("validate() checks again what can change after put: a map's entries, a nested struct's", () => {
    const tags: Record<string, unknown> = { a: "b" };
    const inner = new Struct(person).put("name", "Dan").put("id", 2n).put("tags", tags);
    const outer = SchemaBuilder.struct().field("person", person).build();
    const s = new Struct(outer).put("person", inner);
    tags.c = 3;
    expect(() => s.validate()).toThrow(DataException);
    delete tags.c;
    expect(() => s.validate()).not.toThrow();
  });

  test("only struct schemas", () => {
    expect(() => new Struct(Schema.INT32_SCHEMA)).toThrow(new DataException("Not a struct schema: Schema{INT32}"));
  });

  test("equality is by schema and values, deeply", () => {
    const a = new Struct(person)
      .put("name", "A")
      .put("id", 1n)
      .put("tags", new Map([["k", "v"]]));
    const b = new Struct(person).put("name", "A").put("id", 1).put("tags", { k: "v" });
    expect(a.equals(b)).toBe(true);
    b.put("score", 1.5);
    expect(a.equals(b)).toBe(false);
    const bytes = SchemaBuilder.struct().field("b", Schema.BYTES_SCHEMA).build();
    expect(
      new Struct(bytes).put("b", new Uint8Array([1])).equals(new Struct(bytes).put("b", new Uint8Array([1]))),
    ).toBe(true);
    expect(
      new Struct(bytes).put("b", new Uint8Array([1])).equals(new Struct(bytes).put("b", new Uint8Array([2]))),
    ).toBe(false);
  });

  test("toString prints set fields as Java does", () => {
    const s = new Struct(person)
      .put("name", "Ann")
      .put("id", 3n)
      .put("score", Math.fround(0.1))
      .put("tags", new Map([["a", "b"]]))
      .put("balance", new BigDecimal(-5n, 3))
      .put("seen", new Date(0));
    expect(String(s)).toBe(
      "Struct{name=Ann,id=3,score=0.1,tags={a=b},balance=-0.005,seen=Thu Jan 01 00:00:00 UTC 1970}",
    );
    const nested = SchemaBuilder.struct().field("p", person).field("d", Schema.FLOAT64_SCHEMA).build();
    expect(String(new Struct(nested).put("p", new Struct(person).put("name", "x").put("id", 1n)).put("d", 2))).toBe(
      "Struct{p=Struct{name=x,id=1},d=2.0}",
    );
  });

  test("any valid struct equals a copy of itself (property)", () => {
    const structSchema = schemaArbitrary({ defaults: true }).filter((s) => s.type === "STRUCT");
    fc.assert(
      fc.property(
        structSchema.chain((s) => valueArbitrary(s, {})),
        (value) => {
          const struct = value as Struct;
          struct.validate();
          const copy = new Struct(struct.schema);
          for (const f of struct.schema.fields) copy.put(f, struct.getWithoutDefault(f.name));
          return copy.equals(struct) && struct.equals(copy);
        },
      ),
      { numRuns: 150 },
    );
  });
});
