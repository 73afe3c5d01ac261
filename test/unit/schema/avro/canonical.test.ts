import { describe, expect, test } from "bun:test";
import { InvalidSchemaError, type ResolvedReference } from "#src/schema/format.ts";
import { avroFormat } from "#src/schema/avro/index.ts";
import { parseJson, writeJson } from "#src/schema/avro/json.ts";

const canonical = (schema: string | object, refs: ResolvedReference[] = []): string =>
  avroFormat.parse(typeof schema === "string" ? schema : JSON.stringify(schema), refs).canonical;

function ref(name: string, schema: object | string, references: ResolvedReference[] = []): ResolvedReference {
  return {
    name,
    subject: name,
    version: 1,
    schema: typeof schema === "string" ? schema : JSON.stringify(schema),
    schemaType: "AVRO",
    references,
  };
}

describe("canonical string (Java Schema.toString)", () => {
  test("primitives without props collapse to the type name", () => {
    expect(canonical('{"type":"string"}')).toBe('"string"');
    expect(canonical('"int"')).toBe('"int"');
    expect(canonical('{"type":"long","name":"ignored","doc":"reserved keys are dropped"}')).toBe('"long"');
  });

  test("primitives keep logical types and custom props in source order", () => {
    expect(canonical('{"type":"int","logicalType":"date"}')).toBe('{"type":"int","logicalType":"date"}');
    expect(canonical('{"connect.version":1,"type":"long","connect.name":"io.debezium.time.Timestamp"}')).toBe(
      '{"type":"long","connect.version":1,"connect.name":"io.debezium.time.Timestamp"}',
    );
    // an invalid logical type is kept as a plain prop
    expect(canonical('{"type":"string","logicalType":"date"}')).toBe('{"type":"string","logicalType":"date"}');
  });

  test("whitespace and key order of reserved attributes do not matter", () => {
    const a = `{
      "fields": [ { "type": "string", "name": "f1", "doc": "bye\\"now" } ],
      "doc": "hi\\"there", "name": "myrecord", "type": "record"
    }`;
    const b =
      '{"type":"record","name":"myrecord","doc":"hi\\"there","fields":[{"name":"f1","doc":"bye\\"now","type":"string"}]}';
    const expected =
      '{"type":"record","name":"myrecord","doc":"hi\\"there","fields":[{"name":"f1","type":"string","doc":"bye\\"now"}]}';
    expect(canonical(a)).toBe(expected);
    expect(canonical(b)).toBe(expected);
  });

  test("record key order: type, name, namespace, doc, fields, props, aliases", () => {
    const s = `{
      "aliases": ["Old"],
      "x-prop": { "b": 1, "a": [1.0, 2] },
      "fields": [
        { "aliases": ["g"], "order": "descending", "default": 1.0, "doc": "d", "field.prop": true, "type": "double", "name": "f" },
        { "name": "asc", "type": "int", "order": "ascending" }
      ],
      "doc": "rec", "namespace": "com.acme", "name": "Rec", "type": "record"
    }`;
    expect(canonical(s)).toBe(
      '{"type":"record","name":"Rec","namespace":"com.acme","doc":"rec","fields":[' +
        '{"name":"f","type":"double","doc":"d","default":1.0,"order":"descending","aliases":["g"],"field.prop":true},' +
        '{"name":"asc","type":"int"}],"x-prop":{"b":1,"a":[1.0,2]},"aliases":["Old"]}',
    );
  });

  test("enum and fixed key order", () => {
    expect(
      canonical({
        aliases: ["a.Old"],
        default: "B",
        symbols: ["A", "B"],
        p: 1,
        doc: "e",
        name: "E",
        namespace: "n",
        type: "enum",
      }),
    ).toBe(
      '{"type":"enum","name":"E","namespace":"n","doc":"e","symbols":["A","B"],"default":"B","p":1,"aliases":["a.Old"]}',
    );
    expect(canonical({ size: 16, logicalType: "uuid", name: "U", type: "fixed", aliases: ["V"] })).toBe(
      '{"type":"fixed","name":"U","size":16,"logicalType":"uuid","aliases":["V"]}',
    );
  });

  test("error records keep their type", () => {
    expect(canonical({ type: "error", name: "Oops", fields: [] })).toBe('{"type":"error","name":"Oops","fields":[]}');
  });

  test("namespaces are inherited, written only when they change, and reset with an empty namespace", () => {
    const s = {
      type: "record",
      name: "Outer",
      namespace: "a.b",
      fields: [
        { name: "inner", type: { type: "record", name: "Inner", namespace: "a.b", fields: [] } },
        { name: "other", type: { type: "record", name: "x.y.Other", fields: [] } },
        { name: "global", type: { type: "enum", name: "G", namespace: "", symbols: ["S"] } },
        { name: "arr", type: { type: "array", items: { type: "fixed", name: "F", size: 2 } } },
      ],
    };
    expect(canonical(s)).toBe(
      '{"type":"record","name":"Outer","namespace":"a.b","fields":[' +
        '{"name":"inner","type":{"type":"record","name":"Inner","fields":[]}},' +
        '{"name":"other","type":{"type":"record","name":"Other","namespace":"x.y","fields":[]}},' +
        '{"name":"global","type":{"type":"enum","name":"G","namespace":"","symbols":["S"]}},' +
        '{"name":"arr","type":{"type":"array","items":{"type":"fixed","name":"F","size":2}}}]}',
    );
  });

  test("later uses of a named type are name references, short in their own namespace", () => {
    const s = {
      type: "record",
      name: "R",
      namespace: "ns",
      fields: [
        { name: "a", type: { type: "enum", name: "E", symbols: ["X"] } },
        { name: "b", type: "E" },
        { name: "c", type: "ns.E" },
        { name: "d", type: { type: "E" } }, // Avro 1.12.1 reads {"type": name} as a reference
        { name: "e", type: { type: "record", name: "other.S", fields: [{ name: "back", type: "ns.E" }] } },
        { name: "f", type: ["null", "other.S"] },
        { name: "g", type: { type: "map", values: "E" } },
      ],
    };
    expect(canonical(s)).toBe(
      '{"type":"record","name":"R","namespace":"ns","fields":[' +
        '{"name":"a","type":{"type":"enum","name":"E","symbols":["X"]}},' +
        '{"name":"b","type":"E"},{"name":"c","type":"E"},{"name":"d","type":"E"},' +
        '{"name":"e","type":{"type":"record","name":"S","namespace":"other","fields":[{"name":"back","type":"ns.E"}]}},' +
        '{"name":"f","type":["null","other.S"]},{"name":"g","type":{"type":"map","values":"E"}}]}',
    );
  });

  test("a simple name falls back to the null namespace", () => {
    const s = {
      type: "record",
      name: "R",
      fields: [
        { name: "g", type: { type: "enum", name: "G", symbols: ["S"] } },
        { name: "inner", type: { type: "record", name: "I", namespace: "n", fields: [{ name: "x", type: "G" }] } },
      ],
    };
    expect(canonical(s)).toBe(
      '{"type":"record","name":"R","fields":[{"name":"g","type":{"type":"enum","name":"G","symbols":["S"]}},' +
        '{"name":"inner","type":{"type":"record","name":"I","namespace":"n","fields":[{"name":"x","type":"G"}]}}]}',
    );
  });

  test("forward references are resolved; the definition is written at first use", () => {
    const s = {
      type: "record",
      name: "R",
      fields: [
        { name: "a", type: "Later" },
        { name: "b", type: { type: "fixed", name: "Later", size: 4 } },
      ],
    };
    expect(canonical(s)).toBe(
      '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"fixed","name":"Later","size":4}},{"name":"b","type":"Later"}]}',
    );
  });

  test("recursive records", () => {
    const s =
      '{"type":"record","name":"Node","fields":[{"name":"value","type":"int"},{"name":"next","type":["null","Node"],"default":null}]}';
    expect(canonical(s)).toBe(s);
  });

  test("numbers keep Jackson's integer/floating distinction and print like Java", () => {
    const s = (d: string) => `{"type":"record","name":"R","fields":[{"name":"x","type":"double","default":${d}}]}`;
    const out = (d: string) => canonical(s(d)).match(/"default":([^}]*)}/)?.[1];
    expect(out("1")).toBe("1");
    expect(out("1.0")).toBe("1.0");
    expect(out("1.50")).toBe("1.5");
    expect(out("1e2")).toBe("100.0");
    expect(out("-0.0")).toBe("-0.0");
    expect(out("12345678.9")).toBe("1.23456789E7");
    expect(out("0.0001")).toBe("1.0E-4");
    expect(out("123456789012345678901234567890")).toBe("123456789012345678901234567890");
    // string defaults of float/double fields are converted by the Java parser
    expect(out('"2.5"')).toBe("2.5");
    expect(out('"NaN"')).toBe('"NaN"');
  });

  test("number edges print like Java's Double.toString, not JavaScript's", () => {
    const s = (d: string) => `{"type":"record","name":"R","fields":[{"name":"x","type":"double","default":${d}}]}`;
    const out = (d: string) => canonical(s(d)).match(/"default":([^}]*)}/)?.[1];
    expect(out("4.9E-324")).toBe("4.9E-324"); // Double.MIN_VALUE
    expect(out("5e-324")).toBe("4.9E-324");
    expect(out("1e-323")).toBe("9.9E-324");
    expect(out("1.7976931348623157E308")).toBe("1.7976931348623157E308");
    expect(out("1e7")).toBe("1.0E7");
    expect(out("9999999.0")).toBe("9999999.0");
    expect(out("0.001")).toBe("0.001");
    expect(out("0.0009")).toBe("9.0E-4");
  });

  test("strings are escaped like Jackson", () => {
    expect(canonical({ type: "string", p: 'tab\t nl\n ctl\u001f quote" slash/ é' })).toBe(
      '{"type":"string","p":"tab\\t nl\\n ctl\\u001F quote\\" slash/ é"}',
    );
  });

  test("JSON reading like Jackson: comments, duplicate keys, integer-looking keys", () => {
    expect(canonical('/* leading */ {"type": // line\n "string", "p": 1, "p": 2}')).toBe('{"type":"string","p":2}');
    expect(writeJson(parseJson('{"b":1,"2":2,"1":3}') ?? null)).toBe('{"b":1,"2":2,"1":3}');
  });

  test("aliases are qualified relative to the type's namespace", () => {
    const s = { type: "record", name: "R", namespace: "a", aliases: ["Old", "a.Older", "b.Other"], fields: [] };
    expect(canonical(s)).toBe(
      '{"type":"record","name":"R","namespace":"a","fields":[],"aliases":["Old","Older","b.Other"]}',
    );
  });

  test("a recognised logical type of a record/array/map comes first (Java re-adds it when resolving)", () => {
    const variant = {
      type: "record",
      name: "V",
      "x-before": 1,
      logicalType: "variant",
      fields: [
        { name: "metadata", type: "bytes" },
        { name: "value", type: "bytes" },
      ],
    };
    expect(canonical(variant)).toBe(
      '{"type":"record","name":"V","fields":[{"name":"metadata","type":"bytes"},{"name":"value","type":"bytes"}],' +
        '"logicalType":"variant","x-before":1}',
    );
    // not a valid variant: the prop keeps its place
    expect(canonical({ ...variant, fields: [] })).toBe(
      '{"type":"record","name":"V","fields":[],"x-before":1,"logicalType":"variant"}',
    );
  });

  test("a type named like a primitive type is always written in full", () => {
    const s = {
      type: "record",
      name: "R",
      namespace: "n",
      fields: [
        { name: "a", type: { type: "fixed", name: "record", size: 1 } },
        { name: "b", type: "n.record" },
      ],
    };
    expect(canonical(s)).toContain('{"name":"b","type":"n.record"}');
  });
});

