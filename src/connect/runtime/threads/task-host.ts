// A task thread: runs the tasks the worker hands it (task-threads.ts), each with its whole pipeline
// (poll/put, transforms, converters) and, on Kafka, its own Kafka client. Statuses, metrics, offsets and
// topics go back to the worker as messages. An error a task's code throws outside its awaits (a timer,
// a callback, process.exit) fails that task only; the thread and its other tasks carry on.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Broker } from "../../../broker/broker.ts";
import { createBroker } from "../../../broker/index.ts";
import { regexThreads, REGEX_TIMEOUT_SETTING } from "../../../jvm/regex-budget.ts";
import { logger, setLogFormat, setLogLevel } from "../../../platform/log.ts";
import { ParsedSettings } from "../../../platform/settings.ts";
import type { PluginMetrics } from "../../api/connector.ts";
import type { TaskMetrics } from "../metrics.ts";
import { loadPlugins } from "../plugins/loader.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { OffsetEntry, OffsetStore } from "../storage/offset-store.ts";
import { ConnectorClients, type ClientLease } from "../worker/connector-clients.ts";
import { overridePolicy } from "../worker/client-overrides.ts";
import { createTask, type TaskEnvironment } from "../worker/task-factory.ts";
import type { Status } from "../status.ts";
import { traceOf, type WorkerTask } from "../worker/worker-task.ts";
import {
  answer,
  PendingCalls,
  type CallTarget,
  type FromThread,
  type MetricName,
  type OffsetSnapshot,
  type ThreadInit,
  type ToThread,
} from "./protocol.ts";
import { RemoteBroker } from "./remote-broker.ts";

declare const self: Worker;
const log = logger("task thread");

interface Hosted {
  task?: WorkerTask;
  lease?: ClientLease;
  gauges: Map<string, () => number>;
}

/** The body of a task thread; `catalog` gives the built-in plugins (the entry, src/task-thread.ts, knows them). */
export function hostTasks(catalog: (settings: ParsedSettings) => PluginRegistry): void {
  const post = (message: FromThread) => self.postMessage(message);
  const pending = new PendingCalls();
  const call = (target: CallTarget, method: string, args: unknown[]) =>
    pending.call((id) => post({ type: "call", id, target, method, args }));
  const hosted = new Map<string, Hosted>();
  const current = new AsyncLocalStorage<string>();
  let workerId = "";
  let ready:
    | Promise<{ settings: ParsedSettings; plugins: PluginRegistry; broker: Broker; clients: ConnectorClients }>
    | undefined;

  async function setUp(init: ThreadInit) {
    setLogLevel(init.log.level);
    setLogFormat(init.log.format);
    const settings = ParsedSettings.from(init.settings);
    regexThreads.timeoutMs = settings.int(REGEX_TIMEOUT_SETTING);
    const plugins = catalog(settings);
    await loadPlugins(settings.list("plugin.path"), plugins);
    const broker =
      init.broker.kind === "kafka"
        ? createBroker(init.broker.choice)
        : new RemoteBroker((method, args) => call("broker", method, args));
    await broker.connect();
    return {
      settings,
      plugins,
      broker,
      clients: new ConnectorClients(
        broker,
        init.broker.kind === "kafka" ? init.broker.choice : undefined,
        overridePolicy(settings),
      ),
    };
  }

  /** Fails the task whose code threw outside its loop; with one task on the thread, it is that one. */
  function failCurrent(error: unknown, what: string): void {
    const id = current.getStore() ?? (hosted.size === 1 ? [...hosted.keys()][0] : undefined);
    const task = id === undefined ? undefined : hosted.get(id)?.task;
    if (task) task.fail(error);
    else log.error({ err: traceOf(error) }, `${what} on a task thread, not traced to one of its tasks`);
  }
  process.on("uncaughtException", (err) => failCurrent(err, "uncaught exception"));
  process.on("unhandledRejection", (err) => failCurrent(err, "unhandled rejection"));
  // A plugin's process.exit() would end the thread and every task on it: it fails the caller instead.
  process.exit = ((code?: number) => {
    throw new Error(`a task called process.exit(${code ?? ""}); a task cannot end the worker's process`);
  }) as typeof process.exit;

  async function start(id: string, message: Extract<ToThread, { type: "start" }>): Promise<void> {
    const entry: Hosted = { gauges: new Map() };
    hosted.set(id, entry);
    const onStatus = (status: Status) => post({ type: "status", task: id, status });
    try {
      const { settings, plugins, clients } = await ready!;
      const type = plugins.find(message.spec.connectorConfig["connector.class"] ?? "", "source", "sink")?.type;
      entry.lease = await clients.acquire(
        message.spec.connectorConfig,
        type === "source" || type === "sink" ? type : undefined,
      );
      const env: TaskEnvironment = {
        workerId,
        plugins,
        settings,
        broker: entry.lease.broker,
        offsets: new ThreadOffsets(
          message.offsets,
          (method, connector, entries) => call("offsets", method, [connector, entries]) as Promise<void>,
        ),
        metrics: threadMetrics((metric, value) => post({ type: "metric", task: id, metric, value })),
        pluginMetrics: threadPluginMetrics(id, entry.gauges, post),
        onTopic: (topic) => post({ type: "topic", task: id, topic }),
      };
      await current.run(id, async () => {
        const task = await createTask(env, message.spec, onStatus);
        if (!hosted.has(id)) {
          await entry.lease?.release(); // stopped while it was being built
          return;
        }
        entry.task = task;
        task.start();
      });
    } catch (err) {
      onStatus({ state: "FAILED", workerId, trace: traceOf(err) });
    }
  }

  async function stop(id: string, timeoutMs: number): Promise<void> {
    const entry = hosted.get(id);
    await entry?.task?.stop(timeoutMs);
    await entry?.lease?.release();
    hosted.delete(id);
    post({ type: "stopped", task: id });
  }

  self.onmessage = (event: MessageEvent<ToThread>) => {
    const message = event.data;
    switch (message.type) {
      case "init":
        workerId = message.init.workerId;
        ready = setUp(message.init);
        ready.catch((err) => log.error({ err: traceOf(err) }, "task thread could not start"));
        return;
      case "start":
        void start(message.task, message);
        return;
      case "pause":
        hosted.get(message.task)?.task?.pause();
        return;
      case "resume":
        hosted.get(message.task)?.task?.resume();
        return;
      case "stop":
        void stop(message.task, message.timeoutMs);
        return;
      case "gauge": {
        const [task] = message.key.split("\u0000");
        const read = hosted.get(task!)?.gauges.get(message.key);
        void answer(message.id, () => (read ? read() : Number.NaN), post);
        return;
      }
      case "reply":
        pending.settle(message);
        return;
    }
  };
}

