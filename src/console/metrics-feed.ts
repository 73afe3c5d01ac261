// The charts' samples: connect's counters every two seconds while a chart is shown, the last two
// minutes kept (across pages, so a chart does not start empty each time it is opened).
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, baseOf, has } from "./api.ts";
import { countersFromPrometheus, parsePrometheus, type PromSample } from "./prometheus.ts";
import { authorization } from "./token.ts";
import { readMetrics, seriesOf, type Sample, type Series } from "./rates.ts";

const PERIOD_MS = 2000;
const KEEP = 60;
const samples: Sample[] = [];
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;
let source: "sluice" | "prometheus" = "sluice";

async function sample(): Promise<void> {
  try {
    let tasks;
    let at = Date.now();
    if (source === "sluice") {
      try {
        const read = readMetrics(await api<unknown>("connect", "/sluice/metrics"));
        tasks = read.tasks;
        at = read.at ?? at;
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 404) throw err;
        source = "prometheus";
      }
    }
    if (source === "prometheus") {
      const response = await fetch(`${baseOf("connect")}/metrics`, {
        credentials: "same-origin",
        headers: authorization(),
      });
      if (!response.ok) return;
      tasks = countersFromPrometheus(await response.text());
    }
    samples.push({ at, tasks: tasks ?? [] });
    if (samples.length > KEEP) samples.shift();
    for (const l of listeners) l();
  } catch {
    // A missed sample leaves a gap; the next one carries on.
  }
}

/** The series per connector and per "connector/task", live while the calling component is shown. */
export function useSeries(): Map<string, Series> {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!has("connect")) return;
    const changed = () => setTick((t) => t + 1);
    listeners.add(changed);
    if (!timer) {
      void sample();
      timer = setInterval(sample, PERIOD_MS);
    }
    return () => {
      listeners.delete(changed);
      if (listeners.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }, []);
  return seriesOf(samples);
}

/** Connect's Prometheus /metrics, parsed: the gauges tasks publish (the worker the console reaches). */
export async function readConnectMetrics(): Promise<PromSample[]> {
  const response = await fetch(`${baseOf("connect")}/metrics`, {
    credentials: "same-origin",
    headers: authorization(),
  });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return parsePrometheus(await response.text());
}
