// Builds one running task from its resolved configs: the connector's task, its transforms, converters,
// error handling and dead letter queue around a broker and an offset store. The same code builds a task
// on the main thread and on a task thread (threads/task-host.ts), from whatever broker and stores that
// thread has.
import type { Broker } from "../../../broker/broker.ts";
import { taskClientTuning } from "../../../broker/client-settings.ts";
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { Converter, HeaderConverter } from "../../api/converter.ts";
import type { PluginMetrics, SinkTask, SourceTask, Connector } from "../../api/connector.ts";
import type { ConnectRecord } from "../../api/records.ts";
import { isSimpleHeaderConverter, SimpleHeaderConverter } from "../../converters/simple-header.ts";
import { TransformChain, type ChainOptions } from "../../transforms/chain.ts";
import { DeadLetterQueueReporter } from "../errors/dead-letter-queue.ts";
import { RetryWithToleranceOperator } from "../errors/tolerance.ts";
import type { TaskMetrics } from "../metrics.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { OffsetStore } from "../storage/offset-store.ts";
import { sinkConnectorDefinition, sourceConnectorDefinition } from "./connector-config.ts";
import { metadataMaxAgeMs, sinkPartitions, taskShare } from "./sink-partitions.ts";
import { WorkerSinkTask } from "./sink-task.ts";
import { WorkerSourceTask } from "./source-task.ts";
import type { TransactionBoundary } from "./transaction-boundaries.ts";
import type { StatusListener } from "../status.ts";
import type { WorkerTask } from "./worker-task.ts";

/** What a task is started from: everything resolved (config providers) by the worker beforehand. */
export interface TaskSpec {
  connector: string;
  index: number;
  connectorConfig: Record<string, string>;
  taskConfig: Record<string, string>;
  /** The worker config's converter settings (`key.converter*`, `value.converter*`, `header.converter*`). */
  workerConverters: Record<string, string>;
  paused: boolean;
  /** A source task on a worker with exactly-once source support: its producer's id and the offsets topic. */
  exactlyOnce?: { transactionalId: string; offsetsTopic: string };
}

/** What the thread building the task offers it. */
export interface TaskEnvironment {
  workerId: string;
  plugins: PluginRegistry;
  settings: ParsedSettings;
  broker: Broker;
  offsets: OffsetStore;
  metrics: TaskMetrics;
  pluginMetrics: PluginMetrics;
  onTopic: (topic: string) => void;
}

const CONVERTER_SETTINGS = /^(key|value|header)\.converter(\.|$)/;

/** The part of a worker config a task's converters read. */
export function converterSettingsOf(workerConfig: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(workerConfig).filter(([k]) => CONVERTER_SETTINGS.test(k)));
}

export function newConnector(plugins: PluginRegistry, className: string): Connector {
  const plugin = plugins.find(className, "source", "sink");
  if (!plugin)
    throw new Error(`Failed to find any class that implements Connector and which name matches ${className}`);
  return plugin.create() as Connector;
}

export async function createTask(env: TaskEnvironment, spec: TaskSpec, onStatus: StatusListener): Promise<WorkerTask> {
  const { connectorConfig, taskConfig, connector: name, index } = spec;
  const id = `${name}-${index}`;
  const converters = new TaskConverters(env, connectorConfig, spec.workerConverters);
  const connector = newConnector(env.plugins, connectorConfig["connector.class"]!);
  const TaskClass = connector.taskClass();
  const chain = TransformChain.fromConfig<ConnectRecord>(connectorConfig, chainLookups(env.plugins));
  const transform = <R extends ConnectRecord>(record: R) => chain.apply(record) as R | null | Promise<R | null>;
  const flushIntervalMs = env.settings.int("offset.flush.interval.ms");
  // The worker's client settings with the connector's overrides: what the task does with them itself.
  const clients = taskClientTuning(env.settings.extra, connectorConfig);
  const common = {
    taskConfig,
    connector: name,
    keyConverter: converters.converter("key.converter", true),
    valueConverter: converters.converter("value.converter", false),
    headerConverter: converters.headerConverter(),
    converterClasses: converters.classes(),
    broker: env.broker,
    flushIntervalMs,
    metrics: env.metrics,
    onTopic: env.onTopic,
  };
  if (connector.type === "source") {
    const settings = sourceConnectorDefinition.parse(connectorConfig).values;
    const eos = spec.exactlyOnce;
    return new WorkerSourceTask(id, env.workerId, spec.paused, onStatus, {
      ...(eos
        ? {
            exactlyOnce: {
              // Opening it fences every earlier producer of this task.
              producer: await env.broker.transactionalProducer(eos.transactionalId),
              boundary: settings.string("transaction.boundary").toLowerCase() as TransactionBoundary,
              intervalMs: Number(settings.optionalString("transaction.boundary.interval.ms") ?? flushIntervalMs),
              offsetsTopic: eos.offsetsTopic,
            },
          }
        : {}),
      ...common,
      task: new TaskClass() as SourceTask,
      transform,
      errors: new RetryWithToleranceOperator(settings, id, env.metrics),
      offsets: env.offsets,
      pluginMetrics: env.pluginMetrics,
      createTopics: env.settings.boolean("topic.creation.enable"),
      deliveryTimeoutMs: clients.producer.deliveryTimeoutMs,
      ...(clients.producer.bufferMemory === undefined ? {} : { bufferMemory: clients.producer.bufferMemory }),
    });
  }
  const settings = sinkConnectorDefinition.parse(connectorConfig).values;
  const dlq = await DeadLetterQueueReporter.create(env.broker, settings, name, index);
  const share = async (createMissing: boolean) =>
    taskShare(
      await sinkPartitions(env.broker, settings.list("topics"), settings.string("topics.regex"), createMissing),
      index,
      settings.int("tasks.max"),
    );
  return new WorkerSinkTask(id, env.workerId, spec.paused, onStatus, {
    ...common,
    task: new TaskClass() as SinkTask,
    group: `connect-${name}`,
    consumer: clients.consumer,
    partitions: await share(true),
    // A named topic deleted meanwhile is not made again: only the first subscription creates.
    refresh: { partitions: () => share(false), everyMs: metadataMaxAgeMs(connectorConfig, env.settings.extra) },
    transform,
    errors: new RetryWithToleranceOperator(settings, id, env.metrics, dlq ? [dlq] : []),
  });
}

