// org.apache.kafka.connect.mirror.MirrorSourceConnector (Kafka 4.1): finds the source topics to
// replicate, creates their remote topics on the target (partitions as the source's, replication.factor,
// the source's allowed configs), grows them when the source grows, keeps their configs in step, and
// spreads the partitions over tasks round robin, and copies the source's topic ACLs (topic-acls.ts) every
// sync.topic.acls.interval.seconds. New topics and partitions are found every
// refresh.topics.interval.seconds, and the tasks reconfigured, as Kafka's connector does.
import type { Broker, TopicConfigChange, TopicConfigEntry } from "../../broker/broker.ts";
import { ConnectException, SourceConnector, type ExactlyOnceSupport } from "../../connect/api/connector.ts";
import { logger } from "../../platform/log.ts";
import type { SettingsDefinition } from "../../platform/settings.ts";
import { VERSION } from "../../platform/version.ts";
import { mirrorClientProps, missingClusterAddresses, refusedLoginSettings } from "./mirror-config.ts";
import {
  assignTopicPartitions,
  javaHashMapOrder,
  MirrorSourceConfig,
  mirrorSourceSettings,
  type TopicPartition,
} from "./source-config.ts";
import { MirrorSourceTask } from "./source-task.ts";
import { targetTopicAcls } from "./topic-acls.ts";

const log = logger("mirror-source");

/** KIP-618: a source consumer at read_committed replicates no aborted or open transaction. */
function consumerUsesReadCommitted(props: Record<string, string>): boolean {
  return mirrorClientProps(props, "source", "consumer")["isolation.level"] === "read_committed";
}

export class MirrorSourceConnector extends SourceConnector {
  static readonly className = "org.apache.kafka.connect.mirror.MirrorSourceConnector";
  private settings!: MirrorSourceConfig;
  private sourceAdmin: Broker | undefined;
  private targetAdmin: Broker | undefined;
  private knownSource: TopicPartition[] = [];
  private knownTarget: TopicPartition[] = [];
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  /** Kafka's Scheduler runs one job at a time: jobs queue here. */
  private jobs: Promise<void> = Promise.resolve();
  private stopped = false;
  private connected: Promise<void> | undefined;
  /** The source said it has no authorizer: said once at info, as Kafka's connector does. */
  private noAclAuthorizer = false;

  version(): string {
    return VERSION;
  }

  config(): SettingsDefinition {
    return mirrorSourceSettings;
  }

  taskClass() {
    return MirrorSourceTask;
  }

  async start(props: Record<string, string>): Promise<void> {
    this.settings = new MirrorSourceConfig(props);
    this.stopped = false;
    this.connected = undefined;
    if (!this.settings.enabled) return;
    const config = this.settings;
    this.sourceAdmin = config.client("source", ["admin"], "replication-source-admin");
    this.targetAdmin = config.client("target", ["admin"], "replication-target-admin");
    // As Kafka's connector: each step is bounded by admin.timeout.ms and a failed one is logged, not fatal
    // (the periodic refresh tries again, connecting first if the clusters could not be reached yet).
    await this.run("creating the offset-syncs topic", () => this.createOffsetSyncsTopic());
    await this.run("loading initial set of topic-partitions", () => this.loadTopicPartitions());
    await this.run("creating downstream topic-partitions", () => this.computeAndCreateTopicPartitions());
    await this.run("refreshing known target topics", async () => {
      this.knownTarget = await this.findTargetTopicPartitions();
    });
    const syncAcls = config.syncTopicAclsIntervalMs;
    if (syncAcls >= 0) {
      this.schedule("syncing topic ACLs", () => this.syncTopicAcls());
      this.repeat(syncAcls, "syncing topic ACLs", () => this.syncTopicAcls());
    }
    const syncConfigs = config.syncTopicConfigsIntervalMs;
    if (syncConfigs >= 0) {
      this.schedule("syncing topic configs", () => this.syncTopicConfigs());
      this.repeat(syncConfigs, "syncing topic configs", () => this.syncTopicConfigs());
    }
    const refresh = config.refreshTopicsIntervalMs;
    if (refresh >= 0) this.repeat(refresh, "refreshing topics", () => this.refreshTopicPartitions());
    log.info({ connector: props.name, partitions: this.knownSource.length }, "MirrorSourceConnector started");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await this.jobs;
    await Promise.all([this.sourceAdmin?.close(), this.targetAdmin?.close()].map((p) => p?.catch(() => undefined)));
    this.sourceAdmin = this.targetAdmin = undefined;
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    if (!this.settings.enabled || this.knownSource.length === 0) return [];
    return assignTopicPartitions(this.knownSource, maxTasks).map((partitions, i) =>
      this.settings.taskConfig(partitions, i),
    );
  }

