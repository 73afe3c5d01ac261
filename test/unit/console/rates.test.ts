import { expect, test } from "bun:test";
import { countersFromPrometheus, parsePrometheus } from "#src/console/prometheus.ts";
import { readMetrics, seriesOf } from "#src/console/rates.ts";

test("/sluice/metrics: a task's records are the largest of its running totals", () => {
  const body = {
    time: 1000,
    tasks: [
      { connector: "src", task: 0, worker: "w", polled: 10, written: 8, read: 0, put: 0, errors: 0, lag: null },
      { connector: "snk", task: 0, worker: "w", polled: 0, written: 0, read: 5, put: 4, errors: 0, lag: 7 },
    ],
    unreachable: [],
  };
  expect(readMetrics(body)).toEqual({
    at: 1000,
    tasks: [
      { connector: "src", task: 0, records: 10 },
      { connector: "snk", task: 0, records: 5, lag: 7 },
    ],
  });
});

test("rates per task and per connector between samples; a restarted task's reset is no negative rate", () => {
  const t = (records: number, lag?: number) => ({ connector: "c", task: 0, records, lag });
  const series = seriesOf([
    { at: 0, tasks: [t(0), { connector: "c", task: 1, records: 0 }] },
    { at: 2000, tasks: [t(100, 3), { connector: "c", task: 1, records: 50 }] },
    { at: 4000, tasks: [t(10, 1), { connector: "c", task: 1, records: 150 }] },
  ]);
  expect(series.get("c/0")!.rates).toEqual([50, 0]);
  expect(series.get("c/1")!.rates).toEqual([25, 50]);
  expect(series.get("c")!.rates).toEqual([75, 50]);
  expect(series.get("c")!.lags).toEqual([3, 1]);
});

test("Prometheus text of an older worker gives the same counters", () => {
  const text = [
    "# HELP sluice_connect_source_records_polled_total Records returned by source tasks' poll().",
    'sluice_connect_source_records_polled_total{connector="a",task="0"} 42',
    'sluice_connect_source_records_written_total{connector="a",task="0"} 40',
    'sluice_connect_sink_records_read_total{connector="b",task="1"} 9',
    'sluice_connect_sink_lag_records{connector="b",task="1"} 3',
    'sluice_connect_task_state{connector="a",task="0",state="RUNNING"} 1',
  ].join("\n");
  expect(parsePrometheus('m{x="a\\"b"} 1')).toEqual([{ name: "m", labels: { x: 'a"b' }, value: 1 }]);
  expect(countersFromPrometheus(text)).toEqual([
    { connector: "a", task: 0, records: 42 },
    { connector: "b", task: 1, records: 9, lag: 3 },
  ]);
});
