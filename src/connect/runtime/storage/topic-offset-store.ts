// Source offsets in the offsets topic (Kafka Connect's KafkaOffsetBackingStore), keyed
// `["<connector>", {partition}]`. Any worker may run a task next, so it reads the topic to its end
// before a task starts.
import type { Broker, FetchedRecord } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import { decodeOffsetRecord, encodeOffset, offsetKey, partitionIdentity } from "./internal-records.ts";
import type { OffsetEntry, OffsetStore } from "./offset-store.ts";
import { TopicLog } from "./topic-log.ts";

const log = logger("offset-store");

export class TopicOffsetStore implements OffsetStore {
  private readonly offsets = new Map<string, { connector: string; entry: OffsetEntry }>();
  private readonly log: TopicLog;

  constructor(broker: Broker, topic: string) {
    this.log = new TopicLog(broker, topic, (record) => this.apply(record));
  }

  refresh(): Promise<void> {
    return this.log.readToEnd();
  }

  get(connector: string, partition: Record<string, unknown>): Record<string, unknown> | null {
    return this.offsets.get(partitionIdentity(connector, partition))?.entry.offset ?? null;
  }

  all(connector: string): OffsetEntry[] {
    return [...this.offsets.values()].filter((o) => o.connector === connector).map((o) => o.entry);
  }

  async set(connector: string, entries: OffsetEntry[]): Promise<void> {
    await this.log.send(
      entries.map(({ partition, offset }) => ({ key: offsetKey(connector, partition), value: encodeOffset(offset) })),
    );
    for (const { partition, offset } of entries) this.remember(connector, partition, offset);
  }

  stored(connector: string, entries: OffsetEntry[]): void {
    for (const { partition, offset } of entries) this.remember(connector, partition, offset);
  }

  /** The topic the offsets live in, for a task that writes its own in a transaction. */
  get topic(): string {
    return this.log.topic;
  }

  private apply(record: FetchedRecord): void {
    let decoded: ReturnType<typeof decodeOffsetRecord>;
    try {
      decoded = decodeOffsetRecord(record.key, record.value);
    } catch {
      decoded = undefined;
    }
    // Skipped as Kafka Connect does, but not silently: a connector whose offset this was starts over.
    if (!decoded)
      log.warn(
        { topic: record.topic, partition: record.partition, offset: record.offset },
        "ignoring a record of the offsets topic that is not a source offset",
      );
    else this.remember(decoded.connector, decoded.partition, decoded.offset);
  }

  private remember(
    connector: string,
    partition: Record<string, unknown>,
    offset: Record<string, unknown> | null,
  ): void {
    const id = partitionIdentity(connector, partition);
    if (offset === null) this.offsets.delete(id);
    else this.offsets.set(id, { connector, entry: { partition, offset } });
  }
}
