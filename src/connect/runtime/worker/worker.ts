// The worker runs connectors and tasks on this process: it instantiates connectors from the plugin
// registry, starts their tasks (on task threads, or here: task-factory.ts builds them) and reports statuses.
import type { Broker } from "../../../broker/broker.ts";
import { ConfigProviders, hideResolved, reverseTransform } from "../../../platform/config-providers.ts";
import { currentLogSettings, logger } from "../../../platform/log.ts";
import { nextTurn } from "../../../platform/event-loop.ts";
import { refusalReason, type ParsedSettings } from "../../../platform/settings.ts";
import { ConnectMetrics } from "../metrics.ts";
import { ConnectException, type Connector } from "../../api/connector.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { OffsetStore } from "../storage/offset-store.ts";
import { sinkConnectorDefinition, sourceConnectorDefinition, taskCountProblem } from "./connector-config.ts";
import { logStatusChange, logStopped } from "./lifecycle-log.ts";
import { REGEX_TIMEOUT_SETTING, regexThreads } from "../../../jvm/regex-budget.ts";
import { converterSettingsOf, createTask, newConnector, type TaskSpec } from "./task-factory.ts";
import type { Status, StatusListener } from "../status.ts";
import { traceOf } from "./worker-task.ts";
import type { ThreadInit } from "../threads/protocol.ts";
import { TaskThreads, type RunningTask } from "../threads/task-threads.ts";
import type { BrokerChoice } from "../../../broker/index.ts";
import { ConnectorClients, type ClientLease } from "./connector-clients.ts";
import { overridePolicy } from "./client-overrides.ts";
import { taskTransactionalId } from "./worker-config.ts";

const log = logger("worker");

export interface WorkerOptions {
  workerId: string;
  broker: Broker;
  plugins: PluginRegistry;
  offsets: OffsetStore;
  settings: ParsedSettings;
  /** The worker config as given, for converter sub-settings (key.converter.*) and providers. */
  workerConfig: Record<string, string>;
  /** Run tasks on up to `max` threads started from `entry` (absent or 0: on this thread). */
  taskThreads?: { entry: string; max: number; broker: ThreadInit["broker"] };
  /** How `broker` was made on Kafka: connectors with client security overrides get clients like it. */
  kafka?: BrokerChoice;
  /**
   * A distributed worker with exactly.once.source.support=enabled: every source task writes its records
   * and offsets in transactions, with transactional.id `<group.id>-<connector>-<task>`.
   */
  exactlyOnce?: { groupId: string };
}

export interface ConnectorCallbacks {
  onConnectorStatus(status: Status): void;
  onTaskStatus(task: number, status: Status): void;
  onTopic(topic: string): void;
  requestTaskReconfiguration(): void;
}

export class Worker {
  readonly providers: ConfigProviders;
  readonly metrics = new ConnectMetrics();
  /** `props`: the resolved config the connector started with (for Connector.deleted). */
  private readonly connectors = new Map<
    string,
    { instance: Connector; status: Status; props?: Record<string, string> }
  >();
  /** Connectors stopped here without being deleted (target STOPPED): told of their delete all the same. */
  private readonly stopped = new Map<string, { instance: Connector; props: Record<string, string> }>();
  private readonly tasks = new Map<string, RunningTask>();
  private readonly threads?: TaskThreads;
  private readonly clients: ConnectorClients;
  /** Clients of tasks on this thread (connectors with client overrides have their own). */
  private readonly leases = new Map<string, ClientLease>();

  get exactlyOnceEnabled(): boolean {
    return this.options.exactlyOnce !== undefined;
  }

  constructor(readonly options: WorkerOptions) {
    this.providers = ConfigProviders.fromWorkerConfig(options.workerConfig);
    regexThreads.timeoutMs = options.settings.int(REGEX_TIMEOUT_SETTING);
    this.clients = new ConnectorClients(options.broker, options.kafka, overridePolicy(options.settings));
    const threads = options.taskThreads;
    if (threads && threads.max > 0) {
      this.threads = new TaskThreads({
        ...threads,
        init: {
          workerId: options.workerId,
          settings: options.settings.snapshot(),
          log: currentLogSettings(),
          broker: threads.broker,
        },
        broker: options.broker,
        offsets: options.offsets,
        metrics: this.metrics,
      });
    }
  }

  get workerId(): string {
    return this.options.workerId;
  }

