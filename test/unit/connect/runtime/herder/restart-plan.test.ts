import { describe, expect, test } from "bun:test";
import { restartPlan, restarts } from "#src/connect/runtime/herder/restart-plan.ts";

describe("which a restart request restarts (KIP-745)", () => {
  test.each([
    [{ includeTasks: false, onlyFailed: false }, "connector", "RUNNING", true],
    [{ includeTasks: false, onlyFailed: false }, "task", "FAILED", false],
    [{ includeTasks: true, onlyFailed: false }, "task", "RUNNING", true],
    [{ includeTasks: true, onlyFailed: true }, "task", "RUNNING", false],
    [{ includeTasks: true, onlyFailed: true }, "task", "FAILED", true],
    [{ includeTasks: false, onlyFailed: true }, "connector", "FAILED", true],
    [{ includeTasks: false, onlyFailed: true }, "connector", undefined, false],
  ] as const)("%o, %s %s: %p", (request, what, state, expected) => {
    expect(restarts(request, what, state)).toBe(expected);
  });
});

test("the plan shows RESTARTING for what restarts, the rest as it is, traces kept", () => {
  const current = {
    connector: { state: "RUNNING", worker_id: "w1" },
    tasks: [
      { id: 0, state: "FAILED", worker_id: "w1", trace: "boom" },
      { id: 1, state: "RUNNING", worker_id: "w2" },
    ],
  };
  expect(restartPlan(current, { includeTasks: true, onlyFailed: true })).toEqual({
    connector: { state: "RUNNING", worker_id: "w1" },
    tasks: [
      { id: 0, state: "RESTARTING", worker_id: "w1", trace: "boom" },
      { id: 1, state: "RUNNING", worker_id: "w2" },
    ],
  });
});
