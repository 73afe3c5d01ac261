// A MirrorSourceTask's two ends per partition, read through the gauges it registers: the source's end
// offset (asked every few seconds) and the next offset after the last copy the target acknowledged.
import { expect, test } from "bun:test";
import type { PluginMetrics } from "#src/connect/api/connector.ts";
import { END_OFFSETS_INTERVAL_MS, MirrorSourceLag } from "#src/connectors/mirror/source-lag.ts";

function gauges() {
  const read = new Map<string, () => number>();
  const labels = new Map<string, Record<string, string>>();
  const metrics: PluginMetrics = {
    gauge: (name, _help, l, r) => {
      read.set(`${name} ${l.source_topic}-${l.partition}`, r);
      labels.set(`${name} ${l.source_topic}-${l.partition}`, { ...l });
    },
  };
  return { metrics, read: (name: string, tp: string) => read.get(`sluice_mirror_source_${name} ${tp}`)!(), labels };
}

test("end offsets are NaN until read, then read per topic at most once per interval; replicated follows acknowledgements", async () => {
  const g = gauges();
  const lag = new MirrorSourceLag(g.metrics, "primary", "backup", (t) => `primary.${t}`);
  lag.track("orders", 0, 5);
  lag.track("orders", 1, 0);
  lag.track("users", 0, 0);
  expect(g.labels.get("sluice_mirror_source_end_offset orders-1")).toEqual({
    source: "primary",
    target: "backup",
    source_topic: "orders",
    topic: "primary.orders",
    partition: "1",
  });
  expect(g.read("end_offset", "orders-0")).toBeNaN();
  expect(g.read("replicated_offset", "orders-0")).toBe(5);

  const asked: string[] = [];
  const ends: Record<string, number[]> = { orders: [10, 3], users: [7] };
  const endOffsets = async (topic: string) => (asked.push(topic), ends[topic]!);
  await lag.refresh(endOffsets, 1_000_000);
  expect(asked.sort()).toEqual(["orders", "users"]);
  expect([g.read("end_offset", "orders-0"), g.read("end_offset", "orders-1"), g.read("end_offset", "users-0")]).toEqual(
    [10, 3, 7],
  );
  // Within the interval: not asked again.
  expect(lag.refresh(endOffsets, 1_000_000 + END_OFFSETS_INTERVAL_MS - 1)).toBeUndefined();
  expect(asked).toHaveLength(2);

  lag.written("orders", 0, 7);
  lag.written("orders", 0, 6); // an older acknowledgement does not move it back
  expect(g.read("replicated_offset", "orders-0")).toBe(8);
  lag.written("unknown", 0, 3); // a partition the task does not track: ignored

  // A source that does not answer keeps the last reading.
  await lag.refresh(async () => Promise.reject(new Error("down")), 1_000_000 + END_OFFSETS_INTERVAL_MS);
  expect(g.read("end_offset", "orders-0")).toBe(10);
});

test("a partition tracked again (a reset position) keeps its series and takes the new position", () => {
  const g = gauges();
  const lag = new MirrorSourceLag(g.metrics, "a", "b", (t) => `a.${t}`);
  lag.track("t", 0, 100);
  lag.track("t", 0, 40);
  expect(g.read("replicated_offset", "t-0")).toBe(40);
});
