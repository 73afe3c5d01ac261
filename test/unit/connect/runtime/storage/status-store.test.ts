import { describe, expect, test } from "bun:test";
import { MemoryStatusStore } from "#src/connect/runtime/storage/status-store.ts";

describe("MemoryStatusStore", () => {
  test("the last status written wins; null removes it", async () => {
    const store = new MemoryStatusStore();
    await store.put({ connector: "c" }, { state: "RUNNING", workerId: "w1" });
    await store.put({ connector: "c", task: 1 }, { state: "FAILED", workerId: "w1", trace: "boom" });
    await store.put({ connector: "c", task: 0 }, { state: "RUNNING", workerId: "w1" });
    // No generation rule in memory: one worker writes every status.
    await store.put({ connector: "c", task: 1 }, { state: "UNASSIGNED", workerId: "w2" });
    expect(store.connector("c")).toEqual({ state: "RUNNING", workerId: "w1" });
    expect([...store.taskStatuses("c")].sort(([a], [b]) => a - b)).toEqual([
      [0, { state: "RUNNING", workerId: "w1" }],
      [1, { state: "UNASSIGNED", workerId: "w2" }],
    ]);
    await store.put({ connector: "c", task: 0 }, null);
    expect([...store.taskStatuses("c").keys()]).toEqual([1]);
    expect(store.taskStatuses("unknown").size).toBe(0);
  });

  test("topics sorted, reset one by one; remove forgets the connector", async () => {
    const store = new MemoryStatusStore();
    await store.putTopic("b", "c");
    await store.putTopic("a", "c");
    expect(store.connectorTopics("c")).toEqual(["a", "b"]);
    await store.resetTopic("a", "c");
    expect(store.connectorTopics("c")).toEqual(["b"]);
    await store.put({ connector: "c" }, { state: "RUNNING", workerId: "w" });
    store.remove("c");
    expect(store.connector("c")).toBeUndefined();
    expect(store.connectorTopics("c")).toEqual([]);
  });
});