describe("references", () => {
  const address = {
    type: "record",
    name: "Address",
    namespace: "com.acme",
    fields: [{ name: "street", type: "string" }],
  };
  const country = { type: "enum", name: "Country", namespace: "com.acme", symbols: ["NL", "BE"] };

  test("referenced named types are usable by name and stay name references", () => {
    const main = {
      type: "record",
      name: "Person",
      namespace: "com.acme",
      fields: [
        { name: "home", type: "Address" },
        { name: "work", type: ["null", "com.acme.Address"], default: null },
      ],
    };
    expect(canonical(main, [ref("address", address)])).toBe(
      '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":"Address"},' +
        '{"name":"work","type":["null","Address"],"default":null}]}',
    );
  });

  test("transitive references resolve depth-first", () => {
    const addressWithCountry = { ...address, fields: [...address.fields, { name: "country", type: "Country" }] };
    const main = { type: "record", name: "Person", namespace: "com.acme", fields: [{ name: "home", type: "Address" }] };
    const refs = [ref("address", addressWithCountry, [ref("country", country)])];
    expect(canonical(main, refs)).toBe(
      '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":"Address"}]}',
    );
  });

  test("only the top-level names of references are written as references (Confluent's knownNames)", () => {
    const wrapper = {
      type: "record",
      name: "Wrapper",
      fields: [{ name: "c", type: { type: "enum", name: "Inner", symbols: ["A"] } }],
    };
    const main = {
      type: "record",
      name: "Main",
      fields: [
        { name: "i", type: "Inner" },
        { name: "w", type: "Wrapper" },
      ],
    };
    expect(canonical(main, [ref("wrapper", wrapper)])).toBe(
      '{"type":"record","name":"Main","fields":[{"name":"i","type":{"type":"enum","name":"Inner","symbols":["A"]}},' +
        '{"name":"w","type":"Wrapper"}]}',
    );
  });

  test("the avsc type of a schema with references encodes and decodes", () => {
    const main = { type: "record", name: "Person", namespace: "com.acme", fields: [{ name: "home", type: "Address" }] };
    const parsed = avroFormat.parse(JSON.stringify(main), [ref("address", address)]);
    const value = { home: { street: "Main St" } };
    expect(parsed.avscType.fromBuffer(parsed.avscType.toBuffer(value))).toEqual(value);
  });

  test("missing reference → invalid schema", () => {
    expect(() => canonical({ type: "record", name: "P", fields: [{ name: "a", type: "com.acme.Address" }] })).toThrow(
      "Undefined schema: com.acme.Address",
    );
  });

  test("a reference may not be redefined differently, but may be repeated identically", () => {
    const same = { type: "record", name: "P", fields: [{ name: "a", type: address }] };
    expect(canonical(same, [ref("address", address)])).toBe(
      '{"type":"record","name":"P","fields":[{"name":"a","type":"com.acme.Address"}]}',
    );
    const different = { ...address, fields: [{ name: "street", type: "int" }] };
    expect(() =>
      canonical({ type: "record", name: "P", fields: [{ name: "a", type: different }] }, [ref("address", address)]),
    ).toThrow("Can't redefine: com.acme.Address");
  });

  test("defaults and props compare as Jackson's JsonNode.equals: 1 is not 1.0, 0.0 is not -0.0, NaN is NaN", () => {
    const withDefault = (dflt: string, prop = "1") =>
      `{"type":"record","name":"D","fields":[{"name":"x","type":"double","default":${dflt},"p":${prop}}]}`;
    const redefined = (first: string, second: string) => () =>
      canonical(`{"type":"record","name":"P","fields":[{"name":"a","type":${second}}]}`, [ref("d", first)]);
    expect(redefined(withDefault("0.0"), withDefault("0.0"))).not.toThrow();
    expect(redefined(withDefault('"NaN"'), withDefault('"NaN"'))).not.toThrow();
    expect(
      redefined(withDefault("0.0", '{"a":[1,2],"b":null}'), withDefault("0.0", '{"b":null,"a":[1,2]}')),
    ).not.toThrow();
    expect(redefined(withDefault("0.0"), withDefault("-0.0"))).toThrow("Can't redefine: D");
    expect(redefined(withDefault("0.0", "1"), withDefault("0.0", "1.0"))).toThrow("Can't redefine: D");
    expect(redefined(withDefault("0.0", "[1,2]"), withDefault("0.0", "[2,1]"))).toThrow("Can't redefine: D");
  });
});

