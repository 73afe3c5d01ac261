import { expect, test } from "bun:test";
import {
  decodeByteMap,
  encodeByteMap,
  isJavaSerialized,
  type ByteMapEntry,
} from "#src/connect/runtime/storage/java-byte-map.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

test("a map of byte arrays survives encoding and decoding, null values included", () => {
  const entries: ByteMapEntry[] = [
    [bytes('["a",{}]'), bytes('{"position":1}')],
    [bytes('["b",{}]'), null],
    [bytes(""), new Uint8Array(300)],
  ];
  const encoded = encodeByteMap(entries);
  expect(isJavaSerialized(encoded)).toBe(true);
  expect(decodeByteMap(encoded)).toEqual(entries);
  expect(decodeByteMap(encodeByteMap([]))).toEqual([]);
});

test.each([
  ["JSON", bytes("{}"), "no Java serialization header at byte 0"],
  ["a stream cut short", encodeByteMap([[bytes("k"), bytes("v")]]).subarray(0, 90), "the stream ends early"],
  [
    "a stream without its end marker",
    encodeByteMap([[bytes("k"), bytes("v")]]).subarray(0, -1),
    "the stream ends early",
  ],
])("%s is refused, saying where", (_what, input, message) => {
  expect(() => decodeByteMap(input)).toThrow(message);
});
