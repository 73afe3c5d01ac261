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

/** The counter of a task object: the largest running total named after records (polled, written, sent...). */
function counters(task: Json): { records: number; lag?: number } {
  let records = 0;
  let lag: number | undefined;
  for (const [key, value] of Object.entries(task)) {
    if (typeof value !== "number") continue;
    if (/lag/i.test(key)) lag = (lag ?? 0) + value;
    else if (/record/i.test(key)) records = Math.max(records, value);
  }
  return { records, lag };
}

function tasksOf(connector: string, tasks: unknown): TaskCounters[] {
  const list = Array.isArray(tasks) ? tasks.map((t, i) => [i, t] as const) : isObject(tasks) ? Object.entries(tasks) : [];
  return list.filter(([, t]) => isObject(t)).map(([key, t]) => {
    const task = t as Json;
    const id = Number(task.task ?? task.id ?? key);
    return { connector, task: id, ...counters(task) };
  });
}

/** Reads the endpoint's answer: connectors as a list ({name, tasks}) or keyed by name, tasks likewise. */
export function readMetrics(body: unknown): TaskCounters[] {
  const root = isObject(body) ? (body.connectors ?? body) : body;
  const entries = Array.isArray(root) ? root.filter(isObject).map((c) => [String(c.name ?? c.connector), c] as const) : isObject(root) ? Object.entries(root) : [];
  return entries.flatMap(([name, c]) => (isObject(c) ? tasksOf(name, c.tasks) : []));
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
