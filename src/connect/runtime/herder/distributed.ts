// Distributed mode: workers sharing a `group.id` form one cluster through Kafka's group coordinator.
// Connector configs, task configs and target states live in the config topic, statuses in the status
// topic, source offsets in the offsets topic; every worker reads all three. The leader of each group
// generation assigns connectors and tasks (assignor.ts) and is the one that writes configs for REST
// requests; other workers forward those requests to it. Each worker starts and stops what it is
// assigned and writes the statuses of what it runs.
import { BrokerError, type Broker } from "../../../broker/broker.ts";
import { GroupMember } from "../../../broker/group-member.ts";
import { logger } from "../../../platform/log.ts";
import { RetryLog } from "../../../platform/retry-log.ts";
import { connectErrors } from "../rest-errors.ts";
import { ConfigLog, type ConfigChange, type ConfigState } from "../storage/config-log.ts";
import { TopicStatusStore } from "../storage/topic-status-store.ts";
import type { ConnectorCallbacks, Worker } from "../worker/worker.ts";
import type { Status } from "../status.ts";
import { assign, type Allocation, type AssignorMemory, type Work } from "./assignor.ts";
import {
  decodeAssignment,
  decodeMetadata,
  encodeAssignment,
  encodeMetadata,
  PROTOCOL_NAME,
  PROTOCOL_TYPE,
  type WorkerAssignment,
} from "./group-protocol.ts";
import {
  ForwardRequest,
  HEALTHY,
  patchedConfig,
  shownUrl,
  type ConnectorInfo,
  type WorkersView,
  type Health,
  type ConnectorStateInfo,
  type Herder,
  type TargetState,
} from "./herder.ts";
import { HerderBase } from "./herder-base.ts";
import { taskTransactionalId } from "../worker/worker-config.ts";
import { restartPlan, restarts } from "./restart-plan.ts";

const log = logger("distributed-herder");

export interface InternalTopic {
  name: string;
  partitions: number;
  replicationFactor: number;
}

export interface DistributedOptions {
  groupId: string;
  /** This worker's REST URL as the others reach it. */
  url: string;
  configTopic: InternalTopic;
  offsetTopic: InternalTopic;
  statusTopic: InternalTopic;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
  scheduledRebalanceMaxDelayMs: number;
  /** How often the config topic is polled for other workers' writes. */
  configPollMs?: number;
}

const STALE =
  "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)";
const NO_LEADER =
  "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway.";
const STATUS_READ_WAIT_MS = 2000;
const REBALANCE_WAIT_MS = 3000;
const taskKey = (connector: string, task: number) => `${connector}\u0000${task}`;

