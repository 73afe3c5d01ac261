import { describe, expect, test } from "bun:test";
import type { ResolvedReference } from "#src/schema/format.ts";
import { schemaDifferences } from "#src/schema/protobuf/compatibility.ts";
import { protobufFormat } from "#src/schema/protobuf/index.ts";
import { parse, proto3, ref } from "./helpers.ts";

/** Every difference (compatible ones too) from `old` to `next`, as "TYPE #/path". */
const changes = (
  old: string,
  next: string,
  oldRefs: ResolvedReference[] = [],
  nextRefs: ResolvedReference[] = [],
): string[] =>
  schemaDifferences(parse(old, oldRefs).files, parse(next, nextRefs).files).map((d) => `${d.type} ${d.fullPath}`);

/** BACKWARD: can the new schema read data written with the old one? (incompatible types only) */
const backward = (old: string, next: string): string[] =>
  protobufFormat.readProblems(parse(next), parse(old), "reader").map((p) => p.type);

/** FORWARD: can the old schema read data written with the new one? */
const forward = (old: string, next: string): string[] =>
  protobufFormat.readProblems(parse(old), parse(next), "writer").map((p) => p.type);

const msg = (body: string, extra = ""): string => proto3(`message Order {\n${body}}\n${extra}`, "package shop;\n");

interface Case {
  old: string;
  next: string;
  /** All differences old → new. */
  changes: string[];
  backward: string[];
  forward: string[];
}

