// Batches bulk actions and keeps up to max.in.flight.requests bulk requests running while put() goes
// on; flush() waits for every one of them, so the runtime commits offsets only for written records.
// The first failure is kept and thrown from the next add() or flush(), which fails the task. A document
// the server refuses goes to the errant record reporter first, when the task has one (as Confluent's).
import type { Logger } from "../../platform/log.ts";
import { ConnectException, RetriableException, type ErrantRecordReporter } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import { retryWaitMs, type BulkClient } from "./bulk-client.ts";
import { itemOutcome } from "./bulk-response.ts";
import type { SearchSinkConfig } from "./settings.ts";

export type BulkWriterConfig = Pick<
  SearchSinkConfig,
  | "batchSize"
  | "bulkSizeBytes"
  | "maxInFlightRequests"
  | "maxBufferedRecords"
  | "lingerMs"
  | "maxRetries"
  | "retryBackoffMs"
  | "malformedDocuments"
>;

interface Pending {
  action: string;
  /** Where the record came from, for logs and errors. */
  source: string;
  record: SinkRecord;
}

/** What Confluent's sink reports a refused document as (its exception class, in the DLQ's headers). */
function reportingException(reason: string): Error {
  const error = new Error(`Indexing failed: ${reason}`);
  error.name = "io.confluent.connect.elasticsearch.ElasticsearchClient$ReportingException";
  return error;
}

export class BulkWriter {
  private buffer: Pending[] = [];
  private bufferBytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private inFlightRecords = 0;
  private failure: Error | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly config: BulkWriterConfig,
    private readonly client: BulkClient,
    private readonly log: Logger,
    private readonly reporter: ErrantRecordReporter | null = null,
  ) {}

  /** Buffers one action; sends a batch when one is full; waits while too much is buffered. */
  async add(action: string, source: string, record: SinkRecord): Promise<void> {
    this.throwIfFailed();
    this.buffer.push({ action, source, record });
    this.bufferBytes += action.length + 1;
    if (this.buffer.length >= this.config.batchSize || this.bufferBytes >= this.config.bulkSizeBytes)
      await this.sendBuffered();
    else this.lingerTimer ??= setTimeout(() => void this.sendBuffered(), this.config.lingerMs);
    while (this.buffer.length + this.inFlightRecords >= this.config.maxBufferedRecords && this.inFlight.size > 0)
      await Promise.race(this.inFlight);
    this.throwIfFailed();
  }

  /** Sends what is buffered and waits until every request finished; throws the first failure. */
  async flush(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ConnectException(
              `flush timed out after ${timeoutMs} ms with ${this.buffer.length + this.inFlightRecords} records not yet written`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.drain(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    this.throwIfFailed();
  }

  /** Stops sending (requests already sent finish on their own). */
  close(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.buffer = [];
    this.bufferBytes = 0;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0 && this.failure === undefined) await this.sendBuffered();
    await Promise.all(this.inFlight);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** Starts one bulk request with the oldest buffered actions, once fewer than the maximum are in flight. */
  private async sendBuffered(): Promise<void> {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    while (this.inFlight.size >= this.config.maxInFlightRequests) await Promise.race(this.inFlight);
    if (this.buffer.length === 0) return;
    let count = 0;
    let bytes = 0;
    // At least one action per request, however large.
    while (
      count < this.buffer.length &&
      count < this.config.batchSize &&
      (count === 0 || bytes + this.buffer[count]!.action.length + 1 <= this.config.bulkSizeBytes)
    ) {
      bytes += this.buffer[count]!.action.length + 1;
      count++;
    }
    const batch = this.buffer.splice(0, count);
    this.bufferBytes -= bytes;
    this.inFlightRecords += batch.length;
    const request: Promise<void> = this.write(batch)
      .catch((err: unknown) => {
        this.failure ??= err instanceof Error ? err : new ConnectException(String(err));
      })
      .finally(() => {
        this.inFlight.delete(request);
        this.inFlightRecords -= batch.length;
      });
    this.inFlight.add(request);
    if (this.buffer.length > 0) this.lingerTimer ??= setTimeout(() => void this.sendBuffered(), this.config.lingerMs);
  }

  /** One batch to the end: retries what the server could not take now, applies the malformed-document policy. */
  private async write(batch: Pending[]): Promise<void> {
    let pending = batch;
    for (let attempt = 0; ; attempt++) {
      let retry: Pending[] = [];
      let retryReason = "";
      try {
        const results = await this.client.bulk(pending.map((p) => p.action));
        for (const [i, result] of results.entries()) {
          const item = pending[i]!;
          const error = result.error;
          const reason = `${error?.type}: ${error?.reason}`;
          switch (itemOutcome(result)) {
            case "written":
              break;
            case "outdated":
              this.log.debug(
                { record: item.source },
                "the index already holds this document at the same or a newer version",
              );
              break;
            case "retry":
              retry.push(item);
              retryReason = `${result.status} ${reason}`;
              break;
            case "malformed":
              await this.reporter?.report(item.record, reportingException(reason));
              this.malformed(item, reason);
              break;
            case "failed":
              await this.reporter?.report(item.record, reportingException(reason));
              throw new ConnectException(`Indexing ${item.source} failed: ${result.status} ${reason}`);
          }
        }
      } catch (err) {
        if (!(err instanceof RetriableException)) throw err;
        retry = pending;
        retryReason = err.message;
      }
      if (retry.length === 0) return;
      if (attempt >= this.config.maxRetries)
        throw new ConnectException(`Bulk request failed after ${attempt + 1} attempts: ${retryReason}`);
      const wait = retryWaitMs(attempt, this.config.retryBackoffMs);
      this.log.warn(
        { records: retry.length, attempt: attempt + 1, waitMs: wait, reason: retryReason },
        "bulk request not accepted; retrying",
      );
      await Bun.sleep(wait); // back-off before the retry
      pending = retry;
    }
  }

  private malformed(item: Pending, reason: string): void {
    switch (this.config.malformedDocuments) {
      case "ignore":
        this.log.debug({ record: item.source, reason }, "skipping a malformed document");
        return;
      case "warn":
        this.log.warn({ record: item.source, reason }, "skipping a malformed document");
        return;
      case "fail":
        throw new ConnectException(
          `Indexing ${item.source} failed: ${reason}. To ignore such documents, set behavior.on.malformed.documents to 'warn' or 'ignore'.`,
        );
    }
  }
}
