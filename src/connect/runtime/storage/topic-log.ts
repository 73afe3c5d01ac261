// A topic read from the start and then kept up with, as Kafka Connect's KafkaBasedLog: every record is
// handed to `onRecord` in partition order, and readToEnd() resolves once everything written before
// the call has been handed over (so a writer reads its own writes).
import type { Broker, FetchedRecord, ProduceRecord, RecordPosition } from "../../../broker/broker.ts";

export class TopicLog {
  private readonly positions: number[] = [];
  private current?: Promise<void>;
  private next?: Promise<void>;

  constructor(
    private readonly broker: Broker,
    readonly topic: string,
    private readonly onRecord: (record: FetchedRecord) => void,
  ) {}

  /** Next offset to read of partition 0 (the config topic's "config offset"). */
  get position(): number {
    return this.positions[0] ?? 0;
  }

  /** Calls share a pending read; a call made during a read waits for the read after it. */
  readToEnd(): Promise<void> {
    if (this.next) return this.next;
    const previous = this.current ?? Promise.resolve();
    const run: Promise<void> = previous
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        this.current = run;
        return this.read();
      })
      .finally(() => {
        if (this.current === run) this.current = undefined;
      });
    this.next = run;
    return run;
  }

  async send(records: ProduceRecord[]): Promise<RecordPosition[]> {
    return this.broker.produce(this.topic, records);
  }

  private async read(): Promise<void> {
    const ends = await this.broker.endOffsets(this.topic);
    await Promise.all(
      ends.map(async (end, partition) => {
        let position = this.positions[partition] ?? 0;
        while (position < end) {
          const records = await this.broker.fetch(this.topic, partition, position);
          // Nothing left to read below the end: transaction markers or compacted-away records.
          if (records.length === 0) break;
          for (const record of records) {
            if (record.offset >= end) {
              position = end;
              break;
            }
            this.onRecord(record);
            position = record.offset + 1;
          }
        }
        this.positions[partition] = Math.max(position, end);
      }),
    );
  }
}