const cases: Record<string, Case> = {
  PACKAGE_CHANGED: {
    old: proto3("message A {}\n", "package a;\n"),
    next: proto3("message A {}\n", "package b;\n"),
    changes: ["PACKAGE_CHANGED #/"],
    backward: ["PACKAGE_CHANGED"],
    forward: ["PACKAGE_CHANGED"],
  },
  MESSAGE_ADDED: {
    old: msg("  int32 a = 1;\n"),
    next: msg("  int32 a = 1;\n", "message Extra {}\n"),
    changes: ["MESSAGE_ADDED #/Extra"],
    backward: [],
    forward: ["MESSAGE_REMOVED"],
  },
  MESSAGE_REMOVED: {
    old: msg("  int32 a = 1;\n", "message Extra {}\n"),
    next: msg("  int32 a = 1;\n"),
    changes: ["MESSAGE_REMOVED #/Extra"],
    backward: ["MESSAGE_REMOVED"],
    forward: [],
  },
  MESSAGE_MOVED: {
    old: proto3("message A {}\nmessage B {}\n"),
    next: proto3("message B {}\nmessage A {}\n"),
    changes: ["MESSAGE_MOVED #/A", "MESSAGE_MOVED #/B"],
    backward: [],
    forward: [],
  },
  ENUM_ADDED: {
    old: msg("  int32 a = 1;\n"),
    next: msg("  int32 a = 1;\n", "enum Kind { K0 = 0; }\n"),
    changes: ["ENUM_ADDED #/Kind"],
    backward: [],
    forward: [],
  },
  ENUM_REMOVED: {
    old: msg("  int32 a = 1;\n  enum Kind { K0 = 0; }\n"),
    next: msg("  int32 a = 1;\n"),
    changes: ["ENUM_REMOVED #/Order/Kind"],
    backward: [],
    forward: [],
  },
  ENUM_CONST_ADDED: {
    old: msg("  Kind k = 1;\n  enum Kind { K0 = 0; }\n"),
    next: msg("  Kind k = 1;\n  enum Kind { K0 = 0; K1 = 1; }\n"),
    changes: ["ENUM_CONST_ADDED #/Order/Kind/1"],
    backward: [],
    forward: [],
  },
  ENUM_CONST_CHANGED: {
    old: msg("  Kind k = 1;\n  enum Kind { K0 = 0; K1 = 1; }\n"),
    next: msg("  Kind k = 1;\n  enum Kind { K0 = 0; ONE = 1; }\n"),
    changes: ["ENUM_CONST_CHANGED #/Order/Kind/1"],
    backward: [],
    forward: [],
  },
  ENUM_CONST_REMOVED: {
    old: msg("  Kind k = 1;\n  enum Kind { K0 = 0; K1 = 1; }\n"),
    next: msg("  Kind k = 1;\n  enum Kind { K0 = 0; }\n"),
    changes: ["ENUM_CONST_REMOVED #/Order/Kind/1"],
    backward: [],
    forward: [],
  },
  FIELD_ADDED: {
    old: msg("  int32 a = 1;\n"),
    next: msg("  int32 a = 1;\n  string b = 2;\n"),
    changes: ["FIELD_ADDED #/Order/2"],
    backward: [],
    forward: [],
  },
  FIELD_REMOVED: {
    old: msg("  int32 a = 1;\n  string b = 2;\n"),
    next: msg("  int32 a = 1;\n"),
    changes: ["FIELD_REMOVED #/Order/2"],
    backward: [],
    forward: [],
  },
  FIELD_NAME_CHANGED: {
    old: msg("  int32 a = 1;\n"),
    next: msg("  int32 renamed = 1;\n"),
    changes: ["FIELD_NAME_CHANGED #/Order/1"],
    backward: [],
    forward: [],
  },
  FIELD_KIND_CHANGED: {
    old: msg("  int32 a = 1;\n  message Sub {}\n"),
    next: msg("  Sub a = 1;\n  message Sub {}\n"),
    changes: ["FIELD_KIND_CHANGED #/Order/1"],
    backward: ["FIELD_KIND_CHANGED"],
    forward: ["FIELD_KIND_CHANGED"],
  },
  FIELD_SCALAR_KIND_CHANGED: {
    old: msg("  int32 a = 1;\n"),
    next: msg("  string a = 1;\n"),
    changes: ["FIELD_SCALAR_KIND_CHANGED #/Order/1"],
    backward: ["FIELD_SCALAR_KIND_CHANGED"],
    forward: ["FIELD_SCALAR_KIND_CHANGED"],
  },
  FIELD_NAMED_TYPE_CHANGED: {
    old: msg("  A a = 1;\n  message A {}\n  message B {}\n"),
    next: msg("  B a = 1;\n  message A {}\n  message B {}\n"),
    changes: ["FIELD_NAMED_TYPE_CHANGED #/Order/1"],
    backward: ["FIELD_NAMED_TYPE_CHANGED"],
    forward: ["FIELD_NAMED_TYPE_CHANGED"],
  },
  FIELD_NUMERIC_LABEL_CHANGED: {
    old: `syntax = "proto2";\nmessage A {\n  optional int32 a = 1;\n}\n`,
    next: `syntax = "proto2";\nmessage A {\n  repeated int32 a = 1;\n}\n`,
    changes: ["FIELD_NUMERIC_LABEL_CHANGED #/A/1"],
    backward: ["FIELD_NUMERIC_LABEL_CHANGED"],
    forward: ["FIELD_NUMERIC_LABEL_CHANGED"],
  },
  FIELD_STRING_OR_BYTES_LABEL_CHANGED: {
    old: `syntax = "proto2";\nmessage A {\n  optional string s = 1;\n}\n`,
    next: `syntax = "proto2";\nmessage A {\n  repeated string s = 1;\n}\n`,
    changes: ["FIELD_STRING_OR_BYTES_LABEL_CHANGED #/A/1"],
    backward: [],
    forward: [],
  },
  REQUIRED_FIELD_ADDED: {
    old: `syntax = "proto2";\nmessage A {\n  optional int32 a = 1;\n}\n`,
    next: `syntax = "proto2";\nmessage A {\n  optional int32 a = 1;\n  required int32 b = 2;\n}\n`,
    changes: ["REQUIRED_FIELD_ADDED #/A/2"],
    backward: ["REQUIRED_FIELD_ADDED"],
    forward: ["REQUIRED_FIELD_REMOVED"],
  },
  REQUIRED_FIELD_REMOVED: {
    old: `syntax = "proto2";\nmessage A {\n  optional int32 a = 1;\n  required int32 b = 2;\n}\n`,
    next: `syntax = "proto2";\nmessage A {\n  optional int32 a = 1;\n}\n`,
    changes: ["REQUIRED_FIELD_REMOVED #/A/2"],
    backward: ["REQUIRED_FIELD_REMOVED"],
    forward: ["REQUIRED_FIELD_ADDED"],
  },
  ONEOF_ADDED: {
    old: msg("  int32 a = 1;\n"),
    next: msg("  int32 a = 1;\n  oneof pay {\n    string card = 2;\n    string iban = 3;\n  }\n"),
    changes: ["ONEOF_ADDED #/Order/pay", "ONEOF_FIELD_ADDED #/Order/pay/2", "ONEOF_FIELD_ADDED #/Order/pay/3"],
    backward: [],
    forward: [],
  },
  ONEOF_REMOVED: {
    old: msg("  int32 a = 1;\n  oneof pay {\n    string card = 2;\n    string iban = 3;\n  }\n"),
    next: msg("  int32 a = 1;\n"),
    changes: ["ONEOF_REMOVED #/Order/pay"],
    backward: [],
    forward: [],
  },
  ONEOF_FIELD_ADDED: {
    old: msg("  oneof pay {\n    string card = 2;\n  }\n"),
    next: msg("  oneof pay {\n    string card = 2;\n    string iban = 3;\n  }\n"),
    changes: ["ONEOF_FIELD_ADDED #/Order/pay/3"],
    backward: [],
    forward: ["ONEOF_FIELD_REMOVED"],
  },
  ONEOF_FIELD_REMOVED: {
    old: msg("  oneof pay {\n    string card = 2;\n    string iban = 3;\n  }\n"),
    next: msg("  oneof pay {\n    string card = 2;\n  }\n"),
    changes: ["ONEOF_FIELD_REMOVED #/Order/pay/3"],
    backward: ["ONEOF_FIELD_REMOVED"],
    forward: [],
  },
  ONEOF_FIELD_MOVED_TO_TOP_LEVEL: {
    old: msg("  oneof pay {\n    string card = 2;\n  }\n"),
    next: msg("  string card = 2;\n"),
    changes: ["ONEOF_REMOVED #/Order/pay", "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/Order/2"],
    backward: [],
    // A single field moving into a new oneof adds no mutual exclusion.
    forward: [],
  },
  MULTIPLE_FIELDS_MOVED_TO_ONEOF: {
    old: msg("  string card = 2;\n  string iban = 3;\n"),
    next: msg("  oneof pay {\n    string card = 2;\n    string iban = 3;\n  }\n"),
    changes: ["MULTIPLE_FIELDS_MOVED_TO_ONEOF #/Order/pay", "ONEOF_ADDED #/Order/pay"],
    backward: ["MULTIPLE_FIELDS_MOVED_TO_ONEOF"],
    forward: [],
  },
  FIELD_MOVED_TO_EXISTING_ONEOF: {
    old: msg("  string iban = 3;\n  oneof pay {\n    string card = 2;\n  }\n"),
    next: msg("  oneof pay {\n    string card = 2;\n    string iban = 3;\n  }\n"),
    changes: ["FIELD_MOVED_TO_EXISTING_ONEOF #/Order/pay"],
    backward: ["FIELD_MOVED_TO_EXISTING_ONEOF"],
    forward: [],
  },
};

