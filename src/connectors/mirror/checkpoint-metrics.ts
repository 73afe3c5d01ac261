// When each consumer group was last checkpointed, as a gauge on the worker's /metrics (the console's
// mirror flows show it): the time the target acknowledged the group's latest checkpoint record. A group
// gets its series with its first checkpoint; none means no checkpoint since the task started.
import type { PluginMetrics } from "../../connect/api/connector.ts";

export class MirrorCheckpointMetrics {
  private readonly lastCheckpoint = new Map<string, number>();

  constructor(
    private readonly metrics: PluginMetrics | undefined,
    private readonly source: string,
    private readonly target: string,
  ) {}

  /** The target acknowledged a checkpoint of `group`. */
  written(group: string, at = Date.now()): void {
    if (!this.lastCheckpoint.has(group))
      this.metrics?.gauge(
        "sluice_mirror_checkpoint_last_ms",
        "When the consumer group's last checkpoint was written to the target (ms since the epoch).",
        { source: this.source, target: this.target, group },
        () => this.lastCheckpoint.get(group) ?? Number.NaN,
      );
    this.lastCheckpoint.set(group, Math.max(at, this.lastCheckpoint.get(group) ?? 0));
  }
}
