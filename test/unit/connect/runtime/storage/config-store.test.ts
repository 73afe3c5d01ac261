import { describe, expect, test } from "bun:test";
import { MemoryConfigStore } from "#src/connect/runtime/storage/config-store.ts";

describe("MemoryConfigStore", () => {
  test("connectors, targets (STARTED unless set) and task configs; remove forgets all three", () => {
    const store = new MemoryConfigStore();
    store.putConnector("c", { "connector.class": "X" });
    expect(store.target("c")).toBe("STARTED");
    store.putTarget("c", "PAUSED");
    store.putTaskConfigs("c", [{ "task.class": "T" }]);
    expect(store.connectors.get("c")).toEqual({ "connector.class": "X" });
    expect(store.target("c")).toBe("PAUSED");
    expect(store.tasks.get("c")).toEqual([{ "task.class": "T" }]);
    store.remove("c");
    expect(store.connectors.has("c")).toBe(false);
    expect(store.tasks.has("c")).toBe(false);
    expect(store.target("c")).toBe("STARTED");
  });
});
