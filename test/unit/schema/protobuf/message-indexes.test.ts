import { describe, expect, test } from "bun:test";
import {
  decodeMessageIndexes,
  encodeMessageIndexes,
  indexesForMessage,
  messageForIndexes,
  messageTypes,
} from "#src/schema/protobuf/index.ts";
import { parse, proto3 } from "./helpers.ts";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("message-index prefix (zig-zag varints)", () => {
  test("reference vectors", () => {
    expect(hex(encodeMessageIndexes([0]))).toBe("00");
    expect(hex(encodeMessageIndexes([1]))).toBe("0202");
    expect(hex(encodeMessageIndexes([1, 0]))).toBe("040200");
    expect(hex(encodeMessageIndexes([0, 0]))).toBe("040000");
    expect(hex(encodeMessageIndexes([64]))).toBe("028001");
  });

  test("decoding: the 0x00 shortcut and the long form both mean [0]", () => {
    expect(decodeMessageIndexes(Uint8Array.of(0x00), 0)).toEqual({ indexes: [0], next: 1 });
    expect(decodeMessageIndexes(Uint8Array.of(0x02, 0x00), 0)).toEqual({ indexes: [0], next: 2 });
    expect(decodeMessageIndexes(Uint8Array.of(0x04, 0x02, 0x00, 0x08, 0x96), 0)).toEqual({ indexes: [1, 0], next: 3 });
  });

  test("decoding from an offset (after magic byte and schema id)", () => {
    const frame = Uint8Array.of(0x00, 0, 0, 0, 1, 0x02, 0x02, 0x08, 0x01);
    expect(decodeMessageIndexes(frame, 5)).toEqual({ indexes: [1], next: 7 });
  });

  test("truncated or over-long input is rejected", () => {
    expect(() => decodeMessageIndexes(Uint8Array.of(0x04, 0x02), 0)).toThrow(RangeError);
    expect(() => decodeMessageIndexes(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 0)).toThrow(
      "Varint is too long",
    );
  });
});

describe("message types and their indexes", () => {
  const schema = parse(
    proto3(
      `enum Top { T = 0; }
message A {
  message A1 {}
  enum E { X = 0; }
  message A2 {
    message Deep {}
  }
}
message B {
  message B1 {}
}
`,
      "package pkg;\n",
    ),
  );

  test("every message in file order, enums not counted", () => {
    expect(messageTypes(schema)).toEqual([
      { fullName: "pkg.A", indexes: [0] },
      { fullName: "pkg.A.A1", indexes: [0, 0] },
      { fullName: "pkg.A.A2", indexes: [0, 1] },
      { fullName: "pkg.A.A2.Deep", indexes: [0, 1, 0] },
      { fullName: "pkg.B", indexes: [1] },
      { fullName: "pkg.B.B1", indexes: [1, 0] },
    ]);
  });

  test("indexes → protobufjs type, and back", () => {
    for (const { fullName, indexes } of messageTypes(schema)) {
      expect(messageForIndexes(schema, indexes).fullName).toBe(`.${fullName}`);
      expect(indexesForMessage(schema, fullName)).toEqual(indexes);
    }
    expect(messageForIndexes(schema, []).fullName).toBe(".pkg.A");
    expect(indexesForMessage(schema, ".pkg.A.A2.Deep")).toEqual([0, 1, 0]);
    expect(indexesForMessage(schema, "A.A2")).toEqual([0, 1]);
  });

  test("unknown indexes and names are errors", () => {
    expect(() => messageForIndexes(schema, [2])).toThrow("Invalid message indexes: [2]");
    expect(() => messageForIndexes(schema, [0, 5])).toThrow("Invalid message indexes");
    expect(() => indexesForMessage(schema, "pkg.Nope")).toThrow("not found");
  });
});