describe("invalid schemas", () => {
  const invalid = (schema: string | object): string => {
    try {
      canonical(schema);
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidSchemaError);
      return (e as Error).message;
    }
    throw new Error("expected an InvalidSchemaError");
  };

  test("reasons follow Java Avro's messages", () => {
    expect(invalid("")).toBe("Cannot parse <null> schema");
    expect(invalid("{")).toContain("Unexpected end-of-input");
    expect(invalid('"string" x')).toBe("dangling content after end of schema: x");
    expect(invalid("123")).toBe("Schema not yet supported: 123");
    expect(invalid('"Foo"')).toBe("Undefined schema: Foo");
    expect(invalid({ fields: [] })).toBe('No type: {"fields":[]}');
    expect(invalid({ type: "record", fields: [] })).toBe('No name in schema: {"type":"record","fields":[]}');
    expect(invalid({ type: "record", name: "R" })).toBe('Record has no fields: {"type":"record","name":"R"}');
    expect(invalid({ type: "record", name: "1R", fields: [] })).toBe("Illegal initial character: 1R");
    expect(invalid({ type: "record", name: "R-2", fields: [] })).toBe("Illegal character in: R-2");
    expect(invalid({ type: "record", name: "R", namespace: "a.b-c", fields: [] })).toBe(
      'Namespace part "b-c" is invalid: Illegal character in: b-c',
    );
    expect(invalid({ type: "record", name: "int", fields: [] })).toBe("Schemas may not be named after primitives: int");
    expect(invalid({ type: "record", name: "R", fields: [{ name: "a" }] })).toBe('No field type: {"name":"a"}');
    expect(
      invalid({
        type: "record",
        name: "R",
        fields: [
          { name: "a", type: "int" },
          { name: "a", type: "string" },
        ],
      }),
    ).toBe("Duplicate field a in record R: a type:STRING pos:1 and a type:INT pos:0.");
    expect(invalid({ type: "enum", name: "E", symbols: ["A", "A"] })).toBe("Duplicate enum symbol: A");
    expect(invalid({ type: "enum", name: "E", symbols: ["A", "B"], default: "C" })).toBe(
      "The Enum Default: C is not in the enum symbol set: [A, B]",
    );
    expect(invalid({ type: "fixed", name: "F", size: 1.5 })).toBe(
      'Invalid or no size: {"type":"fixed","name":"F","size":1.5}',
    );
    expect(invalid({ type: "array" })).toBe('Array has no items type: {"type":"array"}');
    expect(invalid({ type: "map" })).toBe('Map has no values type: {"type":"map"}');
    expect(invalid(["int", "int"])).toBe("Duplicate in union:int");
    expect(invalid(["null", ["int"]])).toBe('Nested union: ["null",["int"]]');
    expect(invalid({ type: "record", name: "R", fields: [{ name: "a", type: "int", order: "up" }] })).toBe(
      "No enum constant org.apache.avro.Schema.Field.Order.UP",
    );
  });

  test("invalid defaults are invalid schemas (Confluent validates defaults of new schemas)", () => {
    const field = (type: unknown, dflt: unknown) => ({
      type: "record",
      name: "R",
      fields: [{ name: "f", type, default: dflt }],
    });
    expect(invalid(field("int", "x"))).toBe('Invalid default for field f: "x" not a "int"');
    expect(invalid(JSON.stringify(field("int", 0)).replace('"default":0', '"default":1.0'))).toBe(
      'Invalid default for field f: 1.0 not a "int"',
    );
    expect(invalid(field("int", 2147483648))).toBe('Invalid default for field f: 2147483648 not a "int"');
    expect(invalid(field(["null", "int"], "x"))).toBe('Invalid default for field f: "x" not a ["null","int"]');
    expect(invalid(field({ type: "array", items: "int" }, ["a"]))).toBe(
      'Invalid default for field f: ["a"] not a {"type":"array","items":"int"}',
    );
    expect(invalid(field("double", "abc"))).toBe('For input string: "abc"');
    // Double.valueOf's messages: the input quoted after String.trim, a second point named.
    expect(invalid(field("double", " abc "))).toBe('For input string: "abc"');
    expect(invalid(field("float", "1.2.3"))).toBe("multiple points");
    expect(invalid(field("double", " "))).toBe("empty String");
    // valid ones: any union branch (Avro 1.12), missing record fields covered by their defaults
    expect(canonical(field(["null", "string"], "x"))).toBe(
      '{"type":"record","name":"R","fields":[{"name":"f","type":["null","string"],"default":"x"}]}',
    );
    const inner = {
      type: "record",
      name: "I",
      fields: [
        { name: "a", type: "int", default: 1 },
        { name: "b", type: "string" },
      ],
    };
    expect(canonical(field(inner, { b: "x" }))).toEndWith(',"default":{"b":"x"}}]}');
    expect(invalid(field(inner, { a: 2 }))).toContain("Invalid default for field f");
  });

  test("avsc rejects what it cannot represent, with its own reason", () => {
    expect(invalid([])).toBe("empty union");
  });
});

