import { describe, expect, test } from "bun:test";
import fc from "fast-check";
// @platformatic/kafka's murmur2 (BigInt arithmetic, returning Java's signed result) is an independent
// oracle for random inputs.
import { murmur2 as clientMurmur2 } from "@platformatic/kafka";
import { kafkaPartition, murmur2, toPositive } from "#src/broker/partitioner.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("murmur2", () => {
  // Vectors from Kafka's clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java (testMurmur2).
  const kafkaVectors: [Uint8Array, number][] = [
    [bytes("21"), -973932308],
    [bytes("foobar"), -790332482],
    [bytes("a-little-bit-long-string"), -985981536],
    [bytes("a-little-bit-longer-string"), -1486304829],
    [bytes("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971],
    [new Uint8Array([0x61, 0x62, 0x63]), 479470107],
  ];
  test.each(kafkaVectors)("Kafka UtilsTest vector %#", (input, expected) => {
    expect(murmur2(input)).toBe(expected);
  });

  // Java outputs for every tail length (0..3 leftover bytes), as recorded by Akka's Murmur2Spec
  // from Kafka's Utils.murmur2.
  const javaVectors: [string, number][] = [
    ["1", -1993445489],
    ["12", 126087238],
    ["123", -267702483],
    ["1234", -1614185708],
    ["12345", -1188365604],
  ];
  test.each(javaVectors)("key %p", (input, expected) => {
    expect(murmur2(bytes(input))).toBe(expected);
  });

  test("agrees with @platformatic/kafka's Java-compatible murmur2 on random keys", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (key) => murmur2(key) === clientMurmur2(Buffer.from(key))),
      { numRuns: 2000 },
    );
  });

  test("empty key and high bytes (Java's & 0xff) match @platformatic/kafka", () => {
    for (const key of [new Uint8Array(0), new Uint8Array([0xff, 0x80, 0x7f, 0x00, 0xfe]), new Uint8Array([0x80])]) {
      expect(murmur2(key)).toBe(clientMurmur2(Buffer.from(key)));
    }
  });
});

describe("kafkaPartition", () => {
  test("toPositive clears the sign bit", () => {
    expect(toPositive(-973932308)).toBe(-973932308 & 0x7fffffff);
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(-1)).toBe(0x7fffffff);
    expect(toPositive(5)).toBe(5);
  });

  test("partition = toPositive(murmur2) % n", () => {
    // 21 -> -973932308 -> 1173551340
    expect(kafkaPartition(bytes("21"), 1)).toBe(0);
    expect(kafkaPartition(bytes("21"), 3)).toBe(1173551340 % 3);
    expect(kafkaPartition(bytes("21"), 10)).toBe(0);
    // foobar -> -790332482 -> 1357151166
    expect(kafkaPartition(bytes("foobar"), 7)).toBe(1357151166 % 7);
    expect(kafkaPartition(bytes("abc"), 12)).toBe(479470107 % 12);
  });

  test("rejects a non-positive partition count", () => {
    expect(() => kafkaPartition(bytes("x"), 0)).toThrow(RangeError);
  });
});