/** A source connector's offsets on a task thread: read from the snapshot the task started with and what it commits since. */
class ThreadOffsets implements OffsetStore {
  private readonly offsets = new Map<string, OffsetEntry>();

  constructor(
    snapshot: OffsetSnapshot,
    private readonly store: (method: "set" | "stored", connector: string, entries: OffsetEntry[]) => Promise<void>,
  ) {
    for (const entry of snapshot) this.offsets.set(JSON.stringify(entry.partition), entry);
  }

  get(_connector: string, partition: Record<string, unknown>): Record<string, unknown> | null {
    return this.offsets.get(JSON.stringify(partition))?.offset ?? null;
  }

  all(): OffsetEntry[] {
    return [...this.offsets.values()];
  }

  async set(connector: string, entries: OffsetEntry[]): Promise<void> {
    await this.store("set", connector, entries);
    for (const entry of entries) this.offsets.set(JSON.stringify(entry.partition), entry);
  }

  stored(connector: string, entries: OffsetEntry[]): void {
    for (const entry of entries) this.offsets.set(JSON.stringify(entry.partition), entry);
    void this.store("stored", connector, entries).catch(() => undefined); // the worker's copy; the topic has them
  }
}

function threadMetrics(send: (metric: MetricName, value: number) => void): TaskMetrics {
  return {
    polled: (n) => send("polled", n),
    written: (n) => send("written", n),
    read: (n) => send("read", n),
    put: (n) => send("put", n),
    recordError: (tolerated) => send("recordError", tolerated ? 1 : 0),
    commitTimer: () => {
      const started = performance.now();
      return () => send("commitSeconds", (performance.now() - started) / 1000);
    },
    committed: (seconds) => send("commitSeconds", seconds),
    lag: (n) => send("lag", n),
    transaction: (n) => send("transaction", n),
  };
}

/** A task's own gauges stay on its thread; the worker reads them by key at each scrape. */
function threadPluginMetrics(
  task: string,
  gauges: Map<string, () => number>,
  post: (message: FromThread) => void,
): PluginMetrics {
  return {
    gauge: (name, help, labels, read) => {
      const key = [task, name, JSON.stringify(labels)].join("\u0000");
      gauges.set(key, read);
      post({ type: "plugin-gauge", task, name, help, labels: { ...labels }, key });
    },
  };
}
