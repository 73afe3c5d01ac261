import { describe, expect, test } from "bun:test";
import { PartitionTable } from "#src/connectors/mirror/partition-table.ts";

describe("PartitionTable", () => {
  test("the last partition looked up is remembered; a set after a miss, other topics and partitions are seen", () => {
    const table = new PartitionTable<string>();
    expect(table.get("orders", 0)).toBeUndefined();
    table.set("orders", 0, "a"); // right after the miss on the same partition
    expect(table.get("orders", 0)).toBe("a");
    expect(table.get("orders", 1)).toBeUndefined();
    expect(table.get("payments", 0)).toBeUndefined();
    table.set("payments", 0, "b");
    expect([table.get("orders", 0), table.get("payments", 0), table.get("orders", 0)]).toEqual(["a", "b", "a"]);
    table.set("orders", 0, "c");
    expect(table.get("orders", 0)).toBe("c");
    expect(table.key("payments", 0)).toBe("0:payments");
    expect([...table.entries()]).toEqual([
      ["0:orders", "c"],
      ["0:payments", "b"],
    ]);
    expect(table.size).toBe(2);
  });
});
