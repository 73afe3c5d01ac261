// The read-only incremental snapshot's window (read.only=true): pg_current_snapshot() watermarks and the
// streamed transactions' ids, as Debezium's PostgresReadOnlyIncrementalSnapshotContext decides.
import { describe, expect, test } from "bun:test";
import { fullXid, parsePgSnapshot, ReadOnlyWindow } from "#src/connectors/postgres-cdc/read-only-window.ts";

const window = (low: string, high: string) => {
  const w = new ReadOnlyWindow();
  w.setLow(parsePgSnapshot(low));
  w.setHigh(parsePgSnapshot(high));
  return w;
};

describe("pg_current_snapshot()", () => {
  test("xmin:xmax:xip", () => {
    expect(parsePgSnapshot("100:105:100,103")).toEqual({ xmin: 100n, xmax: 105n, xip: [100n, 103n] });
    expect(parsePgSnapshot("800:800:")).toEqual({ xmin: 800n, xmax: 800n, xip: [] });
    expect(() => parsePgSnapshot("nonsense")).toThrow("pg_current_snapshot()");
  });

  test("a 32-bit xid of the stream is placed next to the snapshot's 64-bit ids, across an epoch", () => {
    expect(fullXid(107n, 106n)).toBe(107n);
    expect(fullXid(99n, 106n)).toBe(99n);
    const epoch1 = (1n << 32n) + 5n; // epoch 1, xid 5
    expect(fullXid(4294967290n, epoch1)).toBe(4294967290n); // just before the wraparound: epoch 0
    expect(fullXid(7n, epoch1)).toBe(epoch1 + 2n);
  });
});

describe("the window", () => {
  test("a change of a transaction older than the low watermark leaves it closed: the chunk saw it", () => {
    const w = window("100:105:100", "100:106:100");
    w.changeOf(99n);
    expect(w.closed).toBe(true);
    expect(w.deduplicating).toBe(false);
  });

  test("opens at the low watermark's xmin, deduplicates, closes past both watermarks' xmax", () => {
    const w = window("100:105:100", "100:106:100");
    w.changeOf(103n);
    expect(w.deduplicating).toBe(true);
    w.changeOf(106n); // not above the high watermark's xmax
    expect(w.closed).toBe(false);
    w.changeOf(107n);
    expect(w.closed).toBe(true);
    expect(w.caughtUp(107n)).toBe(false); // its watermarks are gone
  });

  test("the stream has caught up once its last transaction is at or below the high watermark's xmin", () => {
    const w = window("100:105:100", "100:106:100");
    expect(w.caughtUp(105n)).toBe(false); // tx 100 was still running when the chunk was read
    expect(w.caughtUp(100n)).toBe(true);
    expect(w.caughtUp(null)).toBe(true); // nothing streamed since the task started
    expect(w.maxInProgressCommitted(106n)).toBe(true);
    expect(w.maxInProgressCommitted(105n)).toBe(false);
  });

  test("the watermarks of the next chunk are compared with the closed window's", () => {
    const w = window("800:800:", "800:800:");
    w.close();
    w.setLow(parsePgSnapshot("800:800:"));
    w.setHigh(parsePgSnapshot("800:800:"));
    expect(w.watermarksChanged()).toBe(false); // an idle database: the next chunk may go at once
    w.close();
    w.setLow(parsePgSnapshot("800:802:800,801"));
    w.setHigh(parsePgSnapshot("800:802:800,801"));
    expect(w.watermarksChanged()).toBe(true);
  });

  test("an open watermark must see every transaction streamed (a commit streams before it is visible)", () => {
    const w = new ReadOnlyWindow();
    w.streamed(811n);
    w.streamed(812n);
    expect(w.seesStreamed(parsePgSnapshot("790:813:790,812"))).toBe(false); // 812 still running for it
    expect(w.seesStreamed(parsePgSnapshot("790:812:790"))).toBe(false); // 812 not even begun for it
    expect(w.seesStreamed(parsePgSnapshot("790:813:790"))).toBe(true);
    expect(w.seesStreamed(parsePgSnapshot("790:791:790"))).toBe(true); // seen once, forgotten
  });
});
