// org.apache.kafka.connect.mirror.MirrorCheckpointConnector: finds the source cluster's consumer groups
// (the group filter's, with offsets in at least one topic the topic filter takes), refreshes them every
// refresh.groups.interval.seconds, and spreads them over up to tasks.max tasks as Kafka does
// (ConnectorUtils.groupPartitions: contiguous runs, the first tasks one longer). It creates the
// target's `<source alias>.checkpoints.internal` topic; the tasks (checkpoint-task.ts) write to it.
import type { Broker } from "../../broker/broker.ts";
import { SourceConnector, type TaskClass } from "../../connect/api/connector.ts";
import { logger } from "../../platform/log.ts";
import type { SettingsDefinition } from "../../platform/settings.ts";
import { VERSION } from "../../platform/version.ts";
import {
  CheckpointConfig,
  checkpointConfigProblems,
  checkpointSettings,
  TASK_CONSUMER_GROUPS,
  TASK_INDEX,
} from "./checkpoint-config.ts";
import { MirrorCheckpointTask } from "./checkpoint-task.ts";
import type { GroupFilter, TopicFilter } from "./filters.ts";
import { createSinglePartitionCompactedTopic } from "./internal-topics.ts";
import { missingClusterAddresses } from "./mirror-config.ts";
import {
  validateSourcePartitionPartition,
  validateSourcePartitionString,
  validateZeroOffset,
} from "./offset-validation.ts";

const log = logger("mirror-checkpoint");

/** Kafka's ConnectorUtils.groupPartitions: `count` contiguous runs, the first `length % count` one longer. */
export function groupPartitions<T>(elements: T[], count: number): T[][] {
  const out: T[][] = [];
  const per = Math.floor(elements.length / count);
  const leftover = elements.length % count;
  let at = 0;
  for (let i = 0; i < count; i++) {
    const size = per + (i < leftover ? 1 : 0);
    out.push(elements.slice(at, at + size));
    at += size;
  }
  return out;
}