  /** Resolves config provider references; the result is only ever handed to plugins. */
  resolve(config: Record<string, string>, resolved?: Map<string, string>): Record<string, string> {
    return this.providers.resolve(config, resolved);
  }

  newConnector(className: string): Connector {
    return newConnector(this.options.plugins, className);
  }

  /** Starts a connector; returns its task configs (empty when it failed or is stopped). */
  async startConnector(
    name: string,
    config: Record<string, string>,
    target: "STARTED" | "PAUSED",
    callbacks: ConnectorCallbacks,
  ): Promise<Record<string, string>[]> {
    this.threads?.prepare(); // its tasks follow, here or on another worker
    const workerId = this.workerId;
    const resolved = new Map<string, string>();
    const setStatus = (state: Status["state"], trace?: string) => {
      const status: Status = { state, workerId, ...(trace ? { trace: hideResolved(trace, resolved) } : {}) };
      const entry = this.connectors.get(name);
      logStatusChange(name, undefined, entry?.status.state, status);
      if (entry) entry.status = status;
      callbacks.onConnectorStatus(status);
    };
    try {
      const connector = this.newConnector(config["connector.class"]!);
      this.connectors.set(name, { instance: connector, status: { state: "UNASSIGNED", workerId } });
      this.stopped.delete(name);
      // A config saved before Sluice refused one of its settings (validation refuses it now) does not run without it.
      const framework = connector.type === "source" ? sourceConnectorDefinition : sinkConnectorDefinition;
      const refused = [framework, connector.config()].flatMap((d) => d.unsupportedIn(config).refused);
      if (refused.length > 0)
        throw new ConnectException(
          `The connector's config, saved before Sluice refused them, has settings Sluice does not support: ${refused.map(refusalReason).join("; ")}`,
        );
      connector.initialize({
        requestTaskReconfiguration: () => callbacks.requestTaskReconfiguration(),
        raiseError: (error) => setStatus("FAILED", traceOf(error)),
      });
      const values = this.resolve(config, resolved);
      await connector.start(values);
      const started = this.connectors.get(name);
      if (started?.instance === connector) started.props = values;
      const settings = (connector.type === "source" ? sourceConnectorDefinition : sinkConnectorDefinition).parse(
        values,
      ).values;
      const configs = connector.taskConfigs(settings.int("tasks.max"));
      const problem = taskCountProblem(name, configs.length, settings);
      if (problem.fail) throw new ConnectException(problem.fail);
      if (problem.warn) log.warn({ connector: name }, problem.warn);
      setStatus(target === "PAUSED" ? "PAUSED" : "RUNNING");
      return reverseTransform(config, configs);
    } catch (err) {
      setStatus("FAILED", traceOf(err));
      return [];
    }
  }

  /** `deleted`: its config is gone for good (its tasks stopped already): Connector.deleted follows stop(). */
  async stopConnector(name: string, deleted = false): Promise<void> {
    const entry = this.connectors.get(name);
    this.connectors.delete(name);
    if (!entry) {
      const stopped = this.stopped.get(name);
      this.stopped.delete(name);
      if (deleted && stopped) await this.deleted(name, stopped.instance, stopped.props);
      return;
    }
    try {
      await entry.instance.stop();
    } catch (err) {
      log.warn(
        { connector: name, err: err instanceof Error ? err.message : String(err) },
        "connector failed while stopping",
      );
    }
    logStopped(name);
    if (!entry.props) return;
    if (deleted) await this.deleted(name, entry.instance, entry.props);
    else this.stopped.set(name, { instance: entry.instance, props: entry.props });
  }

  private async deleted(name: string, connector: Connector, props: Record<string, string>): Promise<void> {
    try {
      await connector.deleted?.(props);
    } catch (err) {
      log.warn(
        { connector: name, err: err instanceof Error ? err.message : String(err) },
        "connector failed while cleaning up after its deletion",
      );
    }
  }

  pauseConnector(name: string, callbacks: ConnectorCallbacks): void {
    const entry = this.connectors.get(name);
    if (entry && entry.status.state === "RUNNING") {
      logStatusChange(name, undefined, "RUNNING", (entry.status = { state: "PAUSED", workerId: this.workerId }));
      callbacks.onConnectorStatus(entry.status);
    }
  }

