// Connect's Prometheus /metrics read for the charts when the worker has no /sluice/metrics (older
// servers): the per-task record counters and sink lag, as rates.ts's TaskCounters.
import type { TaskCounters } from "./rates.ts";

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parsePrometheus(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const RECORDS = /^sluice_connect_(source_records_(polled|written)|sink_records_(read|put))_total$/;

export function countersFromPrometheus(text: string): TaskCounters[] {
  const tasks = new Map<string, TaskCounters>();
  for (const s of parsePrometheus(text)) {
    const { connector, task } = s.labels;
    if (connector === undefined || task === undefined) continue;
    const isLag = s.name === "sluice_connect_sink_lag_records";
    if (!isLag && !RECORDS.test(s.name)) continue;
    const key = `${connector}/${task}`;
    const t = tasks.get(key) ?? tasks.set(key, { connector, task: Number(task), records: 0 }).get(key)!;
    if (isLag) t.lag = s.value;
    else t.records = Math.max(t.records, s.value);
  }
  return [...tasks.values()];
}
