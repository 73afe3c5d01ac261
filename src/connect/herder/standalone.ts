// Standalone mode: one worker owns every connector. Configs live in memory (from files at start, and
// REST changes until restart, as Kafka Connect's standalone herder); offsets live in the offset store.
import { logger } from "../../common/log.ts";
import { VERSION } from "../../version.ts";
import { SettingsDefinition } from "../../common/settings.ts";
import { ConnectRestError, connectErrors } from "../errors.ts";
import type { TopicPartition } from "../plugins/connector.ts";
import type { PluginDescriptor } from "../plugins/registry.ts";
import { connectorFrameworkDefinition, sinkTopicProblems } from "../worker/connector-config.ts";
import { chainLookups, type ConnectorCallbacks, type Worker } from "../worker/worker.ts";
import { validateTransforms } from "../transforms/chain.ts";
import type { Status } from "../worker/worker-task.ts";
import { configInfos, invalidConfigMessage, type ConfigInfos } from "./config-infos.ts";

const log = logger("herder");

export type TargetState = "STARTED" | "PAUSED" | "STOPPED";

export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type: "source" | "sink" | "unknown";
}

/** A connector's or task's state; `version` is the plugin's (Kafka 4.1 shows it). */
export interface StateInfo {
  state: string;
  worker_id: string;
  version?: string;
  trace?: string;
}

export interface ConnectorStateInfo {
  name: string;
  connector: StateInfo;
  tasks: ({ id: number } & StateInfo)[];
  type: "source" | "sink" | "unknown";
}

interface Entry {
  config: Record<string, string>;
  target: TargetState;
  taskConfigs: Record<string, string>[];
  connectorStatus?: Status;
  taskStatuses: Map<number, Status>;
  topics: Set<string>;
  /**
   * Sink partitions whose offsets were reset while stopped. Kafka deletes the consumer group; here
   * the group's position moves to the earliest record (the same for consumption), and the offsets
   * API shows no offset for them until the connector runs again.
   */
  resetPartitions?: Set<string>;
}

export interface OffsetsView {
  offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];
}

/** A connector class no plugin provides (Kafka's ConnectException, which validate wraps once more). */
export class UnknownConnectorClass extends ConnectRestError {
  constructor(message: string) {
    super(400, message);
  }
}

/** Headers always go through SimpleHeaderConverter's rules (record-conversion.ts); the name is accepted. */
const SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter";
const isSimpleHeaderConverter = (name: string) => [SIMPLE_HEADER_CONVERTER, "SimpleHeaderConverter"].includes(name.trim());

export class StandaloneHerder {
  private readonly entries = new Map<string, Entry>();
  /** Task starts so far, and the latest start of each task (connector name + NUL + index). */
  private taskStarts = 0;
  private readonly currentTaskStart = new Map<string, number>();

  constructor(readonly worker: Worker) {}

  connectorNames(): string[] {
    return [...this.entries.keys()].sort();
  }

  // ---- validation ----

  validate(config: Record<string, string>): ConfigInfos {
    const className = config["connector.class"];
    if (!className) throw connectErrors.badRequest(`Connector config ${javaMap(config)} contains no connector type`);
    const plugins = this.worker.options.plugins;
    const plugin = plugins.find(className, "source", "sink");
    if (!plugin) {
      // Kafka lists its PluginDesc objects, sorted by class name.
      const installed = plugins
        .list("source", "sink")
        .sort((a, b) => (a.className < b.className ? -1 : a.className > b.className ? 1 : 0))
        .map(pluginDesc)
        .join(", ");
      throw new UnknownConnectorClass(`Failed to find any class that implements Connector and which name matches ${className}, available connectors are: ${installed}`);
    }
    const connector = plugin.create() as { config(): SettingsDefinition };
    const type = plugin.type as "source" | "sink";
    const framework = connectorFrameworkDefinition(type, plugin.version);
    const transforms = new Map(Object.entries(validateTransforms(config, chainLookups(plugins))));
    const { problems: classes, unparsed } = this.classProblems(config, plugin);
    const extra = [transforms, classes, ...(type === "sink" ? [sinkTopicProblems(config)] : [])];
    const infos = configInfos(className, [framework, connector.config()], config, extra, unparsed);
    this.addConverterChoices(infos, config, plugin, unparsed);
    return infos;
  }

