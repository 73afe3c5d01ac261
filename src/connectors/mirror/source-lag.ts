// How far a MirrorSourceTask's partitions are behind their source, as gauges on the worker's /metrics
// (the console's mirror flows chart them): the source partition's end offset, read every few seconds on
// the task's own consumer, and the next source offset after the last record the target acknowledged.
// Kafka's MM2 leaves this to its replication consumer's records-lag; Sluice's task publishes both ends,
// so the lag (end - replicated) can be read per partition and summed per topic.
import type { PluginMetrics } from "../../connect/api/connector.ts";
import { PartitionTable } from "./partition-table.ts";

/** How often the source's end offsets are asked: a ListOffsets per topic, cheap, and fresh enough to chart. */
export const END_OFFSETS_INTERVAL_MS = 5000;

interface PartitionEnds {
  /** -1 until the first reading. */
  end: number;
  replicated: number;
}

export class MirrorSourceLag {
  private readonly partitions = new PartitionTable<PartitionEnds>();
  private lastRead = 0;
  private reading = false;

  constructor(
    private readonly metrics: PluginMetrics | undefined,
    private readonly source: string,
    private readonly target: string,
    /** The remote topic a source topic is copied to (labels match MirrorSourceMetrics' series). */
    private readonly remoteTopic: (topic: string) => string,
  ) {}

  /** A partition the task replicates, from `next` (its start position) on. */
  track(topic: string, partition: number, next: number): void {
    const known = this.partitions.get(topic, partition);
    if (known) {
      known.replicated = next;
      return;
    }
    const p: PartitionEnds = { end: -1, replicated: next };
    this.partitions.set(topic, partition, p);
    const labels = {
      source: this.source,
      target: this.target,
      source_topic: topic,
      topic: this.remoteTopic(topic),
      partition: String(partition),
    };
    // NaN until read: an unknown end is not "caught up".
    this.metrics?.gauge(
      "sluice_mirror_source_end_offset",
      "The source partition's end offset (next offset to be written there), read every few seconds.",
      labels,
      () => (p.end < 0 ? Number.NaN : p.end),
    );
    this.metrics?.gauge(
      "sluice_mirror_source_replicated_offset",
      "The next source offset after the last record the target acknowledged (the task's start position before any).",
      labels,
      () => p.replicated,
    );
  }

  /** The target acknowledged the copy of source record `offset`. */
  written(topic: string, partition: number, offset: number): void {
    const p = this.partitions.get(topic, partition);
    if (p && offset + 1 > p.replicated) p.replicated = offset + 1;
  }

  /**
   * Reads the end offsets through `endOffsets` when the last reading is older than the interval; one
   * reading at a time, never awaited by the caller (a slow source must not hold up the poll).
   */
  refresh(endOffsets: (topic: string) => Promise<number[]>, now = Date.now()): Promise<void> | undefined {
    if (this.reading || now - this.lastRead < END_OFFSETS_INTERVAL_MS || this.partitions.size === 0) return;
    this.reading = true;
    this.lastRead = now;
    const topics = new Set([...this.partitions.entries()].map(([key]) => key.slice(key.indexOf(":") + 1)));
    return (async () => {
      try {
        for (const topic of topics) {
          const ends = await endOffsets(topic).catch(() => undefined);
          if (!ends) continue; // kept as last read; the poll reports an unreachable source
          for (const [key, p] of this.partitions.entries()) {
            const colon = key.indexOf(":");
            if (key.slice(colon + 1) !== topic) continue;
            const end = ends[Number(key.slice(0, colon))];
            if (end !== undefined) p.end = end;
          }
        }
      } finally {
        this.reading = false;
      }
    })();
  }
}