  resumeConnector(name: string, callbacks: ConnectorCallbacks): void {
    const entry = this.connectors.get(name);
    if (entry && entry.status.state === "PAUSED") {
      logStatusChange(name, undefined, "PAUSED", (entry.status = { state: "RUNNING", workerId: this.workerId }));
      callbacks.onConnectorStatus(entry.status);
    }
  }

  connectorType(className: string): "source" | "sink" | "unknown" {
    const plugin = this.options.plugins.find(className, "source", "sink");
    return plugin ? (plugin.type as "source" | "sink") : "unknown";
  }

  /** Starts task `index` of a connector with its task config, on a task thread unless task.threads is 0. */
  async startTask(
    name: string,
    index: number,
    connectorConfig: Record<string, string>,
    taskConfig: Record<string, string>,
    paused: boolean,
    callbacks: ConnectorCallbacks,
  ): Promise<void> {
    const id = `${name}-${index}`;
    const resolved = new Map<string, string>();
    let previous: Status["state"] | undefined;
    const onStatus: StatusListener = (reported) => {
      const status = reported.trace ? { ...reported, trace: hideResolved(reported.trace, resolved) } : reported;
      logStatusChange(name, index, previous, status);
      previous = status.state;
      callbacks.onTaskStatus(index, status);
    };
    // Herders start a connector's tasks one after another, and a start may not wait on any I/O: a turn
    // of the event loop first lets REST requests in between a thousand task starts.
    await nextTurn();
    try {
      const spec: TaskSpec = {
        connector: name,
        index,
        connectorConfig: this.resolve(connectorConfig, resolved),
        taskConfig: this.resolve(taskConfig, resolved),
        workerConverters: this.resolve(converterSettingsOf(this.options.workerConfig), resolved),
        paused,
      };
      const source = this.connectorType(connectorConfig["connector.class"]!) === "source";
      const eos = source ? this.options.exactlyOnce : undefined;
      const { offsets } = this.options;
      if (source) await offsets.useTopic?.(name, spec.connectorConfig["offsets.storage.topic"]);
      if (eos && offsets.topicFor) {
        const transactionalId = taskTransactionalId(eos.groupId, name, index);
        spec.exactlyOnce = { transactionalId, offsetsTopic: offsets.topicFor(name) };
        // Fenced before the offsets are read: an earlier owner's open transaction (a zombie's) is aborted
        // and cannot commit after them.
        await this.options.broker.fenceProducers([transactionalId]);
      }
      // In a cluster the task may have run elsewhere until now: read what it committed there.
      if (source) await this.options.offsets.refresh?.();
      if (this.threads) {
        const offsets = source ? this.options.offsets.all(name) : [];
        this.tasks.set(id, this.threads.start(spec, offsets, { onStatus, onTopic: callbacks.onTopic }));
        return;
      }
      const lease = await this.clients.acquire(spec.connectorConfig, source ? "source" : "sink");
      this.leases.set(id, lease);
      const task = await createTask(
        {
          workerId: this.workerId,
          plugins: this.options.plugins,
          settings: this.options.settings,
          broker: lease.broker,
          offsets: this.options.offsets,
          metrics: this.metrics.task(name, index),
          pluginMetrics: this.metrics.plugin(name, index),
          onTopic: callbacks.onTopic,
        },
        spec,
        onStatus,
      );
      this.tasks.set(id, task);
      task.start();
    } catch (err) {
      onStatus({ state: "FAILED", workerId: this.workerId, trace: traceOf(err) });
    }
  }

  async stopTask(name: string, index: number): Promise<void> {
    const id = `${name}-${index}`;
    const task = this.tasks.get(id);
    this.tasks.delete(id);
    await task?.stop(this.options.settings.int("task.shutdown.graceful.timeout.ms"));
    await this.leases.get(id)?.release();
    this.leases.delete(id);
    this.metrics.removeTask(name, index);
    if (task) logStopped(name, index);
  }

  pauseTask(name: string, index: number): void {
    this.tasks.get(`${name}-${index}`)?.pause();
  }

  resumeTask(name: string, index: number): void {
    this.tasks.get(`${name}-${index}`)?.resume();
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.tasks.keys()].map((id) => {
        const at = id.lastIndexOf("-");
        return this.stopTask(id.slice(0, at), Number(id.slice(at + 1)));
      }),
    );
    await Promise.all([...this.connectors.keys()].map((name) => this.stopConnector(name)));
    this.threads?.close();
  }
}
