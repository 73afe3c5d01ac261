// The embedded broker's on-disk record frame: headers as Kafka has them (in order, a key repeated, a value
// null) survive a round trip, and a frame as earlier versions wrote it still decodes the same.
import { describe, expect, test } from "bun:test";
import { crc32 } from "node:zlib";
import { decodeFrame, encodeFrame, FRAME_HEADER_BYTES, frameIsIntact } from "#src/broker/embedded/record-frame.ts";

const enc = new TextEncoder();

/** A frame built field by field as the encoder before ordered headers wrote it (no null header values). */
function oldFrame(offset: number, timestamp: number, key: string, value: string, headers: [string, Uint8Array][]) {
  const parts: number[] = [1];
  const u32 = (n: number) => parts.push((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  const i64 = (n: number) => {
    u32(Math.floor(n / 2 ** 32));
    u32(n % 2 ** 32);
  };
  const bytes = (b: Uint8Array) => {
    u32(b.length);
    parts.push(...b);
  };
  i64(offset);
  i64(timestamp);
  bytes(enc.encode(key));
  bytes(enc.encode(value));
  u32(headers.length);
  for (const [name, v] of headers) {
    bytes(enc.encode(name));
    bytes(v);
  }
  const body = new Uint8Array(parts);
  const frame = new Uint8Array(FRAME_HEADER_BYTES + body.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, body.length);
  view.setUint32(4, crc32(body));
  frame.set(body, FRAME_HEADER_BYTES);
  return frame;
}

const decoded = (frame: Uint8Array) => decodeFrame(frame, 0, frame.length - FRAME_HEADER_BYTES);

describe("record frames", () => {
  test("headers round-trip in order, with a repeated key and null values", () => {
    const record = {
      offset: 7,
      timestamp: 1_700_000_000_000,
      key: enc.encode("k"),
      value: null,
      headers: [
        { key: "a", value: enc.encode("1") },
        { key: "a", value: enc.encode("2") },
        { key: "b", value: null },
        { key: "", value: new Uint8Array() },
        { key: "a", value: null },
      ],
    };
    const frame = encodeFrame(record);
    expect(frameIsIntact(frame, 0, frame.length - FRAME_HEADER_BYTES)).toBe(true);
    expect(decoded(frame)).toEqual(record);
  });

  test("a frame as earlier versions wrote it decodes the same, and is what the encoder writes for it today", () => {
    const headers: [string, Uint8Array][] = [
      ["trace", enc.encode("t-1")],
      ["empty", new Uint8Array()],
      ["ü", new Uint8Array([0, 255])],
    ];
    const frame = oldFrame(2 ** 33 + 5, 1234, "k", "v", headers);
    expect(frameIsIntact(frame, 0, frame.length - FRAME_HEADER_BYTES)).toBe(true);
    const record = {
      offset: 2 ** 33 + 5,
      timestamp: 1234,
      key: enc.encode("k"),
      value: enc.encode("v"),
      headers: headers.map(([key, value]) => ({ key, value })),
    };
    expect(decoded(frame)).toEqual(record);
    expect(encodeFrame(record)).toEqual(frame);
  });
});
