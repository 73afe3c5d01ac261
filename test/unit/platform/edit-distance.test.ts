import { describe, expect, test } from "bun:test";
import { editDistance, nearest } from "#src/platform/edit-distance.ts";

describe("editDistance", () => {
  test.each([
    ["", "", 0],
    ["abc", "", 3],
    ["", "abc", 3],
    ["kitten", "sitting", 3],
    ["kafkastore.bootstrap.server", "kafkastore.bootstrap.servers", 1],
    ["listners", "listeners", 1],
    ["same", "same", 0],
  ])("%p → %p is %p", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe("nearest", () => {
  const names = ["kafkastore.bootstrap.servers", "kafkastore.topic", "listeners", "offset.flush.interval.ms"];
  test("a typo finds the name it misspells", () => {
    expect(nearest("kafkastore.bootstrap.server", names)).toBe("kafkastore.bootstrap.servers");
    expect(nearest("listners", names)).toBe("listeners");
    expect(nearest("offset.flush.interval", names)).toBe("offset.flush.interval.ms");
  });
  test("a name far from every candidate finds nothing", () => {
    expect(nearest("made.up", names)).toBeUndefined();
    expect(nearest("foo", names)).toBeUndefined();
    expect(nearest("x", [])).toBeUndefined();
  });
});
