// The connect worker's /metrics: HTTP traffic, the state of the connectors and tasks this worker runs,
// and what its tasks move (Kafka Connect's source-record-poll/write, sink-record-read/send, record
// errors and offset-commit time, as Prometheus series labelled by connector and task).
import { Counter, Gauge, Histogram, HttpMetrics, newRegistry, type Registry } from "../../platform/metrics.ts";
import type { PluginMetrics } from "../api/connector.ts";

type TaskLabel = "connector" | "task";

/** What one running task reports; the worker hands one to each task it starts. */
export interface TaskMetrics {
  /** Records a source task's poll() returned. */
  polled(records: number): void;
  /** Source records the broker acknowledged. */
  written(records: number): void;
  /** Records a sink task read from the broker. */
  read(records: number): void;
  /** Records handed to a sink task's put() that it accepted. */
  put(records: number): void;
  /** A record that failed in a conversion or transform: skipped (tolerated) or failing the task. */
  recordError(tolerated: boolean): void;
  /** Starts timing an offset commit; call the result once the commit succeeded. */
  commitTimer(): () => void;
  /** An offset commit that succeeded after `seconds` (timed elsewhere, e.g. on a task thread). */
  committed(seconds: number): void;
  /** A sink task's lag: records in its partitions not yet consumed. */
  lag(records: number): void;
  /** An exactly-once source task committed a transaction of this many records. */
  transaction(records: number): void;
}

interface PluginSeries {
  /** The task that published it ("<connector>-<index>"), so its series go when it stops. */
  task: string;
  labels: Readonly<Record<string, string>>;
  /** A task thread's gauge answers by message, hence a promise. */
  read: () => number | Promise<number>;
}

interface StateSample {
  connector: string;
  /** Absent for the connector itself. */
  task?: number;
  state: string;
}

/** One task's counters as GET /sluice/metrics answers them: totals since it started here, and its lag. */
export interface TaskTotals {
  connector: string;
  task: number;
  polled: number;
  written: number;
  read: number;
  put: number;
  /** Record errors, tolerated or failing. */
  errors: number;
  /** A sink task's lag as of its last commit; null before one (and for source tasks). */
  lag: number | null;
}

/** A plugin gauge's series read now (GET /sluice/metrics?gauges=); null where it reads NaN (not known yet). */
export interface PluginGaugeValue {
  name: string;
  labels: Record<string, string>;
  value: number | null;
}

type StatusView = {
  name: string;
  connector: { state: string; worker_id: string };
  tasks: { id: number; state: string; worker_id: string }[];
};

/** What the metrics read the connectors' states from: the herder, as GET /connectors/{c}/status shows them. */
export interface StatusSource {
  readonly workerId: string;
  connectorNames(): string[];
  status(name: string): Promise<StatusView>;
}

export class ConnectMetrics {
  readonly registry: Registry = newRegistry();
  readonly http = new HttpMetrics(this.registry);
  private readonly polledTotal: Counter<TaskLabel>;
  private readonly writtenTotal: Counter<TaskLabel>;
  private readonly readTotal: Counter<TaskLabel>;
  private readonly putTotal: Counter<TaskLabel>;
  private readonly errorsTotal: Counter<TaskLabel | "outcome">;
  private readonly commitSeconds: Histogram<TaskLabel>;
  private readonly lagRecords: Gauge<TaskLabel>;
  private readonly transactionRecords: Histogram<TaskLabel>;
  /** Plugin gauges' series by metric name; prom-client keeps the gauges themselves in the registry. */
  private readonly pluginSeries = new Map<string, Map<string, PluginSeries>>();
  private herder?: StatusSource;
  /** One sample per scrape, shared by the two state gauges that collect it at the same time. */
  private sampling?: Promise<StateSample[]>;
  /** The tasks handed metrics and not removed since: what runs on this worker. */
  private readonly running = new Map<string, { connector: string; task: number }>();

