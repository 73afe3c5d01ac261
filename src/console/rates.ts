// Records per second and sink lag from connect's /sluice/metrics: the endpoint gives running totals,
// the console keeps a short history of samples and charts the differences.

export interface TaskCounters {
  connector: string;
  task: number;
  /** Records the task has moved (polled by a source, written by a sink), a running total. */
  records: number;
  /** A sink task's consumer lag (records behind), when it has one. */
  lag?: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const COUNTERS = ["polled", "written", "read", "put"];

/**
 * Reads /sluice/metrics: `{time, tasks: [{connector, task, polled, written, read, put, lag}]}`, each a
 * running total of the task's records (a source polls and writes, a sink reads and puts: the largest is
 * what it has moved).
 */
export function readMetrics(body: unknown): { at?: number; tasks: TaskCounters[] } {
  const root = isObject(body) ? body : {};
  const tasks = (Array.isArray(root.tasks) ? root.tasks : []).filter(isObject).map((t) => {
    const records = Math.max(0, ...COUNTERS.map((c) => (typeof t[c] === "number" ? (t[c] as number) : 0)));
    return {
      connector: String(t.connector),
      task: Number(t.task),
      records,
      ...(typeof t.lag === "number" ? { lag: t.lag } : {}),
    };
  });
  return { at: typeof root.time === "number" ? root.time : undefined, tasks };
}

export interface Sample {
  at: number;
  tasks: TaskCounters[];
}

export interface Series {
  /** "connector" or "connector/task". */
  key: string;
  rates: number[];
  lags: number[];
}

const keyOf = (t: TaskCounters) => `${t.connector}/${t.task}`;

/** Per task and per connector, records per second between successive samples, and the lag at each. */
export function seriesOf(samples: Sample[]): Map<string, Series> {
  const out = new Map<string, Series>();
  const get = (key: string) => out.get(key) ?? out.set(key, { key, rates: [], lags: [] }).get(key)!;
  for (let s = 1; s < samples.length; s++) {
    const before = new Map(samples[s - 1]!.tasks.map((t) => [keyOf(t), t]));
    const seconds = Math.max(0.001, (samples[s]!.at - samples[s - 1]!.at) / 1000);
    const perConnector = new Map<string, { rate: number; lag: number }>();
    for (const task of samples[s]!.tasks) {
      const prev = before.get(keyOf(task));
      // A restarted task starts its totals again: no negative rates.
      const rate = prev ? Math.max(0, task.records - prev.records) / seconds : 0;
      const series = get(keyOf(task));
      series.rates.push(rate);
      series.lags.push(task.lag ?? 0);
      const sum = perConnector.get(task.connector) ?? { rate: 0, lag: 0 };
      perConnector.set(task.connector, { rate: sum.rate + rate, lag: sum.lag + (task.lag ?? 0) });
    }
    for (const [connector, sum] of perConnector) {
      const series = get(connector);
      series.rates.push(sum.rate);
      series.lags.push(sum.lag);
    }
  }
  return out;
}
