import { describe, expect, test } from "bun:test";
import type { Incompatibility } from "#src/schema/format.ts";
import { avroFormat, type AvroParsedSchema } from "#src/schema/avro/index.ts";
import { readProblems } from "#src/schema/avro/compatibility.ts";
import { formatProblem as confluentMessage } from "#src/registry/compatibility.ts";

const parse = (s: unknown): AvroParsedSchema => avroFormat.parse(JSON.stringify(s), []);

/** Problems reading `writer` data with `reader` (reader = new schema, i.e. a BACKWARD check). */
const problems = (reader: unknown, writer: unknown): Incompatibility[] =>
  avroFormat.readProblems(parse(reader), parse(writer));

const brief = (ps: Incompatibility[]) => ps.map((p) => [p.type, p.path, p.additionalInfo]);

const record = (name: string, fields: unknown[], extra: object = {}) => ({ type: "record", name, fields, ...extra });

describe("promotions (Avro schema resolution)", () => {
  const promotions: [string, string][] = [
    ["long", "int"],
    ["float", "int"],
    ["double", "int"],
    ["float", "long"],
    ["double", "long"],
    ["double", "float"],
    ["bytes", "string"],
    ["string", "bytes"],
  ];
  for (const [reader, writer] of promotions) {
    test(`${reader} reads ${writer}`, () => {
      expect(problems(reader, writer)).toEqual([]);
      expect(problems(record("R", [{ name: "f", type: reader }]), record("R", [{ name: "f", type: writer }]))).toEqual(
        [],
      );
    });
  }

  const mismatches: [string, string][] = [
    ["int", "long"],
    ["int", "float"],
    ["long", "float"],
    ["long", "double"],
    ["float", "double"],
    ["boolean", "int"],
    ["null", "int"],
    ["string", "int"],
    ["bytes", "null"],
  ];
  for (const [reader, writer] of mismatches) {
    test(`${reader} cannot read ${writer}`, () => {
      expect(brief(problems(reader, writer))).toEqual([
        [
          "TYPE_MISMATCH",
          "/",
          `reader type: ${reader.toUpperCase()} not compatible with writer type: ${writer.toUpperCase()}`,
        ],
      ]);
    });
  }

  test("complex type mismatches and paths", () => {
    const intArray = { type: "array", items: "int" };
    const intMap = { type: "map", values: "int" };
    expect(brief(problems(intArray, { type: "array", items: "long" }))).toEqual([
      ["TYPE_MISMATCH", "/items", "reader type: INT not compatible with writer type: LONG"],
    ]);
    expect(brief(problems(intMap, { type: "map", values: "long" }))).toEqual([
      ["TYPE_MISMATCH", "/values", "reader type: INT not compatible with writer type: LONG"],
    ]);
    expect(brief(problems(intMap, intArray))).toEqual([
      ["TYPE_MISMATCH", "/", "reader type: MAP not compatible with writer type: ARRAY"],
    ]);
    expect(brief(problems(record("R", [{ name: "a", type: "int" }]), "int"))).toEqual([
      ["TYPE_MISMATCH", "/", "reader type: RECORD not compatible with writer type: INT"],
    ]);
  });
});

