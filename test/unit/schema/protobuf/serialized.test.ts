import { describe, expect, test } from "bun:test";
import { decodeFileDescriptor } from "#src/schema/protobuf/descriptor-types.ts";
import { serializedFormat } from "#src/schema/protobuf/index.ts";
import { parse, proto3, ref } from "./helpers.ts";

describe("format=serialized (base64 FileDescriptorProto, as ProtobufSchema.toDynamicSchema builds it)", () => {
  const common = proto3("message Money {\n  int64 units = 1;\n}\n", "package shop.common;\n");
  const text = proto3(
    `message Order {
  int64 id = 1;
  shop.common.Money total = 2;
  map<string, int32> line_counts = 3;
  optional string note = 4;
  oneof pay {
    string card = 5;
  }
  Status status = 6;
  enum Status { NEW = 0; }
}
`,
    'package shop;\nimport "common.proto";\nimport "google/protobuf/timestamp.proto";\n',
  );
  const refs = [ref("common.proto", common)];
  const schema = parse(text, refs);

  test("the descriptor Confluent's builder produces", () => {
    const file = decodeFileDescriptor(Buffer.from(serializedFormat(schema), "base64"));
    expect(file).toEqual({
      name: "default",
      package: "shop",
      dependency: ["common.proto", "google/protobuf/timestamp.proto"],
      syntax: "proto3",
      messageType: [
        {
          name: "Order",
          // oneof members first, then the other fields; names as written, kinds resolved
          field: [
            { name: "card", number: 5, label: "LABEL_OPTIONAL", type: "TYPE_STRING", oneofIndex: 0 },
            { name: "id", number: 1, type: "TYPE_INT64" },
            { name: "total", number: 2, type: "TYPE_MESSAGE", typeName: "shop.common.Money" },
            { name: "line_counts", number: 3, label: "LABEL_REPEATED", typeName: "LineCountsEntry" },
            {
              name: "note",
              number: 4,
              label: "LABEL_OPTIONAL",
              type: "TYPE_STRING",
              oneofIndex: 1,
              proto3Optional: true,
            },
            { name: "status", number: 6, type: "TYPE_ENUM", typeName: "Status" },
          ],
          nestedType: [
            {
              name: "LineCountsEntry",
              field: [
                { name: "key", number: 1, type: "TYPE_STRING" },
                { name: "value", number: 2, type: "TYPE_INT32" },
              ],
              options: { mapEntry: true },
            },
          ],
          enumType: [{ name: "Status", value: [{ name: "NEW", number: 0 }] }],
          oneofDecl: [{ name: "pay" }, { name: "_note" }],
        },
      ],
    });
  });

  test("registering the serialized form gives back an equivalent schema", () => {
    const again = parse(serializedFormat(schema), refs);
    expect(again.normalized()).toBe(schema.normalized());
  });
});
