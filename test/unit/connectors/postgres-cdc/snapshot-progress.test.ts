import { describe, expect, test } from "bun:test";
import type { Logger } from "#src/platform/log.ts";
import type { PluginMetrics } from "#src/connect/api/connector.ts";
import { SnapshotProgress } from "#src/connectors/postgres-cdc/snapshot-progress.ts";

function harness(intervalMs: number) {
  let now = 0;
  const lines: { fields: Record<string, unknown>; msg: string }[] = [];
  const log = {
    info: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }),
  } as unknown as Logger;
  const gauges = new Map<string, () => number>();
  const metrics: PluginMetrics = {
    gauge: (name, _help, labels, read) => gauges.set(`${name}${JSON.stringify(labels)}`, read),
  };
  const progress = new SnapshotProgress(log, intervalMs, metrics, "app", () => now);
  const gauge = (name: string, labels: Record<string, string> = { context: "snapshot", server: "app" }) =>
    gauges.get(`debezium_metrics_${name}${JSON.stringify(labels)}`)?.();
  return { progress, lines, gauge, advance: (ms: number) => (now += ms) };
}

describe("snapshot progress", () => {
  test("logs a table's progress at most once per interval, then its end and the snapshot's", () => {
    const { progress, lines, advance } = harness(5_000);
    progress.tables([
      { name: "public.a", estimate: 4 },
      { name: "public.b", estimate: null },
    ]);
    progress.tableStarted("public.a");
    progress.row("public.a");
    advance(4_999);
    progress.row("public.a");
    advance(1);
    progress.row("public.a");
    advance(1_000);
    progress.row("public.a");
    progress.tableDone("public.a");
    progress.tableStarted("public.b");
    progress.tableDone("public.b");
    progress.done();
    expect(lines.map((l) => l.msg)).toEqual([
      "snapshot started: 2 table(s), ~4 rows estimated (1 without an estimate)",
      "snapshot of public.a: 3 of ~4 rows (75%), 1 rows/s, about 2s left",
      "snapshot of public.a done: 4 rows in 6s; 1 of 2 table(s) left",
      "snapshot of public.b done: 0 rows in 0.0s; 0 of 2 table(s) left",
      "snapshot completed: 4 rows of 2 table(s) in 6s",
    ]);
    expect(lines[1]!.fields).toEqual({ table: "public.a", rows: 3, estimate: 4, rowsPerSecond: 1 });
  });

  test("tables read at once (snapshot.max.threads): each its own progress and duration", () => {
    const { progress, lines, advance } = harness(5_000);
    progress.tables([
      { name: "public.a", estimate: 10 },
      { name: "public.b", estimate: 10 },
    ]);
    progress.tableStarted("public.a");
    advance(1_000);
    progress.tableStarted("public.b");
    for (let i = 0; i < 3; i++) {
      progress.row("public.a");
      progress.row("public.b");
      advance(2_000);
    }
    progress.row("public.a");
    progress.tableDone("public.a");
    progress.row("public.b");
    progress.tableDone("public.b");
    expect(lines.slice(1).map((l) => l.msg)).toEqual([
      "snapshot of public.a: 3 of ~10 rows (30%), 1 rows/s, about 12s left",
      "snapshot of public.a done: 4 rows in 7s; 1 of 2 table(s) left",
      "snapshot of public.b: 4 of ~10 rows (40%), 1 rows/s, about 9s left",
      "snapshot of public.b done: 4 rows in 6s; 0 of 2 table(s) left",
    ]);
  });

  test("gauges carry Debezium's snapshot figures", () => {
    const { progress, gauge, advance } = harness(5_000);
    expect(gauge("snapshot_running")).toBe(0);
    progress.tables([
      { name: "public.a", estimate: 2 },
      { name: "public.b", estimate: 0 },
    ]);
    progress.tableStarted("public.a");
    progress.row("public.a");
    expect(gauge("snapshot_running")).toBe(1);
    expect(gauge("total_table_count")).toBe(2);
    expect(gauge("remaining_table_count")).toBe(2);
    expect(gauge("rows_scanned", { context: "snapshot", server: "app", table: "public.a" })).toBe(1);
    progress.row("public.a");
    progress.tableDone("public.a");
    advance(3_000);
    progress.tableDone("public.b");
    progress.done();
    advance(60_000);
    expect(gauge("remaining_table_count")).toBe(0);
    expect(gauge("snapshot_running")).toBe(0);
    expect(gauge("snapshot_completed")).toBe(1);
    expect(gauge("snapshot_duration_in_seconds")).toBe(3);
    expect(gauge("total_number_of_events_seen")).toBe(2);
  });
});
