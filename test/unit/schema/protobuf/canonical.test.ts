import { describe, expect, test } from "bun:test";
import { canonical, parse, proto3 } from "./helpers.ts";

describe("canonical string (ProtobufSchemaUtils.toString)", () => {
  const compact =
    'syntax="proto3";package shop;message Order{int64 id=1;string note=2;repeated Line lines=3;message Line{int32 qty=1;}}';
  const spacious = `// Orders.
syntax   =   "proto3" ;

package   shop ;

/* The order,
   documented. */
message Order {
  int64 id = 1;   // trailing comment

  string note = 2; /* block trailing comment */
  repeated   Line lines   = 3;

  message Line {
    int32 qty = 1;
  }
}
`;
  const expected = `syntax = "proto3";
package shop;

message Order {
  int64 id = 1;
  string note = 2;
  repeated Line lines = 3;

  message Line {
    int32 qty = 1;
  }
}
`;

  test("whitespace and comments do not change it", () => {
    expect(canonical(compact)).toBe(expected);
    expect(canonical(spacious)).toBe(expected);
  });

  test("is a fixed point", () => {
    expect(canonical(expected)).toBe(expected);
  });

  test("keeps fields, messages and type names as written", () => {
    const text = proto3(
      `message B {
  string z = 3;
  .shop.A a = 1;
  A.Inner inner = 2;
}
message A {
  message Inner {}
}
`,
      "package shop;\n",
    );
    expect(canonical(text)).toBe(`syntax = "proto3";
package shop;

message B {
  string z = 3;
  .shop.A a = 1;
  A.Inner inner = 2;
}
message A {
  message Inner {}
}
`);
  });

  test("the layout: imports, options, oneofs, reserved, nested types, enums after messages, services", () => {
    const text = `syntax = "proto3";
package shop.v1;
import public "other.proto";
import weak "weak.proto";
import "google/protobuf/timestamp.proto";
option java_package = "com.shop";
option optimize_for = SPEED;
enum Top { TOP_UNKNOWN = 0; }
message Order {
  reserved 9, 11 to 13, 20 to max;
  reserved "legacy";
  option deprecated = true;
  int64 id = 1 [deprecated = true, json_name = "orderId"];
  google.protobuf.Timestamp created = 2;
  oneof payment {
    string card = 3;
    string iban = 4;
  }
  enum Status {
    option allow_alias = true;
    NEW = 0;
    CREATED = 0 [deprecated = true];
  }
  message Line {
    int32 qty = 1;
    message Detail { string text = 1; }
  }
}
service Orders {
  rpc Get (Order) returns (Order);
  rpc Watch (stream Order) returns (stream Order) { option deprecated = true; }
}
`;
    const other = 'syntax = "proto3";\n';
    const parsed = parse(text, [
      { name: "other.proto", subject: "o", version: 1, schema: other, schemaType: "PROTOBUF", references: [] },
      { name: "weak.proto", subject: "w", version: 1, schema: other, schemaType: "PROTOBUF", references: [] },
    ]);
    expect(parsed.canonical).toBe(`syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
import public "other.proto";

option java_package = "com.shop";
option optimize_for = SPEED;

message Order {
  reserved 9, 11 to 13, 20 to max;
  reserved "legacy";

  option deprecated = true;

  int64 id = 1 [
    deprecated = true,
    json_name = "orderId"
  ];
  google.protobuf.Timestamp created = 2;

  oneof payment {
    string card = 3;
    string iban = 4;
  }

  message Line {
    int32 qty = 1;
  
    message Detail {
      string text = 1;
    }
  }
  enum Status {
    option allow_alias = true;
    NEW = 0;
    CREATED = 0 [deprecated = true];
  }
}
enum Top {
  TOP_UNKNOWN = 0;
}

service Orders {
  rpc Get (Order) returns (Order);
  rpc Watch (stream Order) returns (stream Order) {
    option deprecated = true;
  };
}
`);
  });

  test("string option values are escaped, other literals kept as written", () => {
    const text = `syntax = "proto2";
option (note) = "tab\\tquote\\"back\\\\slash'single";
option (hex) = 0x1F;
message A {
  optional double d = 1 [default = 1.50];
  optional string s = 2 [default = "x\\ny"];
  optional bytes b = 3 [default = "raw"];
}
`;
    const printed = parse(
      text
        .replace('syntax = "proto2";\n', 'syntax = "proto2";\nimport "google/protobuf/descriptor.proto";\n')
        .replace(
          "message A {",
          "extend google.protobuf.FileOptions {\n  optional string note = 50001;\n  optional int32 hex = 50002;\n}\nmessage A {",
        ),
    ).canonical;
    expect(printed).toContain(`option (note) = "tab\\tquote\\"back\\\\slash\\'single";\noption (hex) = 0x1F;\n`);
    expect(printed).toContain("  optional double d = 1 [default = 1.50];\n");
    expect(printed).toContain('  optional string s = 2 [default = "x\\ny"];\n');
    // Confluent prints a bytes default as a number-kind option: unquoted.
    expect(printed).toContain("  optional bytes b = 3 [default = raw];\n");
  });

  test("aggregate option values", () => {
    const text = proto3(
      `message A {
  option (confluent.message_meta) = { doc: "an A", params: [{ key: "k" value: "v" }] };
  string s = 1 [(confluent.field_meta).tags = "PII"];
}
`,
      'import "confluent/meta.proto";\n',
    );
    expect(canonical(text)).toBe(`syntax = "proto3";

import "confluent/meta.proto";

message A {
  option (confluent.message_meta) = {
    doc: "an A",
    params: [
      {
        key: "k",
        value: "v"
      }
    ]
  };

  string s = 1 [(confluent.field_meta).tags = "PII"];
}
`);
  });
});

