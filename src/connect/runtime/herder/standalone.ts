// Standalone mode: one worker owns every connector. Configs live in memory (from files at start, and
// REST changes until restart, as Kafka Connect's standalone herder); offsets live in the offset store.
import { logger } from "../../../platform/log.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import type { ConnectorCallbacks, Worker } from "../worker/worker.ts";
import type { Status } from "../status.ts";
import { MemoryConfigStore } from "../storage/config-store.ts";
import { MemoryStatusStore } from "../storage/status-store.ts";
import {
  HEALTHY,
  patchedConfig,
  shownUrl,
  type ConnectorInfo,
  type WorkersView,
  type ConnectorStateInfo,
  type Health,
  type Herder,
  type OffsetsView,
  type TargetState,
} from "./herder.ts";
import { HerderBase } from "./herder-base.ts";
import { restarts } from "./restart-plan.ts";

const log = logger("herder");

export class StandaloneHerder extends HerderBase implements Herder {
  protected readonly configs = new MemoryConfigStore();
  protected readonly statuses = new MemoryStatusStore();
  /**
   * Per connector, the sink partitions whose offsets were reset while stopped. Kafka deletes the
   * consumer group; here the group's position moves to the earliest record (the same for
   * consumption), and the offsets API shows no offset for them until the connector runs again.
   */
  private readonly resetPartitions = new Map<string, Set<string>>();

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
    const tasks = names.flatMap((connector) =>
      (this.configs.tasks.get(connector) ?? []).map((_, task) => ({ connector, task })),
    );
    return { leader: url, workers: [{ id: this.workerId, url, leader: true, connectors: names, tasks }] };
  }

  workerUrls(): Record<string, string> {
    return { [this.workerId]: shownUrl(this.url) };
  }

  // ---- connector lifecycle ----

  /** Creates or replaces a connector; `created` tells which. */
  async putConnector(
    name: string,
    config: Record<string, string>,
    options: { allowReplace: boolean; initialState?: TargetState },
  ): Promise<{ created: boolean; info: ConnectorInfo }> {
    const { full, exists: existing } = await this.admitConnector(name, config, options.allowReplace);
    if (existing) {
      this.configs.putConnector(name, full);
      log.info({ connector: name }, `connector ${name} config updated`);
      await this.restartAll(name);
      return { created: false, info: this.info(name) };
    }
    this.configs.putConnector(name, full);
    this.configs.putTarget(name, options.initialState ?? "STARTED");
    this.configs.putTaskConfigs(name, []);
    await this.startAll(name);
    log.info({ connector: name }, `connector ${name} created`);
    return { created: true, info: this.info(name) };
  }

  async patchConnector(name: string, patch: Record<string, string | null>): Promise<ConnectorInfo> {
    return (await this.putConnector(name, patchedConfig(name, this.need(name), patch), { allowReplace: true })).info;
  }

  async deleteConnector(name: string): Promise<void> {
    this.need(name);
    await this.stopAll(name, true);
    this.configs.remove(name);
    this.statuses.remove(name);
    this.resetPartitions.delete(name);
    log.info({ connector: name }, `connector ${name} deleted`);
  }

  async pause(name: string): Promise<void> {
    this.needKnown(name);
    this.configs.putTarget(name, "PAUSED");
    const callbacks = this.callbacks(name);
    if (this.statuses.connector(name)?.state === "STOPPED") return;
    this.worker.pauseConnector(name, callbacks);
    this.taskIndexes(name).forEach((i) => this.worker.pauseTask(name, i));
  }

  async resume(name: string): Promise<void> {
    this.needKnown(name);
    const wasStopped = this.configs.target(name) === "STOPPED";
    this.configs.putTarget(name, "STARTED");
    if (wasStopped) return this.startAll(name);
    this.worker.resumeConnector(name, this.callbacks(name));
    this.taskIndexes(name).forEach((i) => this.worker.resumeTask(name, i));
    // Created paused, it has no tasks yet: they are generated once it runs, as Kafka does.
    if (this.taskIndexes(name).length === 0) await this.restartConnectorOnly(name);
  }

  /** KIP-875 stop: the connector and its tasks shut down, no tasks remain. */
  async stop(name: string): Promise<void> {
    if (!this.configs.connectors.has(name)) throw new ConnectRestError(404, `No connector \`${name}\` configured`);
    if (this.configs.target(name) === "STOPPED") return;
    this.configs.putTarget(name, "STOPPED");
    await this.stopAll(name);
    this.configs.putTaskConfigs(name, []);
    this.clearTaskStatuses(name);
    this.putStatus(name, undefined, { state: "STOPPED", workerId: this.worker.workerId });
  }

  /** Restarts the connector and/or tasks (KIP-745 rules); returns the planned states when tasks are included. */
  async restart(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<ConnectorStateInfo | undefined> {
    if (!this.configs.connectors.has(name)) throw connectErrors.notFound(`Unknown connector: ${name}`);
    const request = { includeTasks, onlyFailed };
    const restartConnector = restarts(request, "connector", this.statuses.connector(name)?.state);
    const taskStatuses = this.statuses.taskStatuses(name);
    const tasks = this.taskIndexes(name).filter((i) => restarts(request, "task", taskStatuses.get(i)?.state));
    log.info({ connector: name, includeTasks, onlyFailed }, `restarting connector ${name}`);
    if (!includeTasks && !onlyFailed) {
      await this.restartConnectorOnly(name);
      return undefined;
    }
    // The planned states keep the last trace, as Kafka's restart plan does.
    const restarting = (previous: Status | undefined): Status => ({
      state: "RESTARTING",
      workerId: this.worker.workerId,
      ...(previous?.trace ? { trace: previous.trace } : {}),
    });
    if (restartConnector) this.putStatus(name, undefined, restarting(this.statuses.connector(name)));
    for (const i of tasks) this.putStatus(name, i, restarting(taskStatuses.get(i)));
    const planned = this.currentStatus(name);
    void (async () => {
      if (restartConnector) await this.restartConnectorOnly(name);
      for (const i of tasks) await this.restartTask(name, i);
    })();
    return planned;
  }

  async restartTask(name: string, index: number): Promise<void> {
    const config = this.need(name);
    const taskConfig = this.configs.tasks.get(name)?.[index];
    if (!taskConfig) throw connectErrors.notFound(`Task ${name}-${index} not found`);
    log.info({ connector: name, task: index }, `restarting task ${name}-${index}`);
    await this.worker.stopTask(name, index);
    await this.worker.startTask(
      name,
      index,
      config,
      taskConfig,
      this.configs.target(name) === "PAUSED",
      this.taskCallbacks(name, index),
    );
  }

  // ---- offsets (KIP-875) ----

  /** A reset sink partition is shown as gone (Kafka deletes the group's offset; this one rewinds it). */
  protected override shownSinkOffsets(name: string, offsets: OffsetsView["offsets"]): OffsetsView["offsets"] {
    this.need(name);
    const reset = this.resetPartitions.get(name);
    return offsets.filter((o) => !reset?.has(`${o.partition.kafka_topic}-${o.partition.kafka_partition}`));
  }

  protected override onSinkOffsetWritten(name: string, topic: string, partition: number, reset: boolean): void {
    this.need(name);
    const partitions = this.resetPartitions.get(name) ?? new Set<string>();
    this.resetPartitions.set(name, partitions);
    if (reset) partitions.add(`${topic}-${partition}`);
    else partitions.delete(`${topic}-${partition}`);
  }

  // ---- running ----

  async shutdown(): Promise<void> {
    await this.worker.stop();
  }

  private taskIndexes(name: string): number[] {
    return (this.configs.tasks.get(name) ?? []).map((_, i) => i);
  }

  /** Memory writes take effect at once: nothing to wait for. */
  private putStatus(connector: string, task: number | undefined, status: Status | null): void {
    void this.statuses.put({ connector, task }, status);
  }

  private clearTaskStatuses(name: string): void {
    for (const task of this.statuses.taskStatuses(name).keys()) this.putStatus(name, task, null);
  }

  protected callbacks(name: string): ConnectorCallbacks {
    return {
      onConnectorStatus: (status) => {
        if (this.configs.connectors.has(name)) this.putStatus(name, undefined, status);
      },
      onTaskStatus: (task, status) => {
        // A stopped task reports UNASSIGNED; a task no longer configured is forgotten instead.
        if (task < this.taskIndexes(name).length) this.putStatus(name, task, status);
      },
      onTopic: (topic) => {
        if (this.configs.connectors.has(name)) void this.statuses.putTopic(topic, name);
      },
      requestTaskReconfiguration: () => void this.restartAll(name),
    };
  }

  private async startAll(name: string): Promise<void> {
    const config = this.need(name);
    const target = this.configs.target(name);
    if (target === "STOPPED") {
      this.putStatus(name, undefined, { state: "STOPPED", workerId: this.worker.workerId });
      return;
    }
    this.resetPartitions.delete(name);
    const callbacks = this.callbacks(name);
    const configs = await this.worker.startConnector(name, config, target, callbacks);
    // Kafka generates task configs only for a running connector: one started paused keeps the tasks
    // it had (none when new) until it is resumed.
    if (this.configs.target(name) === "STARTED")
      this.configs.putTaskConfigs(name, this.validator.withTaskClass(config, configs));
    this.clearTaskStatuses(name);
    for (let i = 0; i < this.taskIndexes(name).length; i++) {
      this.putStatus(name, i, { state: "UNASSIGNED", workerId: this.worker.workerId });
      await this.worker.startTask(
        name,
        i,
        config,
        this.configs.tasks.get(name)![i]!,
        this.configs.target(name) === "PAUSED",
        this.taskCallbacks(name, i),
      );
    }
  }

  private async stopAll(name: string, deleted = false): Promise<void> {
    this.need(name);
    await Promise.all(this.taskIndexes(name).map((i) => this.worker.stopTask(name, i)));
    await this.worker.stopConnector(name, deleted);
  }

  private async restartAll(name: string): Promise<void> {
    await this.stopAll(name);
    await this.startAll(name);
  }

  private async restartConnectorOnly(name: string): Promise<void> {
    const config = this.need(name);
    await this.worker.stopConnector(name);
    const target = this.configs.target(name);
    if (target === "STOPPED") return;
    const started = await this.worker.startConnector(name, config, target, this.callbacks(name));
    if (this.configs.target(name) !== "STARTED") return; // paused: tasks are reconfigured on resume
    const configs = this.validator.withTaskClass(config, started);
    // New task configs mean the tasks must be reconfigured too.
    if (JSON.stringify(configs) !== JSON.stringify(this.configs.tasks.get(name) ?? [])) {
      await Promise.all(this.taskIndexes(name).map((i) => this.worker.stopTask(name, i)));
      this.configs.putTaskConfigs(name, configs);
      this.clearTaskStatuses(name);
      for (let i = 0; i < configs.length; i++)
        await this.worker.startTask(name, i, config, configs[i]!, false, this.taskCallbacks(name, i));
    }
  }
}