  constructor() {
    const registers = [this.registry];
    const labelNames: TaskLabel[] = ["connector", "task"];
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers });
    this.polledTotal = counter(
      "sluice_connect_source_records_polled_total",
      "Records returned by source tasks' poll().",
    );
    this.writtenTotal = counter(
      "sluice_connect_source_records_written_total",
      "Source records written to the broker and acknowledged.",
    );
    this.readTotal = counter("sluice_connect_sink_records_read_total", "Records read from the broker by sink tasks.");
    this.putTotal = counter(
      "sluice_connect_sink_records_put_total",
      "Records handed to sink tasks' put() and accepted.",
    );
    this.errorsTotal = new Counter({
      name: "sluice_connect_record_errors_total",
      help: "Records that failed in a converter or transform, by outcome: tolerated (skipped, errors.tolerance=all) or failed (the task failed).",
      labelNames: [...labelNames, "outcome"],
      registers,
    });
    this.lagRecords = new Gauge({
      name: "sluice_connect_sink_lag_records",
      help: "Records in a sink task's partitions not yet consumed (end offsets − positions), as of its last commit.",
      labelNames,
      registers,
    });
    this.commitSeconds = new Histogram({
      name: "sluice_connect_offset_commit_duration_seconds",
      help: "Time taken by successful offset commits.",
      labelNames,
      registers,
    });
    this.transactionRecords = new Histogram({
      name: "sluice_connect_source_transaction_size_records",
      help: "Records in each transaction an exactly-once source task committed (Kafka's transaction-size-min/max/avg).",
      labelNames,
      buckets: [1, 10, 100, 1000, 10000, 100000],
      registers,
    });
    const sample = () => (this.sampling ??= this.sampleStates().finally(() => (this.sampling = undefined)));
    new Gauge({
      name: "sluice_connect_connector_state",
      help: "1 for the current state of each connector this worker runs.",
      labelNames: ["connector", "state"],
      registers,
      async collect() {
        const states = await sample();
        this.reset();
        for (const s of states) if (s.task === undefined) this.set({ connector: s.connector, state: s.state }, 1);
      },
    });
    new Gauge({
      name: "sluice_connect_task_state",
      help: "1 for the current state of each task this worker runs.",
      labelNames: ["connector", "task", "state"],
      registers,
      async collect() {
        const states = await sample();
        this.reset();
        for (const s of states)
          if (s.task !== undefined) this.set({ connector: s.connector, task: String(s.task), state: s.state }, 1);
      },
    });
  }

  /** States come from the herder's statuses (as GET /connectors/{c}/status shows them), once it exists. */
  trackStates(herder: StatusSource): void {
    this.herder = herder;
  }

  task(connector: string, index: number): TaskMetrics {
    const labels = { connector, task: String(index) };
    this.running.set(JSON.stringify([connector, index]), { connector, task: index });
    const polled = this.polledTotal.labels(labels);
    const written = this.writtenTotal.labels(labels);
    const read = this.readTotal.labels(labels);
    const put = this.putTotal.labels(labels);
    const commits = this.commitSeconds.labels(labels);
    const lag = this.lagRecords.labels(labels);
    const transactions = this.transactionRecords.labels(labels);
    return {
      polled: (n) => polled.inc(n),
      written: (n) => written.inc(n),
      read: (n) => read.inc(n),
      put: (n) => put.inc(n),
      recordError: (tolerated) => this.errorsTotal.inc({ ...labels, outcome: tolerated ? "tolerated" : "failed" }),
      commitTimer: () => commits.startTimer(),
      committed: (seconds) => commits.observe(seconds),
      lag: (n) => lag.set(n),
      transaction: (n) => transactions.observe(n),
    };
  }

  /** The gauges a task's own code publishes (e.g. the PostgreSQL connector's Debezium metrics), kept per task. */
  plugin(
    connector: string,
    index: number,
  ): PluginMetrics & {
    gauge(
      name: string,
      help: string,
      labels: Readonly<Record<string, string>>,
      read: () => number | Promise<number>,
    ): void;
  } {
    const task = `${connector}-${index}`;
    return {
      gauge: (name, help, labels, read) => {
        let series = this.pluginSeries.get(name);
        if (!series) {
          const all = (series = new Map<string, PluginSeries>());
          new Gauge({
            name,
            help,
            labelNames: Object.keys(labels),
            registers: [this.registry],
            async collect() {
              const values = await Promise.all([...all.values()].map(async (s) => [s.labels, await s.read()] as const));
              this.reset();
              for (const [labels, value] of values) this.set(labels, value);
            },
          });
          this.pluginSeries.set(name, series);
        }
        series.set(JSON.stringify([task, labels]), { task, labels, read });
      },
    };
  }

  /** The series of the plugin gauges whose names start with `prefix`, read now (a task thread's by message). */
  async pluginGauges(prefix: string): Promise<PluginGaugeValue[]> {
    const reads: Promise<PluginGaugeValue>[] = [];
    for (const [name, series] of this.pluginSeries) {
      if (!prefix || !name.startsWith(prefix)) continue;
      for (const s of series.values())
        reads.push(
          Promise.resolve(s.read()).then(
            (value) => ({ name, labels: { ...s.labels }, value: Number.isFinite(value) ? value : null }),
            () => ({ name, labels: { ...s.labels }, value: null }),
          ),
        );
    }
    return Promise.all(reads);
  }

  /** Drops a stopped task's series, so tasks that moved to another worker or were deleted do not linger. */
  removeTask(connector: string, index: number): void {
    const labels = { connector, task: String(index) };
    this.running.delete(JSON.stringify([connector, index]));
    for (const metric of [
      this.polledTotal,
      this.writtenTotal,
      this.readTotal,
      this.putTotal,
      this.commitSeconds,
      this.lagRecords,
      this.transactionRecords,
    ])
      metric.remove(labels);
    for (const outcome of ["tolerated", "failed"]) this.errorsTotal.remove({ ...labels, outcome });
    const task = `${connector}-${index}`;
    for (const series of this.pluginSeries.values())
      for (const [key, s] of series) if (s.task === task) series.delete(key);
  }

  /** The counters of each task running on this worker, read from the same series /metrics exposes. */
  async taskTotals(): Promise<TaskTotals[]> {
    const totals = new Map<string, TaskTotals>();
    for (const [key, { connector, task }] of this.running)
      totals.set(key, { connector, task, polled: 0, written: 0, read: 0, put: 0, errors: 0, lag: null });
    const add = async (
      metric: Counter<TaskLabel> | Counter<TaskLabel | "outcome"> | Gauge<TaskLabel>,
      apply: (t: TaskTotals, value: number) => void,
    ) => {
      for (const { labels, value } of (await metric.get()).values) {
        const entry = totals.get(JSON.stringify([labels.connector, Number(labels.task)]));
        if (entry) apply(entry, value);
      }
    };
    await add(this.polledTotal, (t, v) => (t.polled = v));
    await add(this.writtenTotal, (t, v) => (t.written = v));
    await add(this.readTotal, (t, v) => (t.read = v));
    await add(this.putTotal, (t, v) => (t.put = v));
    await add(this.errorsTotal, (t, v) => (t.errors += v));
    await add(this.lagRecords, (t, v) => (t.lag = v));
    return [...totals.values()].sort((a, b) =>
      a.connector < b.connector ? -1 : a.connector > b.connector ? 1 : a.task - b.task,
    );
  }

  /**
   * The statuses of what runs on this worker. Every worker of a cluster can read every status; each
   * exposes only its own, so summing over workers counts each task once.
   */
  private async sampleStates(): Promise<StateSample[]> {
    const herder = this.herder;
    if (!herder) return [];
    const self = herder.workerId;
    const statuses = await Promise.all(
      herder.connectorNames().map((name) => herder.status(name).catch(() => undefined)),
    );
    const samples: StateSample[] = [];
    for (const status of statuses) {
      if (!status) continue; // deleted meanwhile, or no status yet
      if (status.connector.worker_id === self) samples.push({ connector: status.name, state: status.connector.state });
      for (const t of status.tasks)
        if (t.worker_id === self) samples.push({ connector: status.name, task: t.id, state: t.state });
    }
    return samples;
  }
}
