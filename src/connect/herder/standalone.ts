// Standalone mode: one worker owns every connector. Configs live in memory (from files at start, and
// REST changes until restart, as Kafka Connect's standalone herder); offsets live in the offset store.
import { logger } from "../../common/log.ts";
import { SettingsDefinition } from "../../common/settings.ts";
import { connectErrors } from "../errors.ts";
import type { TopicPartition } from "../plugins/connector.ts";
import { sinkConnectorDefinition, sinkTopicProblems, sourceConnectorDefinition } from "../worker/connector-config.ts";
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

export interface ConnectorStateInfo {
  name: string;
  connector: { state: string; worker_id: string; trace?: string };
  tasks: { id: number; state: string; worker_id: string; trace?: string }[];
  type: "source" | "sink" | "unknown";
}

interface Entry {
  config: Record<string, string>;
  target: TargetState;
  taskConfigs: Record<string, string>[];
  connectorStatus?: Status;
  taskStatuses: Map<number, Status>;
  topics: Set<string>;
}

export interface OffsetsView {
  offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];
}

export class StandaloneHerder {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly worker: Worker) {}

  connectorNames(): string[] {
    return [...this.entries.keys()].sort();
  }

  // ---- validation ----

  validate(config: Record<string, string>, expectedPlugin?: string): ConfigInfos {
    const className = config["connector.class"];
    if (!className) throw connectErrors.badRequest(`Connector config ${javaMap(config)} contains no connector type`);
    const plugin = this.worker.options.plugins.find(className, "source", "sink");
    if (!plugin) {
      const installed = this.worker.options.plugins.list("source", "sink").map((p) => p.className).join(", ");
      throw connectErrors.badRequest(`Failed to find any class that implements Connector and which name matches ${className}, available connectors are: ${installed}`);
    }
    if (expectedPlugin !== undefined) {
      const strip = (n: string) => n.replace(/Connector$/, "");
      if (!strip(className).endsWith(strip(expectedPlugin)) && !strip(plugin.className).endsWith(strip(expectedPlugin))) {
        throw connectErrors.badRequest(`Included connector type ${className} does not match request type ${expectedPlugin}`);
      }
    }
    const connector = plugin.create() as { config(): SettingsDefinition };
    const framework = plugin.type === "sink" ? sinkConnectorDefinition : sourceConnectorDefinition;
    const transforms = new Map(Object.entries(validateTransforms(config, chainLookups(this.worker.options.plugins))));
    const extra = [transforms, ...(plugin.type === "sink" ? [sinkTopicProblems(config)] : [])];
    return configInfos(className, [framework, connector.config()], config, extra);
  }

  private validOrThrow(config: Record<string, string>): void {
    for (const [key, value] of Object.entries(config)) {
      if (value === null) throw connectErrors.badRequest(`Null value can not be supplied as the configuration value. Key: ${key}`);
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
    const entry = this.need(name);
    entry.target = "PAUSED";
    const callbacks = this.callbacks(name);
    if (entry.connectorStatus?.state === "STOPPED") return;
    this.worker.pauseConnector(name, callbacks);
    entry.taskConfigs.forEach((_, i) => this.worker.pauseTask(name, i));
  }

  async resume(name: string): Promise<void> {
    const entry = this.need(name);
    const wasStopped = entry.target === "STOPPED";
    entry.target = "STARTED";
    if (wasStopped) return this.startAll(name);
    this.worker.resumeConnector(name, this.callbacks(name));
    entry.taskConfigs.forEach((_, i) => this.worker.resumeTask(name, i));
  }

  /** KIP-875 stop: the connector and its tasks shut down, no tasks remain. */
  async stop(name: string): Promise<void> {
    const entry = this.need(name);
    if (entry.target === "STOPPED") return;
    entry.target = "STOPPED";
    await this.stopAll(name);
    entry.taskConfigs = [];
    entry.taskStatuses.clear();
    entry.connectorStatus = { state: "STOPPED", workerId: this.worker.workerId };
  }

  /** Restarts the connector and/or tasks (KIP-745 rules); returns the planned states when tasks are included. */
  async restart(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<ConnectorStateInfo | undefined> {
    const entry = this.need(name);
    const restartConnector = !onlyFailed || entry.connectorStatus?.state === "FAILED";
    const tasks = includeTasks ? entry.taskConfigs.map((_, i) => i).filter((i) => !onlyFailed || entry.taskStatuses.get(i)?.state === "FAILED") : [];
    if (!includeTasks && !onlyFailed) {
      await this.restartConnectorOnly(name);
      return undefined;
    }
    if (restartConnector) entry.connectorStatus = { state: "RESTARTING", workerId: this.worker.workerId };
    for (const i of tasks) entry.taskStatuses.set(i, { state: "RESTARTING", workerId: this.worker.workerId });
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
    if (!taskConfig) throw connectErrors.notFound(`Unknown task: ${name}-${index}`);
    await this.worker.stopTask(name, index);
    await this.worker.startTask(name, index, entry.config, taskConfig, entry.target === "PAUSED", this.callbacks(name));
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
    const show = (s: Status) => ({ state: s.state, worker_id: s.workerId, ...(s.trace ? { trace: s.trace } : {}) });
    return {
      name,
      connector: show(entry.connectorStatus),
      tasks: [...entry.taskStatuses.entries()].sort(([a], [b]) => a - b).map(([id, s]) => ({ id, ...show(s) })),
      type: this.worker.connectorType(entry.config["connector.class"]!),
    };
  }

  taskStatus(name: string, index: number): { id: number; state: string; worker_id: string; trace?: string } {
    const status = this.entries.get(name)?.taskStatuses.get(index);
    if (!status) throw connectErrors.notFound(`No status found for task ${name}-${index}`);
    return { id: index, state: status.state, worker_id: status.workerId, ...(status.trace ? { trace: status.trace } : {}) };
  }

  topics(name: string): { [connector: string]: { topics: string[] } } {
    return { [name]: { topics: [...this.need(name).topics].sort() } };
  }

  resetTopics(name: string): void {
    this.need(name).topics.clear();
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
      if (offset !== undefined) out.push({ partition: { kafka_topic: tp.topic, kafka_partition: tp.partition }, offset: { kafka_offset: offset } });
    }
    return { offsets: out };
  }

  async alterOffsets(name: string, offsets: OffsetsView["offsets"] | undefined): Promise<string> {
    const entry = this.requireStopped(name);
    if (!offsets || offsets.length === 0) throw connectErrors.badRequest("Partitions / offsets need to be provided for an alter offsets request");
    await this.writeOffsets(name, entry, offsets);
    return "The offsets for this connector have been altered successfully";
  }

  async resetOffsets(name: string): Promise<string> {
    const entry = this.requireStopped(name);
    const current = (await this.offsets(name)).offsets.map((o) => ({ partition: o.partition, offset: null }));
    await this.writeOffsets(name, entry, current);
    return "The offsets for this connector have been reset successfully";
  }

  private async writeOffsets(name: string, entry: Entry, offsets: OffsetsView["offsets"]): Promise<void> {
    if (this.worker.connectorType(entry.config["connector.class"]!) === "source") {
      await this.worker.options.offsets.set(name, offsets);
      return;
    }
    const broker = this.worker.options.broker;
    for (const { partition, offset } of offsets) {
      const topic = partition.kafka_topic;
      const p = Number(partition.kafka_partition);
      if (typeof topic !== "string" || !Number.isInteger(p)) throw connectErrors.badRequest("Sink connector offsets need kafka_topic and kafka_partition in each partition");
      // A reset (null) goes back to the earliest record, as deleting the group would.
      const target = offset === null ? (await broker.startOffsets(topic))[p] ?? 0 : Number(offset.kafka_offset);
      if (!Number.isInteger(target) || target < 0) throw connectErrors.badRequest(`Invalid offset for ${topic}-${p}: kafka_offset must be a non-negative integer`);
      await broker.commitOffsets(`connect-${name}`, topic, [{ partition: p, offset: target }]);
    }
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
    const callbacks = this.callbacks(name);
    entry.taskConfigs = await this.worker.startConnector(name, entry.config, entry.target, callbacks);
    entry.taskStatuses.clear();
    for (let i = 0; i < entry.taskConfigs.length; i++) {
      entry.taskStatuses.set(i, { state: "UNASSIGNED", workerId: this.worker.workerId });
      await this.worker.startTask(name, i, entry.config, entry.taskConfigs[i]!, entry.target === "PAUSED", callbacks);
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
    const configs = await this.worker.startConnector(name, entry.config, entry.target, this.callbacks(name));
    // New task configs mean the tasks must be reconfigured too.
    if (JSON.stringify(configs) !== JSON.stringify(entry.taskConfigs)) {
      await Promise.all(entry.taskConfigs.map((_, i) => this.worker.stopTask(name, i)));
      entry.taskConfigs = configs;
      entry.taskStatuses.clear();
      for (let i = 0; i < configs.length; i++) await this.worker.startTask(name, i, entry.config, configs[i]!, entry.target === "PAUSED", this.callbacks(name));
    }
  }
}

/** Java's Map.toString, as Kafka's messages print configs. */
function javaMap(config: Record<string, string>): string {
  return `{${Object.entries(config).map(([k, v]) => `${k}=${v}`).join(", ")}}`;
}
