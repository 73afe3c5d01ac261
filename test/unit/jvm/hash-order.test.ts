import { describe, expect, test } from "bun:test";
import { JavaHashKeys, javaStringHash } from "#src/jvm/hash-order.ts";

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("java.util.HashMap/HashSet iteration order", () => {
  test("String.hashCode, with Java's 32-bit wrap-around", () => {
    expect(javaStringHash("")).toBe(0);
    expect(javaStringHash("hello")).toBe(99162322);
    expect(javaStringHash("polygenelubricants")).toBe(-2147483648);
  });

  test("buckets by spread hash, insertion order within a bucket; Integer keys hash to themselves", () => {
    expect(JavaHashKeys.of([17, 1, 16, 33]).keys()).toEqual([16, 17, 1, 33]);
    expect(JavaHashKeys.of([5, -1, 5]).keys()).toEqual([-1, 5]); // -1 spreads to bucket 0
    expect(JavaHashKeys.of(["b", "a", "c"]).keys()).toEqual(["a", "b", "c"]);
  });

  test("growing past three quarters doubles the table; a bin of nine in a small table resizes it", () => {
    expect(JavaHashKeys.of([16, ...range(0, 12)]).keys()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16]);
    const sameBucket = range(0, 9).map((i) => i * 16);
    expect(JavaHashKeys.of(sameBucket).keys()).toEqual([0, 32, 64, 96, 128, 16, 48, 80, 112]);
    expect(JavaHashKeys.of(sameBucket.slice(0, 8)).keys()).toEqual(sameBucket.slice(0, 8));
  });

  test("copies are sized as the JDK sizes them: 12 keys fit 16 buckets since JDK 19, 32 before", () => {
    const twelve = [16, ...range(0, 11)];
    expect(JavaHashKeys.copyOf(twelve, true).keys()).toEqual(twelve);
    expect(JavaHashKeys.copyOf(twelve, false).keys()).toEqual(twelve);
    const sorted = [...range(0, 11), 16];
    expect(JavaHashKeys.copyOf(twelve, true, "jdk17").keys()).toEqual(sorted);
    expect(JavaHashKeys.copyOf(twelve, false, "jdk17").keys()).toEqual(sorted);
    // A HashSet copy is sized for at least 12 (JDK 19+) or 16 (before): small copies agree.
    expect(JavaHashKeys.copyOf([16, 0], true, "jdk17").keys()).toEqual(JavaHashKeys.copyOf([16, 0], true).keys());
    expect(JavaHashKeys.copyOf([], false, "jdk17").keys()).toEqual([]);
  });
});
