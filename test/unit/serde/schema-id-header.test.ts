// Confluent 8's schema id headers: the GUID layout (magic byte 0x01, 16 bytes), the id layout (0x00,
// 4 bytes), and Protobuf's message indexes moved between the frame and the header.
import { describe, expect, test } from "bun:test";
import { SerializationException } from "#src/serde/errors.ts";
import {
  guidHeaderPrefix,
  lastHeader,
  messageIndexesLength,
  readSchemaIdHeader,
  splitForHeader,
} from "#src/serde/schema-id-header.ts";

const GUID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("schema id headers", () => {
  test("a GUID is magic byte 1 and its 16 bytes in order, read back as the same GUID", () => {
    const prefix = guidHeaderPrefix(GUID);
    expect(hex(prefix)).toBe(`01${GUID.replace(/-/g, "")}`);
    const payload = Uint8Array.of(9, 8, 7);
    const read = readSchemaIdHeader(prefix, payload);
    expect(read.guid).toBe(GUID);
    expect(read.id).toBeUndefined();
    // The decoders' view: a 5-byte frame, then the payload.
    expect(hex(read.framed.subarray(5))).toBe("090807");
    expect(() => guidHeaderPrefix("not-a-guid")).toThrow(SerializationException);
  });

  test("an id header is magic byte 0 and the big-endian id", () => {
    expect(readSchemaIdHeader(Uint8Array.of(0, 0, 0, 1, 2), Uint8Array.of(5)).id).toBe(258);
    expect(() => readSchemaIdHeader(Uint8Array.of(2, 0), Uint8Array.of())).toThrow("Unknown magic byte 2");
    expect(() => readSchemaIdHeader(Uint8Array.of(1, 0, 0), Uint8Array.of())).toThrow("Truncated");
  });

  test("Protobuf's message indexes go with the header: [0] as one 0 byte, [1, 2] as count and zigzag varints", () => {
    expect(messageIndexesLength(Uint8Array.of(0, 0x2a), 0)).toBe(1);
    expect(messageIndexesLength(Uint8Array.of(4, 2, 4, 0x2a), 0)).toBe(3);
    const framed = Uint8Array.of(0, 0, 0, 0, 7, 4, 2, 4, 0x2a, 0x2b);
    const { header, payload } = splitForHeader(framed, guidHeaderPrefix(GUID), true);
    expect(hex(header)).toBe(`01${GUID.replace(/-/g, "")}040204`);
    expect(hex(payload)).toBe("2a2b");
    // And back: the indexes are where a Protobuf decoder reads them, after the 5-byte frame.
    expect(hex(readSchemaIdHeader(header, payload).framed.subarray(5))).toBe("0402042a2b");
    // Avro and JSON have no indexes: all after the frame is payload.
    expect(hex(splitForHeader(framed, guidHeaderPrefix(GUID), false).payload)).toBe("0402042a2b");
  });

  test("the last header of the name with a value is the one read", () => {
    const a = Uint8Array.of(1);
    const b = Uint8Array.of(2);
    const headers = [
      { key: "__value_schema_id", value: a },
      { key: "__value_schema_id", value: b },
      { key: "__value_schema_id", value: null },
      { key: "__key_schema_id", value: a },
    ];
    expect(lastHeader(headers, "__value_schema_id")).toBe(b);
    expect(lastHeader(headers, "other")).toBeUndefined();
  });
});
