// Runs a SourceTask: poll → transforms → converters → broker. At least once, the task polls on while
// earlier batches are being written (a bounded number of them, one write at a time per topic, so each
// partition keeps its order); offsets are committed every offset.flush.interval.ms, only for records the
// broker acknowledged, in poll order, and a failed write fails the task with nothing past it committed.
// Exactly once (KIP-618), the records and their offsets are written in one transaction of the task's
// transactional producer, which ends where transaction.boundary says.
import {
  autoCreatedTopic,
  BrokerError,
  ProducerFencedError,
  type Broker,
  type ProduceRecord,
  type TransactionalProducer,
} from "../../../broker/broker.ts";
import { BUFFER_MEMORY_DEFAULT } from "../../../broker/client-settings.ts";
import { Slices } from "../../../platform/event-loop.ts";
import { kafkaPartition } from "../../../broker/partitioner.ts";
import type { Converter, HeaderConverter } from "../../api/converter.ts";
import type { SourceRecord } from "../../api/records.ts";
import {
  ConnectException,
  RetriableException,
  type PluginMetrics,
  type RecordMetadata,
  type SourceTask,
} from "../../api/connector.ts";
import type { TaskMetrics } from "../metrics.ts";
import { encodeOffset, offsetKey } from "../storage/internal-records.ts";
import type { OffsetStore } from "../storage/offset-store.ts";
import { TOLERATED, type RetryWithToleranceOperator } from "../errors/tolerance.ts";
import type { StatusListener } from "../status.ts";
import { WorkerTask } from "./worker-task.ts";
import { describeRecord, encodeHeaders } from "./record-conversion.ts";
import { SubmittedBatches } from "./submitted-batches.ts";
import { openTopicReader } from "./topic-reader.ts";
import {
  ConnectorTransactionRequests,
  endAfterPoll,
  type TransactionBoundary,
  type TransactionEnd,
} from "./transaction-boundaries.ts";

/** An exactly-once task's delivery: its producer (opened, so fencing its zombies), where transactions end, and where its offsets go. */
export interface ExactlyOnceDelivery {
  producer: TransactionalProducer;
  boundary: TransactionBoundary;
  /** transaction.boundary.interval.ms (or offset.flush.interval.ms) for the interval boundary. */
  intervalMs: number;
  offsetsTopic: string;
}

export interface SourcePipeline {
  task: SourceTask;
  taskConfig: Record<string, string>;
  connector: string;
  keyConverter: Converter;
  valueConverter: Converter;
  headerConverter: HeaderConverter;
  /** The converters' class names as configured, for error reports and DLQ headers. */
  converterClasses: { key: string; value: string; header: string };
  transform: (record: SourceRecord) => SourceRecord | null | Promise<SourceRecord | null>;
  errors: RetryWithToleranceOperator;
  broker: Broker;
  offsets: OffsetStore;
  flushIntervalMs: number;
  metrics: TaskMetrics;
  /** Gauges the task publishes itself. */
  pluginMetrics: PluginMetrics;
  createTopics: boolean;
  /** The producer's delivery.timeout.ms: how long a write the broker refuses as retriable is retried (Kafka Connect's default: forever). */
  deliveryTimeoutMs?: number;
  /** The producer's buffer.memory: the bound on bytes in flight (default BUFFER_MEMORY_DEFAULT). */
  bufferMemory?: number;
  /** Topics this connector wrote to (GET /connectors/{c}/topics). */
  onTopic: (topic: string) => void;
  exactlyOnce?: ExactlyOnceDelivery;
}

/**
 * At least once, how far polling runs ahead of the broker's acknowledgements: batches and bytes written
 * and not yet acknowledged (the producer's buffer.memory, as Kafka's producer buffers up to it). Many
 * batches: a connector that polls a hundred small records at a time fills a produce with them. The bytes
 * are what the records hold in memory: keys, values, and the objects around them (the source record, the
 * converted one, the connector's own), measured at ~600 bytes a record with MirrorSourceTask's.
 */
