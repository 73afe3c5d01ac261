// The worker runs connectors and tasks on this process: it instantiates them from the plugin registry,
// builds each task's converters, transforms and error handling, and reports their statuses.
import type { Broker } from "../../../broker/broker.ts";
import { ConfigProviders, hideResolved, reverseTransform } from "../../../platform/config-providers.ts";
import { logger } from "../../../platform/log.ts";
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { Converter, HeaderConverter } from "../../api/converter.ts";
import { isSimpleHeaderConverter, SimpleHeaderConverter } from "../../converters/simple-header.ts";
import { ConnectMetrics } from "../metrics.ts";
import { ConnectException, type Connector, type SinkTask, type SourceTask } from "../../api/connector.ts";
import type { ConnectRecord } from "../../api/records.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { OffsetStore } from "../storage/offset-store.ts";
import { sinkConnectorDefinition, sourceConnectorDefinition, taskCountProblem } from "./connector-config.ts";
import { sinkPartitions } from "./sink-partitions.ts";
import { DeadLetterQueueReporter } from "../errors/dead-letter-queue.ts";
import { RetryWithToleranceOperator } from "../errors/tolerance.ts";
import { logStatusChange, logStopped } from "./lifecycle-log.ts";
import { TransformChain, type ChainOptions } from "../../transforms/chain.ts";
import { REGEX_TIMEOUT_SETTING, regexThreads } from "../../../jvm/regex-budget.ts";
import { WorkerSinkTask } from "./sink-task.ts";
import { WorkerSourceTask } from "./source-task.ts";
import { traceOf, WorkerTask, type Status, type StatusListener } from "./worker-task.ts";

const log = logger("worker");

export interface WorkerOptions {
  workerId: string;
  broker: Broker;
  plugins: PluginRegistry;
  offsets: OffsetStore;
  settings: ParsedSettings;
  /** The worker config as given, for converter sub-settings (key.converter.*) and providers. */
  workerConfig: Record<string, string>;
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
  private readonly connectors = new Map<string, { instance: Connector; status: Status }>();
  private readonly tasks = new Map<string, WorkerTask>();

  constructor(readonly options: WorkerOptions) {
    this.providers = ConfigProviders.fromWorkerConfig(options.workerConfig);
    regexThreads.timeoutMs = options.settings.int(REGEX_TIMEOUT_SETTING);
  }

  get workerId(): string {
    return this.options.workerId;
  }

  /** Resolves config provider references; the result is only ever handed to plugins. */
  resolve(config: Record<string, string>, resolved?: Map<string, string>): Record<string, string> {
    return this.providers.resolve(config, resolved);
  }

  newConnector(className: string): Connector {
    const plugin = this.options.plugins.find(className, "source", "sink");
    if (!plugin) throw new Error(`Failed to find any class that implements Connector and which name matches ${className}`);
    return plugin.create() as Connector;
  }

