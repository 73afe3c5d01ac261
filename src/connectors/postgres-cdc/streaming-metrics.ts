// Debezium's streaming metrics MBean (context=streaming) as gauges on the worker's /metrics: how many
// change events the stream produced and how far behind the source the last one was.
import type { PluginMetrics } from "../../connect/api/connector.ts";

export class StreamingMetrics {
  private eventsSeen = 0;
  private behindMs = 0;

  constructor(metrics: PluginMetrics | undefined, server: string) {
    const labels = { context: "streaming", server };
    metrics?.gauge(
      "debezium_metrics_total_number_of_events_seen",
      "Change events the stream produced since the task started (TotalNumberOfEventsSeen).",
      labels,
      () => this.eventsSeen,
    );
    metrics?.gauge(
      "debezium_metrics_milli_seconds_behind_source",
      "Milliseconds between the last event's commit in the database and its processing here (MilliSecondsBehindSource).",
      labels,
      () => this.behindMs,
    );
  }

  /** One change event of a transaction committed at `commitTimeMicros` (Unix microseconds). */
  event(commitTimeMicros: bigint): void {
    this.eventsSeen++;
    // Clocks of database and worker may differ: never report being ahead of the source.
    this.behindMs = Math.max(0, Date.now() - Number(commitTimeMicros / 1000n));
  }
}
