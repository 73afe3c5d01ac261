// MirrorSourceConnector's settings (Kafka 4.1's MirrorSourceConfig and its task's), read once for the
// connector and its tasks.
import { refused, type Setting, SettingsDefinition } from "../../platform/settings.ts";
import {
  CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
  ConfigPropertyFilter,
  DEFAULT_CONFIG_PROPERTY_FILTER,
  DEFAULT_TOPIC_FILTER,
  TOPICS_DEFAULT,
  TOPICS_EXCLUDE_DEFAULT,
  TopicFilter,
} from "./filters.ts";
import {
  MirrorConfig,
  mirrorSettingsDefinition,
  offsetSyncsTopicLocationSetting,
  type ClusterSide,
} from "./mirror-config.ts";

const sourceSettings: Setting[] = [
  {
    name: "topics",
    type: "list",
    default: TOPICS_DEFAULT,
    importance: "high",
    doc: "Topics to replicate. Supports comma-separated topic names and regexes.",
  },
  {
    name: "topics.exclude",
    type: "list",
    default: TOPICS_EXCLUDE_DEFAULT,
    importance: "high",
    doc: "Excluded topics. Supports comma-separated topic names and regexes. Excludes take precedence over includes.",
  },
  {
    name: "config.properties.exclude",
    type: "list",
    default: CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
    importance: "high",
    doc: "Topic config properties that should not be replicated. Supports comma-separated property names and regexes.",
  },
  {
    name: "use.defaults.from",
    type: "string",
    default: "target",
    oneOf: ["source", "target"],
    importance: "medium",
    doc: "Which cluster's defaults (source or target) to use when syncing topic configurations that have default values.",
  },
  refused("topic.filter.class", "Sluice filters topics with Kafka's DefaultTopicFilter (topics, topics.exclude)", [
    DEFAULT_TOPIC_FILTER,
  ]),
  refused(
    "config.property.filter.class",
    "Sluice filters topic configs with Kafka's DefaultConfigPropertyFilter (config.properties.exclude)",
    [DEFAULT_CONFIG_PROPERTY_FILTER],
  ),
  {
    name: "consumer.poll.timeout.ms",
    type: "long",
    default: 1000,
    importance: "low",
    doc: "Timeout when polling source cluster.",
  },
  {
    name: "refresh.topics.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to periodically check for new topics and partitions.",
  },
  {
    name: "refresh.topics.interval.seconds",
    type: "long",
    default: 600,
    importance: "low",
    doc: "Frequency of topic refresh.",
  },
  {
    name: "sync.topic.configs.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to periodically configure remote topics to match their corresponding upstream topics.",
  },
  {
    name: "sync.topic.configs.interval.seconds",
    type: "long",
    default: 600,
    importance: "low",
    doc: "Frequency of topic config sync.",
  },
  {
    name: "sync.topic.acls.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to periodically configure remote topic ACLs to match their corresponding upstream topics.",
  },
  {
    name: "sync.topic.acls.interval.seconds",
    type: "long",
    default: 600,
    importance: "low",
    doc: "Frequency of topic ACL sync.",
  },
  {
    name: "replication.factor",
    type: "int",
    default: 2,
    importance: "low",
    doc: "Replication factor for newly created remote topics (capped by the target's live brokers, with a warning).",
  },
  {
    name: "offset-syncs.topic.replication.factor",
    type: "int",
    default: 3,
    min: -1,
    max: 32767,
    importance: "low",
    doc: "Replication factor for offset-syncs topic (capped by the cluster's live brokers, with a warning).",
  },
  {
    name: "offset.lag.max",
    type: "long",
    default: 100,
    importance: "low",
    doc: "How out-of-sync a remote partition can be before it is resynced.",
  },
  offsetSyncsTopicLocationSetting,
  {
    name: "emit.offset-syncs.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to store the new offset of the replicated records in offset-syncs topic or not. MirrorCheckpointConnector will not be able to sync group offsets or emit checkpoints if emit.checkpoints.enabled and/or sync.group.offsets.enabled are enabled while emit.offset-syncs.enabled is disabled.",
  },
  {
    name: "heartbeats.replication.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to replicate the heartbeats topics even when the topic filter does not include them. If set to true, heartbeats topics identified by the replication policy will always be replicated, regardless of the topic filter configuration. If set to false, heartbeats topics will only be replicated if the topic filter allows.",
  },
];

/** What the connector validates and shows. */
export const mirrorSourceSettings = mirrorSettingsDefinition(sourceSettings);