describe("every difference type of SchemaDiff, both directions", () => {
  for (const [name, c] of Object.entries(cases)) {
    test(name, () => {
      expect(changes(c.old, c.next)).toEqual(c.changes);
      expect(backward(c.old, c.next)).toEqual(c.backward);
      expect(forward(c.old, c.next)).toEqual(c.forward);
    });
  }

  test("proto3 fields have no label (null): adding `repeated` is no label change for Confluent", () => {
    expect(changes(msg("  int32 a = 1;\n"), msg("  repeated int32 a = 1;\n"))).toEqual([]);
  });
});

describe("scalar kinds: wire-compatible groups", () => {
  const groups = [
    ["int32", "int64", "uint32", "uint64", "bool", "Kind"],
    ["sint32", "sint64"],
    ["string", "bytes"],
    ["fixed32", "sfixed32"],
    ["fixed64", "sfixed64"],
    ["float"],
    ["double"],
  ];
  const schema = (type: string): string => msg(`  ${type} a = 1;\n  enum Kind { K0 = 0; }\n`);
  const all = groups.flat();
  for (const from of all) {
    test(from, () => {
      const group = groups.find((g) => g.includes(from)) ?? [];
      for (const to of all) {
        const expected = group.includes(to) ? [] : ["FIELD_SCALAR_KIND_CHANGED"];
        expect([to, backward(schema(from), schema(to))]).toEqual([to, expected]);
      }
    });
  }

  test("map value and key kinds are compared like fields", () => {
    expect(changes(msg("  map<string, int32> m = 1;\n"), msg("  map<string, int64> m = 1;\n"))).toEqual([]);
    expect(changes(msg("  map<string, int32> m = 1;\n"), msg("  map<string, string> m = 1;\n"))).toEqual([
      "FIELD_SCALAR_KIND_CHANGED #/Order/1",
    ]);
    expect(changes(msg("  map<string, int32> m = 1;\n"), msg("  map<int32, int32> m = 1;\n"))).toEqual([
      "FIELD_SCALAR_KIND_CHANGED #/Order/1",
    ]);
  });

  test("map ↔ message and map ↔ scalar change the kind", () => {
    expect(backward(msg("  map<string, int32> m = 1;\n  message E {}\n"), msg("  E m = 1;\n  message E {}\n"))).toEqual(
      ["FIELD_KIND_CHANGED"],
    );
    expect(backward(msg("  map<string, int32> m = 1;\n"), msg("  int32 m = 1;\n"))).toEqual(["FIELD_KIND_CHANGED"]);
  });
});