  /**
   * What Kafka's recommenders add: the installed converters and plugin versions, and the worker's
   * converters where the connector names none.
   */
  private addConverterChoices(infos: ConfigInfos, config: Record<string, string>, plugin: PluginDescriptor, unparsed: Set<string>): void {
    const plugins = this.worker.options.plugins;
    const converters = plugins.list("converter").map((p) => p.className);
    const headerConverters = [...new Set([...converters, ...plugins.list("header_converter").map((p) => p.className), SIMPLE_HEADER_CONVERTER])];
    const byName = new Map(infos.configs.map((c) => [c.value?.name, c]));
    const choose = (key: string, values: string[], value: string | null | undefined, defaultValue?: string) => {
      const entry = byName.get(key);
      if (!entry?.value) return;
      entry.value.recommended_values = [...values].sort();
      if (value !== undefined) entry.value.value = value;
      // The worker's settings are the defaults of a connector's converters.
      if (defaultValue !== undefined && entry.definition) entry.definition.default_value = defaultValue;
    };
    const versionOf = (className: string) => (isSimpleHeaderConverter(className) ? VERSION : plugins.find(className.trim(), "converter", "header_converter")?.version);
    if (plugin.version !== undefined) choose("connector.plugin.version", [plugin.version], undefined);
    for (const key of ["key.converter", "value.converter", "header.converter"] as const) {
      const workers = this.worker.options.workerConfig[key] ?? this.worker.options.settings.string(key);
      const effective = config[key] ?? workers;
      choose(key, key === "header.converter" ? headerConverters : converters, unparsed.has(key) ? null : effective, workers);
      const version = unparsed.has(key) ? undefined : versionOf(effective);
      if (version !== undefined) choose(`${key}.plugin.version`, [version], config[`${key}.plugin.version`] ?? version, versionOf(workers));
    }
  }

