// The source task's submitted-batches bookkeeping: offsets count in submission order whatever order the
// acknowledgements come in, and a batch never acknowledged holds back everything after it.
import { describe, expect, test } from "bun:test";
import { SubmittedBatches } from "#src/connect/runtime/worker/submitted-batches.ts";

describe("SubmittedBatches", () => {
  test("acknowledgements out of order release values in submission order", () => {
    const batches = new SubmittedBatches<string>();
    const a = batches.submit("a", 10);
    const b = batches.submit("b", 20);
    const c = batches.submit("c", 30);
    expect([batches.inFlight, batches.bytes]).toEqual([3, 60]);
    expect(batches.acknowledge(c)).toEqual([]);
    expect(batches.acknowledge(b)).toEqual([]);
    // Acknowledged batches no longer count as in flight, though their values wait for the first.
    expect([batches.inFlight, batches.bytes]).toEqual([1, 10]);
    expect(batches.acknowledge(a)).toEqual(["a", "b", "c"]);
    expect([batches.inFlight, batches.bytes]).toEqual([0, 0]);
  });

  test("a batch never acknowledged (a failed write) holds back every later one", () => {
    const batches = new SubmittedBatches<number>();
    const first = batches.submit(1, 1);
    batches.submit(2, 1); // failed: never acknowledged
    const third = batches.submit(3, 1);
    expect(batches.acknowledge(first)).toEqual([1]);
    expect(batches.acknowledge(third)).toEqual([]);
    expect(batches.inFlight).toBe(1);
  });

  test("a second acknowledgement of the same batch changes nothing", () => {
    const batches = new SubmittedBatches<string>();
    const a = batches.submit("a", 5);
    const b = batches.submit("b", 5);
    expect(batches.acknowledge(b)).toEqual([]);
    expect(batches.acknowledge(b)).toEqual([]);
    expect([batches.inFlight, batches.bytes]).toEqual([1, 5]);
    expect(batches.acknowledge(a)).toEqual(["a", "b"]);
  });
});