describe("each incompatibility type, with Confluent's wording", () => {
  test("READER_FIELD_MISSING_DEFAULT_VALUE", () => {
    const oldSchema = record("R", [{ name: "f1", type: "string" }]);
    const newSchema = record("R", [
      { name: "f1", type: "string" },
      { name: "f2", type: "string" },
    ]);
    const [p, ...rest] = problems(newSchema, oldSchema);
    expect(rest).toEqual([]);
    expect(p).toEqual({
      type: "READER_FIELD_MISSING_DEFAULT_VALUE",
      path: "/fields/1",
      description:
        "The field 'f2' at path '/fields/1' in the new schema has no default value and is missing in the old schema",
      additionalInfo: "f2",
    });
    expect(confluentMessage(p)).toBe(
      "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'f2' at path '/fields/1' in the new schema " +
        "has no default value and is missing in the old schema', additionalInfo:'f2'}",
    );
    // FORWARD check: the old schema reads the new one's data
    const forward = avroFormat.readProblems(parse(oldSchema), parse(newSchema), "writer");
    expect(forward).toEqual([]);
    const removed = avroFormat.readProblems(parse(newSchema), parse(oldSchema), "writer");
    expect(removed[0].description).toBe(
      "The field 'f2' at path '/fields/1' in the old schema has no default value and is missing in the new schema",
    );
    // a default makes it compatible
    const withDefault = record("R", [
      { name: "f1", type: "string" },
      { name: "f2", type: "string", default: "" },
    ]);
    expect(problems(withDefault, oldSchema)).toEqual([]);
  });

  test("TYPE_MISMATCH", () => {
    const [p] = problems(record("R", [{ name: "a", type: "int" }]), record("R", [{ name: "a", type: "string" }]));
    expect(p).toEqual({
      type: "TYPE_MISMATCH",
      path: "/fields/0/type",
      description: "The type (path '/fields/0/type') of a field in the new schema does not match with the old schema",
      additionalInfo: "reader type: INT not compatible with writer type: STRING",
    });
  });

  test("NAME_MISMATCH: unqualified names compare; reader aliases may name the writer", () => {
    const [p] = problems(record("a.Renamed", []), record("a.Original", []));
    expect(p).toEqual({
      type: "NAME_MISMATCH",
      path: "/name",
      description: "The name of the schema has changed (path '/name')",
      additionalInfo: "expected: a.Original",
    });
    // Java Avro compares getName(), the unqualified name: a namespace change alone is compatible
    expect(problems(record("b.Original", []), record("a.Original", []))).toEqual([]);
    expect(problems(record("a.Renamed", [], { aliases: ["Original"] }), record("a.Original", []))).toEqual([]);
    expect(problems(record("a.Renamed", [], { aliases: ["x.Original"] }), record("a.Original", []))).toHaveLength(1);
    const enumOf = (name: string, extra: object = {}) => ({ type: "enum", name, symbols: ["A"], ...extra });
    expect(brief(problems(enumOf("E2"), enumOf("E1")))).toEqual([["NAME_MISMATCH", "/name", "expected: E1"]]);
    expect(problems(enumOf("E2", { aliases: ["E1"] }), enumOf("E1"))).toEqual([]);
  });

  test("FIXED_SIZE_MISMATCH", () => {
    const [p] = problems({ type: "fixed", name: "F", size: 4 }, { type: "fixed", name: "F", size: 8 });
    expect(p).toEqual({
      type: "FIXED_SIZE_MISMATCH",
      path: "/size",
      description: "The size of FIXED type field at path '/size' in the new schema does not match with the old schema",
      additionalInfo: "expected: 8, found: 4",
    });
  });

  test("MISSING_ENUM_SYMBOLS, rescued by a reader enum default", () => {
    const reader = { type: "enum", name: "E", symbols: ["A", "B"] };
    const writer = { type: "enum", name: "E", symbols: ["D", "A", "C", "B"] };
    const [p] = problems(reader, writer);
    expect(p).toEqual({
      type: "MISSING_ENUM_SYMBOLS",
      path: "/symbols",
      description: "The new schema is missing enum symbols '[C, D]' at path '/symbols' in the old schema",
      additionalInfo: "[C, D]",
    });
    expect(problems({ ...reader, default: "A" }, writer)).toEqual([]);
    expect(problems(writer, reader)).toEqual([]);
  });

  test("MISSING_UNION_BRANCH", () => {
    const [p] = problems(["null", "int"], ["null", "int", "string"]);
    expect(p).toEqual({
      type: "MISSING_UNION_BRANCH",
      path: "/2",
      description: "The new schema is missing a type inside a union field at path '/2' in the old schema",
      additionalInfo: "reader union lacking writer type: STRING",
    });
    expect(brief(problems(["int"], ["int", "long", "float", "double"]))).toEqual([
      ["MISSING_UNION_BRANCH", "/1", "reader union lacking writer type: LONG"],
      ["MISSING_UNION_BRANCH", "/2", "reader union lacking writer type: FLOAT"],
      ["MISSING_UNION_BRANCH", "/3", "reader union lacking writer type: DOUBLE"],
    ]);
    // a non-union writer must fit some reader branch (promotions count)
    expect(problems(["null", "long"], "int")).toEqual([]);
    expect(brief(problems(["null", "string"], "int"))).toEqual([
      ["MISSING_UNION_BRANCH", "/", "reader union lacking writer type: INT"],
    ]);
    // records inside unions are compared by name and content
    const r1 = record("Record1", [{ name: "field1", type: "int" }]);
    const r2 = record("Record2", [{ name: "field1", type: "int" }]);
    expect(brief(problems(["int", r1], ["int", r2]))).toEqual([
      ["MISSING_UNION_BRANCH", "/1", "reader union lacking writer type: RECORD"],
    ]);
  });

  test("a union writer read by a non-union reader: every branch must be readable", () => {
    expect(problems("long", ["int", "long"])).toEqual([]);
    expect(brief(problems("float", ["int", "long", "float", "double"]))).toEqual([
      ["TYPE_MISMATCH", "/3", "reader type: FLOAT not compatible with writer type: DOUBLE"],
    ]);
    // Avro 1.11 (older Confluent) restarted the path at the union branch
    expect(brief(readProblems(parse("float").root, parse(["int", "double"]).root, { avroVersion: "1.11" }))).toEqual([
      ["TYPE_MISMATCH", "/", "reader type: FLOAT not compatible with writer type: DOUBLE"],
    ]);
    expect(
      brief(
        problems(record("R", [{ name: "f", type: "string" }]), record("R", [{ name: "f", type: ["null", "string"] }])),
      ),
    ).toEqual([["TYPE_MISMATCH", "/fields/0/type/0", "reader type: STRING not compatible with writer type: NULL"]]);
  });

  test("unexpected exception: a reader field matching several writer fields", () => {
    const reader = record("R", [{ name: "a", type: "int", aliases: ["b"] }]);
    const writer = record("R", [
      { name: "a", type: "int" },
      { name: "b", type: "int" },
    ]);
    const [p, ...rest] = problems(reader, writer);
    expect(rest).toEqual([]);
    expect(p.type).toBe("UNEXPECTED_EXCEPTION");
    expect(confluentMessage(p)).toBe(
      "Unexpected exception during compatibility check: Reader record field a type:INT pos:0 matches multiple fields " +
        'in writer record schema {"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}',
    );
  });
});

