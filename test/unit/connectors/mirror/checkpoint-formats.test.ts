// MM2's heartbeat and checkpoint records, byte for byte: the fixed bytes below are what Kafka 4.1.1's own
// Heartbeat and Checkpoint classes wrote for the same fields (test/fixtures/java/MirrorFormatsProbe.java;
// test/integration/connect/mirror-formats.test.ts compares random ones with the running probe).
import { describe, expect, test } from "bun:test";
import { decodeCheckpoint, encodeCheckpoint } from "#src/connectors/mirror/checkpoint.ts";
import { decodeHeartbeat, encodeHeartbeat } from "#src/connectors/mirror/heartbeat.ts";
import { StructFormatError } from "#src/connectors/mirror/protocol-struct.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const bytes = (text: string) => new Uint8Array(Buffer.from(text, "hex"));

describe("heartbeat records", () => {
  const heartbeat = { sourceClusterAlias: "src", targetClusterAlias: "tgt", timestamp: 1700000000000 };
  test("are written as Kafka's Heartbeat writes them", () => {
    const { key, value } = encodeHeartbeat(heartbeat);
    expect(hex(key)).toBe("00037372630003746774");
    expect(hex(value)).toBe("00000000018bcfe56800");
  });
  test("are read back", () => {
    expect(decodeHeartbeat(bytes("00037372630003746774"), bytes("00000000018bcfe56800"))).toEqual(heartbeat);
  });
  test("a truncated one is refused", () => {
    expect(() => decodeHeartbeat(bytes("0003737263"), bytes("00000000018bcfe56800"))).toThrow(StructFormatError);
    expect(() => decodeHeartbeat(bytes("00037372630003746774"), bytes("0000"))).toThrow(StructFormatError);
    expect(() => decodeHeartbeat(null, null)).toThrow(StructFormatError);
  });
});

describe("checkpoint records", () => {
  const checkpoint = {
    group: "g1",
    topic: "src.t",
    partition: 3,
    upstreamOffset: 10,
    downstreamOffset: 20,
    metadata: "meta",
  };
  const key = "0002673100057372632e7400000003";
  const value = "0000000000000000000a000000000000001400046d657461";
  test("are written as Kafka's Checkpoint writes them", () => {
    const encoded = encodeCheckpoint(checkpoint);
    expect(hex(encoded.key)).toBe(key);
    expect(hex(encoded.value)).toBe(value);
  });
  test("are read back, non-ASCII names and large offsets included", () => {
    expect(decodeCheckpoint(bytes(key), bytes(value))).toEqual(checkpoint);
    const wide = { ...checkpoint, group: "grüppe-✓", upstreamOffset: 2 ** 52 + 1, downstreamOffset: 0, metadata: "" };
    const { key: k, value: v } = encodeCheckpoint(wide);
    expect(decodeCheckpoint(k, v)).toEqual(wide);
  });
  test("a null string is refused, as Kafka's non-nullable STRING", () => {
    expect(() => decodeCheckpoint(bytes("ffff"), bytes(value))).toThrow(StructFormatError);
  });
});
