// The hand-over between the snapshot's table readers and the task: one item per producer at a time,
// taken in the order put; the end, a producer's failure, and a consumer that stops taking.
import { describe, expect, test } from "bun:test";
import { Handover } from "#src/connectors/postgres-cdc/handover.ts";

describe("Handover", () => {
  test("a put settles once its item is taken; items come in the order put; null after the end", async () => {
    const h = new Handover<string>();
    const settled: string[] = [];
    const a = h.put("a").then((taken) => settled.push(`a:${taken}`));
    const b = h.put("b").then((taken) => settled.push(`b:${taken}`));
    await Promise.resolve();
    expect(settled).toEqual([]);
    expect(await h.take()).toBe("a");
    await a;
    expect(settled).toEqual(["a:true"]);
    expect(await h.take()).toBe("b");
    await b;
    h.end();
    expect(await h.take()).toBeNull();
  });

  test("a take waiting for an item gets the next put", async () => {
    const h = new Handover<number>();
    const taken = h.take();
    const put = h.put(7);
    expect(await taken).toBe(7);
    expect(await put).toBe(true);
  });

  test("a failure reaches the consumer; the other producers' puts answer false", async () => {
    const h = new Handover<number>();
    const waiting = h.put(1);
    h.fail(new Error("table gone"));
    expect(await waiting).toBe(false);
    expect(await h.put(2)).toBe(false);
    await expect(h.take()).rejects.toThrow("table gone");
  });

  test("a consumer that stops taking: waiting and later puts answer false", async () => {
    const h = new Handover<number>();
    const waiting = h.put(1);
    h.close();
    expect(h.closed).toBe(true);
    expect(await waiting).toBe(false);
    expect(await h.put(2)).toBe(false);
  });
});
