import { describe, expect, test } from "bun:test";
import { encodeFileDescriptor } from "#src/schema/protobuf/descriptor-types.ts";
import { messageForIndexes, messageTypes, type ProtobufParsedSchema } from "#src/schema/protobuf/index.ts";
import { canonical, parse, parseError, proto3, ref } from "./helpers.ts";

describe("parsing .proto source", () => {
  test("proto3: messages, nested types, enums, oneofs, maps, proto3 optional", () => {
    const schema = parse(
      proto3(
        `message Order {
  int64 id = 1;
  optional string note = 2;
  map<string, int32> counts = 3;
  repeated Line lines = 4;
  Status status = 5;
  oneof payment {
    string card = 6;
    string iban = 7;
  }
  message Line { int32 qty = 1; }
  enum Status { NEW = 0; PAID = 1; }
}
`,
        "package shop;\n",
      ),
    );
    expect(schema.schemaType).toBe("PROTOBUF");
    expect(messageTypes(schema)).toEqual([
      { fullName: "shop.Order", indexes: [0] },
      { fullName: "shop.Order.Line", indexes: [0, 0] },
    ]);
    const order = (schema as ProtobufParsedSchema).root.lookupType("shop.Order");
    expect(Object.keys(order.fields)).toEqual(["id", "note", "counts", "lines", "status", "card", "iban"]);
    const value = { id: "7", note: "n", counts: { a: 1 }, lines: [{ qty: 2 }], status: "PAID", iban: "DE" };
    const decoded = order.toObject(order.decode(order.encode(order.fromObject(value)).finish()), {
      longs: String,
      enums: String,
    });
    expect(decoded).toEqual(value);
  });

  test("proto2: labels, defaults, required fields, groups, extensions", () => {
    const schema = parse(`syntax = "proto2";
package legacy;
message Item {
  required string name = 1;
  optional int32 qty = 2 [default = 1];
  repeated group Tag = 3 {
    optional string value = 4;
  }
  extensions 100 to max;
}
extend Item {
  optional string note = 100;
}
`);
    const item = (schema as ProtobufParsedSchema).root.lookupType("legacy.Item");
    expect(item.fields.name.required).toBe(true);
    expect(
      item.toObject(item.decode(item.encode(item.fromObject({ name: "x" })).finish()), { defaults: true }).qty,
    ).toBe(1);
    expect(schema.canonical).toBe(`syntax = "proto2";
package legacy;

message Item {
  required string name = 1;
  optional int32 qty = 2 [default = 1];

  repeated group Tag = 3 {
    optional string value = 4;
  }

  extensions 100 to max;
}

extend Item {
  optional string note = 100;
}
`);
  });

  test("a file without syntax is proto2 and needs labels", () => {
    expect(canonical("message A { optional int32 a = 1; }")).toBe("\nmessage A {\n  optional int32 a = 1;\n}\n");
    expect(parseError("message A {\n  int32 a = 1;\n}")).toBe(
      "Could not parse Protobuf - Syntax error in :2:3: unexpected label: int32",
    );
  });
});

describe("syntax errors name the line and column (Wire's messages)", () => {
  const cases: [string, string, string][] = [
    [
      "missing semicolon",
      'syntax = "proto3";\nmessage A {\n  int32 a = 1\n}\n',
      "Syntax error in :4:2: expected ';' but was '}'",
    ],
    ["unknown syntax", 'syntax = "proto4";', "Syntax error in :1:1: unexpected syntax: proto4"],
    [
      "syntax not first",
      'package p;\nsyntax = "proto3";',
      "Syntax error in :2:1: 'syntax' element must be the first declaration in a file",
    ],
    [
      "required in proto3",
      'syntax = "proto3";\nmessage A {\n  required int32 a = 1;\n}',
      "Syntax error in :3:3: 'required' label forbidden in proto3 field declarations",
    ],
    [
      "label on a map",
      'syntax = "proto3";\nmessage A {\n  repeated map<string, int32> m = 1;\n}',
      "Syntax error in :3:3: 'map' type cannot have label",
    ],
    [
      "tag is not a number",
      'syntax = "proto3";\nmessage A {\n  int32 a = x;\n}',
      "Syntax error in :3:14: expected an integer but was x",
    ],
    ["unterminated comment", 'syntax = "proto3";\n/* open', "Syntax error in :2:7: unterminated comment"],
    ["unexpected end", 'syntax = "proto3";\nmessage A {', "Syntax error in :2:12: unexpected end of file"],
    ["editions", 'edition = "2023";', "Syntax error in :1:8: edition is not currently supported"],
    [
      "syntax after a trailing comment",
      'syntax = "proto3";\nmessage A {\n  int32 a = 1; /* c */ int32 b = 2;\n}',
      "Syntax error in :3:25: no syntax may follow trailing comment",
    ],
  ];
  for (const [what, text, message] of cases) {
    test(what, () => expect(parseError(text)).toBe(`Could not parse Protobuf - ${message}`));
  }

  test("a duplicate top-level type names both places", () => {
    expect(parseError('syntax = "proto3";\nmessage A {}\nmessage A {}\n')).toBe(
      "Could not parse Protobuf - A (:3:1) is already defined at :2:1",
    );
  });

  test("an unresolved type is reported with its field's line", () => {
    expect(parseError(proto3("message A {\n  int32 a = 1;\n  Missing b = 2;\n}\n"))).toBe(
      "Could not resolve type: Missing (line 4, column 3)",
    );
  });

  test("an invalid map key", () => {
    expect(parseError(proto3("message A {\n  map<double, int32> m = 1;\n}\n"))).toBe(
      "map key must be non-byte, non-floating point scalar: double (line 3, column 3)",
    );
  });

  test("semantic errors protobufjs finds are reported too", () => {
    expect(parseError(proto3("message A {\n  int32 a = 1;\n  int32 b = 1;\n}\n"))).toContain("duplicate id 1");
  });
});

