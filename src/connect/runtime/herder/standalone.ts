// Standalone mode: one worker owns every connector. Configs live in memory (from files at start, and
// REST changes until restart, as Kafka Connect's standalone herder); offsets live in the offset store.
import { logger } from "../../../platform/log.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import { type ConnectorCallbacks, type Worker } from "../worker/worker.ts";
import type { Status } from "../status.ts";
import { HEALTHY, patchedConfig, shownUrl, type ConnectorInfo, type WorkersView, type ConnectorStateInfo, type Health, type Herder, type OffsetsView, type StateInfo, type TargetState } from "./herder.ts";
import { HerderBase } from "./herder-base.ts";
import { restarts } from "./restart-plan.ts";

const log = logger("herder");

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


export class StandaloneHerder extends HerderBase implements Herder {
  private readonly entries = new Map<string, Entry>();
  /** Task starts so far, and the latest start of each task (connector name + NUL + index). */
  private taskStarts = 0;
  private readonly currentTaskStart = new Map<string, number>();

  /** `url`: this worker's REST URL as others reach it. */
  constructor(
    worker: Worker,
    private readonly url = `http://${worker.workerId}/`,
  ) {
    super(worker);
  }

  health(): Health {
    return HEALTHY;
  }

  /** One worker that decides everything itself: shown as its own leader. */
  workers(): WorkersView {
    const url = shownUrl(this.url);
    const names = this.connectorNames();
    const tasks = names.flatMap((connector) => this.entries.get(connector)!.taskConfigs.map((_, task) => ({ connector, task })));
    return { leader: url, workers: [{ id: this.workerId, url, leader: true, connectors: names, tasks }] };
  }

  workerUrls(): Record<string, string> {
    return { [this.workerId]: shownUrl(this.url) };
  }

  connectorNames(): string[] {
    return [...this.entries.keys()].sort();
  }

  // ---- connector lifecycle ----

  /** Creates or replaces a connector; `created` tells which. */
  async putConnector(name: string, config: Record<string, string>, options: { allowReplace: boolean; initialState?: TargetState }): Promise<{ created: boolean; info: ConnectorInfo }> {
    const full = { ...config, name };
    await this.validator.validOrThrow(full);
    const existing = this.entries.get(name);
    if (existing && !options.allowReplace) throw connectErrors.conflict(`Connector ${name} already exists`);
    if (existing) {
      existing.config = full;
      log.info({ connector: name }, `connector ${name} config updated`);
      await this.restartAll(name);
      return { created: false, info: this.info(name) };
    }
    this.entries.set(name, { config: full, target: options.initialState ?? "STARTED", taskConfigs: [], taskStatuses: new Map(), topics: new Set() });
    await this.startAll(name);
    log.info({ connector: name }, `connector ${name} created`);
    return { created: true, info: this.info(name) };
  }

  async patchConnector(name: string, patch: Record<string, string | null>): Promise<ConnectorInfo> {
    return (await this.putConnector(name, patchedConfig(name, this.need(name).config, patch), { allowReplace: true })).info;
  }

  async deleteConnector(name: string): Promise<void> {
    this.need(name);
    await this.stopAll(name);
    this.entries.delete(name);
    log.info({ connector: name }, `connector ${name} deleted`);
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
    const request = { includeTasks, onlyFailed };
    const restartConnector = restarts(request, "connector", entry.connectorStatus?.state);
    const tasks = entry.taskConfigs.map((_, i) => i).filter((i) => restarts(request, "task", entry.taskStatuses.get(i)?.state));
    log.info({ connector: name, includeTasks, onlyFailed }, `restarting connector ${name}`);
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
    log.info({ connector: name, task: index }, `restarting task ${name}-${index}`);
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

  protected connectorConfig(name: string): Record<string, string> {
    return this.need(name).config;
  }

  targetState(name: string): TargetState | undefined {
    return this.entries.get(name)?.target;
  }

  /** A reset sink partition is shown as gone (Kafka deletes the group's offset; this one rewinds it). */
  protected override shownSinkOffsets(name: string, offsets: OffsetsView["offsets"]): OffsetsView["offsets"] {
    const reset = this.need(name).resetPartitions;
    return offsets.filter((o) => !reset?.has(`${o.partition.kafka_topic}-${o.partition.kafka_partition}`));
  }

  protected override onSinkOffsetWritten(name: string, topic: string, partition: number, reset: boolean): void {
    const entry = this.need(name);
    entry.resetPartitions ??= new Set();
    if (reset) entry.resetPartitions.add(`${topic}-${partition}`);
    else entry.resetPartitions.delete(`${topic}-${partition}`);
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
    if (entry.target === "STARTED") entry.taskConfigs = this.validator.withTaskClass(entry.config, configs);
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
    const configs = this.validator.withTaskClass(entry.config, started);
    // New task configs mean the tasks must be reconfigured too.
    if (JSON.stringify(configs) !== JSON.stringify(entry.taskConfigs)) {
      await Promise.all(entry.taskConfigs.map((_, i) => this.worker.stopTask(name, i)));
      entry.taskConfigs = configs;
      entry.taskStatuses.clear();
      for (let i = 0; i < configs.length; i++) await this.worker.startTask(name, i, entry.config, configs[i]!, false, this.taskCallbacks(name, i));
    }
  }
}