describe("descriptions (Difference.error), with new/old as SchemaValidatorBuilder fills them", () => {
  const old = msg("  int32 a = 1;\n");
  const next = msg("  string a = 1;\n");

  test("BACKWARD: the new schema reads the old", () => {
    expect(protobufFormat.readProblems(parse(next), parse(old), "reader")).toEqual([
      {
        type: "FIELD_SCALAR_KIND_CHANGED",
        path: "#/Order/1",
        description:
          "The kind of a SCALAR field at path '#/Order/1' in the new schema does not match its kind in the old schema",
        rendered:
          '{errorType:"FIELD_SCALAR_KIND_CHANGED", description:"The kind of a SCALAR field at path \'#/Order/1\' in the new schema does not match its kind in the old schema"}',
      },
    ]);
  });

  test("FORWARD: the old schema reads the new", () => {
    expect(protobufFormat.readProblems(parse(old), parse(next), "writer")[0]?.description).toBe(
      "The kind of a SCALAR field at path '#/Order/1' in the old schema does not match its kind in the new schema",
    );
  });

  test("every incompatible type has its template", () => {
    const described = new Map<string, string>();
    for (const c of Object.values(cases)) {
      for (const [reader, writer] of [
        [c.next, c.old],
        [c.old, c.next],
      ]) {
        for (const p of protobufFormat.readProblems(parse(reader), parse(writer), "reader"))
          described.set(p.type, p.description);
      }
    }
    expect(Object.fromEntries(described)).toEqual({
      PACKAGE_CHANGED: "The package at '#/' in the new schema does not match the package in the old schema",
      MESSAGE_REMOVED: "The new schema is missing a MESSAGE type at path '#/Extra' in the old schema",
      FIELD_KIND_CHANGED: "The type of a field at path '#/Order/1' in the new schema does not match the old schema",
      FIELD_SCALAR_KIND_CHANGED:
        "The kind of a SCALAR field at path '#/Order/1' in the new schema does not match its kind in the old schema",
      FIELD_NAMED_TYPE_CHANGED:
        "The type of a MESSAGE field at path '#/Order/1' in the new schema does not match its type in the old schema",
      FIELD_NUMERIC_LABEL_CHANGED:
        "The label for a NUMERIC field at path '#/A/1' in the new schema does not match its label in the old schema",
      REQUIRED_FIELD_ADDED: "A required field  at path '#/A/2' in the new schema is missing in the old schema",
      REQUIRED_FIELD_REMOVED: "The new schema is missing a required field at path: '#/A/2' in the old schema",
      ONEOF_FIELD_REMOVED: "The new schema is missing a oneof field at path '#/Order/pay/3' in the old schema",
      MULTIPLE_FIELDS_MOVED_TO_ONEOF:
        "Multiple fields in the oneof at path '#/Order/pay' in the new schema are outside a oneof in the old schema",
      FIELD_MOVED_TO_EXISTING_ONEOF:
        "A field in the oneof at path '#/Order/pay' in the new schema is outside an existing oneof in the old schema",
    });
  });
});

