// MirrorMaker 2's replication policies (Kafka's connect-mirror-client): how a topic replicated from a
// cluster is named on the target, how a name is traced back to its source, and the names of MM2's own
// topics. Kafka's MirrorClient and RemoteClusterUtils read Sluice's topics through the same names.
import { ConfigError } from "../../platform/settings.ts";

export const DEFAULT_REPLICATION_POLICY = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy";
export const IDENTITY_REPLICATION_POLICY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";
export const REPLICATION_POLICY_CLASSES = [DEFAULT_REPLICATION_POLICY, IDENTITY_REPLICATION_POLICY];

export interface ReplicationPolicy {
  /** The name `topic` of the cluster `sourceClusterAlias` has on the target. */
  formatRemoteTopic(sourceClusterAlias: string, topic: string): string;
  /** The alias of the cluster a remote topic comes from; null when it is not a remote topic. */
  topicSource(topic: string): string | null;
  /** The topic's name one hop upstream; null when it is not a remote topic. */
  upstreamTopic(topic: string): string | null;
  /** The topic's name on the cluster it was first written to, however many hops away. */
  originalTopic(topic: string): string;
  heartbeatsTopic(): string;
  offsetSyncsTopic(clusterAlias: string): string;
  checkpointsTopic(clusterAlias: string): string;
  isHeartbeatsTopic(topic: string): boolean;
  isCheckpointsTopic(topic: string): boolean;
  isMM2InternalTopic(topic: string): boolean;
  /** Kafka's own topics (`__…`, `.…`) and MM2's; never replicated. */
  isInternalTopic(topic: string): boolean;
}

export interface ReplicationPolicySettings {
  /** replication.policy.separator; Kafka's default ".". */
  separator?: string;
  /** replication.policy.internal.topic.separator.enabled; Kafka's default true. */
  internalTopicSeparatorEnabled?: boolean;
  /** source.cluster.alias: what IdentityReplicationPolicy answers as any topic's source. */
  sourceClusterAlias?: string;
}

/**
 * Java's String.split with a literal separator: trailing empty parts are dropped (a leading one is
 * kept), and a string without the separator is one part. Kafka tells remote topics by the parts' count.
 */
function javaSplit(text: string, separator: string): string[] {
  if (separator === "" || !text.includes(separator)) return [text];
  const parts = text.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** Prefixes the source cluster's alias and the separator: `us-west.orders`. */
export class DefaultReplicationPolicy implements ReplicationPolicy {
  protected readonly separator: string;
  private readonly internalSeparator: string;

  constructor(settings: ReplicationPolicySettings = {}) {
    this.separator = settings.separator ?? ".";
    // Kafka reads the internal-topic switch only when a separator is given.
    const separatorGiven = settings.separator !== undefined;
    this.internalSeparator = separatorGiven && settings.internalTopicSeparatorEnabled === false ? "." : this.separator;
  }

  formatRemoteTopic(sourceClusterAlias: string, topic: string): string {
    return sourceClusterAlias + this.separator + topic;
  }

  topicSource(topic: string): string | null {
    const parts = javaSplit(topic, this.separator);
    return parts.length < 2 ? null : parts[0]!;
  }

  upstreamTopic(topic: string): string | null {
    const source = this.topicSource(topic);
    return source === null ? null : topic.slice(source.length + this.separator.length);
  }

  originalTopic(topic: string): string {
    const upstream = this.upstreamTopic(topic);
    return upstream === null || upstream === topic ? topic : this.originalTopic(upstream);
  }

  heartbeatsTopic(): string {
    return "heartbeats";
  }

  private internalSuffix(): string {
    return `${this.internalSeparator}internal`;
  }

  private checkpointsSuffix(): string {
    return `${this.internalSeparator}checkpoints${this.internalSuffix()}`;
  }

  offsetSyncsTopic(clusterAlias: string): string {
    return `mm2-offset-syncs${this.internalSeparator}${clusterAlias}${this.internalSuffix()}`;
  }

  checkpointsTopic(clusterAlias: string): string {
    return clusterAlias + this.checkpointsSuffix();
  }

  isHeartbeatsTopic(topic: string): boolean {
    return this.heartbeatsTopic() === this.originalTopic(topic);
  }

  isCheckpointsTopic(topic: string): boolean {
    return topic.endsWith(this.checkpointsSuffix());
  }

  /** Kafka 4.1: offset-syncs (`mm2…internal`) and checkpoints topics; Connect's `…-internal` topics no longer count. */
  isMM2InternalTopic(topic: string): boolean {
    return (topic.startsWith("mm2") && topic.endsWith(this.internalSuffix())) || this.isCheckpointsTopic(topic);
  }

  isInternalTopic(topic: string): boolean {
    return topic.startsWith("__") || topic.startsWith(".") || this.isMM2InternalTopic(topic);
  }
}

/**
 * Keeps topic names as they are (one-way replication, migrations from MirrorMaker 1); only heartbeats
 * are renamed as DefaultReplicationPolicy renames them. It cannot tell a remote topic by its name, so
 * every topic's source is `source.cluster.alias` (null when not given), and cycles are not prevented.
 */
export class IdentityReplicationPolicy extends DefaultReplicationPolicy {
  private readonly sourceClusterAlias: string | null;

  constructor(settings: ReplicationPolicySettings = {}) {
    super(settings);
    this.sourceClusterAlias = settings.sourceClusterAlias ?? null;
  }

  private looksLikeHeartbeat(topic: string): boolean {
    return topic.endsWith(this.heartbeatsTopic());
  }

  override formatRemoteTopic(sourceClusterAlias: string, topic: string): string {
    return this.looksLikeHeartbeat(topic) ? super.formatRemoteTopic(sourceClusterAlias, topic) : topic;
  }

  override topicSource(topic: string): string | null {
    return this.looksLikeHeartbeat(topic) ? super.topicSource(topic) : this.sourceClusterAlias;
  }

  override upstreamTopic(topic: string): string | null {
    return this.looksLikeHeartbeat(topic) ? super.upstreamTopic(topic) : topic;
  }
}

/** The policy `replication.policy.class` names (Kafka's class names); any other is refused by name. */
export function replicationPolicy(className: string, settings: ReplicationPolicySettings = {}): ReplicationPolicy {
  switch (className.trim()) {
    case DEFAULT_REPLICATION_POLICY:
      return new DefaultReplicationPolicy(settings);
    case IDENTITY_REPLICATION_POLICY:
      return new IdentityReplicationPolicy(settings);
    default:
      throw new ConfigError(
        "replication.policy.class",
        className,
        `Sluice offers Kafka's ${REPLICATION_POLICY_CLASSES.join(" and ")}; other replication policies are Java classes it cannot load`,
      );
  }
}