/** Waits for `done`, but no longer than `ms`. */
async function untilOrAfter(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export class DistributedHerder extends HerderBase implements Herder {
  private readonly configLog: ConfigLog;
  protected readonly statuses: TopicStatusStore;
  private readonly member: GroupMember;
  private memberId = "";
  private leaderId = "";
  private leaderUrl = "";
  private generation = -1;
  private rebalancing = true;
  private urls: Record<string, string> = {};
  /**
   * Every worker's share of the last assignment, by worker id: kept by the leader that made it (sent
   * to every member it would grow with workers × work, in the group's records on Kafka).
   */
  private allocations: Record<string, Allocation> = {};
  /** The leader's memory of its last assignment; what was configured when this worker was assigned. */
  private memory: AssignorMemory = { previous: new Map() };
  private assignedShape = "";
  /** What this worker was assigned (a STOPPED connector is assigned but not started). */
  private readonly connectors = new Set<string>();
  private readonly tasks = new Map<string, { connector: string; task: number; config: Record<string, string> }>();
  /** Assigned exactly-once source tasks waiting for their connector's fencing round (a task-count record). */
  private readonly awaitingFencing = new Set<string>();
  private readonly connectorStates = new Map<string, Status>();
  private readonly knownTopics = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private delayTimer?: ReturnType<typeof setTimeout>;
  /** Requests waiting for the current rebalance to end. */
  private settledWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    worker: Worker,
    /** The broker for the internal topics and the group (the worker's own serves its tasks). */
    private readonly internal: Broker,
    private readonly options: DistributedOptions,
  ) {
    super(worker);
    this.configLog = new ConfigLog(internal, options.configTopic.name, (change) =>
      this.serially(() => this.onConfigChange(change)),
    );
    this.statuses = new TopicStatusStore(internal, options.statusTopic.name);
    this.member = GroupMember.of(
      internal,
      {
        groupId: options.groupId,
        protocolType: PROTOCOL_TYPE,
        sessionTimeoutMs: options.sessionTimeoutMs,
        rebalanceTimeoutMs: options.rebalanceTimeoutMs,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        log,
      },
      {
        protocols: () => [
          {
            name: PROTOCOL_NAME,
            metadata: encodeMetadata({
              url: options.url,
              workerId: worker.workerId,
              configOffset: this.configLog.offset,
              allocation: this.allocation(),
            }),
          },
        ],
        assign: (members, join) =>
          this.assignWork(
            members.map((m) => ({ memberId: m.memberId, metadata: decodeMetadata(m.metadata) })),
            join.memberId,
          ),
        assigned: (bytes, join) =>
          this.serially(() => this.applyAssignment(decodeAssignment(bytes), join.memberId, join.generation)),
        rebalancing: () => {
          this.rebalancing = true;
        },
        lost: () => this.serially(() => this.releaseAll("group membership lost")),
      },
    );
  }

  /** Creates the internal topics when missing and reads them to their ends. */
  async readTopics(): Promise<void> {
    const compact = { "cleanup.policy": "compact" };
    await this.untilReady("create the internal topics", async () => {
      for (const topic of [this.options.configTopic, this.options.offsetTopic, this.options.statusTopic]) {
        await this.internal.createTopic({
          name: topic.name,
          partitions: topic.partitions,
          replicationFactor: topic.replicationFactor,
          config: compact,
        });
      }
    });
    const config = await this.untilReady("describe the config topic", () =>
      this.internal.describeTopic(this.options.configTopic.name),
    );
    if (config && config.partitions !== 1) {
      throw new Error(
        `Topic '${this.options.configTopic.name}' supplied via the 'config.storage.topic' property is required to have a single partition in order to guarantee consistency of connector configurations, but it has ${config.partitions} partitions. Please choose a different topic or delete and re-create this topic with a single partition.`,
      );
    }
    await this.untilReady("read the internal topics", () =>
      Promise.all([this.configLog.readToEnd(), this.statuses.readToEnd(), this.worker.options.offsets.refresh?.()]),
    );
  }

  /** Follows the config topic and joins the group; the work assigned starts from there. */
  join(): void {
    this.configLog.follow(this.options.configPollMs ?? 250);
    this.member.start();
  }

  /** Resolves once this worker has its first assignment (writes can then be made, or forwarded). */
  async assigned(): Promise<void> {
    if (!this.rebalancing && this.leaderUrl) return;
    await new Promise<void>((resolve) => this.settledWaiters.push(resolve));
  }

  /**
   * Start-up steps retried while Kafka is not ready (unreachable, or a topic another worker just
   * created has no leader yet), for up to rebalance.timeout.ms.
   */
  private async untilReady<T>(what: string, action: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.options.rebalanceTimeoutMs;
    let delay = 100;
    const retries = new RetryLog(log);
    for (;;) {
      try {
        const result = await action();
        retries.succeeded(`could ${what} after retrying`);
        return result;
      } catch (err) {
        if (!(err instanceof BrokerError) || !err.retriable || Date.now() + delay > deadline) throw err;
        retries.failed({ err: err.message, retryInMs: delay }, `could not ${what} yet; retrying`);
        await Bun.sleep(delay); // back-off while Kafka gets ready
        delay = Math.min(delay * 2, 2000);
      }
    }
  }

  /** Healthy once it joined the group; unhealthy while it has lost its membership (Kafka away). */
  health(): Health {
    if (this.generation < 0) return { status: "starting", message: "Worker is still starting up.", httpStatus: 503 };
    if (!this.leaderUrl)
      return {
        status: "unhealthy",
        message:
          "Worker is not a member of its group (is Kafka reachable?); its connectors and tasks are stopped until it rejoins.",
        httpStatus: 500,
      };
    return HEALTHY;
  }

  /** The leader answers (it made the assignment); another worker forwards to it; out of the group, this worker alone. */
  workers(): WorkersView {
    if (!this.leaderUrl) {
      const url = shownUrl(this.options.url);
      return { leader: null, workers: [{ id: this.worker.workerId, url, leader: false, ...this.allocation() }] };
    }
    if (!this.isLeader) throw new ForwardRequest(this.leaderUrl);
    const leader = shownUrl(this.leaderUrl);
    const workers = Object.entries(this.urls)
      .map(([id, url]) => {
        const share =
          id === this.worker.workerId ? this.allocation() : (this.allocations[id] ?? { connectors: [], tasks: [] });
        return {
          id,
          url: shownUrl(url),
          leader: shownUrl(url) === leader,
          connectors: share.connectors,
          tasks: share.tasks.map(({ connector, task }) => ({ connector, task })),
        };
      })
      .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    return { leader, workers };
  }

  workerUrls(): Record<string, string> {
    return this.leaderUrl
      ? Object.fromEntries(Object.entries(this.urls).map(([id, url]) => [id, shownUrl(url)]))
      : { [this.worker.workerId]: shownUrl(this.options.url) };
  }

  get isLeader(): boolean {
    return this.memberId !== "" && this.memberId === this.leaderId;
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.delayTimer);
    // Stop the work first (offsets committed, statuses written), then leave so the others take over at once.
    await this.serially(() => this.releaseAll("worker shutting down"));
    // The statuses written while stopping go out before the broker is closed (a bounded wait if Kafka is away).
    await untilOrAfter(this.statuses.flushed(), STATUS_READ_WAIT_MS);
    await this.member.stop();
    this.configLog.stop();
    await this.worker.stop();
  }

  // ---- group: the leader's assignment, every worker's share ----

  private allocation(): Allocation {
    return {
      connectors: [...this.connectors].sort(),
      tasks: [...this.tasks.values()].map(({ connector, task }) => ({ connector, task })),
    };
  }

  /** The work to be assigned: every connector, and the committed tasks of each. */
  private configured(): Allocation {
    const state = this.configs;
    const connectors = [...state.connectors.keys()].sort();
    const tasks: Work[] = [];
    for (const connector of connectors)
      (state.tasks.get(connector) ?? []).forEach((_, task) => tasks.push({ connector, task }));
    return { connectors, tasks };
  }

  private async assignWork(
    members: { memberId: string; metadata: { url: string; workerId: string; allocation: Allocation } }[],
    leader: string,
  ): Promise<Map<string, Uint8Array>> {
    // Assign from everything written so far: no member has read further than the topic's end.
    await this.configLog.readToEnd();
    const configured = this.configured();
    const result = assign({
      members: members.map((m) => ({ memberId: m.memberId, owned: m.metadata.allocation })),
      configured,
      memory: this.memory,
      now: Date.now(),
      maxDelayMs: this.options.scheduledRebalanceMaxDelayMs,
    });
    this.memory = result.memory;
    this.assignedShape = JSON.stringify(configured);
    const urls = Object.fromEntries(members.map((m) => [m.metadata.workerId, m.metadata.url]));
    this.allocations = Object.fromEntries(
      members.map((m) => [m.metadata.workerId, result.assignments.get(m.memberId)!.assigned]),
    );
    const out = new Map<string, Uint8Array>();
    for (const m of members) {
      const share = result.assignments.get(m.memberId)!;
      const assignment: WorkerAssignment = {
        leader,
        leaderUrl: this.options.url,
        configOffset: this.configLog.offset,
        assigned: share.assigned,
        revoked: share.revoked,
        delayMs: result.delayMs,
        urls,
      };
      out.set(m.memberId, encodeAssignment(assignment));
    }
    const bytes = [...out.values()].reduce((n, b) => n + b.length, 0);
    log.info(
      {
        members: members.length,
        connectors: configured.connectors.length,
        tasks: configured.tasks.length,
        delayMs: result.delayMs,
        assignmentBytes: bytes,
      },
      "assigned connectors and tasks",
    );
    return out;
  }

  private async applyAssignment(assignment: WorkerAssignment, memberId: string, generation: number): Promise<void> {
    this.memberId = memberId;
    this.generation = generation;
    this.leaderId = assignment.leader;
    this.leaderUrl = assignment.leaderUrl;
    this.urls = assignment.urls;
    if (!this.isLeader) this.allocations = {};
    if (assignment.configOffset > this.configLog.offset) await this.configLog.readToEnd();
    // What this assignment was made from (the leader knows it exactly; others as far as they read).
    if (!this.isLeader) this.assignedShape = JSON.stringify(this.configured());
    const connectors = new Set(assignment.assigned.connectors);
    const tasks = new Set(assignment.assigned.tasks.map((t) => taskKey(t.connector, t.task)));
    const stopping = [...this.tasks.keys()].filter((k) => !tasks.has(k));
    await Promise.all(stopping.map((k) => this.stopTask(k)));
    for (const name of [...this.connectors].filter((c) => !connectors.has(c))) await this.stopConnector(name);
    this.rebalancing = false;
    for (const resolve of this.settledWaiters.splice(0)) resolve();
    // A new leader finishes the fencing rounds a departed one left undone.
    if (this.isLeader) for (const name of [...this.configs.pendingFencing]) await this.fencingRound(name);
    for (const name of connectors) if (!this.connectors.has(name)) await this.startConnector(name);
    for (const t of assignment.assigned.tasks)
      if (!this.tasks.has(taskKey(t.connector, t.task))) await this.startTask(t.connector, t.task);
    log.info(
      {
        generation,
        leader: this.isLeader,
        connectors: connectors.size,
        tasks: tasks.size,
        revoked: assignment.revoked.connectors.length + assignment.revoked.tasks.length,
      },
      "assignment applied",
    );
    // Revoked work is given out in the next round, which this worker starts now that it is released.
    if (assignment.revoked.connectors.length + assignment.revoked.tasks.length > 0) this.member.rejoin();
    clearTimeout(this.delayTimer);
    if (assignment.delayMs > 0) this.delayTimer = setTimeout(() => this.member.rejoin(), assignment.delayMs);
    this.rebalanceIfConfigChanged();
  }

  /**
   * A new round is needed when connectors or task counts changed since the assignment. The leader
   * starts it; every worker follows the config topic too, so each rejoins as soon as it reads such a
   * change instead of waiting for its next heartbeat to hear of the round.
   */
  private rebalanceIfConfigChanged(): void {
    if (!this.rebalancing && this.leaderUrl && JSON.stringify(this.configured()) !== this.assignedShape)
      this.member.rejoin();
  }

  private async releaseAll(reason: string): Promise<void> {
    if (this.connectors.size + this.tasks.size > 0) log.info({ reason }, "stopping all connectors and tasks");
    await Promise.all([...this.tasks.keys()].map((k) => this.stopTask(k)));
    for (const name of [...this.connectors]) await this.stopConnector(name);
    this.leaderId = "";
    this.leaderUrl = "";
  }

  // ---- running work on this worker ----

  private async startConnector(name: string): Promise<void> {
    const state = this.configs;
    const config = state.connectors.get(name);
    if (!config) return;
    this.connectors.add(name);
    const target = state.target(name);
    if (target === "STOPPED") {
      this.putStatus(name, undefined, { state: "STOPPED", workerId: this.worker.workerId });
      return;
    }
    const configs = await this.worker.startConnector(name, config, target, this.callbacks(name));
    if (target === "STARTED" && this.connectorStates.get(name)?.state !== "FAILED")
      await this.publishTaskConfigs(name, configs);
  }

  /** Writes the connector's task configs when they changed; the commit record makes them visible. */
  private async publishTaskConfigs(name: string, generated: Record<string, string>[]): Promise<void> {
    const config = this.configs.connectors.get(name);
    if (!config) return;
    const configs = this.validator.withTaskClass(config, generated);
    if (JSON.stringify(configs) === JSON.stringify(this.configs.tasks.get(name) ?? null)) return;
    await this.configLog.write([
      ...configs.map((c, task) => ({ kind: "task" as const, name, task, config: c })),
      { kind: "commit", name, tasks: configs.length },
    ]);
    log.info(
      { connector: name, tasks: configs.length },
      `${configs.length} task config${configs.length === 1 ? "" : "s"} of connector ${name} written`,
    );
  }

  private async stopConnector(name: string): Promise<void> {
    await this.worker.stopConnector(name, !this.configs.connectors.has(name));
    this.connectors.delete(name);
    this.connectorStates.delete(name);
    const removed = !this.configs.connectors.has(name);
    this.putStatus(name, undefined, removed ? null : { state: "UNASSIGNED", workerId: this.worker.workerId });
  }

  private async restartConnector(name: string): Promise<void> {
    if (!this.connectors.has(name)) return;
    await this.worker.stopConnector(name);
    await this.startConnector(name);
  }

  private async startTask(connector: string, task: number): Promise<void> {
    const state = this.configs;
    const config = state.connectors.get(connector);
    const taskConfig = state.tasks.get(connector)?.[task];
    if (!config || !taskConfig) return;
    this.tasks.set(taskKey(connector, task), { connector, task, config: taskConfig });
    if (this.needsFencing(connector)) {
      // Started once the leader fenced the producers of the connector's earlier tasks (KIP-618).
      if (this.isLeader) await this.fencingRound(connector);
      if (this.needsFencing(connector)) {
        this.awaitingFencing.add(taskKey(connector, task));
        return;
      }
    }
    this.awaitingFencing.delete(taskKey(connector, task));
    await this.worker.startTask(
      connector,
      task,
      config,
      taskConfig,
      state.target(connector) === "PAUSED",
      this.taskCallbacks(connector, task),
    );
  }

  /** An exactly-once source connector whose task configs changed since its last fencing round. */
  private needsFencing(connector: string): boolean {
    const className = this.configs.connectors.get(connector)?.["connector.class"];
    return (
      this.worker.exactlyOnceEnabled &&
      this.configs.pendingFencing.has(connector) &&
      className !== undefined &&
      this.worker.connectorType(className) === "source"
    );
  }

  /**
   * The leader's fencing round, as Kafka's (KIP-618): the transactional producers of the connector's
   * tasks as last counted are fenced, so that none of them, a zombie included, can commit once the new
   * tasks start; then the new count is recorded. A first count, or one task after one task (its
   * successor fences it when it starts), is only recorded.
   */
  private async fencingRound(connector: string): Promise<void> {
    if (!this.needsFencing(connector)) return;
    const previous = this.configs.taskCounts.get(connector);
    const count = this.configs.tasks.get(connector)?.length ?? 0;
    try {
      if (previous !== undefined && !(previous <= 1 && count <= 1)) {
        const ids = Array.from({ length: previous }, (_, task) =>
          taskTransactionalId(this.options.groupId, connector, task),
        );
        await this.worker.options.broker.fenceProducers(ids);
        log.info({ connector, tasks: previous }, `fenced the producers of ${previous} earlier tasks of ${connector}`);
      }
      await this.configLog.write([{ kind: "task-count", name: connector, tasks: count }]);
    } catch (err) {
      // Its tasks wait; the round is tried again at the next assignment or task config change.
      log.warn(
        { connector, err: err instanceof Error ? err.message : String(err) },
        `could not fence the earlier producers of ${connector}; its tasks wait for the next round`,
      );
    }
  }

  private async stopTask(key: string): Promise<void> {
    const entry = this.tasks.get(key);
    if (!entry) return;
    this.tasks.delete(key);
    if (this.awaitingFencing.delete(key)) return;
    await this.worker.stopTask(entry.connector, entry.task);
    const removed = (this.configs.tasks.get(entry.connector)?.length ?? 0) <= entry.task;
    if (removed) this.putStatus(entry.connector, entry.task, null);
  }

  private async restartTaskHere(connector: string, task: number): Promise<void> {
    const key = taskKey(connector, task);
    if (!this.tasks.has(key)) return;
    log.info({ connector, task }, `restarting task ${connector}-${task}`);
    await this.stopTask(key);
    await this.startTask(connector, task);
  }

  private putStatus(connector: string, task: number | undefined, status: Status | null): void {
    void this.statuses.put({ connector, task }, status, this.generation).catch(() => undefined);
  }

  protected callbacks(name: string): ConnectorCallbacks {
    return {
      onConnectorStatus: (status) => {
        if (!this.connectors.has(name)) return;
        this.connectorStates.set(name, status);
        this.putStatus(name, undefined, status);
      },
      onTaskStatus: (task, status) => this.putStatus(name, task, status),
      onTopic: (topic) => {
        const key = `${name}\u0000${topic}`;
        if (this.knownTopics.has(key)) return;
        this.knownTopics.add(key);
        void this.statuses.putTopic(topic, name, 0).catch(() => this.knownTopics.delete(key));
      },
      requestTaskReconfiguration: () => void this.serially(() => this.restartConnector(name)),
    };
  }

  /** Config changes, assignments and shutdown take turns, so each sees what the previous one did. */
  private serially(action: () => Promise<void>): Promise<void> {
    const run = this.queue.then(action);
    this.queue = run.catch((err) =>
      log.error({ err: err instanceof Error ? err.stack : String(err) }, "herder action failed"),
    );
    return run;
  }

  private async onConfigChange(change: ConfigChange): Promise<void> {
    const name = change.name;
    const state = this.configs;
    const mine = [...this.tasks.values()].filter((t) => t.connector === name);
    switch (change.kind) {
      case "connector":
        if (change.removed) {
          await Promise.all(mine.map((t) => this.stopTask(taskKey(name, t.task))));
          if (this.connectors.has(name)) await this.stopConnector(name);
        } else {
          await this.restartConnector(name);
        }
        break;
      case "target": {
        const target = state.target(name);
        if (this.connectors.has(name)) {
          const started = this.connectorStates.has(name);
          if (target === "STOPPED") {
            await this.worker.stopConnector(name);
            this.connectorStates.delete(name);
            this.putStatus(name, undefined, { state: "STOPPED", workerId: this.worker.workerId });
          } else if (!started) {
            await this.startConnector(name);
          } else if (target === "PAUSED") {
            this.worker.pauseConnector(name, this.callbacks(name));
          } else {
            this.worker.resumeConnector(name, this.callbacks(name));
            // Created paused, it has no tasks yet: they are generated once it runs.
            if ((state.tasks.get(name)?.length ?? 0) === 0) await this.restartConnector(name);
          }
        }
        for (const t of mine) {
          if (target === "PAUSED") this.worker.pauseTask(name, t.task);
          else if (target === "STARTED") this.worker.resumeTask(name, t.task);
        }
        break;
      }
      case "task-count":
        for (const t of mine)
          if (this.awaitingFencing.has(taskKey(name, t.task))) {
            this.tasks.delete(taskKey(name, t.task));
            await this.startTask(name, t.task);
          }
        break;
      case "tasks": {
        if (this.isLeader) await this.fencingRound(name);
        const configs = state.tasks.get(name) ?? [];
        for (const t of mine) {
          const config = configs[t.task];
          if (!config) await this.stopTask(taskKey(name, t.task));
          else if (JSON.stringify(config) !== JSON.stringify(t.config)) await this.restartTaskHere(name, t.task);
        }
        break;
      }
      case "restart": {
        if (this.connectors.has(name) && restarts(change, "connector", this.connectorStates.get(name)?.state))
          await this.restartConnector(name);
        if (change.includeTasks) {
          await this.statuses.readToEnd();
          const statuses = this.statuses.taskStatuses(name);
          for (const t of mine)
            if (restarts(change, "task", statuses.get(t.task)?.state)) await this.restartTaskHere(name, t.task);
        }
        break;
      }
    }
    this.rebalanceIfConfigChanged();
  }

  // ---- REST: writes ----

  /**
   * Writes of configs happen on the leader, with everything read; others forward. A write arriving
   * during a rebalance waits a little for it to end (as Kafka Connect's request queue does), then 409.
   */
  private async asLeader(): Promise<void> {
    if (this.rebalancing || !this.leaderUrl) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.settledWaiters.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, REBALANCE_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    if (this.rebalancing) throw connectErrors.conflict(STALE);
    if (!this.leaderUrl) throw connectErrors.conflict(NO_LEADER);
    if (!this.isLeader) throw new ForwardRequest(this.leaderUrl);
    await this.configLog.readToEnd();
  }

  async putConnector(
    name: string,
    config: Record<string, string>,
    options: { allowReplace: boolean; initialState?: TargetState },
  ): Promise<{ created: boolean; info: ConnectorInfo }> {
    const { full, exists } = await this.admitConnector(name, config, options.allowReplace, () => this.asLeader());
    await this.configLog.write([
      ...(options.initialState && !exists ? [{ kind: "target" as const, name, state: options.initialState }] : []),
      { kind: "connector", name, config: full },
    ]);
    log.info({ connector: name }, exists ? `connector ${name} config updated` : `connector ${name} created`);
    return { created: !exists, info: this.info(name) };
  }

  async patchConnector(name: string, patch: Record<string, string | null>): Promise<ConnectorInfo> {
    await this.asLeader();
    return (await this.putConnector(name, patchedConfig(name, this.need(name), patch), { allowReplace: true })).info;
  }

  async deleteConnector(name: string): Promise<void> {
    await this.asLeader();
    this.need(name);
    await this.configLog.write([
      { kind: "connector", name, config: null },
      { kind: "target", name, state: null },
    ]);
    log.info({ connector: name }, `connector ${name} deleted`);
  }

  /** Any worker may write a target state (Kafka Connect does not forward pause and resume). */
  async pause(name: string): Promise<void> {
    this.needKnown(name);
    if (this.configs.target(name) !== "PAUSED") await this.configLog.write([{ kind: "target", name, state: "PAUSED" }]);
  }

  async resume(name: string): Promise<void> {
    this.needKnown(name);
    if (this.configs.target(name) !== "STARTED")
      await this.configLog.write([{ kind: "target", name, state: "STARTED" }]);
  }

  /** KIP-875: the leader writes zero task configs, then the STOPPED target state. */
  async stop(name: string): Promise<void> {
    // As Kafka's DistributedHerder: an unknown connector is 404 on any worker, before the leader is asked.
    this.needKnown(name);
    await this.asLeader();
    await this.configLog.write([
      { kind: "commit", name, tasks: 0 },
      { kind: "target", name, state: "STOPPED" },
    ]);
  }

  async restart(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<ConnectorStateInfo | undefined> {
    await this.asLeader();
    if (!this.configs.connectors.has(name)) throw connectErrors.notFound(`Unknown connector: ${name}`);
    let planned: ConnectorStateInfo | undefined;
    if (includeTasks || onlyFailed) {
      // The plan: what will restart shows RESTARTING, with its last trace.
      const current = await this.status(name).catch(() => undefined);
      if (current) planned = { ...current, ...restartPlan(current, { includeTasks, onlyFailed }) };
    }
    log.info({ connector: name, includeTasks, onlyFailed }, `restarting connector ${name}`);
    await this.configLog.write([{ kind: "restart", name, includeTasks, onlyFailed }]);
    return planned;
  }

  /** Restarted by the worker running it: others forward the request there. */
  async restartTask(name: string, index: number): Promise<void> {
    this.need(name);
    if (!this.configs.tasks.get(name)?.[index]) throw connectErrors.notFound(`Task ${name}-${index} not found`);
    if (this.tasks.has(taskKey(name, index))) return this.serially(() => this.restartTaskHere(name, index));
    if (this.rebalancing) throw connectErrors.conflict(STALE);
    await this.statuses.readToEnd();
    const owner = this.statuses.taskStatuses(name).get(index)?.workerId;
    const url = owner ? this.urls[owner] : undefined;
    if (!url || owner === this.worker.workerId)
      throw connectErrors.conflict(
        `Cannot complete request because of a conflicting operation (e.g. worker rebalance)`,
      );
    throw new ForwardRequest(url);
  }

  // ---- REST: reads (from this worker's copy of the topics) ----

  protected get configs(): ConfigState {
    return this.configLog.state;
  }

  /** Reads the status topic, but answers from what it has when Kafka is slow or away. */
  protected override async freshStatuses(): Promise<void> {
    await untilOrAfter(
      this.statuses.readToEnd().catch(() => undefined),
      STATUS_READ_WAIT_MS,
    );
  }

  protected override onTopicsReset(name: string): void {
    for (const key of [...this.knownTopics]) if (key.startsWith(`${name}\u0000`)) this.knownTopics.delete(key);
  }

  // ---- offsets (KIP-875), on stopped connectors ----

  protected override beforeOffsetsWrite(): Promise<void> {
    return this.asLeader();
  }
}