/** The task's: the connector's and the two it adds to each task's config. */
const mirrorSourceTaskSettings = new SettingsDefinition(
  [
    ...mirrorSourceSettings.declared(),
    {
      name: "task.assigned.partitions",
      type: "list",
      default: [],
      importance: "low",
      doc: "Topic-partitions assigned to this task to replicate.",
    },
    { name: "task.index", type: "int", importance: "low", doc: "The index of the task" },
  ],
  mirrorSourceSettings.passThroughPrefixes,
);

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** As Kafka's TopicPartition.toString: `<topic>-<partition>`. */
export function encodeTopicPartition(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

/** The partition is after the last `-` (a topic name may have dashes). */
export function decodeTopicPartition(text: string): TopicPartition {
  const dash = text.lastIndexOf("-");
  const partition = Number(text.slice(dash + 1));
  if (dash <= 0 || !/^\d+$/.test(text.slice(dash + 1)) || !Number.isSafeInteger(partition))
    throw new Error(`not a topic-partition: ${text}`);
  return { topic: text.slice(0, dash), partition };
}

export class MirrorSourceConfig extends MirrorConfig {
  readonly topicFilter: TopicFilter;
  readonly configPropertyFilter: ConfigPropertyFilter;

  constructor(props: Record<string, string>, task = false) {
    super(task ? mirrorSourceTaskSettings : mirrorSourceSettings, props);
    this.topicFilter = new TopicFilter(this.values.list("topics"), this.values.list("topics.exclude"));
    this.configPropertyFilter = new ConfigPropertyFilter(
      this.values.list("config.properties.exclude"),
      this.values.string("use.defaults.from") as "source" | "target",
    );
  }

  get enabled(): boolean {
    return this.values.boolean("enabled");
  }
  get replicationFactor(): number {
    return this.values.int("replication.factor");
  }
  get offsetSyncsTopicReplicationFactor(): number {
    return this.values.int("offset-syncs.topic.replication.factor");
  }
  get emitOffsetSyncs(): boolean {
    return this.values.boolean("emit.offset-syncs.enabled");
  }
  get heartbeatsReplication(): boolean {
    return this.values.boolean("heartbeats.replication.enabled");
  }
  get maxOffsetLag(): number {
    return this.values.int("offset.lag.max");
  }
  get pollTimeoutMs(): number {
    return this.values.int("consumer.poll.timeout.ms");
  }
  /** Negative: off. */
  get refreshTopicsIntervalMs(): number {
    return this.values.boolean("refresh.topics.enabled")
      ? this.values.int("refresh.topics.interval.seconds") * 1000
      : -1;
  }
  /** Negative: off. */
  get syncTopicConfigsIntervalMs(): number {
    return this.values.boolean("sync.topic.configs.enabled")
      ? this.values.int("sync.topic.configs.interval.seconds") * 1000
      : -1;
  }
  /** Negative: off. */
  get syncTopicAclsIntervalMs(): number {
    return this.values.boolean("sync.topic.acls.enabled")
      ? this.values.int("sync.topic.acls.interval.seconds") * 1000
      : -1;
  }
  /** The cluster the offset-syncs topic is on. */
  get offsetSyncsTopicLocation(): ClusterSide {
    return this.values.string("offset-syncs.topic.location") as ClusterSide;
  }
  /** Named after the other cluster: `mm2-offset-syncs.<target>.internal` on the source, `…<source>…` on the target. */
  get offsetSyncsTopic(): string {
    const other = this.offsetSyncsTopicLocation === "source" ? this.targetClusterAlias : this.sourceClusterAlias;
    return this.policy.offsetSyncsTopic(other);
  }
  get checkpointsTopic(): string {
    return this.policy.checkpointsTopic(this.sourceClusterAlias);
  }
  /** The task's partitions (task configs only). */
  get taskTopicPartitions(): TopicPartition[] {
    return this.values.list("task.assigned.partitions").map(decodeTopicPartition);
  }
  get taskIndex(): number | undefined {
    const v = this.values.optionalString("task.index");
    return v === undefined ? undefined : Number(v);
  }

  /** As Kafka's MirrorSourceConnector: the filter's or a heartbeats topic, never an internal one, never back to where it came from. */
  shouldReplicateTopic(topic: string): boolean {
    return (
      (this.topicFilter.shouldReplicateTopic(topic) ||
        (this.heartbeatsReplication && this.policy.isHeartbeatsTopic(topic))) &&
      !this.policy.isInternalTopic(topic) &&
      !this.isCycle(topic)
    );
  }

  /** Whether the topic came from the target cluster, however many hops upstream. */
  isCycle(topic: string): boolean {
    const source = this.policy.topicSource(topic);
    if (source === null) return false;
    if (source === this.targetClusterAlias) return true;
    const upstream = this.policy.upstreamTopic(topic);
    // IdentityReplicationPolicy cannot tell: its upstream topic is the topic itself.
    if (upstream === null || upstream === topic) return false;
    return this.isCycle(upstream);
  }

  formatRemoteTopic(topic: string): string {
    return this.policy.formatRemoteTopic(this.sourceClusterAlias, topic);
  }

  /** A task's config: the connector's, its partitions and its index. */
  taskConfig(partitions: TopicPartition[], index: number): Record<string, string> {
    return {
      ...this.props,
      "task.assigned.partitions": partitions.map(encodeTopicPartition).join(","),
      "task.index": String(index),
    };
  }
}

/** Java's String.hashCode, over UTF-16 code units. */
function javaHashCode(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order in which Java iterates a `new HashMap<>(n)` of these n keys: Kafka's connector deals the
 * topics in the order of the map its Admin client answers describeTopics with. Keys sharing a bucket
 * keep the order Kafka's client put them in, which Sluice cannot know: those go by name.
 */
export function javaHashMapOrder(keys: string[]): string[] {
  const n = keys.length;
  let capacity = 1;
  while (capacity < n) capacity *= 2; // tableSizeFor(n)
  while (n > Math.floor(capacity * 0.75)) capacity *= 2; // grown by the puts
  const bucket = (key: string) => {
    const h = javaHashCode(key);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return [...keys].sort((a, b) => bucket(a) - bucket(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Kafka's round robin: partition i of the list goes to task i mod n, with n the smaller of tasks.max
 * and the number of partitions. No partitions: no tasks.
 */
export function assignTopicPartitions(partitions: TopicPartition[], maxTasks: number): TopicPartition[][] {
  const count = Math.min(maxTasks, partitions.length);
  const byTask: TopicPartition[][] = Array.from({ length: count }, () => []);
  partitions.forEach((tp, i) => byTask[i % count]!.push(tp));
  return byTask;
}
