// Offset translation as Kafka 4.1's OffsetSyncStore translates (test/integration/connect/mirror-formats.test.ts
// compares random sync sequences with Kafka's own store).
import { describe, expect, test } from "bun:test";
import { OffsetSyncStore, SYNCS_PER_PARTITION } from "#src/connectors/mirror/offset-sync-store.ts";

const sync = (upstreamOffset: number, downstreamOffset: number) => ({ upstreamOffset, downstreamOffset });

function started(...syncs: [number, number][]): OffsetSyncStore {
  const store = new OffsetSyncStore();
  store.starting(false);
  for (const [up, down] of syncs) store.add("t", 0, sync(up, down));
  store.markReadToEnd();
  return store;
}

describe("offset translation", () => {
  test("nothing is translated before the offset syncs were read to their end", () => {
    const store = new OffsetSyncStore();
    store.starting(false);
    store.add("t", 0, sync(100, 200));
    expect(store.translateDownstream("t", 0, 100)).toBeUndefined();
    store.markReadToEnd();
    expect(store.translateDownstream("t", 0, 100)).toBe(200);
  });

  test("a partition without syncs is not translated", () => {
    expect(started([100, 200]).translateDownstream("t", 1, 100)).toBeUndefined();
    expect(started([100, 200]).translateDownstream("u", 0, 100)).toBeUndefined();
  });

  test("exactly at a sync, else one past it; before every sync, -1", () => {
    const store = started([100, 200]);
    expect(store.translateDownstream("t", 0, 100)).toBe(200);
    expect(store.translateDownstream("t", 0, 101)).toBe(201);
    expect(store.translateDownstream("t", 0, 5000)).toBe(201);
    expect(store.translateDownstream("t", 0, 99)).toBe(-1);
  });

  test("an older offset translates through an older sync kept", () => {
    const store = started([100, 200], [200, 300]);
    expect(store.translateDownstream("t", 0, 200)).toBe(300);
    expect(store.translateDownstream("t", 0, 150)).toBe(201);
    expect(store.translateDownstream("t", 0, 100)).toBe(200);
  });

  test("an upstream rewind drops the older syncs", () => {
    const store = started([100, 200], [50, 400]);
    expect(store.translateDownstream("t", 0, 100)).toBe(401);
    expect(store.translateDownstream("t", 0, 50)).toBe(400);
    expect(store.translateDownstream("t", 0, 49)).toBe(-1);
  });

  test("when the initial read must keep only the newest sync, older ones are dropped while catching up", () => {
    const store = new OffsetSyncStore();
    store.starting(true);
    store.add("t", 0, sync(100, 200));
    store.add("t", 0, sync(200, 300));
    store.markReadToEnd();
    expect(store.translateDownstream("t", 0, 150)).toBe(-1);
    store.add("t", 0, sync(300, 400));
    expect(store.translateDownstream("t", 0, 250)).toBe(301);
  });

  test("with a sync for every offset, kept syncs are spaced exponentially and translations never run ahead", () => {
    const store = started();
    const last = 100_000;
    for (let offset = 0; offset <= last; offset++) store.add("t", 0, sync(offset, offset + 7));
    const syncs = store.syncsOf("t", 0)!;
    expect(syncs).toHaveLength(SYNCS_PER_PARTITION);
    expect(syncs[0]!.upstreamOffset).toBe(last);
    for (let i = 1; i < SYNCS_PER_PARTITION; i++) {
      if (syncs[i] === syncs[i - 1]) continue;
      expect(syncs[i - 1]!.upstreamOffset).toBeGreaterThan(syncs[i]!.upstreamOffset);
      // Slot i is never more than 2^i - 1 behind the newest (Kafka's invariant B).
      expect(last - syncs[i]!.upstreamOffset).toBeLessThanOrEqual(2 ** i - 1);
    }
    for (const offset of [last, last - 1, last - 10, last - 1000, 5]) {
      const translated = store.translateDownstream("t", 0, offset)!;
      expect(translated).toBeLessThanOrEqual(offset + 7);
      if (translated >= 0) expect(offset + 7 - translated).toBeLessThanOrEqual(Math.max(1, (last - offset) * 2));
    }
  });
});