describe("normalized form (Confluent normalize=true)", () => {
  const normalized = (schema: string | object, refs: ResolvedReference[] = []): string =>
    avroFormat.parse(typeof schema === "string" ? schema : JSON.stringify(schema), refs).normalized();

  test("Confluent's own examples: canonical and normalized agree", () => {
    const schema =
      '{"type":"record","name":"myrecord","doc":"hi\\"there","fields":[{"type":"string","name":"f1","doc":"bye\\"now"}]}';
    const expected =
      '{"type":"record","name":"myrecord","doc":"hi\\"there","fields":[{"name":"f1","type":"string","doc":"bye\\"now"}]}';
    expect(canonical(schema)).toBe(expected);
    expect(normalized(schema)).toBe(expected);

    const debezium = `{"connect.name": "some.scope.Envelope","fields": [{"default": null,"name": "before","type": ["null",
      {"connect.name": "some.scope.Value","fields": [{"name": "created_at","type": {"connect.name": "io.debezium.time.Timestamp",
      "connect.version": 1,"type": "long"}},{"name":"normal_long","type":"long"}],"name": "Value","type": "record"}]},
      {"default": null,"name": "after","type": ["null","Value"]}],"name": "Envelope","namespace": "some.scope","type": "record"}`;
    const debeziumCanonical =
      '{"type":"record","name":"Envelope","namespace":"some.scope","fields":[{"name":"before","type":["null",' +
      '{"type":"record","name":"Value","fields":[{"name":"created_at","type":{"type":"long","connect.name":"io.debezium.time.Timestamp",' +
      '"connect.version":1}},{"name":"normal_long","type":"long"}],"connect.name":"some.scope.Value"}],"default":null},' +
      '{"name":"after","type":["null","Value"],"default":null}],"connect.name":"some.scope.Envelope"}';
    expect(canonical(debezium)).toBe(debeziumCanonical);
    expect(normalized(debezium)).toBe(debeziumCanonical);
  });

  test("props and aliases are sorted, logical type first, defaults converted to the field type", () => {
    const s = {
      type: "record",
      name: "R",
      namespace: "n",
      zeta: 1,
      alpha: { y: 1, x: 2 },
      aliases: ["Z", "A"],
      doc: "",
      fields: [
        { name: "d", type: "double", default: 1 },
        { name: "f", type: "float", default: 0.1 },
        { name: "m", type: { type: "map", values: "int" }, default: { b: 1, a: 2 } },
        { name: "dec", type: { type: "bytes", scale: 2, precision: 4, logicalType: "decimal", "x-a": 1 } },
        { name: "u", type: ["null", "string"], default: "x" },
      ],
    };
    // an empty record doc is dropped (Confluent writes only non-empty docs of named types)
    expect(normalized(s)).toBe(
      '{"type":"record","name":"R","namespace":"n","fields":[' +
        '{"name":"d","type":"double","default":1.0},' +
        '{"name":"f","type":"float","default":0.1},' +
        '{"name":"m","type":{"type":"map","values":"int"},"default":{"a":2,"b":1}},' +
        '{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2,"x-a":1}},' +
        // Java converts a union default against the first branch only: "x" is not a null, so it is dropped
        '{"name":"u","type":["null","string"]}],' +
        '"alpha":{"x":2,"y":1},"zeta":1,"aliases":["A","Z"]}',
    );
  });

  test("float defaults print like Java's Float.toString at the edges", () => {
    const s = (d: string) => `{"type":"record","name":"R","fields":[{"name":"f","type":"float","default":${d}}]}`;
    const out = (d: string) => normalized(s(d)).match(/"default":([^}]*)}/)?.[1];
    expect(out("1.4E-45")).toBe("1.4E-45"); // Float.MIN_VALUE
    expect(out("3.4028235E38")).toBe("3.4028235E38"); // Float.MAX_VALUE
    expect(out("1.0E10")).toBe("1.0E10");
    expect(out("0.1")).toBe("0.1");
  });

  test("normalization makes equivalent spellings identical", () => {
    const a = { type: "record", name: "a.R", fields: [{ name: "x", type: "int", p2: 1, p1: 2 }], q: 1, p: 2 };
    const b = {
      p: 2,
      q: 1,
      namespace: "a",
      name: "R",
      type: "record",
      fields: [{ p1: 2, p2: 1, type: "int", name: "x" }],
    };
    expect(canonical(a)).not.toBe(canonical(b));
    expect(normalized(a)).toBe(normalized(b));
  });

  test("error records become records, field order is written and read back", () => {
    const s = {
      type: "error",
      name: "E",
      fields: [
        { name: "a", type: "int", order: "ignore" },
        { name: "b", type: "int" },
      ],
    };
    expect(normalized(s)).toBe(
      '{"type":"record","name":"E","fields":[{"name":"a","type":"int","order":"ignore"},{"name":"b","type":"int"}]}',
    );
  });

  test("references stay references", () => {
    const address = {
      type: "record",
      name: "Address",
      namespace: "com.acme",
      fields: [{ name: "street", type: "string" }],
    };
    const main = { type: "record", name: "P", namespace: "com.acme", fields: [{ name: "home", type: "Address" }] };
    expect(normalized(main, [ref("address", address)])).toBe(
      '{"type":"record","name":"P","namespace":"com.acme","fields":[{"name":"home","type":"Address"}]}',
    );
  });
});