describe("referenced types", () => {
  const moneyV1 = proto3("message Money {\n  int64 units = 1;\n}\n", "package common;\n");
  const moneyV2 = proto3("message Money {\n  string units = 1;\n}\n", "package common;\n");
  const order = proto3("message Order {\n  common.Money total = 1;\n}\n", 'import "money.proto";\n');

  test("a new version of a referenced message is compared field by field", () => {
    expect(changes(order, order, [ref("money.proto", moneyV1, [], 1)], [ref("money.proto", moneyV2, [], 2)])).toEqual([
      "FIELD_SCALAR_KIND_CHANGED #/Money/1",
      "FIELD_NAMED_TYPE_CHANGED #/Order/1",
    ]);
  });

  test("the same subject and version is not compared again", () => {
    expect(changes(order, order, [ref("money.proto", moneyV1, [], 1)], [ref("money.proto", moneyV2, [], 1)])).toEqual(
      [],
    );
  });

  test("a type moved from the file into a reference keeps its identity", () => {
    const local = proto3(
      "message Order {\n  Money total = 1;\n}\nmessage Money {\n  int64 units = 1;\n}\n",
      "package common;\n",
    );
    const imported = proto3("message Order {\n  Money total = 1;\n}\n", 'package common;\nimport "money.proto";\n');
    expect(changes(local, imported, [], [ref("money.proto", moneyV1)])).toEqual(["MESSAGE_REMOVED #/Money"]);
  });

  test("well-known types are matched by name", () => {
    const a = proto3(
      "message A {\n  google.protobuf.Timestamp t = 1;\n}\n",
      'import "google/protobuf/timestamp.proto";\n',
    );
    const b = proto3(
      "message A {\n  google.protobuf.Duration t = 1;\n}\n",
      'import "google/protobuf/duration.proto";\n',
    );
    expect(changes(a, a)).toEqual([]);
    expect(changes(a, b)).toEqual(["FIELD_NAMED_TYPE_CHANGED #/A/1"]);
  });
});

describe("recursive and nested messages", () => {
  test("a self-referencing message terminates", () => {
    const tree = proto3("message Node {\n  Node left = 1;\n  Node right = 2;\n  int32 v = 3;\n}\n");
    const changed = proto3("message Node {\n  Node left = 1;\n  Node right = 2;\n  string v = 3;\n}\n");
    expect(changes(tree, changed)).toEqual(["FIELD_SCALAR_KIND_CHANGED #/Node/3"]);
  });

  test("nested messages are compared under their parent's path", () => {
    expect(
      changes(msg("  message Line {\n    int32 q = 1;\n  }\n"), msg("  message Line {\n    double q = 1;\n  }\n")),
    ).toEqual(["FIELD_SCALAR_KIND_CHANGED #/Order/Line/1"]);
  });

  test("differences come out in Confluent's (Java hash set) order", () => {
    // String.hashCode buckets in a 16-slot table: Zeta 2, Alpha 8, Mid 9, Other 15.
    const old = proto3("message Zeta {}\nmessage Alpha {}\nmessage Mid {}\n");
    expect(changes(old, proto3("message Other {}\n"))).toEqual([
      "MESSAGE_REMOVED #/Zeta",
      "MESSAGE_REMOVED #/Alpha",
      "MESSAGE_REMOVED #/Mid",
      "MESSAGE_ADDED #/Other",
    ]);
  });
});