/** A task's converters: the connector's, else the worker's; sub-settings come with whichever config named it. */
class TaskConverters {
  constructor(
    private readonly env: TaskEnvironment,
    private readonly config: Record<string, string>,
    private readonly workerConfig: Record<string, string>,
  ) {}

  private source(setting: string): Record<string, string> {
    return this.config[setting] ? this.config : this.workerConfig;
  }

  /** The converters' class names as configured, for error reports and DLQ headers. */
  classes(): { key: string; value: string; header: string } {
    const name = (
      setting: "key.converter" | "value.converter" | "header.converter",
      ...types: ("converter" | "header_converter")[]
    ) => {
      const given = this.source(setting)[setting] ?? this.env.settings.string(setting);
      if (setting === "header.converter" && isSimpleHeaderConverter(given)) return SimpleHeaderConverter.className;
      return this.env.plugins.find(given, ...types)?.className ?? given;
    };
    return {
      key: name("key.converter", "converter"),
      value: name("value.converter", "converter"),
      header: name("header.converter", "header_converter", "converter"),
    };
  }

  converter(setting: "key.converter" | "value.converter", isKey: boolean): Converter {
    const className = this.source(setting)[setting] ?? this.env.settings.string(setting);
    const plugin = this.env.plugins.find(className, "converter");
    if (!plugin)
      throw new Error(
        `Invalid value ${className} for configuration ${setting}: Class ${className} could not be found.`,
      );
    const converter = plugin.create() as Converter;
    converter.configure(this.subSettings(setting), isKey);
    return converter;
  }

  /**
   * The connector's header.converter, else the worker's (SimpleHeaderConverter by default), as Kafka's
   * Worker builds it: any HeaderConverter, which Kafka's own converters also are.
   */
  headerConverter(): HeaderConverter {
    const setting = "header.converter";
    const className = (this.source(setting)[setting] ?? this.env.settings.string(setting)).trim();
    const converter = isSimpleHeaderConverter(className)
      ? new SimpleHeaderConverter()
      : this.env.plugins.find(className, "header_converter", "converter")?.create();
    if (!converter)
      throw new Error(
        `Invalid value ${className} for configuration ${setting}: Class ${className} could not be found.`,
      );
    if (!("fromConnectHeader" in converter))
      throw new Error(
        `Invalid value ${className} for configuration ${setting}: Class ${className} is not a HeaderConverter.`,
      );
    converter.configure(this.subSettings(setting), false);
    return converter;
  }

  /** A converter's own settings: `<setting>.*` of the config that named it, prefix removed. */
  private subSettings(setting: string): Record<string, string> {
    const prefix = `${setting}.`;
    return Object.fromEntries(
      Object.entries(this.source(setting))
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, v]) => [k.slice(prefix.length), v]),
    );
  }
}

/** Transforms and predicates from plugin.path modules, for chains and their validation. */
export function chainLookups(plugins: PluginRegistry): ChainOptions {
  return {
    lookup: (name) => plugins.find(name, "transformation")?.create,
    predicateLookup: (name) => plugins.find(name, "predicate")?.create,
  };
}