describe("imports", () => {
  const money = proto3("message Money {\n  string currency = 1;\n  int64 units = 2;\n}\n", "package shop.common;\n");
  const order = proto3(
    "message Order {\n  shop.common.Money total = 1;\n  common.Money tax = 2;\n}\n",
    'package shop;\n\nimport "common.proto";\n',
  );

  test("resolve through references, relative names included", () => {
    const schema = parse(order, [ref("common.proto", money)]);
    const type = (schema as ProtobufParsedSchema).root.lookupType("shop.Order");
    const bytes = type.encode(type.fromObject({ total: { currency: "EUR", units: 5 } })).finish();
    expect(type.toObject(type.decode(bytes), { longs: Number })).toEqual({ total: { currency: "EUR", units: 5 } });
    expect(schema.normalized()).toContain(".shop.common.Money total = 1;");
  });

  test("references of references are followed", () => {
    const currency = proto3("enum Currency {\n  EUR = 0;\n  USD = 1;\n}\n", "package shop.common;\n");
    const priced = proto3(
      "message Price {\n  Currency currency = 1;\n}\n",
      'package shop.common;\nimport "currency.proto";\n',
    );
    const schema = parse(proto3("message Item {\n  shop.common.Price price = 1;\n}\n", 'import "price.proto";\n'), [
      ref("price.proto", priced, [ref("currency.proto", currency)]),
    ]);
    expect((schema as ProtobufParsedSchema).root.lookupEnum("shop.common.Currency").values).toEqual({ EUR: 0, USD: 1 });
  });

  test("a missing reference leaves its types unresolved", () => {
    expect(parseError(order)).toBe("Could not resolve type: shop.common.Money (line 6, column 3)");
  });

  test("a reference that does not parse is named", () => {
    expect(parseError(order, [ref("common.proto", "message {")])).toBe(
      'Could not parse Protobuf - Syntax error in :1:9: expected a word (in reference "common.proto")',
    );
  });
});

describe("well-known types resolve without references", () => {
  const files: [string, string][] = [
    ["google/protobuf/timestamp.proto", "google.protobuf.Timestamp"],
    ["google/protobuf/duration.proto", "google.protobuf.Duration"],
    ["google/protobuf/any.proto", "google.protobuf.Any"],
    ["google/protobuf/struct.proto", "google.protobuf.Struct"],
    ["google/protobuf/wrappers.proto", "google.protobuf.StringValue"],
    ["google/protobuf/empty.proto", "google.protobuf.Empty"],
    ["google/protobuf/field_mask.proto", "google.protobuf.FieldMask"],
    ["google/protobuf/type.proto", "google.protobuf.Type"],
    ["google/protobuf/api.proto", "google.protobuf.Api"],
    ["google/protobuf/source_context.proto", "google.protobuf.SourceContext"],
    ["google/protobuf/descriptor.proto", "google.protobuf.FileDescriptorProto"],
    ["google/type/money.proto", "google.type.Money"],
    ["google/type/date.proto", "google.type.Date"],
    ["google/type/latlng.proto", "google.type.LatLng"],
    ["confluent/type/decimal.proto", "confluent.type.Decimal"],
    ["confluent/meta.proto", "confluent.Meta"],
  ];
  for (const [file, type] of files) {
    test(file, () => {
      const schema = parse(proto3(`message A {\n  ${type} value = 1;\n}\n`, `import "${file}";\n`));
      expect((schema as ProtobufParsedSchema).root.lookupType(type).fullName).toBe(`.${type}`);
    });
  }

  test("custom options on descriptor.proto and Confluent's field meta", () => {
    const schema = parse(
      proto3(
        `extend google.protobuf.FieldOptions {
  string sensitivity = 50000;
}
message User {
  string email = 1 [(sensitivity) = "high", (confluent.field_meta) = { doc: "mail", tags: ["PII"] }];
}
`,
        'package app;\nimport "google/protobuf/descriptor.proto";\nimport "confluent/meta.proto";\n',
      ),
    );
    expect(schema.canonical).toContain(`  string email = 1 [
    (sensitivity) = "high",
    (confluent.field_meta) = {
      doc: "mail",
      tags: [
        "PII"
      ]
    }
  ];`);
  });

  test("Confluent's decimal type encodes", () => {
    const schema = parse(
      proto3("message P {\n  confluent.type.Decimal amount = 1;\n}\n", 'import "confluent/type/decimal.proto";\n'),
    );
    const type = messageForIndexes(schema, [0]);
    const value = { amount: { value: "AQI=", precision: 5, scale: 2 } };
    expect(type.toObject(type.decode(type.encode(type.fromObject(value)).finish()), { bytes: String })).toEqual(value);
  });
});