export const MAX_BATCHES_IN_FLIGHT = 256;
const RECORD_OVERHEAD_BYTES = 512;
/** How long a batch's conversion runs before the event loop gets a turn, while earlier writes are in flight. */
const CONVERSION_SLICE_MS = 1;

/** One produce to a topic: records of one or more batches; those of later batches join until it starts. */
type TopicWrite = {
  items: { record: SourceRecord; produce: ProduceRecord }[];
  started: boolean;
  sent: Promise<boolean>;
};

/** A written batch's source positions, stored once it and every batch before it are acknowledged. */
type BatchOffsets = { key: string; partition: Record<string, unknown>; offset: Record<string, unknown> }[];

export class WorkerSourceTask extends WorkerTask {
  /** Offsets of acknowledged records, by source partition (JSON), waiting for the next commit. */
  private readonly acknowledged = new Map<
    string,
    { partition: Record<string, unknown>; offset: Record<string, unknown> }
  >();
  private lastCommit = Date.now();
  private readonly partitionCounts = new Map<string, number>();
  private roundRobin = 0;
  /** Exactly once: when the open transaction began, its record count, and the commitRecord calls owed once it commits. */
  private openSince?: number;
  private transactionSize = 0;
  private owedCommitRecords: { record: SourceRecord; metadata: RecordMetadata | null }[] = [];
  /** Exactly once: the open transaction's writes, sent by the producer when it sees fit (at the latest at commit). */
  private inFlight: Promise<void>[] = [];
  private readonly requests?: ConnectorTransactionRequests;
  /** At least once: batches being written, the last write per topic (later records join it until it starts), and the first write that failed. */
  private readonly submitted = new SubmittedBatches<BatchOffsets>();
  private readonly topicWrites = new Map<string, TopicWrite>();
  private readonly writing = new Set<Promise<void>>();
  private writeFailure?: { error: unknown };

  constructor(
    id: string,
    workerId: string,
    startPaused: boolean,
    onStatus: StatusListener,
    private readonly p: SourcePipeline,
  ) {
    super(id, workerId, startPaused, onStatus);
    if (p.exactlyOnce?.boundary === "connector") this.requests = new ConnectorTransactionRequests();
  }

  protected async initialize(): Promise<void> {
    const { task, taskConfig, connector, offsets } = this.p;
    task.initialize({
      configs: taskConfig,
      offsetStorageReader: { offset: (partition) => offsets.get(connector, partition) },
      metrics: this.p.pluginMetrics,
      openTopicReader,
      ...(this.requests ? { transactionContext: this.requests } : {}),
    });
    await task.start(taskConfig);
  }

  protected async iterate(): Promise<void> {
    if (!this.p.exactlyOnce) await this.roomToPoll();
    const polled = (await this.poll()) ?? [];
    this.p.metrics.polled(polled.length);
    const eos = this.p.exactlyOnce;
    if (!eos) {
      if (polled.length > 0) await this.send(polled);
      if (Date.now() - this.lastCommit >= this.p.flushIntervalMs) await this.commitOffsets();
    } else if (this.requests) {
      for (const segment of this.requests.segments(polled)) {
        if (segment.records.length > 0) await this.send(segment.records);
        if (segment.end) await this.endTransaction(segment.end);
      }
    } else {
      if (polled.length > 0) await this.send(polled);
      const end = endAfterPoll(
        eos.boundary === "interval" ? "interval" : "poll",
        polled.length,
        this.openSince,
        eos.intervalMs,
        Date.now(),
      );
      if (end) await this.endTransaction(end);
    }
  }

  /** As Kafka's AbstractWorkerSourceTask: a RetriableException from poll() is logged and polled again. */
  private async poll(): Promise<SourceRecord[] | null> {
    try {
      return await this.p.task.poll();
    } catch (err) {
      if (!(err instanceof RetriableException)) throw err;
      this.log.warn({ err: err.message }, "failed to poll records from the task; will retry");
      return null;
    }
  }

