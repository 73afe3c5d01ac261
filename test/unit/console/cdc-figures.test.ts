import { describe, expect, test } from "bun:test";
import { cdcFigures, formatBytes, serverOf } from "#src/console/cdc-figures.ts";
import { parsePrometheus } from "#src/console/prometheus.ts";

const metrics = (running: 0 | 1, rows: [number, number], estimates: [string, string]) =>
  parsePrometheus(`
sluice_postgres_cdc_slot_retained_wal_bytes{server="shop",slot="shop_slot"} 3145728
sluice_postgres_cdc_slot_confirmed_flush_lag_bytes{server="shop",slot="shop_slot"} 1024
sluice_postgres_cdc_slot_retained_wal_bytes{server="other",slot="other"} 1
debezium_metrics_total_table_count{context="snapshot",server="shop"} 2
debezium_metrics_snapshot_running{context="snapshot",server="shop"} ${running}
debezium_metrics_snapshot_completed{context="snapshot",server="shop"} ${1 - running}
debezium_metrics_snapshot_duration_in_seconds{context="snapshot",server="shop"} 10
debezium_metrics_rows_scanned{context="snapshot",server="shop",table="public.a"} ${rows[0]}
debezium_metrics_rows_scanned{context="snapshot",server="shop",table="public.b"} ${rows[1]}
sluice_postgres_cdc_snapshot_estimated_rows{server="shop",table="public.a",basis="statistics"} ${estimates[0]}
sluice_postgres_cdc_snapshot_estimated_rows{server="shop",table="public.b",basis="size"} ${estimates[1]}
`);

describe("a CDC connector's figures on its page", () => {
  test("the slot's WAL retained, of this connector's server only", () => {
    expect(cdcFigures(metrics(1, [0, 0], ["1", "1"]), "shop").slot).toEqual({
      slot: "shop_slot",
      retainedBytes: 3_145_728,
      confirmedFlushLagBytes: 1024,
    });
    expect(formatBytes(3_145_728)).toBe("3.0 MiB");
    expect(formatBytes(512)).toBe("512 B");
  });

  test("a running snapshot: rows of the estimate, percent, time left at the rate so far, tables estimated from size", () => {
    expect(cdcFigures(metrics(1, [20_000, 5_000], ["40000", "60000"]), "shop").snapshot).toEqual({
      running: true,
      completed: false,
      rows: 25_000,
      estimate: 100_000,
      percent: 25,
      timeLeftMs: 30_000,
      estimatedFromSize: ["public.b"],
    });
  });

  test("no estimate without every table's, no time left once done", () => {
    const unknown = cdcFigures(metrics(1, [10, 0], ["100", "NaN"]), "shop").snapshot!;
    expect(unknown).toMatchObject({ estimate: null, percent: null, timeLeftMs: null });
    expect(cdcFigures(metrics(0, [100, 50], ["100", "50"]), "shop").snapshot).toMatchObject({
      completed: true,
      percent: 100,
      timeLeftMs: null,
    });
  });

  test("no figures for another server; the server is topic.prefix, or database.server.name", () => {
    expect(cdcFigures(metrics(1, [1, 1], ["1", "1"]), "nobody")).toEqual({ slot: null, snapshot: null });
    expect(serverOf({ "topic.prefix": "a", "database.server.name": "b" })).toBe("a");
    expect(serverOf({ "database.server.name": "b" })).toBe("b");
  });
});