describe("schemas registered as base64 FileDescriptorProto (descriptor-based clients)", () => {
  // What protoc produces for a proto3 file: qualified type names, LABEL_OPTIONAL everywhere,
  // map fields as nested XEntry messages.
  const descriptor = {
    name: "order.proto",
    package: "shop",
    dependency: ["common.proto", "google/protobuf/timestamp.proto"],
    messageType: [
      {
        name: "Order",
        field: [
          { name: "id", number: 1, label: "LABEL_OPTIONAL", type: "TYPE_INT64" },
          { name: "total", number: 2, label: "LABEL_OPTIONAL", type: "TYPE_MESSAGE", typeName: ".shop.common.Money" },
          {
            name: "created",
            number: 3,
            label: "LABEL_OPTIONAL",
            type: "TYPE_MESSAGE",
            typeName: ".google.protobuf.Timestamp",
          },
          { name: "tags", number: 4, label: "LABEL_REPEATED", type: "TYPE_MESSAGE", typeName: ".shop.Order.TagsEntry" },
          { name: "status", number: 5, label: "LABEL_OPTIONAL", type: "TYPE_ENUM", typeName: ".shop.Order.Status" },
        ],
        nestedType: [
          {
            name: "TagsEntry",
            field: [
              { name: "key", number: 1, label: "LABEL_OPTIONAL", type: "TYPE_STRING" },
              { name: "value", number: 2, label: "LABEL_OPTIONAL", type: "TYPE_STRING" },
            ],
            options: { mapEntry: true },
          },
        ],
        enumType: [
          {
            name: "Status",
            value: [
              { name: "NEW", number: 0 },
              { name: "PAID", number: 1 },
            ],
          },
        ],
      },
    ],
    syntax: "proto3",
  };
  const base64 = Buffer.from(encodeFileDescriptor(descriptor)).toString("base64");
  const money = proto3("message Money {\n  string currency = 1;\n}\n", "package shop.common;\n");

  test("are printed from the descriptor, as Confluent does", () => {
    const schema = parse(base64, [ref("common.proto", money)]);
    expect(schema.canonical).toBe(`syntax = "proto3";
package shop;

import "common.proto";
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  .shop.common.Money total = 2;
  .google.protobuf.Timestamp created = 3;
  repeated .shop.Order.TagsEntry tags = 4;
  .shop.Order.Status status = 5;

  message TagsEntry {
    option map_entry = true;
  
    string key = 1;
    string value = 2;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`);
    // The stored (canonical) text parses back to the same schema.
    expect(canonical(schema.canonical, [ref("common.proto", money)])).toBe(schema.canonical);
  });

  test("normalize to the same text as the equivalent .proto source", () => {
    const source = proto3(
      `message Order {
  int64 id = 1;
  shop.common.Money total = 2;
  google.protobuf.Timestamp created = 3;
  map<string, string> tags = 4;
  Status status = 5;
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`,
      'package shop;\nimport "common.proto";\nimport "google/protobuf/timestamp.proto";\n',
    );
    const refs = [ref("common.proto", money)];
    expect(parse(base64, refs).normalized()).toBe(parse(source, refs).normalized());
  });

  test("map entries read as maps at runtime", () => {
    const type = messageForIndexes(parse(base64, [ref("common.proto", money)]), [0]);
    const value = { id: "1", tags: { a: "b" }, status: "PAID" };
    expect(
      type.toObject(type.decode(type.encode(type.fromObject(value)).finish()), { longs: String, enums: String }),
    ).toEqual(value);
  });

  test("text that is neither .proto nor a descriptor reports the .proto error", () => {
    expect(parseError("bm90IGEgZGVzY3JpcHRvcg")).toStartWith("Could not parse Protobuf - Syntax error in :1:");
  });
});
