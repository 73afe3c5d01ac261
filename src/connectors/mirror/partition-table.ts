// Values per topic partition, keyed `<partition>:<topic>` as MirrorSourceTask keys its positions. The last
// partition looked up is remembered: records come partition by partition, so most look-ups of a poll's
// records build no key and hash nothing.

export const partitionKey = (topic: string, partition: number) => `${partition}:${topic}`;

export class PartitionTable<T> {
  private readonly byKey = new Map<string, T>();
  private lastTopic: string | undefined;
  private lastPartition = -1;
  private lastKey = "";
  private lastValue: T | undefined;

  get(topic: string, partition: number): T | undefined {
    if (partition !== this.lastPartition || topic !== this.lastTopic) this.remember(topic, partition);
    return this.lastValue;
  }

  /** The partition's key (the last one's without building it again). */
  key(topic: string, partition: number): string {
    if (partition !== this.lastPartition || topic !== this.lastTopic) this.remember(topic, partition);
    return this.lastKey;
  }

  set(topic: string, partition: number, value: T): void {
    const key = this.key(topic, partition);
    this.byKey.set(key, value);
    this.lastValue = value;
  }

  get size(): number {
    return this.byKey.size;
  }

  entries(): IterableIterator<[string, T]> {
    return this.byKey.entries();
  }

  private remember(topic: string, partition: number): void {
    this.lastTopic = topic;
    this.lastPartition = partition;
    this.lastKey = partitionKey(topic, partition);
    this.lastValue = this.byKey.get(this.lastKey);
  }
}