describe("normalized string (ProtobufSchemaUtils.toNormalizedString)", () => {
  test("qualifies types, sorts fields, oneof members, constants, imports and options", () => {
    const text = `syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
option java_package = "com.shop";
option go_package = "shop";
message Order {
  Status status = 4;
  google.protobuf.Timestamp created = 2;
  int64 id = 1;
  map<string, Line> lines = 3;
  oneof pay {
    string iban = 9;
    string card = 8;
  }
  oneof first {
    int32 x = 5;
  }
  message Line { int32 qty = 1; }
  enum Status {
    PAID = 1;
    NEW = 0;
  }
}
`;
    expect(parse(text).normalized()).toBe(`syntax = "proto3";
package shop;

import "google/protobuf/duration.proto";
import "google/protobuf/timestamp.proto";

option go_package = "shop";
option java_package = "com.shop";

message Order {
  int64 id = 1;
  .google.protobuf.Timestamp created = 2;
  map<string, .shop.Order.Line> lines = 3;
  .shop.Order.Status status = 4;

  oneof first {
    int32 x = 5;
  }
  oneof pay {
    string card = 8;
    string iban = 9;
  }

  message Line {
    int32 qty = 1;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`);
  });

  test("drops the proto2 syntax line, splits and sorts reserved ranges", () => {
    const text = `syntax = "proto2";
enum E {
  reserved 30 to max, 3;
  reserved "B", "A";
  reserved 1 to 2;
  A = 0;
}
`;
    expect(parse(text).normalized()).toBe(`
enum E {
  reserved 1 to 2;
  reserved 3;
  reserved 30 to max;
  reserved "A";
  reserved "B";
  A = 0;
}
`);
  });

  test("merges repeated statements of a custom option and formats numbers", () => {
    const text = proto3(
      `message A {
  string s = 1 [(confluent.field_meta).tags = "b", (confluent.field_meta).tags = "a", (confluent.field_meta).doc = "d"];
}
`,
      'import "confluent/meta.proto";\n',
    );
    expect(parse(text).normalized()).toContain(`  string s = 1 [(confluent.field_meta) = {
    doc: "d",
    tags: [
      "b",
      "a"
    ]
  }];`);
  });

  test("is what normalize=true stores; whitespace-only changes give the same text", () => {
    const a = proto3("message A { int32 b = 2; int32 a = 1; }");
    const b = proto3("message A {\n  int32 a = 1;\n  int32 b = 2;\n}\n");
    expect(parse(a).canonical).not.toBe(parse(b).canonical);
    expect(parse(a).normalized()).toBe(parse(b).normalized());
  });
});
