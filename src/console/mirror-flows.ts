// MirrorMaker 2 flows for the mirror page: the MM2 connectors grouped by source alias → target alias,
// with each replicated topic's lag and each group's last checkpoint from the tasks' sluice_mirror_*
// gauges (every worker's, from /sluice/metrics?gauges=; the answering worker's /metrics on older ones). Lag per partition is the source's end offset less the next offset after the
// last copy the target acknowledged; a topic's lag is its partitions' sum.
import type { PromSample } from "./prometheus.ts";

const MIRROR = "org.apache.kafka.connect.mirror.";
export const MIRROR_CLASSES: Record<string, MirrorRole> = {
  [`${MIRROR}MirrorSourceConnector`]: "source",
  [`${MIRROR}MirrorCheckpointConnector`]: "checkpoint",
  [`${MIRROR}MirrorHeartbeatConnector`]: "heartbeat",
};

export type MirrorRole = "source" | "checkpoint" | "heartbeat";

export interface MirrorConnector {
  name: string;
  role: MirrorRole;
  state: string;
  /** The tasks' states, by task id. */
  tasks: string[];
}

export interface TopicLag {
  /** The topic on the target (renamed by the replication policy). */
  topic: string;
  sourceTopic: string;
  partitions: number;
  /** Sum over the partitions whose ends are known. */
  replicated: number;
  end: number;
  lag: number;
  /** Partitions whose source end offset has not been read yet: their lag is not in `lag`. */
  unknown: number;
}

export interface GroupCheckpoint {
  group: string;
  at: number;
}

export interface MirrorFlow {
  source: string;
  target: string;
  connectors: MirrorConnector[];
  topics: TopicLag[];
  /** Newest first. */
  checkpoints: GroupCheckpoint[];
}

/** A connector as the connectors list gives it (the fields this reads). */
export interface ListedConnector {
  config?: Record<string, string>;
  state?: string;
  tasks?: string[];
}

/** Kafka's defaults when a connector does not name its clusters. */
const aliasesOf = (config: Record<string, string>) => ({
  source: config["source.cluster.alias"] ?? "source",
  target: config["target.cluster.alias"] ?? "target",
});

const flowKey = (source: string, target: string) => `${source}\u0000${target}`;

export function mirrorFlows(connectors: Record<string, ListedConnector>, metrics: readonly PromSample[]): MirrorFlow[] {
  const flows = new Map<string, MirrorFlow>();
  const flow = (source: string, target: string) => {
    const key = flowKey(source, target);
    return flows.get(key) ?? flows.set(key, { source, target, connectors: [], topics: [], checkpoints: [] }).get(key)!;
  };
  for (const [name, c] of Object.entries(connectors)) {
    const role = MIRROR_CLASSES[c.config?.["connector.class"] ?? ""];
    if (!role || !c.config) continue;
    const { source, target } = aliasesOf(c.config);
    flow(source, target).connectors.push({ name, role, state: c.state ?? "UNKNOWN", tasks: c.tasks ?? [] });
  }

  // Partitions by flow and remote topic; a partition reported twice (a task moving) counts once.
  const partitions = new Map<string, Map<string, { sourceTopic: string; end?: number; replicated?: number }>>();
  for (const s of metrics) {
    const end = s.name === "sluice_mirror_source_end_offset";
    if (!end && s.name !== "sluice_mirror_source_replicated_offset") continue;
    const { source, target, topic, source_topic: sourceTopic, partition } = s.labels;
    if (!source || !target || topic === undefined || partition === undefined) continue;
    const key = `${flowKey(source, target)}\u0000${topic}`;
    const byPartition = partitions.get(key) ?? partitions.set(key, new Map()).get(key)!;
    const p =
      byPartition.get(partition) ?? byPartition.set(partition, { sourceTopic: sourceTopic ?? topic }).get(partition)!;
    if (end) p.end = s.value;
    else p.replicated = s.value;
  }
  for (const [key, byPartition] of partitions) {
    const [source, target, topic] = key.split("\u0000") as [string, string, string];
    const lag: TopicLag = {
      topic,
      sourceTopic: [...byPartition.values()][0]!.sourceTopic,
      partitions: byPartition.size,
      replicated: 0,
      end: 0,
      lag: 0,
      unknown: 0,
    };
    for (const p of byPartition.values()) {
      if (p.end === undefined || p.replicated === undefined || !Number.isFinite(p.end)) {
        lag.unknown++;
        continue;
      }
      lag.end += p.end;
      lag.replicated += p.replicated;
      // An end read before the latest copies were acknowledged is behind them: caught up, not negative.
      lag.lag += Math.max(0, p.end - p.replicated);
    }
    flow(source, target).topics.push(lag);
  }

  for (const s of metrics) {
    if (s.name !== "sluice_mirror_checkpoint_last_ms" || !Number.isFinite(s.value)) continue;
    const { source, target, group } = s.labels;
    if (!source || !target || group === undefined) continue;
    const checkpoints = flow(source, target).checkpoints;
    const known = checkpoints.find((c) => c.group === group);
    if (known) known.at = Math.max(known.at, s.value);
    else checkpoints.push({ group, at: s.value });
  }

  const byName =
    <T>(key: (t: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  const all = [...flows.values()];
  for (const f of all) {
    f.connectors.sort(byName((c) => c.name));
    f.topics.sort(byName((t) => t.topic));
    f.checkpoints.sort((a, b) => b.at - a.at || (a.group < b.group ? -1 : 1));
  }
  return all.sort(byName((f) => flowKey(f.source, f.target)));
}

/** The flow's total lag over the topics whose ends are known. */
export function flowLag(flow: MirrorFlow): number {
  return flow.topics.reduce((sum, t) => sum + t.lag, 0);
}

/** The gauges' names the mirror page asks /sluice/metrics for. */
export const MIRROR_GAUGES = "sluice_mirror_";

/**
 * /sluice/metrics?gauges=' `gauges` as samples (null, not read yet, as NaN); undefined when the answer
 * has none (a worker older than the parameter).
 */
export function gaugeSamples(body: unknown): PromSample[] | undefined {
  const gauges = (body as { gauges?: unknown } | null)?.gauges;
  if (!Array.isArray(gauges)) return undefined;
  return gauges.flatMap((g: { name?: unknown; labels?: unknown; value?: unknown }) =>
    typeof g?.name === "string" && typeof g.labels === "object" && g.labels !== null
      ? [
          {
            name: g.name,
            labels: g.labels as Record<string, string>,
            value: typeof g.value === "number" ? g.value : Number.NaN,
          },
        ]
      : [],
  );
}
