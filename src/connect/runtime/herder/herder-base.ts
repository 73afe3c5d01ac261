// What both herders share: the worker they run connectors on, validation, and what the REST layer
// reads through a herder (never through its worker's internals): connector and task info, configs and
// statuses, read through a config view and a status store that each mode provides (as Kafka's
// AbstractHerder reads its ConfigBackingStore and StatusBackingStore).
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { ConnectMetrics } from "../metrics.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import { connectErrors } from "../rest-errors.ts";
import type { Status } from "../status.ts";
import type { ConfigView } from "../storage/config-store.ts";
import type { TargetState } from "../storage/internal-records.ts";
import type { StatusStore } from "../storage/status-store.ts";
import type { ConnectorCallbacks, Worker } from "../worker/worker.ts";
import type { ConfigInfos } from "./config-infos.ts";
import type {
  ConnectorInfo,
  ConnectorStateInfo,
  IgnoredSettings,
  OffsetsView,
  StateInfo,
  TaskState,
} from "./herder.ts";
import { alteredMessage, notStopped, sinkOffsets, writeConnectorOffsets } from "./offsets-admin.ts";
import { ConnectorValidator } from "./validation.ts";

export abstract class HerderBase {
  protected readonly validator: ConnectorValidator;
  protected abstract readonly configs: ConfigView;
  protected abstract readonly statuses: StatusStore;
  /** Task starts so far, and the latest start of each task (connector name + NUL + index). */
  private taskStarts = 0;
  private readonly currentTaskStart = new Map<string, number>();

  constructor(readonly worker: Worker) {
    this.validator = new ConnectorValidator(worker);
  }

  get workerId(): string {
    return this.worker.workerId;
  }

  plugins(): PluginRegistry {
    return this.worker.options.plugins;
  }

  settings(): ParsedSettings {
    return this.worker.options.settings;
  }

  metrics(): ConnectMetrics {
    return this.worker.metrics;
  }

  validate(config: Record<string, string>): Promise<ConfigInfos> {
    return this.validator.validate(config);
  }

  ignoredSettings(name: string): IgnoredSettings {
    const { noEffect, unknown } = this.validator.ignoredSettings(this.need(name));
    const list = (m: Map<string, string>) => [...m].map(([setting, message]) => ({ name: setting, message }));
    return { noEffect: list(noEffect), unknown: list(unknown) };
  }

  /** What a connector and its tasks report to the herder. */
  protected abstract callbacks(name: string): ConnectorCallbacks;

  /**
   * Callbacks for one start of a task: once the task is started again, what the earlier instance
   * reports (e.g. one abandoned after task.shutdown.graceful.timeout.ms) no longer counts.
   */
  protected taskCallbacks(name: string, index: number): ConnectorCallbacks {
    const start = ++this.taskStarts;
    this.currentTaskStart.set(`${name}\u0000${index}`, start);
    const base = this.callbacks(name);
    return {
      ...base,
      onTaskStatus: (task, status) => {
        if (this.currentTaskStart.get(`${name}\u0000${task}`) === start) base.onTaskStatus(task, status);
      },
    };
  }

  /** Runs before statuses are read (distributed: catches up with what other workers wrote). */
  protected async freshStatuses(): Promise<void> {}
  /** Runs after a connector's topics were reset. */
  protected onTopicsReset(_name: string): void {}
  /** Runs before offsets are altered or reset (distributed: only the leader writes them). */
  protected async beforeOffsetsWrite(): Promise<void> {}
  /** A sink's committed offsets as GET /offsets shows them (standalone hides the partitions it reset). */
  protected shownSinkOffsets(_name: string, offsets: OffsetsView["offsets"]): OffsetsView["offsets"] {
    return offsets;
  }
  protected onSinkOffsetWritten(_name: string, _topic: string, _partition: number, _reset: boolean): void {}

  // ---- reads ----

  connectorNames(): string[] {
    return [...this.configs.connectors.keys()].sort();
  }

  info(name: string): ConnectorInfo {
    const config = this.need(name);
    return {
      name,
      config: { ...config },
      tasks: (this.configs.tasks.get(name) ?? []).map((_, task) => ({ connector: name, task })),
      type: this.worker.connectorType(config["connector.class"]!),
    };
  }

  config(name: string): Record<string, string> {
    return { ...this.need(name) };
  }

  taskConfigs(name: string): { id: { connector: string; task: number }; config: Record<string, string> }[] {
    this.need(name);
    return (this.configs.tasks.get(name) ?? []).map((config, task) => ({
      id: { connector: name, task },
      config: { ...config },
    }));
  }

  /** A known connector's target state. */
  targetState(name: string): TargetState | undefined {
    return this.configs.connectors.has(name) ? this.configs.target(name) : undefined;
  }

  async status(name: string): Promise<ConnectorStateInfo> {
    await this.freshStatuses();
    return this.currentStatus(name);
  }

