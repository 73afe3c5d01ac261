// When offset syncs are written, as Kafka 4.1's OffsetSyncWriter decides.
import { describe, expect, test } from "bun:test";
import type { OffsetSync } from "#src/connectors/mirror/offset-sync.ts";
import { OffsetSyncWriter } from "#src/connectors/mirror/offset-sync-writer.ts";

function writer(maxOffsetLag: number) {
  const sent: OffsetSync[] = [];
  const releases: (() => void)[] = [];
  const w = new OffsetSyncWriter(
    maxOffsetLag,
    (sync) => {
      sent.push(sync);
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    () => {},
  );
  return { w, sent, releases };
}

describe("offset sync writer", () => {
  test("the first record of a partition is synced at once; the following ones wait for the commit", () => {
    const { w, sent } = writer(100);
    w.maybeQueue("t", 0, 10, 0);
    w.firePending();
    expect(sent).toEqual([{ topic: "t", partition: 0, upstreamOffset: 10, downstreamOffset: 0 }]);
    w.maybeQueue("t", 0, 11, 1);
    w.maybeQueue("t", 0, 12, 2);
    w.firePending();
    expect(sent).toHaveLength(1);
    expect(w.queued().delayed).toEqual([{ topic: "t", partition: 0, upstreamOffset: 12, downstreamOffset: 2 }]);
    w.promoteDelayed();
    w.firePending();
    expect(sent.at(-1)).toEqual({ topic: "t", partition: 0, upstreamOffset: 12, downstreamOffset: 2 });
  });

  test("a sync when the last one is offset.lag.max behind", () => {
    const { w, sent } = writer(3);
    for (let i = 0; i <= 5; i++) {
      w.maybeQueue("t", 0, 100 + i, i);
      w.firePending();
    }
    // downstream - (lastSync + 1) >= 3: at 0 (first), then at 4.
    expect(sent.map((s) => s.downstreamOffset)).toEqual([0, 4]);
  });

  test("a sync after a gap upstream or when the target went back", () => {
    const { w, sent } = writer(100);
    w.maybeQueue("t", 0, 0, 0);
    w.maybeQueue("t", 0, 1, 1);
    w.maybeQueue("t", 0, 5, 2); // upstream skipped 2..4 (compaction, transaction markers)
    w.maybeQueue("t", 0, 6, 0); // target truncated
    w.firePending();
    expect(sent.map((s) => [s.upstreamOffset, s.downstreamOffset])).toEqual([[6, 0]]);
    const other = writer(100);
    other.w.maybeQueue("t", 0, 0, 0);
    other.w.firePending();
    other.w.maybeQueue("t", 0, 5, 1);
    other.w.firePending();
    expect(other.sent.map((s) => s.upstreamOffset)).toEqual([0, 5]);
  });

  test("at most 10 in flight; the rest wait, the newest per partition", async () => {
    const { w, sent, releases } = writer(0);
    for (let p = 0; p < 12; p++) w.maybeQueue("t", p, 0, 0);
    w.firePending();
    expect(sent).toHaveLength(10);
    w.maybeQueue("t", 11, 1, 1);
    w.firePending();
    expect(sent).toHaveLength(10);
    releases.splice(0).forEach((r) => r());
    await w.drain();
    w.firePending();
    expect(sent.slice(10).map((s) => [s.partition, s.upstreamOffset])).toEqual([
      [10, 0],
      [11, 1],
    ]);
    releases.splice(0).forEach((r) => r());
    await w.drain();
  });
});