  /** Waits while the batches being written are at the bound; a write that failed fails the task here. */
  private async roomToPoll(): Promise<void> {
    while (
      !this.writeFailure &&
      (this.submitted.inFlight >= MAX_BATCHES_IN_FLIGHT ||
        this.submitted.bytes >= (this.p.bufferMemory ?? BUFFER_MEMORY_DEFAULT))
    )
      await Promise.race(this.writing);
    if (this.writeFailure) throw this.writeFailure.error;
  }

  /** Waits for every batch being written to be acknowledged or to fail. */
  private async writesSettled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing);
  }

  protected async onPause(): Promise<void> {
    await this.writesSettled();
    if (this.writeFailure) throw this.writeFailure.error;
    await this.commitOffsets();
  }

  protected async shutdown(failed: boolean): Promise<void> {
    const eos = this.p.exactlyOnce;
    try {
      // At least once, records acknowledged before a failure are still committed: they are in Kafka.
      // Exactly once, a failure aborts the open transaction: its records are polled again after a restart.
      await this.writesSettled();
      if (!eos || !failed) await this.commitOffsets();
      else await this.discardTransaction().catch((err) => this.logTransactionFailure("abort", err));
    } finally {
      await eos?.producer.close();
      await this.p.task.stop();
    }
    if (failed) this.log.warn("source task stopped after a failure");
  }

  private async send(records: SourceRecord[]): Promise<void> {
    const { errors } = this.p;
    if (this.p.exactlyOnce) {
      this.openSince ??= Date.now();
      this.transactionSize += records.length;
    }
    const out: { record: SourceRecord; produce: ProduceRecord; topic: string }[] = [];
    const skipped: SourceRecord[] = [];
    let bytes = 0;
    const slices = new Slices(CONVERSION_SLICE_MS);
    for (const record of records) {
      // Each stage's answer is awaited only when it is a promise: an await per record and stage was a
      // measurable share of a task's CPU.
      const maybeTransformed = errors.execute(
        { stage: "TRANSFORMATION", className: "transforms", describe: () => describeRecord(record) },
        () => this.p.transform(record),
      );
      const transformed = maybeTransformed instanceof Promise ? await maybeTransformed : maybeTransformed;
      if (transformed === TOLERATED || transformed === null) {
        skipped.push(record);
        continue;
      }
      const maybeKey = errors.execute(
        { stage: "KEY_CONVERTER", className: this.p.converterClasses.key, describe: () => describeRecord(transformed) },
        () => this.p.keyConverter.fromConnectData(transformed.topic, transformed.keySchema, transformed.key),
      );
      const key = maybeKey instanceof Promise ? await maybeKey : maybeKey;
      if (key === TOLERATED) {
        skipped.push(record);
        continue;
      }
      const maybeValue = errors.execute(
        {
          stage: "VALUE_CONVERTER",
          className: this.p.converterClasses.value,
          describe: () => describeRecord(transformed),
        },
        () => this.p.valueConverter.fromConnectData(transformed.topic, transformed.valueSchema, transformed.value),
      );
      const value = maybeValue instanceof Promise ? await maybeValue : maybeValue;
      if (value === TOLERATED) {
        skipped.push(record);
        continue;
      }
      const maybeHeaders = errors.execute(
        {
          stage: "HEADER_CONVERTER",
          className: this.p.converterClasses.header,
          describe: () => describeRecord(transformed),
        },
        () => encodeHeaders(transformed.topic, transformed.headers, this.p.headerConverter),
      );
      const headers = maybeHeaders instanceof Promise ? await maybeHeaders : maybeHeaders;
      if (headers === TOLERATED) {
        skipped.push(record);
        continue;
      }
      const { topic } = transformed;
      // While earlier writes are in flight, their acknowledgements are taken (and the next produce sent)
      // between slices of this batch, not after all of it: converting a poll of thousands of records
      // takes tens of milliseconds, in which the broker would otherwise wait on this task.
      if (this.writing.size > 0 && slices.due) await slices.pause();
      bytes += (key?.length ?? 0) + (value?.length ?? 0) + RECORD_OVERHEAD_BYTES;
      const fixed = transformed.kafkaPartition ?? null; // (undefined from a plugin that leaves it out)
      if (fixed === null && !this.partitionCounts.has(topic)) await this.learnPartitions(topic);
      out.push({
        record,
        topic,
        produce: {
          key,
          value,
          partition: fixed ?? this.partitionOf(topic, key),
          timestamp: transformed.timestamp ?? undefined,
          headers,
        },
      });
    }
    // One produce per topic; offsets count only once the broker acknowledged (acks=all).
    const byTopic = new Map<string, typeof out>();
    for (const item of out) {
      const items = byTopic.get(item.topic);
      if (items)
        items.push(item); // (copying the list per record made each batch quadratic)
      else byTopic.set(item.topic, [item]);
    }
    for (const record of skipped) this.committedRecord(record, null);
    if (this.p.exactlyOnce) {
      for (const [topic, items] of byTopic) this.sendInTransaction(topic, items);
      this.acknowledge(this.positionsOf(records));
    } else this.write(byTopic, this.positionsOf(records), bytes);
  }

  /**
   * Source offsets advance in poll order: the last record per source partition carries the position, so
   * the batch is read from its end and only that record's partition and offset are copied.
   */
  private positionsOf(records: SourceRecord[]): BatchOffsets {
    const lasts = new Map<string, SourceRecord>();
    let previous: SourceRecord["sourcePartition"] | undefined;
    for (let i = records.length - 1; i >= 0; i--) {
      const record = records[i]!;
      if (record.sourcePartition === previous) continue; // a connector that reuses the object
      previous = record.sourcePartition;
      const key = JSON.stringify(record.sourcePartition);
      if (!lasts.has(key)) lasts.set(key, record);
    }
    return [...lasts].reverse().map(([key, record]) => ({
      key,
      partition: { ...record.sourcePartition },
      offset: { ...record.sourceOffset },
    }));
  }

  private acknowledge(positions: BatchOffsets): void {
    for (const { key, partition, offset } of positions) this.acknowledged.set(key, { partition, offset });
  }

  /**
   * Writes a batch without waiting for it: per topic, one produce at a time (so a retried write keeps its
   * place). Once every topic's part of the batch is acknowledged, so are its records (commitRecord) and,
   * after all earlier batches, its source offsets. The first failure stops later writes.
   */
  private write(
    byTopic: Map<string, { record: SourceRecord; produce: ProduceRecord }[]>,
    positions: BatchOffsets,
    bytes: number,
  ): void {
    const batch = this.submitted.submit(positions, bytes);
    const produced = [...byTopic].map(([topic, items]) => this.writeToTopic(topic, items));
    // A batch not written whole is never acknowledged: later batches' offsets wait behind it for good.
    const done = Promise.all(produced).then((written) => {
      if (written.every(Boolean))
        for (const positions of this.submitted.acknowledge(batch)) this.acknowledge(positions);
    });
    this.writing.add(done);
    void done.then(() => this.writing.delete(done));
  }

  /**
   * Answers whether the records were acknowledged. Records for a topic whose previous produce is under way
   * join the one queued behind it: as Kafka's producer fills its next batch while a request is in flight,
   * each round trip carries everything polled meanwhile, not one poll's worth.
   */
  private writeToTopic(topic: string, items: { record: SourceRecord; produce: ProduceRecord }[]): Promise<boolean> {
    const last = this.topicWrites.get(topic);
    if (last && !last.started) {
      for (const item of items) last.items.push(item);
      return last.sent;
    }
    const next: TopicWrite = { items, started: false, sent: Promise.resolve(false) };
    next.sent = (last?.sent ?? Promise.resolve(true)).then(async () => {
      next.started = true;
      if (this.writeFailure) return false;
      try {
        const written = await this.produceWithRetry(
          topic,
          next.items.map((i) => i.produce),
        );
        this.p.metrics.written(next.items.length);
        next.items.forEach((item, i) =>
          this.committedRecord(item.record, { topic, partition: written[i]!.partition, offset: written[i]!.offset }),
        );
        return true;
      } catch (error) {
        // Set before the topic's next write looks; the task is FAILED at once, as its loop may be
        // waiting in a poll, which then ends it.
        if (!this.writeFailure) {
          this.writeFailure = { error };
          this.fail(error);
        }
        return false;
      }
    });
    this.topicWrites.set(topic, next);
    void next.sent.then(() => {
      if (this.topicWrites.get(topic) === next) this.topicWrites.delete(topic);
    });
    return next.sent;
  }

  /**
   * As Connect's producer: a broker that is away is waited for, visibly, until delivery.timeout.ms
   * (Connect's default: forever); then the task fails as Kafka's does when its batch expires.
   */
  private async produceWithRetry(topic: string, records: ProduceRecord[]) {
    let delay = 250;
    const started = Date.now();
    for (;;) {
      try {
        return await this.p.broker.produce(topic, records);
      } catch (err) {
        if (!(err instanceof BrokerError) || !err.retriable || this.stopping) throw err;
        const elapsed = Date.now() - started;
        if (elapsed + delay > (this.p.deliveryTimeoutMs ?? Infinity))
          throw new ConnectException(
            "Unrecoverable exception from producer send callback",
            new BrokerError(
              `org.apache.kafka.common.errors.TimeoutException: Expiring ${records.length} record(s) for ${topic}:${elapsed} ms has passed since batch creation (delivery.timeout.ms ${this.p.deliveryTimeoutMs}): ${err.message}`,
              false,
              err,
            ),
          );
        this.log.warn({ topic, err: err.message, retryInMs: delay }, "cannot write to the broker; retrying");
        await Bun.sleep(delay); // back-off while the broker is away
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** The partition of a record without a partition of its own, its topic's partition count learnt. */
  private partitionOf(topic: string, key: Uint8Array | null): number {
    const count = this.partitionCounts.get(topic)!;
    return key ? kafkaPartition(key, count) : this.roundRobin++ % count;
  }

  /** A topic's partition count, asked once; a topic not there is created as the broker would (see below). */
  private async learnPartitions(topic: string): Promise<void> {
    const description = await this.p.broker.describeTopic(topic);
    if (!description && this.p.createTopics) {
      // Kafka Connect leaves a topic the connector has no topic.creation.* settings for to the
      // broker's auto-creation, with the broker's defaults.
      await this.p.broker.createTopic(autoCreatedTopic(topic));
    }
    this.partitionCounts.set(topic, description?.partitions ?? 1);
    this.p.onTopic(topic);
  }

  /**
   * Hands records to the transaction without waiting for them to be sent: the producer sends them with
   * the transaction's offsets at its commit (or sooner, a request's worth at a time).
   */
  private sendInTransaction(topic: string, items: { record: SourceRecord; produce: ProduceRecord }[]): void {
    const owed = items.map((item) => ({ record: item.record, metadata: null as RecordMetadata | null }));
    this.owedCommitRecords.push(...owed);
    const sent = this.p
      .exactlyOnce!.producer.produce(
        topic,
        items.map((i) => i.produce),
      )
      .then((positions) => {
        this.p.metrics.written(items.length);
        positions.forEach(({ partition, offset }, i) => (owed[i]!.metadata = { topic, partition, offset }));
      });
    sent.catch(() => undefined); // awaited when the transaction ends
    this.inFlight.push(sent);
  }

  /** commitRecord once the record is in Kafka to stay: at once, or exactly once when its transaction committed. */
  private committedRecord(record: SourceRecord, metadata: RecordMetadata | null): void {
    if (this.p.exactlyOnce) this.owedCommitRecords.push({ record, metadata });
    else void this.p.task.commitRecord?.(record, metadata);
  }

  /**
   * Ends the open transaction. A commit first writes the offsets of its records to the offsets topic in
   * it, so that records and offsets become visible together. An abort discards the records; their
   * offsets are still committed, in a transaction of their own, as Kafka's tasks do: the connector
   * asked for them to be dropped, not polled again.
   */
  private async endTransaction(end: TransactionEnd): Promise<void> {
    const eos = this.p.exactlyOnce!;
    const entries = [...this.acknowledged.values()];
    let size = this.transactionSize;
    let owed = this.owedCommitRecords;
    let inFlight = this.inFlight;
    this.acknowledged.clear();
    this.openSince = undefined;
    this.transactionSize = 0;
    this.owedCommitRecords = [];
    this.inFlight = [];
    if (end === "abort") {
      await eos.producer.abort();
      if (size > 0) this.log.info({ records: size }, "aborted a transaction at the connector's request");
      size = 0;
      owed = [];
      inFlight = [];
    }
    if (entries.length === 0 && size === 0) return;
    const committed = this.p.metrics.commitTimer();
    const { connector } = this.p;
    try {
      if (entries.length > 0) {
        const offsets = eos.producer
          .produce(
            eos.offsetsTopic,
            entries.map(({ partition, offset }) => ({
              key: offsetKey(connector, partition),
              value: encodeOffset(offset),
            })),
          )
          .then(() => undefined);
        offsets.catch(() => undefined); // sent with the records by the commit, which says if it failed
        inFlight.push(offsets);
      }
      await eos.producer.commit();
      await Promise.all(inFlight);
    } catch (err) {
      // Said here too: a failure while the task stops is logged without its cause.
      this.logTransactionFailure("commit", err);
      // Kafka's words; the cause says why (fenced: another producer with this task's transactional.id took over).
      throw new ConnectException(`Failed to flush offsets and/or records for task ${this.id}`, err);
    }
    this.p.offsets.stored?.(connector, entries);
    if (size > 0) this.p.metrics.transaction(size);
    for (const { record, metadata } of owed) await this.p.task.commitRecord?.(record, metadata);
    await this.p.task.commit?.();
    committed();
  }

  /** After a failure: the open transaction is aborted with its offsets, so its records are polled again. */
  private async discardTransaction(): Promise<void> {
    this.inFlight = [];
    this.acknowledged.clear();
    this.openSince = undefined;
    this.transactionSize = 0;
    this.owedCommitRecords = [];
    await this.p.exactlyOnce!.producer.abort();
  }

  private logTransactionFailure(what: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ProducerFencedError)
      this.log.warn({ err: message }, `could not ${what} the transaction: fenced`);
    else this.log.warn({ err: message }, `could not ${what} the transaction`);
  }

  private async commitOffsets(): Promise<void> {
    if (this.p.exactlyOnce) return this.endTransaction("commit");
    this.lastCommit = Date.now();
    if (this.acknowledged.size === 0) return;
    const committed = this.p.metrics.commitTimer();
    const entries = [...this.acknowledged.values()];
    // Cleared only once stored: offsets that could not be written are tried again at the next commit.
    try {
      await this.p.offsets.set(this.p.connector, entries);
    } catch (err) {
      if (!(err instanceof BrokerError) || !err.retriable) throw err;
      this.log.warn({ err: err.message }, "cannot commit offsets; retrying at the next commit");
      return;
    }
    for (const entry of entries) {
      const key = JSON.stringify(entry.partition);
      if (this.acknowledged.get(key) === entry) this.acknowledged.delete(key);
    }
    await this.p.task.commit?.();
    committed();
  }
}