  /** The statuses as this worker has them now, without reading further. */
  protected currentStatus(name: string): ConnectorStateInfo {
    const config = this.configs.connectors.get(name);
    const connector = this.statuses.connector(name);
    if (!config || !connector) throw connectErrors.notFound(`No status found for connector ${name}`);
    const show = this.stateInfo(config);
    return {
      name,
      connector: show(connector),
      tasks: [...this.statuses.taskStatuses(name)].sort(([a], [b]) => a - b).map(([id, s]) => ({ id, ...show(s) })),
      type: this.worker.connectorType(config["connector.class"]!),
    };
  }

  async taskStatus(name: string, index: number): Promise<TaskState> {
    await this.freshStatuses();
    const config = this.configs.connectors.get(name);
    const status = this.statuses.taskStatuses(name).get(index);
    if (!config || !status) throw connectErrors.notFound(`No status found for task ${name}-${index}`);
    return { id: index, ...this.stateInfo(config)(status) };
  }

  private stateInfo(config: Record<string, string>): (s: Status) => StateInfo {
    const version = this.worker.options.plugins.find(config["connector.class"]!, "source", "sink")?.version;
    return (s) => ({
      state: s.state,
      worker_id: s.workerId,
      ...(version !== undefined ? { version } : {}),
      ...(s.trace ? { trace: s.trace } : {}),
    });
  }

  /** Topics are tracked by name; Kafka answers for any name, known connector or not. */
  async topics(name: string): Promise<{ [connector: string]: { topics: string[] } }> {
    await this.statuses.readToEnd();
    return { [name]: { topics: this.statuses.connectorTopics(name) } };
  }

  async resetTopics(name: string): Promise<void> {
    await this.statuses.readToEnd();
    await Promise.all(this.statuses.connectorTopics(name).map((topic) => this.statuses.resetTopic(topic, name)));
    this.onTopicsReset(name);
  }

  /** A connector's config; 404 for an unknown connector. */
  protected need(name: string): Record<string, string> {
    const config = this.configs.connectors.get(name);
    if (!config) throw connectErrors.notFound(`Connector ${name} not found`);
    return config;
  }

  /**
   * A connector config about to be created or replaced, as Kafka's herders admit one: validated first, then (after
   * `ready`, e.g. becoming sure of being the leader) refused when its name is taken and replacing is not allowed.
   */
  protected async admitConnector(
    name: string,
    config: Record<string, string>,
    allowReplace: boolean,
    ready: () => Promise<void> = async () => {},
  ): Promise<{ full: Record<string, string>; exists: boolean }> {
    const full = { ...config, name };
    await this.validator.validOrThrow(full);
    await ready();
    const exists = this.configs.connectors.has(name);
    if (exists && !allowReplace) throw connectErrors.conflict(`Connector ${name} already exists`);
    return { full, exists };
  }

  /** As need(), with the wording of Kafka's pause, resume and restart endpoints. */
  protected needKnown(name: string): Record<string, string> {
    const config = this.configs.connectors.get(name);
    if (!config) throw connectErrors.notFound(`Unknown connector ${name}`);
    return config;
  }

  // ---- offsets (KIP-875) ----

  async offsets(name: string): Promise<OffsetsView> {
    const config = this.need(name);
    const { offsets, broker } = this.worker.options;
    if (this.worker.connectorType(config["connector.class"]!) === "source") {
      // In a cluster another worker may have committed since this one last read.
      await offsets.useTopic?.(name, config["offsets.storage.topic"]);
      await offsets.refresh?.();
      return { offsets: offsets.all(name) };
    }
    return { offsets: this.shownSinkOffsets(name, await sinkOffsets(broker, name, config)) };
  }

  async alterOffsets(name: string, offsets: OffsetsView["offsets"] | undefined): Promise<string> {
    await this.beforeOffsetsWrite();
    const config = this.stoppedConfig(name);
    if (!offsets || offsets.length === 0)
      throw connectErrors.badRequest("Partitions / offsets need to be provided for an alter offsets request");
    return alteredMessage("altered", await this.writeOffsets(name, config, offsets));
  }

  async resetOffsets(name: string): Promise<string> {
    await this.beforeOffsetsWrite();
    const config = this.stoppedConfig(name);
    const current = (await this.offsets(name)).offsets.map((o) => ({ partition: o.partition, offset: null }));
    return alteredMessage("reset", await this.writeOffsets(name, config, current));
  }

  private writeOffsets(
    name: string,
    config: Record<string, string>,
    offsets: OffsetsView["offsets"],
  ): Promise<boolean> {
    return writeConnectorOffsets(this.worker, name, config, offsets, (topic, partition, reset) =>
      this.onSinkOffsetWritten(name, topic, partition, reset),
    );
  }

  private stoppedConfig(name: string): Record<string, string> {
    const config = this.need(name);
    if (this.targetState(name) !== "STOPPED") throw notStopped(name);
    return config;
  }
}
