// Kafka's MirrorSourceMetrics figures per remote partition, read through the gauges a task registers.
import { expect, test } from "bun:test";
import type { PluginMetrics } from "#src/connect/api/connector.ts";
import { MirrorSourceMetrics } from "#src/connectors/mirror/source-metrics.ts";

test("records, bytes, record age and replication latency per remote partition", () => {
  const gauges = new Map<string, () => number>();
  const metrics: PluginMetrics = {
    gauge: (name, _help, labels, read) => gauges.set(`${name} ${labels.topic}-${labels.partition}`, read),
  };
  const m = new MirrorSourceMetrics(metrics, "primary", "backup");
  const old = Date.now() - 5000;
  m.read("primary.orders", 0, old, 10);
  m.read("primary.orders", 0, old, 5);
  m.written("primary.orders", 0, old);
  m.read("primary.orders", 1, Date.now() + 60000, 1); // a timestamp from the future: age 0
  const read = (name: string, tp: string) => gauges.get(`kafka_connect_mirror_source_${name} ${tp}`)!();
  expect(read("record_count", "primary.orders-0")).toBe(1);
  expect(read("byte_count", "primary.orders-0")).toBe(15);
  expect(read("record_age_ms", "primary.orders-0")).toBeGreaterThanOrEqual(5000);
  expect(read("replication_latency_ms", "primary.orders-0")).toBeGreaterThanOrEqual(5000);
  expect(read("record_age_ms", "primary.orders-1")).toBe(0);
  expect(gauges.size).toBe(8);
});
