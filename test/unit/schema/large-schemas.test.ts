// The pathological shapes of issue 11 (item 8) parse, print and compare correctly. How fast is
// bench/large-schemas.ts's business; these only check what comes out.
import { describe, expect, test } from "bun:test";
import { avroFormat } from "#src/schema/avro/index.ts";
import { jsonSchemaFormat } from "#src/schema/jsonschema/index.ts";
import { protobufFormat } from "#src/schema/protobuf/index.ts";
import {
  avroEnum,
  avroRecord,
  jsonEnum,
  jsonProperties,
  protobufFields,
  protobufNested,
} from "../../fixtures/large-schemas.ts";

// Guards against a hang only: these are big inputs on a shared machine, not timing assertions.
const LIMIT_MS = 60_000;

function rejection(parse: () => unknown): string {
  try {
    parse();
  } catch (e) {
    if (e instanceof Error && e.name === "InvalidSchemaError") return e.message;
    throw e;
  }
  throw new Error("expected the schema to be rejected");
}

describe("Avro", () => {
  test(
    "an 80,000-symbol enum parses to its canonical text; a duplicate symbol is still refused",
    () => {
      const parsed = avroFormat.parse(avroEnum(80000), []);
      expect(parsed.canonical).toBe(avroEnum(80000));
      expect(rejection(() => avroFormat.parse(avroEnum(80000, ["SYMBOL_79999"]), []))).toBe(
        "Duplicate enum symbol: SYMBOL_79999",
      );
    },
    LIMIT_MS,
  );

  test(
    "80,000 symbols: the missing ones are listed, sorted",
    () => {
      const reader = avroFormat.parse(avroEnum(79998), []);
      const writer = avroFormat.parse(avroEnum(80000), []);
      expect(avroFormat.readProblems(reader, writer).map((p) => [p.type, p.path, p.additionalInfo])).toEqual([
        ["MISSING_ENUM_SYMBOLS", "/symbols", "[SYMBOL_79998, SYMBOL_79999]"],
      ]);
    },
    LIMIT_MS,
  );

  test(
    "a 40,000-field record parses to its canonical text and is compatible with itself",
    () => {
      const parsed = avroFormat.parse(avroRecord(40000), []);
      expect(parsed.canonical).toBe(avroRecord(40000));
      expect(avroFormat.readProblems(parsed, parsed)).toEqual([]);
    },
    LIMIT_MS,
  );

  test(
    "40,000 fields: every field the writer lacks and has no default is reported, in field order",
    () => {
      const reader = avroFormat.parse(avroRecord(40000), []);
      const writer = avroFormat.parse(avroRecord(2), []);
      const problems = avroFormat.readProblems(reader, writer);
      expect(problems).toHaveLength(19999); // the even fields after field_0, which have no default
      expect(problems.map((p) => p.path).slice(0, 2)).toEqual(["/fields/2", "/fields/4"]);
      expect(problems.every((p) => p.type === "READER_FIELD_MISSING_DEFAULT_VALUE")).toBe(true);
    },
    LIMIT_MS,
  );
});

describe("Protobuf", () => {
  test(
    "a 40,000-field message parses, prints as written and has every field in its runtime type",
    () => {
      const parsed = protobufFormat.parse(protobufFields(40000), []);
      expect(parsed.canonical).toBe(protobufFields(40000));
      const type = parsed.root.lookupType("large.Big");
      expect(Object.keys(type.fieldsById)).toHaveLength(40000);
      expect(type.fieldsById[40000]!.name).toBe("field_39999");
    },
    LIMIT_MS,
  );

  test(
    "40,000 fields: a reused field number is still refused",
    () => {
      const text = protobufFields(40000).replace("field_39999 = 40000", "field_39999 = 7");
      expect(rejection(() => protobufFormat.parse(text, []))).toBe("duplicate id 7 in Type Big");
    },
    LIMIT_MS,
  );

  test(
    "messages nested 32 deep (protobufjs's limit) are accepted, deeper ones refused at once",
    () => {
      const parsed = protobufFormat.parse(protobufNested(31), []);
      expect(parsed.canonical).toContain(`\n${"  ".repeat(31)}message M31 {\n${"  ".repeat(32)}string leaf = 1;\n`);
      expect(parsed.root.lookupType(`large.${Array.from({ length: 32 }, (_, i) => `M${i}`).join(".")}`).name).toBe(
        "M31",
      );
      expect(rejection(() => protobufFormat.parse(protobufNested(32), []))).toBe("max depth exceeded");
      expect(rejection(() => protobufFormat.parse(protobufNested(3000), []))).toBe("max depth exceeded");
      expect(rejection(() => protobufFormat.parse(protobufNested(100000), []))).toBe("max depth exceeded");
    },
    LIMIT_MS,
  );
});

describe("JSON Schema", () => {
  test(
    "an 80,000-value enum parses to its canonical text; a duplicate value gets ajv's message",
    () => {
      expect(jsonSchemaFormat.parse(jsonEnum(80000), []).canonical).toBe(jsonEnum(80000));
      const duplicate = JSON.stringify({ enum: [...(JSON.parse(jsonEnum(80000)).enum as string[]), "VALUE_3"] });
      expect(rejection(() => jsonSchemaFormat.parse(duplicate, []))).toBe(
        "Invalid JSON: not a valid draft-07 schema: #/enum must NOT have duplicate items (items ## 3 and 80000 are identical)",
      );
    },
    LIMIT_MS,
  );

  test(
    "80,000 values: a narrowed enum is told apart from an extended one",
    () => {
      const wide = jsonSchemaFormat.parse(jsonEnum(80000), []);
      const narrow = jsonSchemaFormat.parse(jsonEnum(79999), []);
      expect(jsonSchemaFormat.readProblems(narrow, wide).map((p) => p.type)).toEqual(["ENUM_ARRAY_NARROWED"]);
      expect(jsonSchemaFormat.readProblems(wide, narrow)).toEqual([]);
    },
    LIMIT_MS,
  );

  test(
    "a 40,000-property object: a newly required property is the one difference",
    () => {
      const old = jsonSchemaFormat.parse(jsonProperties(40000), []);
      const text = jsonProperties(40000).replace('"required":["field_0"', '"required":["field_0","field_39999"');
      const update = jsonSchemaFormat.parse(text, []);
      expect(old.canonical).toBe(jsonProperties(40000));
      expect(jsonSchemaFormat.readProblems(update, old).map((p) => [p.type, p.path])).toEqual([
        ["REQUIRED_ATTRIBUTE_ADDED", "#/required/field_39999"],
      ]);
    },
    LIMIT_MS,
  );
});
