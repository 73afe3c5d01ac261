// MirrorCheckpointConnector's settings (Kafka's MirrorCheckpointConfig and MirrorCheckpointTaskConfig),
// and what the connector and its tasks read of them.
import { ConfigError, refused } from "../../platform/settings.ts";
import {
  DEFAULT_GROUP_FILTER,
  DEFAULT_TOPIC_FILTER,
  GROUPS_DEFAULT,
  GROUPS_EXCLUDE_DEFAULT,
  GroupFilter,
  TOPICS_DEFAULT,
  TOPICS_EXCLUDE_DEFAULT,
  TopicFilter,
} from "./filters.ts";
import { MirrorConfig, mirrorSettingsDefinition, offsetSyncsTopicLocationSetting } from "./mirror-config.ts";

/**
 * The groups a task checkpoints and its index, in its task config only (Kafka's MirrorCheckpointTaskConfig;
 * not settings of the connector).
 */
export const TASK_CONSUMER_GROUPS = "task.assigned.groups";
export const TASK_INDEX = "task.index";

export const checkpointSettings = mirrorSettingsDefinition([
  {
    name: "consumer.poll.timeout.ms",
    type: "long",
    default: 1000,
    importance: "low",
    doc: "Timeout when polling source cluster.",
  },
  {
    name: "groups",
    type: "list",
    default: GROUPS_DEFAULT,
    importance: "high",
    doc: "Consumer groups to replicate. Supports comma-separated group IDs and regexes.",
  },
  {
    name: "groups.exclude",
    type: "list",
    default: GROUPS_EXCLUDE_DEFAULT,
    importance: "high",
    doc: "Exclude groups. Supports comma-separated group IDs and regexes. Excludes take precedence over includes.",
  },
  {
    name: "topics",
    type: "list",
    default: TOPICS_DEFAULT,
    importance: "high",
    doc: "Topics whose consumer offsets are checkpointed. Supports comma-separated topic names and regexes.",
  },
  {
    name: "topics.exclude",
    type: "list",
    default: TOPICS_EXCLUDE_DEFAULT,
    importance: "high",
    doc: "Excluded topics. Supports comma-separated topic names and regexes. Excludes take precedence over includes.",
  },
  refused(
    "group.filter.class",
    "groups are chosen with groups and groups.exclude; a Java GroupFilter cannot be loaded",
    [DEFAULT_GROUP_FILTER],
    { type: "class" },
  ),
  refused(
    "topic.filter.class",
    "topics are chosen with topics and topics.exclude; a Java TopicFilter cannot be loaded",
    [DEFAULT_TOPIC_FILTER],
    { type: "class" },
  ),
  {
    name: "refresh.groups.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to periodically check for new consumer groups.",
  },
  {
    name: "refresh.groups.interval.seconds",
    type: "long",
    default: 600,
    importance: "low",
    doc: "Frequency of group refresh.",
  },
  {
    name: "emit.checkpoints.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to replicate consumer offsets to target cluster.",
  },
  {
    name: "emit.checkpoints.interval.seconds",
    type: "long",
    default: 60,
    importance: "low",
    doc: "Frequency of checkpoints.",
  },
  {
    name: "sync.group.offsets.enabled",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Whether to periodically write the translated offsets to __consumer_offsets topic in target cluster, as long as no active consumers in that group are connected to the target cluster",
  },
  {
    name: "sync.group.offsets.interval.seconds",
    type: "long",
    default: 60,
    importance: "low",
    doc: "Frequency of consumer group offset sync.",
  },
  {
    name: "checkpoints.topic.replication.factor",
    type: "int",
    default: 3,
    min: -1,
    max: 32767,
    importance: "low",
    doc: "Replication factor for checkpoints topic.",
  },
  offsetSyncsTopicLocationSetting,
  {
    name: "emit.offset-syncs.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether MirrorSourceConnector stores offset syncs; MirrorCheckpointConnector cannot run without them.",
  },
]);

/**
 * Kafka's MirrorCheckpointConfig.validate: settings with which the connector could never write a
 * checkpoint (none when the connector is disabled), as [setting, message].
 */
export function checkpointConfigProblems(props: Record<string, string>): [string, string][] {
  const off = (name: string) => props[name]?.trim().toLowerCase() === "false";
  if (off("enabled")) return [];
  const problems: [string, string][] = [];
  if (off("emit.checkpoints.enabled"))
    problems.push([
      "emit.checkpoints.enabled",
      "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false",
    ]);
  if (off("emit.offset-syncs.enabled"))
    problems.push(["emit.offset-syncs.enabled", "MirrorCheckpointConnector can't run without offset syncs"]);
  return problems;
}

/** What the checkpoint connector and its tasks read of their settings. */
export class CheckpointConfig extends MirrorConfig {
  constructor(props: Record<string, string>) {
    super(checkpointSettings, props);
    const [problem] = checkpointConfigProblems(props);
    if (problem) throw new ConfigError(problem[0], "false", problem[1]);
  }
  get enabled(): boolean {
    return this.values.boolean("enabled");
  }
  /** Negative when off, as Kafka's intervals. */
  intervalMs(feature: "emit.checkpoints" | "refresh.groups" | "sync.group.offsets"): number {
    return this.values.boolean(`${feature}.enabled`) ? this.values.int(`${feature}.interval.seconds`) * 1000 : -1;
  }
  topicFilter(): TopicFilter {
    return new TopicFilter(this.values.list("topics"), this.values.list("topics.exclude"));
  }
  groupFilter(): GroupFilter {
    return new GroupFilter(this.values.list("groups"), this.values.list("groups.exclude"));
  }
  checkpointsTopic(): string {
    return this.policy.checkpointsTopic(this.sourceClusterAlias);
  }
  offsetSyncsLocation(): "source" | "target" {
    return this.values.string("offset-syncs.topic.location").toLowerCase() === "target" ? "target" : "source";
  }
  /** Named after the cluster at the other end: `mm2-offset-syncs.<target>.internal` when it is on the source. */
  offsetSyncsTopic(): string {
    return this.policy.offsetSyncsTopic(
      this.offsetSyncsLocation() === "source" ? this.targetClusterAlias : this.sourceClusterAlias,
    );
  }
}
