import { describe, expect, test } from "bun:test";
import { heapRamBytes, PLANNED_HEAP_RAM } from "../../../src/platform/heap-sizing.ts";

const GiB = 1024 ** 3;

describe("the RAM the JavaScript heaps are sized for", () => {
  test("2 GiB on a larger machine outside a limiting cgroup", () => {
    expect(heapRamBytes(24 * GiB, undefined)).toBe(PLANNED_HEAP_RAM);
    expect(heapRamBytes(24 * GiB, "max\n")).toBe(PLANNED_HEAP_RAM);
  });

  test("the machine's RAM where it has less", () => {
    expect(heapRamBytes(GiB, undefined)).toBe(GiB);
  });

  test("the cgroup's limit where it is lower (v2 memory.max, v1 limit_in_bytes)", () => {
    expect(heapRamBytes(24 * GiB, "536870912\n")).toBe(512 * 1024 ** 2);
    // cgroup v1 writes a huge number for "no limit".
    expect(heapRamBytes(24 * GiB, "9223372036854771712\n")).toBe(PLANNED_HEAP_RAM);
  });

  test("an unreadable limit is no limit", () => {
    expect(heapRamBytes(24 * GiB, "")).toBe(PLANNED_HEAP_RAM);
    expect(heapRamBytes(24 * GiB, "garbage")).toBe(PLANNED_HEAP_RAM);
  });
});
