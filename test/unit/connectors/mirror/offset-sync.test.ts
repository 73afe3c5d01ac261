// The offset-syncs records byte for byte as Kafka's OffsetSync (connect-mirror 4.1.1) writes them. The
// expected bytes were printed by Kafka's own class (OffsetSync.recordKey/recordValue, run from the 4.1.1
// jars) for these inputs.
import { describe, expect, test } from "bun:test";
import {
  decodeOffsetSync,
  encodeOffsetSync,
  OffsetSyncFormatError,
  type OffsetSync,
} from "#src/connectors/mirror/offset-sync.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const bytes = (text: string) => new Uint8Array(Buffer.from(text, "hex"));

const KAFKA_WROTE: [OffsetSync, string, string][] = [
  [
    { topic: "orders", partition: 3, upstreamOffset: 12345, downstreamOffset: 678 },
    "00066f726465727300000003",
    "000000000000303900000000000002a6",
  ],
  [
    { topic: "tøpic.ü", partition: 2147483647, upstreamOffset: 9007199254740991, downstreamOffset: 0 },
    "000974c3b87069632ec3bc7fffffff",
    "001fffffffffffff0000000000000000",
  ],
  [
    { topic: "", partition: 0, upstreamOffset: -1, downstreamOffset: -1 },
    "000000000000",
    "ffffffffffffffffffffffffffffffff",
  ],
];

describe("offset sync records", () => {
  test.each(KAFKA_WROTE)("%o is written as Kafka writes it", (sync, key, value) => {
    const encoded = encodeOffsetSync(sync);
    expect(hex(encoded.key)).toBe(key);
    expect(hex(encoded.value)).toBe(value);
  });

  test.each(KAFKA_WROTE)("%o is read back from Kafka's bytes", (sync, key, value) => {
    expect(decodeOffsetSync(bytes(key), bytes(value))).toEqual(sync);
  });

  test("reads a key and value that sit inside larger buffers", () => {
    const key = new Uint8Array([9, 9, ...bytes("00066f726465727300000003")]).subarray(2);
    const value = new Uint8Array([7, ...bytes("000000000000303900000000000002a6")]).subarray(1);
    expect(decodeOffsetSync(key, value)).toEqual(KAFKA_WROTE[0]![0]);
  });

  test("refuses what Kafka's reader cannot read", () => {
    expect(() => decodeOffsetSync(null, bytes("00"))).toThrow(OffsetSyncFormatError);
    expect(() => decodeOffsetSync(bytes("0006"), bytes("00".repeat(16)))).toThrow(OffsetSyncFormatError);
    expect(() => decodeOffsetSync(bytes("ffff00000000"), bytes("00".repeat(16)))).toThrow(OffsetSyncFormatError);
    expect(() => decodeOffsetSync(bytes("00066f726465727300000003"), bytes("00".repeat(15)))).toThrow(
      OffsetSyncFormatError,
    );
  });
});
