// When each group was last checkpointed: a series per group from its first acknowledged checkpoint on.
import { expect, test } from "bun:test";
import type { PluginMetrics } from "#src/connect/api/connector.ts";
import { MirrorCheckpointMetrics } from "#src/connectors/mirror/checkpoint-metrics.ts";

test("one series per group, the latest acknowledgement's time", () => {
  const series = new Map<string, { labels: Record<string, string>; read: () => number }>();
  const metrics: PluginMetrics = {
    gauge: (name, _help, labels, read) => series.set(`${name} ${labels.group}`, { labels: { ...labels }, read }),
  };
  const m = new MirrorCheckpointMetrics(metrics, "primary", "backup");
  expect(series.size).toBe(0);
  m.written("billing", 1000);
  m.written("billing", 3000);
  m.written("billing", 2000);
  m.written("audit", 5000);
  expect(series.size).toBe(2);
  const billing = series.get("sluice_mirror_checkpoint_last_ms billing")!;
  expect(billing.labels).toEqual({ source: "primary", target: "backup", group: "billing" });
  expect(billing.read()).toBe(3000);
  expect(series.get("sluice_mirror_checkpoint_last_ms audit")!.read()).toBe(5000);
});