describe("records", () => {
  test("reader fields match writer fields by name or reader alias", () => {
    const writer = record("R", [{ name: "old_name", type: "int" }]);
    expect(problems(record("R", [{ name: "new_name", type: "long", aliases: ["old_name"] }]), writer)).toEqual([]);
    expect(brief(problems(record("R", [{ name: "new_name", type: "long" }]), writer))).toEqual([
      ["READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/0", "new_name"],
    ]);
  });

  test("extra writer fields are skipped", () => {
    expect(problems(record("R", []), record("R", [{ name: "a", type: "int" }]))).toEqual([]);
  });

  test("an enum field with an enum default but no field default is compared with the writer record (Java quirk)", () => {
    const reader = record("R", [{ name: "e", type: { type: "enum", name: "E", symbols: ["A"], default: "A" } }]);
    expect(brief(problems(reader, record("R", [])))).toEqual([
      ["TYPE_MISMATCH", "/fields/0/type", "reader type: ENUM not compatible with writer type: RECORD"],
    ]);
  });

  test("nested records in unions, arrays and maps", () => {
    const inner = (fields: unknown[]) => record("Inner", fields);
    const wrap = (i: object) =>
      record("Outer", [
        { name: "u", type: ["null", i] },
        { name: "a", type: { type: "array", items: "Inner" } },
        { name: "m", type: { type: "map", values: "Inner" } },
      ]);
    const v1 = wrap(inner([{ name: "x", type: "int" }]));
    const v2ok = wrap(
      inner([
        { name: "x", type: "long" },
        { name: "y", type: "string", default: "" },
      ]),
    );
    const v2bad = wrap(
      inner([
        { name: "x", type: "int" },
        { name: "y", type: "string" },
      ]),
    );
    expect(problems(v2ok, v1)).toEqual([]);
    // Inner is compared once (memoized by node identity); the union reports its missing branch and the
    // array/map reuse the memoized result, paths included (Java behaves the same)
    expect(brief(problems(v2bad, v1))).toEqual([
      ["MISSING_UNION_BRANCH", "/fields/0/type/1", "reader union lacking writer type: RECORD"],
      ["READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1", "y"],
      ["READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1", "y"],
    ]);
  });

  test("recursive schemas terminate (linked list)", () => {
    const list = (extra: unknown[] = []) =>
      record("Node", [
        { name: "value", type: "int" },
        { name: "next", type: ["null", "Node"], default: null },
        ...extra,
      ]);
    expect(problems(list(), list())).toEqual([]);
    expect(problems(list([{ name: "tag", type: "string", default: "" }]), list())).toEqual([]);
    expect(brief(problems(list([{ name: "tag", type: "string" }]), list()))).toEqual([
      ["READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/2", "tag"],
    ]);
    const tree = (valueType: string) =>
      record("Tree", [
        { name: "value", type: valueType },
        { name: "children", type: { type: "array", items: "Tree" } },
      ]);
    expect(problems(tree("long"), tree("int"))).toEqual([]);
    expect(brief(problems(tree("int"), tree("long")))).toEqual([
      ["TYPE_MISMATCH", "/fields/0/type", "reader type: INT not compatible with writer type: LONG"],
    ]);
  });

  test("several problems at once (Avro's own multi-incompatibility case)", () => {
    const sub = (fields: unknown[]) => ({ type: "record", name: "sub_record_type", fields });
    const reader = record("base", [
      {
        name: "check_enum_symbols_field",
        type: { type: "enum", name: "check_enum_symbols_type", symbols: ["A", "C"] },
      },
      {
        name: "check_enum_name_field",
        type: { type: "enum", name: "check_enum_name_type", symbols: ["A", "B", "C", "D"] },
      },
      { name: "type_mismatch_field", type: "string" },
      {
        name: "sub_record",
        type: sub([
          { name: "identical_1_field", type: "long", default: 42 },
          { name: "extra_no_default_field", type: "long" },
          { name: "fixed_length_mismatch_field", type: { type: "fixed", name: "fixed_length_mismatch_type", size: 4 } },
          { name: "union_missing_branches_field", type: ["boolean"] },
          { name: "reader_union_does_not_support_type_field", type: ["boolean"] },
          {
            name: "record_fqn_mismatch_field",
            type: {
              type: "record",
              name: "recordA",
              namespace: "not_nsA",
              fields: [
                { name: "A_field_0", type: "boolean", default: true },
                { name: "array_type_mismatch_field", type: { type: "array", items: "string" } },
              ],
            },
          },
        ]),
      },
    ]);
    const writer = record("base", [
      {
        name: "check_enum_symbols_field",
        type: { type: "enum", name: "check_enum_symbols_type", symbols: ["A", "B", "C", "D"] },
      },
      {
        name: "check_enum_name_field",
        type: { type: "enum", name: "check_enum_name_type_ERR", symbols: ["A", "B", "C", "D"] },
      },
      { name: "type_mismatch_field", type: "long" },
      {
        name: "sub_record",
        type: sub([
          { name: "identical_1_field", type: "long", default: 42 },
          { name: "fixed_length_mismatch_field", type: { type: "fixed", name: "fixed_length_mismatch_type", size: 8 } },
          { name: "union_missing_branches_field", type: ["boolean", "double", "string"] },
          { name: "reader_union_does_not_support_type_field", type: "long" },
          {
            name: "record_fqn_mismatch_field",
            type: {
              type: "record",
              name: "recordA",
              namespace: "nsA",
              fields: [
                { name: "A_field_0", type: "boolean", default: true },
                { name: "array_type_mismatch_field", type: { type: "array", items: "boolean" } },
              ],
            },
          },
        ]),
      },
    ]);
    expect(brief(problems(reader, writer))).toEqual([
      ["MISSING_ENUM_SYMBOLS", "/fields/0/type/symbols", "[B, D]"],
      ["NAME_MISMATCH", "/fields/1/type/name", "expected: check_enum_name_type_ERR"],
      ["TYPE_MISMATCH", "/fields/2/type", "reader type: STRING not compatible with writer type: LONG"],
      ["READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/3/type/fields/1", "extra_no_default_field"],
      ["FIXED_SIZE_MISMATCH", "/fields/3/type/fields/2/type/size", "expected: 8, found: 4"],
      ["MISSING_UNION_BRANCH", "/fields/3/type/fields/3/type/1", "reader union lacking writer type: DOUBLE"],
      ["MISSING_UNION_BRANCH", "/fields/3/type/fields/3/type/2", "reader union lacking writer type: STRING"],
      ["MISSING_UNION_BRANCH", "/fields/3/type/fields/4/type", "reader union lacking writer type: LONG"],
      [
        "TYPE_MISMATCH",
        "/fields/3/type/fields/5/type/fields/1/type/items",
        "reader type: STRING not compatible with writer type: BOOLEAN",
      ],
    ]);
  });

  test("a named type met twice reports the path of its first comparison (memoization, as in Java)", () => {
    const schema = (t: string) =>
      record("R", [
        { name: "a", type: record("S", [{ name: "x", type: t }]) },
        { name: "b", type: "S" },
      ]);
    expect(brief(problems(schema("int"), schema("string")))).toEqual([
      ["TYPE_MISMATCH", "/fields/0/type/fields/0/type", "reader type: INT not compatible with writer type: STRING"],
      ["TYPE_MISMATCH", "/fields/0/type/fields/0/type", "reader type: INT not compatible with writer type: STRING"],
    ]);
  });

  test("JSON-pointer escaping of path tokens is not needed for Avro names, but field positions are used", () => {
    const [p] = problems(
      record("R", [
        { name: "a", type: "int" },
        { name: "b", type: "int" },
      ]),
      record("R", [{ name: "a", type: "int" }]),
    );
    expect(p.path).toBe("/fields/1");
  });
});

test("non-Avro schemas are refused", () => {
  const other = { schemaType: "JSON" as const, canonical: "{}", normalized: () => "{}" };
  expect(() => avroFormat.readProblems(other, parse("int"))).toThrow(TypeError);
});