/** Java's String.hashCode, over UTF-16 code units. */
function javaHashCode(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order Java iterates a `new HashSet<>()` of these names in (16 buckets, doubled as it fills past
 * three quarters): Kafka's connector deals its groups to tasks in that order. Names sharing a bucket keep
 * the order they were added in (the coordinators' listing, as Kafka's client gets it).
 */
export function javaHashSetOrder(names: string[]): string[] {
  let capacity = 16;
  while (names.length > capacity * 0.75) capacity *= 2;
  const bucket = (name: string) => {
    const h = javaHashCode(name);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return [...names].sort((a, b) => bucket(a) - bucket(b)); // stable: a bucket keeps the names' order
}

/** The groups to checkpoint: the filter's, with offsets in at least one topic the topic filter takes. */
export async function findConsumerGroups(
  source: Broker,
  groupFilter: GroupFilter,
  topicFilter: TopicFilter,
): Promise<string[]> {
  if (!source.listConsumerGroups || !source.groupOffsets)
    throw new Error("the source cluster's client cannot list consumer groups (an embedded broker)");
  const groups = (await source.listConsumerGroups()).filter((g) => groupFilter.shouldReplicateGroup(g));
  const out: string[] = [];
  for (const group of groups) {
    const offsets = await source.groupOffsets(group);
    if (offsets.some((o) => topicFilter.shouldReplicateTopic(o.topic))) out.push(group);
  }
  return javaHashSetOrder(out);
}

export class MirrorCheckpointConnector extends SourceConnector {
  static readonly className = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector";
  private settings?: CheckpointConfig;
  private source?: Broker;
  private knownGroups?: string[];
  private refresh?: ReturnType<typeof setInterval>;
  private refreshing = false;
  private stopped = false;

  version(): string {
    return VERSION;
  }

  async start(props: Record<string, string>): Promise<void> {
    const config = new CheckpointConfig(props);
    this.settings = config;
    this.stopped = false;
    if (!config.enabled) return;
    // As Kafka's connector: failures to create the topic or list the groups are logged; the refresh
    // below tries the groups again.
    let target: Broker | undefined;
    try {
      target = await config.connectClient("target", ["admin"], "checkpoint-target-admin");
      await createSinglePartitionCompactedTopic(
        target,
        config.checkpointsTopic(),
        config.values.int("checkpoints.topic.replication.factor"),
      );
    } catch (err) {
      log.error({ err: (err as Error).message }, "could not create the checkpoints topic on the target cluster");
    } finally {
      await target?.close().catch(() => undefined);
    }
    try {
      this.source = await config.connectClient("source", ["admin"], "checkpoint-source-admin");
      this.knownGroups = await findConsumerGroups(this.source, config.groupFilter(), config.topicFilter());
      log.info(
        { connector: props.name, groups: this.knownGroups.length },
        `Started ${props.name ?? ""} with ${this.knownGroups.length} consumer groups.`,
      );
    } catch (err) {
      log.error({ err: (err as Error).message }, "could not load the source cluster's consumer groups");
    }
    const refreshMs = config.intervalMs("refresh.groups");
    // Kafka retries a connector whose first load failed (its taskConfigs throws a RetriableException);
    // here the refresh does, soon, and asks for new task configs once it has the groups.
    const everyMs = this.knownGroups === undefined ? Math.min(refreshMs < 0 ? 10000 : refreshMs, 10000) : refreshMs;
    if (everyMs >= 0) this.refresh = setInterval(() => void this.refreshGroups(), Math.max(everyMs, 100));
  }

  private async refreshGroups(): Promise<void> {
    const config = this.settings;
    if (!config || this.refreshing || this.stopped) return;
    this.refreshing = true;
    try {
      this.source ??= await config.connectClient("source", ["admin"], "checkpoint-source-admin");
      const groups = await findConsumerGroups(this.source, config.groupFilter(), config.topicFilter());
      const known = new Set(this.knownGroups ?? []);
      const added = groups.filter((g) => !known.has(g));
      const removed = [...known].filter((g) => !groups.includes(g));
      const first = this.knownGroups === undefined;
      if (first || added.length > 0 || removed.length > 0) {
        log.info(
          { added, removed },
          `Found ${groups.length} consumer groups for ${config.sourceClusterAlias}->${config.targetClusterAlias}. ${added.length} are new. ${removed.length} were removed. Previously had ${known.size}.`,
        );
        this.knownGroups = groups;
        if (first) {
          // Back to the configured refresh once the groups are known.
          clearInterval(this.refresh);
          const refreshMs = config.intervalMs("refresh.groups");
          this.refresh =
            refreshMs >= 0 ? setInterval(() => void this.refreshGroups(), Math.max(refreshMs, 100)) : undefined;
        }
        if (!this.stopped) this.context.requestTaskReconfiguration();
      }
    } catch (err) {
      log.error({ err: (err as Error).message }, "could not refresh the source cluster's consumer groups");
    } finally {
      this.refreshing = false;
    }
  }

  taskClass(): TaskClass {
    return MirrorCheckpointTask;
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    const config = this.settings;
    if (!config?.enabled || config.intervalMs("emit.checkpoints") < 0) return [];
    const groups = this.knownGroups ?? [];
    if (groups.length === 0) return [];
    const count = Math.min(maxTasks, groups.length);
    return groupPartitions(groups, count).map((assigned, i) => ({
      ...config.props,
      [TASK_CONSUMER_GROUPS]: assigned.join(","),
      [TASK_INDEX]: String(i),
    }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.refresh);
    this.refresh = undefined;
    await this.source?.close().catch(() => undefined);
    this.source = undefined;
  }

  config(): SettingsDefinition {
    return checkpointSettings;
  }

  /** As Kafka's validate: a config that could never write a checkpoint is refused by name. */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    const problems = [...checkpointConfigProblems(props), ...missingClusterAddresses(props, ["source", "target"])];
    return new Map(problems.map(([name, message]) => [name, [message]]));
  }

  /** Offsets are checked as Kafka's connector checks them (null resets anything). */
  override alterOffsets(
    _config: Record<string, string>,
    offsets: Map<Record<string, unknown>, Record<string, unknown> | null>,
  ): boolean {
    for (const [partition, offset] of offsets) {
      if (offset === null || offset === undefined) continue;
      validateSourcePartitionString(partition, "group");
      validateSourcePartitionString(partition, "topic");
      validateSourcePartitionPartition(partition);
      validateZeroOffset(partition, offset);
    }
    return true;
  }
}