  /** Converter classes and the plugin version must exist, as Kafka loads them while validating. */
  private classProblems(config: Record<string, string>, plugin: PluginDescriptor): { problems: Map<string, string[]>; unparsed: Set<string> } {
    const plugins = this.worker.options.plugins;
    const problems = new Map<string, string[]>();
    const unparsed = new Set<string>();
    const converters: [string, ("converter" | "header_converter")[]][] = [
      ["key.converter", ["converter"]],
      ["value.converter", ["converter"]],
      ["header.converter", ["header_converter", "converter"]],
    ];
    for (const [key, types] of converters) {
      const value = config[key];
      if (value == null || plugins.find(value.trim(), ...types) || (key === "header.converter" && isSimpleHeaderConverter(value))) continue;
      problems.set(key, [`Invalid value ${value} for configuration ${key}: Class ${value.trim()} could not be found.`]);
      unparsed.add(key);
    }
    const wanted = config["connector.plugin.version"]?.trim();
    if (wanted && plugin.version !== undefined && !versionMatches(wanted, plugin.version)) {
      const range = /^[[(]/.test(wanted) ? wanted : `[${wanted},${wanted}]`;
      const message = `Plugin ${plugin.className} not found that matches the version range ${range}, available versions: [${plugin.version}]`;
      problems.set("connector.class", [message]);
      problems.set("connector.plugin.version", [message]);
    }
    return { problems, unparsed };
  }

  private validOrThrow(config: Record<string, string>): void {
    for (const [key, value] of Object.entries(config)) {
      if (value === null) throw new ConnectRestError(500, `Non-string value found in original settings for key ${key}: null`);
    }
    const infos = this.validate(config);
    if (infos.error_count > 0) throw connectErrors.badRequest(invalidConfigMessage(infos));
  }

  // ---- connector lifecycle ----

  /** Creates or replaces a connector; `created` tells which. */
  async putConnector(name: string, config: Record<string, string>, options: { allowReplace: boolean; initialState?: TargetState }): Promise<{ created: boolean; info: ConnectorInfo }> {
    const full = { ...config, name };
    this.validOrThrow(full);
    const existing = this.entries.get(name);
    if (existing && !options.allowReplace) throw connectErrors.conflict(`Connector ${name} already exists`);
    if (existing) {
      existing.config = full;
      await this.restartAll(name);
      return { created: false, info: this.info(name) };
    }
    this.entries.set(name, { config: full, target: options.initialState ?? "STARTED", taskConfigs: [], taskStatuses: new Map(), topics: new Set() });
    await this.startAll(name);
    log.info({ connector: name }, "connector created");
    return { created: true, info: this.info(name) };
  }

  async patchConnector(name: string, patch: Record<string, string | null>): Promise<ConnectorInfo> {
    const entry = this.need(name);
    const merged: Record<string, string> = { ...entry.config };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    if (merged.name !== undefined && merged.name !== name) {
      throw connectErrors.badRequest(`Connector name configuration (${merged.name}) doesn't match connector name in the URL (${name})`);
    }
    return (await this.putConnector(name, merged, { allowReplace: true })).info;
  }

  async deleteConnector(name: string): Promise<void> {
    this.need(name);
    await this.stopAll(name);
    this.entries.delete(name);
    log.info({ connector: name }, "connector deleted");
  }

  async pause(name: string): Promise<void> {
    const entry = this.needKnown(name);
    entry.target = "PAUSED";
    const callbacks = this.callbacks(name);
    if (entry.connectorStatus?.state === "STOPPED") return;
    this.worker.pauseConnector(name, callbacks);
    entry.taskConfigs.forEach((_, i) => this.worker.pauseTask(name, i));
  }

  async resume(name: string): Promise<void> {
    const entry = this.needKnown(name);
    const wasStopped = entry.target === "STOPPED";
    entry.target = "STARTED";
    if (wasStopped) return this.startAll(name);
    this.worker.resumeConnector(name, this.callbacks(name));
    entry.taskConfigs.forEach((_, i) => this.worker.resumeTask(name, i));
    // Created paused, it has no tasks yet: they are generated once it runs, as Kafka does.
    if (entry.taskConfigs.length === 0) await this.restartConnectorOnly(name);
  }

  /** KIP-875 stop: the connector and its tasks shut down, no tasks remain. */
  async stop(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) throw new ConnectRestError(500, `No connector \`${name}\` configured`);
    if (entry.target === "STOPPED") return;
    entry.target = "STOPPED";
    await this.stopAll(name);
    entry.taskConfigs = [];
    entry.taskStatuses.clear();
    entry.connectorStatus = { state: "STOPPED", workerId: this.worker.workerId };
  }

  /** Restarts the connector and/or tasks (KIP-745 rules); returns the planned states when tasks are included. */
  async restart(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<ConnectorStateInfo | undefined> {
    const entry = this.entries.get(name);
    if (!entry) throw connectErrors.notFound(`Unknown connector: ${name}`);
    const restartConnector = !onlyFailed || entry.connectorStatus?.state === "FAILED";
    const tasks = includeTasks ? entry.taskConfigs.map((_, i) => i).filter((i) => !onlyFailed || entry.taskStatuses.get(i)?.state === "FAILED") : [];
    if (!includeTasks && !onlyFailed) {
      await this.restartConnectorOnly(name);
      return undefined;
    }
    // The planned states keep the last trace, as Kafka's restart plan does.
    const restarting = (previous: Status | undefined): Status => ({ state: "RESTARTING", workerId: this.worker.workerId, ...(previous?.trace ? { trace: previous.trace } : {}) });
    if (restartConnector) entry.connectorStatus = restarting(entry.connectorStatus);
    for (const i of tasks) entry.taskStatuses.set(i, restarting(entry.taskStatuses.get(i)));
    const planned = this.status(name);
    void (async () => {
      if (restartConnector) await this.restartConnectorOnly(name);
      for (const i of tasks) await this.restartTask(name, i);
    })();
    return planned;
  }

  async restartTask(name: string, index: number): Promise<void> {
    const entry = this.need(name);
    const taskConfig = entry.taskConfigs[index];
    if (!taskConfig) throw connectErrors.notFound(`Task ${name}-${index} not found`);
    await this.worker.stopTask(name, index);
    await this.worker.startTask(name, index, entry.config, taskConfig, entry.target === "PAUSED", this.taskCallbacks(name, index));
  }

  // ---- reads ----

  info(name: string): ConnectorInfo {
    const entry = this.need(name);
    return {
      name,
      config: { ...entry.config },
      tasks: entry.taskConfigs.map((_, task) => ({ connector: name, task })),
      type: this.worker.connectorType(entry.config["connector.class"]!),
    };
  }

  config(name: string): Record<string, string> {
    return { ...this.need(name).config };
  }

  taskConfigs(name: string): { id: { connector: string; task: number }; config: Record<string, string> }[] {
    return this.need(name).taskConfigs.map((config, task) => ({ id: { connector: name, task }, config: { ...config } }));
  }

  status(name: string): ConnectorStateInfo {
    const entry = this.entries.get(name);
    if (!entry?.connectorStatus) throw connectErrors.notFound(`No status found for connector ${name}`);
    const show = this.stateInfo(entry);
    return {
      name,
      connector: show(entry.connectorStatus),
      tasks: [...entry.taskStatuses.entries()].sort(([a], [b]) => a - b).map(([id, s]) => ({ id, ...show(s) })),
      type: this.worker.connectorType(entry.config["connector.class"]!),
    };
  }

  taskStatus(name: string, index: number): { id: number } & StateInfo {
    const entry = this.entries.get(name);
    const status = entry?.taskStatuses.get(index);
    if (!entry || !status) throw connectErrors.notFound(`No status found for task ${name}-${index}`);
    return { id: index, ...this.stateInfo(entry)(status) };
  }

  private stateInfo(entry: Entry): (s: Status) => StateInfo {
    const version = this.worker.options.plugins.find(entry.config["connector.class"]!, "source", "sink")?.version;
    return (s) => ({ state: s.state, worker_id: s.workerId, ...(version !== undefined ? { version } : {}), ...(s.trace ? { trace: s.trace } : {}) });
  }

  /** Topics are tracked by name; Kafka answers for any name, known connector or not. */
  topics(name: string): { [connector: string]: { topics: string[] } } {
    return { [name]: { topics: [...(this.entries.get(name)?.topics ?? [])].sort() } };
  }

  resetTopics(name: string): void {
    this.entries.get(name)?.topics.clear();
  }

  // ---- offsets (KIP-875) ----

  async offsets(name: string): Promise<OffsetsView> {
    const entry = this.need(name);
    if (this.worker.connectorType(entry.config["connector.class"]!) === "source") {
      return { offsets: this.worker.options.offsets.all(name) };
    }
    const out: OffsetsView["offsets"] = [];
    for (const tp of await this.sinkPartitions(entry)) {
      const committed = await this.worker.options.broker.committedOffsets(`connect-${name}`, tp.topic);
      const offset = committed.get(tp.partition);
      if (entry.resetPartitions?.has(`${tp.topic}-${tp.partition}`)) continue;
      if (offset !== undefined) out.push({ partition: { kafka_topic: tp.topic, kafka_partition: tp.partition }, offset: { kafka_offset: offset } });
    }
    return { offsets: out };
  }

  async alterOffsets(name: string, offsets: OffsetsView["offsets"] | undefined): Promise<string> {
    const entry = this.requireStopped(name);
    if (!offsets || offsets.length === 0) throw connectErrors.badRequest("Partitions / offsets need to be provided for an alter offsets request");
    const ownedByConnector = await this.writeOffsets(name, entry, offsets);
    return ownedByConnector
      ? "The offsets for this connector have been altered successfully"
      : "The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.";
  }

  async resetOffsets(name: string): Promise<string> {
    const entry = this.requireStopped(name);
    const current = (await this.offsets(name)).offsets.map((o) => ({ partition: o.partition, offset: null }));
    const ownedByConnector = await this.writeOffsets(name, entry, current);
    return ownedByConnector
      ? "The offsets for this connector have been reset successfully"
      : "The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses.";
  }

  /**
   * Validates and writes offsets (null = reset). Returns the connector's alterOffsets answer: true when
   * it has nothing outside Connect to alter.
   */
  private async writeOffsets(name: string, entry: Entry, offsets: OffsetsView["offsets"]): Promise<boolean> {
    const isSource = this.worker.connectorType(entry.config["connector.class"]!) === "source";
    const sinkOffsets = isSource ? [] : parseSinkOffsets(offsets);
    const connector = this.worker.newConnector(entry.config["connector.class"]!);
    let handled = false;
    if (connector.alterOffsets) {
      const byPartition = new Map(offsets.map((o) => [o.partition, o.offset] as const));
      try {
        handled = connector.alterOffsets(this.worker.resolve(entry.config), byPartition) === true;
      } catch (err) {
        // A connector refusing the offsets is a server error in Kafka too (its ConnectException).
        throw new ConnectRestError(500, err instanceof Error ? err.message : String(err));
      }
    }
    if (isSource) {
      await this.worker.options.offsets.set(name, offsets);
      return handled;
    }
    const broker = this.worker.options.broker;
    for (const { offset } of sinkOffsets) {
      // Kafka's admin client refuses negative positions; the request then fails as a whole.
      if (offset !== null && offset < 0) throw new ConnectRestError(500, `Failed to modify offsets for sink connector ${name}`);
    }
    for (const { topic, partition, offset } of sinkOffsets) {
      // A reset (null) goes back to the earliest record, as deleting the group would.
      const target = offset === null ? (await broker.startOffsets(topic))[partition] ?? 0 : offset;
      await broker.commitOffsets(`connect-${name}`, topic, [{ partition, offset: target }]);
      entry.resetPartitions ??= new Set();
      if (offset === null) entry.resetPartitions.add(`${topic}-${partition}`);
      else entry.resetPartitions.delete(`${topic}-${partition}`);
    }
    return handled;
  }

  private requireStopped(name: string): Entry {
    const entry = this.need(name);
    if (entry.target !== "STOPPED") {
      throw connectErrors.badRequest("Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/" + name + "/stop' endpoint");
    }
    return entry;
  }

  private async sinkPartitions(entry: Entry): Promise<TopicPartition[]> {
    const broker = this.worker.options.broker;
    const topics = (entry.config.topics ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    const regex = entry.config["topics.regex"];
    const names = regex ? (await broker.listTopics()).filter((t) => new RegExp(`^(?:${regex})$`).test(t)) : topics;
    const out: TopicPartition[] = [];
    for (const topic of names) {
      const d = await broker.describeTopic(topic);
      for (let p = 0; p < (d?.partitions ?? 0); p++) out.push({ topic, partition: p });
    }
    return out;
  }

  // ---- running ----

  async shutdown(): Promise<void> {
    await this.worker.stop();
  }

  private need(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw connectErrors.notFound(`Connector ${name} not found`);
    return entry;
  }

  /** As need(), with the wording of Kafka's pause, resume and restart endpoints. */
  private needKnown(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw connectErrors.notFound(`Unknown connector ${name}`);
    return entry;
  }

  /** Task configs as the worker hands them out: each names its task class (Kafka's task.class). */
  private withTaskClass(config: Record<string, string>, taskConfigs: Record<string, string>[]): Record<string, string>[] {
    const plugin = this.worker.options.plugins.find(config["connector.class"]!, "source", "sink");
    if (!plugin || taskConfigs.length === 0) return taskConfigs;
    const taskClass = (plugin.create() as { taskClass(): { name: string; className?: string } }).taskClass();
    // A task class may name its Java-style class; otherwise it lives in the connector's package.
    const pkg = plugin.className.includes(".") ? plugin.className.slice(0, plugin.className.lastIndexOf(".") + 1) : "";
    const name = taskClass.className ?? `${pkg}${taskClass.name}`;
    return taskConfigs.map((c) => ({ ...c, "task.class": name }));
  }

  /**
   * Callbacks for one start of a task: once the task is started again, what the earlier instance
   * reports (e.g. one abandoned after task.shutdown.graceful.timeout.ms) no longer counts.
   */
  private taskCallbacks(name: string, index: number): ConnectorCallbacks {
    const generation = ++this.taskStarts;
    this.currentTaskStart.set(`${name}\u0000${index}`, generation);
    const base = this.callbacks(name);
    return {
      ...base,
      onTaskStatus: (task, status) => {
        if (this.currentTaskStart.get(`${name}\u0000${task}`) === generation) base.onTaskStatus(task, status);
      },
    };
  }

  private callbacks(name: string): ConnectorCallbacks {
    return {
      onConnectorStatus: (status) => {
        const entry = this.entries.get(name);
        if (entry) entry.connectorStatus = status;
      },
      onTaskStatus: (task, status) => {
        const entry = this.entries.get(name);
        // A stopped task reports UNASSIGNED; a task no longer configured is forgotten instead.
        if (entry && task < entry.taskConfigs.length) entry.taskStatuses.set(task, status);
      },
      onTopic: (topic) => this.entries.get(name)?.topics.add(topic),
      requestTaskReconfiguration: () => void this.restartAll(name),
    };
  }

  private async startAll(name: string): Promise<void> {
    const entry = this.need(name);
    if (entry.target === "STOPPED") {
      entry.connectorStatus = { state: "STOPPED", workerId: this.worker.workerId };
      return;
    }
    entry.resetPartitions = undefined;
    const callbacks = this.callbacks(name);
    const configs = await this.worker.startConnector(name, entry.config, entry.target, callbacks);
    // Kafka generates task configs only for a running connector: one started paused keeps the tasks
    // it had (none when new) until it is resumed.
    if (entry.target === "STARTED") entry.taskConfigs = this.withTaskClass(entry.config, configs);
    entry.taskStatuses.clear();
    for (let i = 0; i < entry.taskConfigs.length; i++) {
      entry.taskStatuses.set(i, { state: "UNASSIGNED", workerId: this.worker.workerId });
      await this.worker.startTask(name, i, entry.config, entry.taskConfigs[i]!, entry.target === "PAUSED", this.taskCallbacks(name, i));
    }
  }

  private async stopAll(name: string): Promise<void> {
    const entry = this.need(name);
    await Promise.all(entry.taskConfigs.map((_, i) => this.worker.stopTask(name, i)));
    await this.worker.stopConnector(name);
  }

  private async restartAll(name: string): Promise<void> {
    await this.stopAll(name);
    await this.startAll(name);
  }

  private async restartConnectorOnly(name: string): Promise<void> {
    const entry = this.need(name);
    await this.worker.stopConnector(name);
    if (entry.target === "STOPPED") return;
    const started = await this.worker.startConnector(name, entry.config, entry.target, this.callbacks(name));
    if (entry.target !== "STARTED") return; // paused: tasks are reconfigured on resume
    const configs = this.withTaskClass(entry.config, started);
    // New task configs mean the tasks must be reconfigured too.
    if (JSON.stringify(configs) !== JSON.stringify(entry.taskConfigs)) {
      await Promise.all(entry.taskConfigs.map((_, i) => this.worker.stopTask(name, i)));
      entry.taskConfigs = configs;
      entry.taskStatuses.clear();
      for (let i = 0; i < configs.length; i++) await this.worker.startTask(name, i, entry.config, configs[i]!, false, this.taskCallbacks(name, i));
    }
  }
}

/**
 * Java's Map.toString of the HashMap Kafka copies a config into before printing it: entries come in
 * bucket order of a table sized for the map (JDK 17's HashMap(Map) sizing), then insertion order.
 */
function javaMap(config: Record<string, string>): string {
  const keys = Object.keys(config);
  const wanted = Math.trunc(Math.fround(Math.fround(keys.length / 0.75) + 1));
  let capacity = 1;
  while (capacity < wanted) capacity *= 2;
  const bucket = (key: string) => {
    let h = 0;
    for (let i = 0; i < key.length; i++) h = (Math.imul(31, h) + key.charCodeAt(i)) | 0;
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  const ordered = keys.map((k, i) => ({ k, i, b: bucket(k) })).sort((a, b) => a.b - b.b || a.i - b.i);
  return `{${ordered.map(({ k }) => `${k}=${config[k]}`).join(", ")}}`;
}

/** Sink offsets as Kafka's SinkUtils reads them, with its messages for what it refuses. */
function parseSinkOffsets(offsets: OffsetsView["offsets"]): { topic: string; partition: number; offset: number | null }[] {
  const integer = (value: unknown, what: "partition" | "offset"): number => {
    const text = typeof value === "number" || typeof value === "string" ? String(value) : undefined;
    if (text === undefined || !/^[+-]?\d+$/.test(text.trim())) {
      const kind = what === "partition" ? "Partition" : "Offset";
      throw connectErrors.badRequest(`Failed to parse the following Kafka ${what} value in the provided offsets: '${String(value)}'. ${kind} values for sink connectors need to be integers.`);
    }
    return Number(text);
  };
  return offsets.map(({ partition, offset }) => {
    if (partition === null || typeof partition !== "object") throw connectErrors.badRequest("The partition for a sink connector offset cannot be null or missing");
    if (!("kafka_topic" in partition) || !("kafka_partition" in partition)) {
      throw connectErrors.badRequest("The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'");
    }
    const topic = partition.kafka_topic;
    if (typeof topic !== "string") throw connectErrors.badRequest("Kafka topic names must be valid strings and may not be null");
    const p = integer(partition.kafka_partition, "partition");
    if (offset === null || offset === undefined) return { topic, partition: p, offset: null };
    if (!("kafka_offset" in offset)) throw connectErrors.badRequest("The offset for a sink connector should either be null or contain the key 'kafka_offset'");
    return { topic, partition: p, offset: integer(offset.kafka_offset, "offset") };
  });
}

/** Kafka's PluginDesc.toString, which its "available connectors" message prints. */
function pluginDesc(p: PluginDescriptor): string {
  const version = p.version ?? "undefined";
  return `PluginDesc{klass=class ${p.className}, name='${p.className}', version='${version}', encodedVersion=${version}, type=${p.type}, typeName='${p.type}', location='classpath'}`;
}

/** Whether `version` satisfies a Maven-style version or range ("1.0", "[1.0,2.0)", "[1.0,)"). */
function versionMatches(wanted: string, version: string): boolean {
  const compare = (a: string, b: string) => {
    const pa = a.split(/[.-]/);
    const pb = b.split(/[.-]/);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const x = pa[i] ?? "0";
      const y = pb[i] ?? "0";
      const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
      if (d !== 0) return d;
    }
    return 0;
  };
  const range = /^([[(])\s*([^,]*?)\s*(?:,\s*([^\])]*?)\s*)?([\])])$/.exec(wanted);
  if (!range) return compare(wanted, version) === 0;
  const [, open, low, high, close] = range;
  if (high === undefined) return compare(low!, version) === 0; // [1.0]
  if (low && (open === "[" ? compare(version, low) < 0 : compare(version, low) <= 0)) return false;
  if (high && (close === "]" ? compare(version, high) > 0 : compare(version, high) >= 0)) return false;
  return true;
}
