import { describe, expect, test } from "bun:test";
import { lifecycleEvent, traceReason } from "#src/connect/runtime/worker/lifecycle-log.ts";

describe("what a status change says", () => {
  test.each([
    [undefined, "RUNNING", "started"],
    ["UNASSIGNED", "RUNNING", "started"],
    ["RESTARTING", "RUNNING", "started"],
    ["UNASSIGNED", "PAUSED", "started paused"],
    ["RUNNING", "PAUSED", "paused"],
    ["PAUSED", "RUNNING", "resumed"],
    ["RUNNING", "FAILED", "failed"],
    [undefined, "FAILED", "failed"],
    ["FAILED", "RESTARTING", "restarting"],
  ] as const)("%s → %s: %s", (previous, next, said) => {
    expect(lifecycleEvent(previous, next)).toBe(said);
  });

  test.each([
    ["RUNNING", "RUNNING"],
    ["PAUSED", "PAUSED"],
    ["RUNNING", "UNASSIGNED"],
    ["RUNNING", "STOPPED"],
  ] as const)("%s → %s is no news", (previous, next) => {
    expect(lifecycleEvent(previous, next)).toBeUndefined();
  });
});

test("a failure's reason is the first line of its trace", () => {
  expect(traceReason("org.apache.kafka.connect.errors.ConnectException: no route to host\n\tat x(y.ts:1)")).toBe(
    "org.apache.kafka.connect.errors.ConnectException: no route to host",
  );
  expect(traceReason(undefined)).toBeUndefined();
  expect(traceReason("")).toBeUndefined();
});
