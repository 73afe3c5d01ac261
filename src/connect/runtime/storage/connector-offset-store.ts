// A distributed worker's source offsets: the worker's offsets topic, and the topics of connectors that
// name their own (`offsets.storage.topic`, KIP-618), as Kafka's ConnectorOffsetBackingStore. A
// connector's own topic wins over the worker's when both hold an offset of a source partition; writes
// go to the connector's topic, then (what is not a tombstone) to the worker's, whose copy is best effort.
import type { Broker } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import type { OffsetEntry, OffsetStore } from "./offset-store.ts";
import { TopicOffsetStore } from "./topic-offset-store.ts";

const log = logger("offset-store");

/** How a connector's missing offsets topic is created: as the worker's. */
export interface OffsetTopicShape {
  partitions: number;
  replicationFactor: number;
}

const keyOf = (partition: Record<string, unknown>) => JSON.stringify(partition);

export class ConnectorOffsetStores implements OffsetStore {
  /** Stores of connectors' own topics, by topic (connectors may share one). */
  private readonly byTopic = new Map<string, TopicOffsetStore>();
  private readonly topicOf = new Map<string, string>();

  constructor(
    private readonly broker: Broker,
    private readonly worker: TopicOffsetStore,
    private readonly shape: OffsetTopicShape,
  ) {}

  /** The topic a connector's offsets are written to: its own, or the worker's. */
  topicFor(connector: string): string {
    return this.topicOf.get(connector) ?? this.worker.topic;
  }

  /**
   * Makes `topic` the connector's own offsets topic (created, compacted, when missing) and reads it.
   * Undefined or the worker's topic: the worker's alone.
   */
  async useTopic(connector: string, topic: string | undefined): Promise<void> {
    if (!topic || topic === this.worker.topic) {
      this.topicOf.delete(connector);
      return;
    }
    let store = this.byTopic.get(topic);
    if (!store) {
      const { partitions, replicationFactor } = this.shape;
      await this.broker.createTopic({
        name: topic,
        partitions,
        replicationFactor,
        config: { "cleanup.policy": "compact" },
      });
      store = new TopicOffsetStore(this.broker, topic);
      this.byTopic.set(topic, store);
    }
    await store.refresh();
    this.topicOf.set(connector, topic);
  }

  private own(connector: string): TopicOffsetStore | undefined {
    const topic = this.topicOf.get(connector);
    return topic === undefined ? undefined : this.byTopic.get(topic);
  }

  get(connector: string, partition: Record<string, unknown>): Record<string, unknown> | null {
    return this.own(connector)?.get(connector, partition) ?? this.worker.get(connector, partition);
  }

  all(connector: string): OffsetEntry[] {
    const merged = new Map(this.worker.all(connector).map((e) => [keyOf(e.partition), e]));
    for (const entry of this.own(connector)?.all(connector) ?? []) merged.set(keyOf(entry.partition), entry);
    return [...merged.values()];
  }

  async set(connector: string, entries: OffsetEntry[]): Promise<void> {
    const own = this.own(connector);
    if (!own) return this.worker.set(connector, entries);
    // Deletions reach the worker's copy first, or a reader could fall back to an offset just deleted.
    const deleted = entries.filter((e) => e.offset === null);
    if (deleted.length > 0) await this.worker.set(connector, deleted);
    await own.set(connector, entries);
    await this.copyToWorker(
      connector,
      entries.filter((e) => e.offset !== null),
    );
  }

  stored(connector: string, entries: OffsetEntry[]): void {
    const own = this.own(connector);
    if (!own) return this.worker.stored(connector, entries);
    own.stored(connector, entries);
    void this.copyToWorker(connector, entries);
  }

  async refresh(): Promise<void> {
    await Promise.all([this.worker.refresh(), ...[...this.byTopic.values()].map((s) => s.refresh())]);
  }

  /** The worker's copy of a connector's offsets: a fallback for readers, not the record of truth. */
  private async copyToWorker(connector: string, entries: OffsetEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.worker
      .set(connector, entries)
      .catch((err: unknown) =>
        log.warn(
          { connector, err: err instanceof Error ? err.message : String(err) },
          "could not copy source offsets to the worker's offsets topic",
        ),
      );
  }
}