  /** Starts a connector; returns its task configs (empty when it failed or is stopped). */
  async startConnector(name: string, config: Record<string, string>, target: "STARTED" | "PAUSED", callbacks: ConnectorCallbacks): Promise<Record<string, string>[]> {
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
      connector.initialize({
        requestTaskReconfiguration: () => callbacks.requestTaskReconfiguration(),
        raiseError: (error) => setStatus("FAILED", traceOf(error)),
      });
      const values = this.resolve(config, resolved);
      await connector.start(values);
      const settings = (connector.type === "source" ? sourceConnectorDefinition : sinkConnectorDefinition).parse(values).values;
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

  async stopConnector(name: string): Promise<void> {
    const entry = this.connectors.get(name);
    this.connectors.delete(name);
    if (!entry) return;
    try {
      await entry.instance.stop();
    } catch (err) {
      log.warn({ connector: name, err: err instanceof Error ? err.message : String(err) }, "connector failed while stopping");
    }
    logStopped(name);
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

  /** Starts task `index` of a connector with its task config. */
  async startTask(name: string, index: number, connectorConfig: Record<string, string>, taskConfig: Record<string, string>, paused: boolean, callbacks: ConnectorCallbacks): Promise<void> {
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
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      const resolvedConnector = this.resolve(connectorConfig, resolved);
      const resolvedTask = this.resolve(taskConfig, resolved);
      const connector = this.newConnector(connectorConfig["connector.class"]!);
      const TaskClass = connector.taskClass();
      const chain = TransformChain.fromConfig<ConnectRecord>(resolvedConnector, chainLookups(this.options.plugins));
      const transform = <R extends ConnectRecord>(record: R) => chain.apply(record) as Promise<R | null>;
      const flushIntervalMs = this.options.settings.int("offset.flush.interval.ms");
      const metrics = this.metrics.task(name, index);
      let task: WorkerTask;
      if (connector.type === "source") {
        const settings = sourceConnectorDefinition.parse(resolvedConnector).values;
        // In a cluster the task may have run elsewhere until now: read what it committed there.
        await this.options.offsets.refresh?.();
        task = new WorkerSourceTask(id, this.workerId, paused, onStatus, {
          task: new TaskClass() as SourceTask,
          taskConfig: resolvedTask,
          connector: name,
          keyConverter: this.converter(resolvedConnector, "key.converter", true),
          valueConverter: this.converter(resolvedConnector, "value.converter", false),
          headerConverter: this.headerConverter(resolvedConnector),
          converterClasses: this.converterClasses(resolvedConnector),
          transform,
          errors: new RetryWithToleranceOperator(settings, id, metrics),
          broker: this.options.broker,
          offsets: this.options.offsets,
          flushIntervalMs,
          metrics,
          pluginMetrics: this.metrics.plugin(name, index),
          createTopics: this.options.settings.boolean("topic.creation.enable"),
          onTopic: callbacks.onTopic,
        });
      } else {
        const settings = sinkConnectorDefinition.parse(resolvedConnector).values;
        const dlq = await DeadLetterQueueReporter.create(this.options.broker, settings, name, index);
        task = new WorkerSinkTask(id, this.workerId, paused, onStatus, {
          task: new TaskClass() as SinkTask,
          taskConfig: resolvedTask,
          connector: name,
          group: `connect-${name}`,
          partitions: (await sinkPartitions(this.options.broker, settings.list("topics"), settings.string("topics.regex"), true)).filter((_, i) => i % settings.int("tasks.max") === index),
          keyConverter: this.converter(resolvedConnector, "key.converter", true),
          valueConverter: this.converter(resolvedConnector, "value.converter", false),
          headerConverter: this.headerConverter(resolvedConnector),
          converterClasses: this.converterClasses(resolvedConnector),
          transform,
          errors: new RetryWithToleranceOperator(settings, id, metrics, dlq ? [dlq] : []),
          broker: this.options.broker,
          flushIntervalMs,
          metrics,
          onTopic: callbacks.onTopic,
        });
      }
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
    await Promise.all([...this.tasks.keys()].map((id) => {
      const at = id.lastIndexOf("-");
      return this.stopTask(id.slice(0, at), Number(id.slice(at + 1)));
    }));
    await Promise.all([...this.connectors.keys()].map((name) => this.stopConnector(name)));
  }

  private converterClasses(config: Record<string, string>): { key: string; value: string; header: string } {
    const name = (setting: "key.converter" | "value.converter" | "header.converter", ...types: ("converter" | "header_converter")[]) => {
      const given = config[setting] ?? this.options.workerConfig[setting] ?? this.options.settings.string(setting);
      if (setting === "header.converter" && isSimpleHeaderConverter(given)) return SimpleHeaderConverter.className;
      return this.options.plugins.find(given, ...types)?.className ?? given;
    };
    return { key: name("key.converter", "converter"), value: name("value.converter", "converter"), header: name("header.converter", "header_converter", "converter") };
  }

  /** The connector's converter, else the worker's; sub-settings come with whichever config named it. */
  private converter(config: Record<string, string>, setting: "key.converter" | "value.converter", isKey: boolean): Converter {
    const source = config[setting] ? config : this.options.workerConfig;
    const className = source[setting] ?? this.options.settings.string(setting);
    const plugin = this.options.plugins.find(className, "converter");
    if (!plugin) throw new Error(`Invalid value ${className} for configuration ${setting}: Class ${className} could not be found.`);
    const converter = plugin.create() as Converter;
    converter.configure(this.converterSettings(source, setting), isKey);
    return converter;
  }

  /**
   * The connector's header.converter, else the worker's (SimpleHeaderConverter by default), as Kafka's
   * Worker builds it: any HeaderConverter, which Kafka's own converters also are.
   */
  private headerConverter(config: Record<string, string>): HeaderConverter {
    const setting = "header.converter";
    const source = config[setting] ? config : this.options.workerConfig;
    const className = (source[setting] ?? this.options.settings.string(setting)).trim();
    const converter = isSimpleHeaderConverter(className) ? new SimpleHeaderConverter() : this.options.plugins.find(className, "header_converter", "converter")?.create();
    if (!converter) throw new Error(`Invalid value ${className} for configuration ${setting}: Class ${className} could not be found.`);
    if (!("fromConnectHeader" in converter)) throw new Error(`Invalid value ${className} for configuration ${setting}: Class ${className} is not a HeaderConverter.`);
    converter.configure(this.converterSettings(source, setting), false);
    return converter;
  }

  /** A converter's own settings: `<setting>.*` of the config that named it, prefix removed. */
  private converterSettings(source: Record<string, string>, setting: string): Record<string, string> {
    const prefix = `${setting}.`;
    return Object.fromEntries(Object.entries(this.resolve(source)).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
  }
}

/** Transforms and predicates from plugin.path modules, for chains and their validation. */
export function chainLookups(plugins: PluginRegistry): ChainOptions {
  return {
    lookup: (name) => plugins.find(name, "transformation")?.create,
    predicateLookup: (name) => plugins.find(name, "predicate")?.create,
  };
}