  /** Kafka's answer: exactly once only when the source consumer skips aborted and open transactions. */
  override exactlyOnceSupport(props: Record<string, string>): ExactlyOnceSupport {
    return consumerUsesReadCommitted(props) ? "SUPPORTED" : "UNSUPPORTED";
  }

  /** Kafka's connector-specific checks: why exactly-once cannot be required, offset-syncs settings without offset syncs. */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    const problems = new Map<string, string[]>();
    for (const [key, why] of refusedLoginSettings(props)) problems.set(key, [why]);
    for (const [key, why] of missingClusterAddresses(props, ["source", "target"])) problems.set(key, [why]);
    if (props["exactly.once.support"] === "required" && !consumerUsesReadCommitted(props))
      problems.set("exactly.once.support", [
        "MirrorSourceConnector can only provide exactly-once guarantees when its source consumer is configured with isolation.level set to 'read_committed'; otherwise, records from aborted and uncommitted transactions will be replicated from the source cluster to the target cluster.",
      ]);
    const offsetSyncsConfigured = Object.keys(props).some(
      (k) => k.startsWith("offset-syncs-") || k.startsWith("offset-syncs.topic."),
    );
    if (props["emit.offset-syncs.enabled"] === "false" && offsetSyncsConfigured)
      problems.set("emit.offset-syncs.enabled", [
        "MirrorSourceConnector can't setup offset-syncs feature while emit.offset-syncs.enabled set to false",
      ]);
    return problems;
  }

  /** Offsets are checked as Kafka's connector checks them (null resets anything). */
  override alterOffsets(
    _config: Record<string, string>,
    offsets: Map<Record<string, unknown>, Record<string, unknown> | null>,
  ): boolean {
    for (const [partition, offset] of offsets) {
      if (offset === null || offset === undefined) continue;
      if (partition === null || typeof partition !== "object")
        throw new ConnectException("Source partitions may not be null");
      const shown = JSON.stringify(partition);
      for (const key of ["cluster", "topic"]) {
        if (!(key in partition))
          throw new ConnectException(`Source partition ${shown} is missing the '${key}' key, which is required`);
        if (typeof partition[key] !== "string")
          throw new ConnectException(
            `Source partition ${shown} has an invalid value ${String(partition[key])} for the '${key}' key, which must be a string`,
          );
      }
      if (!("partition" in partition))
        throw new ConnectException(`Source partition ${shown} is missing the 'partition' key, which is required`);
      const p = partition.partition;
      if (typeof p !== "number" || !Number.isInteger(p) || p > 2147483647)
        throw new ConnectException(
          `Source partition ${shown} has an invalid value ${String(p)} for the 'partition' key, which must be an integer`,
        );
      if (p < 0)
        throw new ConnectException(
          `Source partition ${shown} has an invalid value ${p} for the 'partition' key, which cannot be negative`,
        );
      if (!("offset" in offset))
        throw new ConnectException(
          `Source offset ${JSON.stringify(offset)} for source partition ${shown} is missing the 'offset' key, which is required`,
        );
      const o = offset.offset;
      if (typeof o !== "number" || !Number.isInteger(o))
        throw new ConnectException(
          `Source offset ${JSON.stringify(offset)} for source partition ${shown} has an invalid value ${String(o)} for the 'offset' key, which must be an integer`,
        );
      if (o < 0)
        throw new ConnectException(
          `Source offset ${JSON.stringify(offset)} for source partition ${shown} has an invalid value ${o} for the 'offset' key, which cannot be negative`,
        );
    }
    // The source consumer never commits: the offsets are all there is to alter.
    return true;
  }

  /** Connects the admin clients, once: again after a failure. */
  private connectAdmins(): Promise<void> {
    this.connected ??= Promise.all([this.sourceAdmin!.connect(), this.targetAdmin!.connect()]).then(
      () => undefined,
      (err: unknown) => {
        this.connected = undefined;
        throw err;
      },
    );
    return this.connected;
  }

  /** One job now, after the ones queued, bounded by admin.timeout.ms; a failure is logged. */
  private run(what: string, job: () => Promise<void>): Promise<void> {
    const timeoutMs = this.settings.adminTimeoutMs;
    const next = this.jobs.then(async () => {
      if (this.stopped) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const work = this.connectAdmins().then(job);
        work.catch(() => undefined); // one that outlives its timeout fails unobserved
        await Promise.race([work, timeout]);
      } catch (err) {
        log.error({ err: (err as Error).message, connector: this.settings.props.name }, `${what} failed`);
      } finally {
        clearTimeout(timer);
      }
    });
    this.jobs = next;
    return next;
  }

  private schedule(what: string, job: () => Promise<void>): void {
    void this.run(what, job);
  }

  private repeat(intervalMs: number, what: string, job: () => Promise<void>): void {
    // Kafka's scheduler skips a run when the last one is still going; queueing one each interval is the same here.
    let queued = false;
    this.timers.push(
      setInterval(
        () => {
          if (queued) return;
          queued = true;
          void this.run(what, job).finally(() => (queued = false));
        },
        Math.max(1, intervalMs),
      ),
    );
  }

  private async createOffsetSyncsTopic(): Promise<void> {
    if (!this.settings.emitOffsetSyncs) return;
    const admin = this.settings.offsetSyncsTopicLocation === "source" ? this.sourceAdmin! : this.targetAdmin!;
    await admin.createTopic({
      name: this.settings.offsetSyncsTopic,
      partitions: 1,
      replicationFactor: this.settings.offsetSyncsTopicReplicationFactor,
      config: { "cleanup.policy": "compact" },
    });
  }

  private async loadTopicPartitions(): Promise<void> {
    this.knownSource = await this.findSourceTopicPartitions();
    this.knownTarget = await this.findTargetTopicPartitions();
  }

  /** The source's partitions to replicate: topics in the order Kafka's connector has them, partitions in order. */
  async findSourceTopicPartitions(): Promise<TopicPartition[]> {
    const admin = this.sourceAdmin!;
    const topics = javaHashMapOrder((await admin.listTopics()).filter((t) => this.settings.shouldReplicateTopic(t)));
    return expand(await admin.partitionCounts(topics), topics);
  }

  /** The target's topics that came from this source (the checkpoints topic apart). */
  async findTargetTopicPartitions(): Promise<TopicPartition[]> {
    const admin = this.targetAdmin!;
    const { policy, sourceClusterAlias, checkpointsTopic } = this.settings;
    const topics = (await admin.listTopics())
      .filter((t) => policy.topicSource(t) === sourceClusterAlias && t !== checkpointsTopic)
      .sort();
    return expand(await admin.partitionCounts(topics), topics);
  }

  /** New, deleted or grown source partitions, or remote ones missing: create what is missing and reconfigure the tasks. */
  private async refreshTopicPartitions(): Promise<void> {
    const source = await this.findSourceTopicPartitions();
    const target = await this.findTargetTopicPartitions();
    const key = (tp: TopicPartition) => `${tp.partition}:${tp.topic}`;
    const sourceKeys = new Set(source.map(key));
    const knownKeys = new Set(this.knownSource.map(key));
    const upstreamOfTarget = new Set(
      target.map((tp) =>
        key({ topic: this.settings.policy.upstreamTopic(tp.topic) ?? tp.topic, partition: tp.partition }),
      ),
    );
    const missingInTarget = source.filter((tp) => !upstreamOfTarget.has(key(tp)));
    this.knownTarget = target;
    const changed = sourceKeys.size !== knownKeys.size || [...sourceKeys].some((k) => !knownKeys.has(k));
    if (!changed && missingInTarget.length === 0) return;
    const added = source.filter((tp) => !knownKeys.has(key(tp))).length;
    const deleted = this.knownSource.filter((tp) => !sourceKeys.has(key(tp))).length;
    log.info(
      { connector: this.settings.props.name, added, deleted, missingInTarget: missingInTarget.length },
      `Found ${added} new topic-partitions on ${this.settings.sourceClusterAlias}. Found ${deleted} deleted topic-partitions on ${this.settings.sourceClusterAlias}. Found ${missingInTarget.length} topic-partitions missing on ${this.settings.targetClusterAlias}.`,
    );
    this.knownSource = source;
    await this.computeAndCreateTopicPartitions();
    this.context.requestTaskReconfiguration();
  }

  /** Remote topics for new source topics; more partitions for remote topics the source outgrew. */
  private async computeAndCreateTopicPartitions(): Promise<void> {
    const sourceCounts = countByTopic(this.knownSource);
    const targetCounts = countByTopic(this.knownTarget);
    const newTopics: string[] = [];
    for (const [topic, count] of sourceCounts) {
      const remote = this.settings.formatRemoteTopic(topic);
      const remoteCount = targetCounts.get(remote);
      if (remoteCount === undefined) newTopics.push(topic);
      else if (count > remoteCount) {
        const grown = await this.targetAdmin!.createPartitions!(remote, count);
        if (grown)
          log.info({ topic: remote, partitions: count }, `Increased size of ${remote} to ${count} partitions.`);
      }
    }
    if (newTopics.length === 0) return;
    const configs = await this.sourceAdmin!.describeTopicConfigs!(newTopics);
    // All at once, as Kafka's MM2 sends one CreateTopics for them: each creation waits for the topic's
    // metadata, and one after another they held up the connector's start by a fraction of a second each.
    await Promise.all(
      newTopics.map(async (topic) => {
        const remote = this.settings.formatRemoteTopic(topic);
        const config: Record<string, string> = {};
        for (const entry of this.targetConfig(configs.get(topic) ?? [], false))
          if (entry.value !== null) config[entry.name] = entry.value;
        try {
          const created = await this.targetAdmin!.createTopic({
            name: remote,
            partitions: sourceCounts.get(topic)!,
            replicationFactor: this.settings.replicationFactor,
            config,
          });
          if (created)
            log.info({ topic: remote, partitions: sourceCounts.get(topic) }, `Created remote topic ${remote}.`);
        } catch (err) {
          log.warn({ err: (err as Error).message, topic: remote }, `Could not create topic ${remote}.`);
        }
      }),
    );
  }

  /**
   * The source configs a remote topic takes: not read-only, sensitive or a static broker setting, allowed
   * by config.properties.exclude; a config at its default only when syncing (as a DELETE, unless
   * use.defaults.from=source) or, on creation, with use.defaults.from=source.
   */
  private targetConfig(entries: TopicConfigEntry[], incremental: boolean): TopicConfigEntry[] {
    const filter = this.settings.configPropertyFilter;
    return entries.filter(
      (e) =>
        (incremental || e.source !== "default" || filter.shouldReplicateSourceDefault(e.name)) &&
        !e.readOnly &&
        !e.sensitive &&
        e.source !== "static-broker" &&
        filter.shouldReplicateConfigProperty(e.name),
    );
  }

  /** The source's topic ACLs that Kafka's connector copies, created on the target (where they exist, nothing changes). */
  private async syncTopicAcls(): Promise<void> {
    // (the embedded broker has no authorizer)
    const acls = this.sourceAdmin!.describeTopicAcls ? await this.sourceAdmin!.describeTopicAcls() : null;
    if (acls === null) {
      if (!this.noAclAuthorizer)
        log.info(
          { connector: this.settings.props.name },
          "No ACL authorizer is configured on the source Kafka cluster, so no topic ACL syncing will take place. Consider disabling topic ACL syncing by setting sync.topic.acls.enabled to 'false'.",
        );
      this.noAclAuthorizer = true;
      return;
    }
    const bindings = targetTopicAcls(
      acls,
      (topic) => this.settings.shouldReplicateTopic(topic),
      (topic) => this.settings.formatRemoteTopic(topic),
    );
    if (bindings.length === 0) return;
    const refused = await this.targetAdmin!.createTopicAcls!(bindings);
    for (const { acl, reason } of refused)
      log.warn({ topic: acl.topic, err: reason }, `Could not sync ACL of topic ${acl.topic}.`);
  }

  /** Each replicated topic's allowed configs set on its remote topic; defaults reset to the target's. */
  private async syncTopicConfigs(): Promise<void> {
    const targetTopics = new Set(this.knownTarget.map((tp) => tp.topic));
    const replicated = [...new Set(this.knownSource.map((tp) => tp.topic))].filter((t) =>
      targetTopics.has(this.settings.formatRemoteTopic(t)),
    );
    if (replicated.length === 0) return;
    const configs = await this.sourceAdmin!.describeTopicConfigs!(replicated);
    const filter = this.settings.configPropertyFilter;
    const changes = new Map<string, TopicConfigChange[]>();
    for (const [topic, entries] of configs) {
      changes.set(
        this.settings.formatRemoteTopic(topic),
        this.targetConfig(entries, true).flatMap((e): TopicConfigChange[] =>
          e.source === "default" && !filter.shouldReplicateSourceDefault(e.name)
            ? [{ name: e.name, op: "delete" }]
            : e.value === null
              ? []
              : [{ name: e.name, op: "set", value: e.value }],
        ),
      );
    }
    const refused = await this.targetAdmin!.alterTopicConfigs!(changes);
    for (const [topic, reason] of refused)
      log.warn({ topic, err: reason }, `Could not alter configuration of topic ${topic}.`);
  }
}

function countByTopic(partitions: TopicPartition[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const tp of partitions) counts.set(tp.topic, (counts.get(tp.topic) ?? 0) + 1);
  return counts;
}

function expand(counts: Map<string, number>, topics: string[]): TopicPartition[] {
  return topics.flatMap((topic) =>
    Array.from({ length: counts.get(topic) ?? 0 }, (_, partition) => ({ topic, partition })),
  );
}
