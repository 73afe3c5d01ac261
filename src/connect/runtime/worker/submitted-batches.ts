// Kafka Connect's submitted-records bookkeeping, kept per poll batch: a source task polls on while earlier
// batches are still being written, and a batch's source offsets count only once it and every batch
// submitted before it were acknowledged. A batch never acknowledged (its write failed) holds back every
// later one, so nothing past a failed write is ever committed.

export interface Submitted {
  /** Bytes of keys and values the batch holds until acknowledged. */
  readonly bytes: number;
  acknowledged: boolean;
}

export class SubmittedBatches<T> {
  private readonly queue: { batch: Submitted; value: T }[] = [];
  /** Batches submitted and not yet acknowledged. */
  inFlight = 0;
  /** Their bytes. */
  bytes = 0;

  submit(value: T, bytes: number): Submitted {
    const batch: Submitted = { bytes, acknowledged: false };
    this.queue.push({ batch, value });
    this.inFlight++;
    this.bytes += bytes;
    return batch;
  }

  /** Acknowledges a batch; answers the values now acknowledged in order, oldest first (none while an earlier batch is out). */
  acknowledge(batch: Submitted): T[] {
    if (batch.acknowledged) return [];
    batch.acknowledged = true;
    this.inFlight--;
    this.bytes -= batch.bytes;
    let done = 0;
    while (done < this.queue.length && this.queue[done]!.batch.acknowledged) done++;
    return this.queue.splice(0, done).map((entry) => entry.value);
  }
}
