// Kafka's MirrorSourceMetrics (kafka.connect.mirror:type=MirrorSourceConnector) as gauges on the worker's
// /metrics, per replicated partition (its remote topic): records and bytes replicated, how old the last
// record was when it was read, and how long it took from its timestamp to the target's acknowledgement.
import type { PluginMetrics } from "../../connect/api/connector.ts";
import { PartitionTable } from "./partition-table.ts";

interface PartitionFigures {
  records: number;
  bytes: number;
  recordAgeMs: number;
  replicationLatencyMs: number;
}

export class MirrorSourceMetrics {
  private readonly partitions = new PartitionTable<PartitionFigures>();

  constructor(
    private readonly metrics: PluginMetrics | undefined,
    private readonly source: string,
    private readonly target: string,
  ) {}

  /** Registers a remote topic's partition (once). */
  private figures(topic: string, partition: number): PartitionFigures {
    let figures = this.partitions.get(topic, partition);
    if (figures) return figures;
    const f: PartitionFigures = { records: 0, bytes: 0, recordAgeMs: 0, replicationLatencyMs: 0 };
    this.partitions.set(topic, partition, f);
    const labels = { source: this.source, target: this.target, topic, partition: String(partition) };
    const gauge = (name: string, help: string, read: () => number) =>
      this.metrics?.gauge(`kafka_connect_mirror_source_${name}`, help, labels, read);
    gauge("record_count", "Records replicated to the target (record-count).", () => f.records);
    gauge("byte_count", "Bytes of record values replicated (byte-count).", () => f.bytes);
    gauge(
      "record_age_ms",
      "Age of the last record read from the source, by its timestamp (record-age-ms).",
      () => f.recordAgeMs,
    );
    gauge(
      "replication_latency_ms",
      "From the last record's timestamp to the target's acknowledgement of its copy (replication-latency-ms).",
      () => f.replicationLatencyMs,
    );
    figures = f;
    return figures;
  }

  /** A record read from the source for the remote `topic`. */
  read(topic: string, partition: number, timestamp: number, valueBytes: number): void {
    const f = this.figures(topic, partition);
    f.recordAgeMs = Math.max(0, Date.now() - timestamp);
    f.bytes += valueBytes;
  }

  /** The target acknowledged a record's copy. */
  written(topic: string, partition: number, timestamp: number): void {
    const f = this.figures(topic, partition);
    f.records++;
    f.replicationLatencyMs = Math.max(0, Date.now() - timestamp);
  }
}
