// Runs a SourceTask: poll → transforms → converters → broker. Offsets are committed every
// offset.flush.interval.ms, and only for records the broker acknowledged.
import { autoCreatedTopic, BrokerError, type Broker, type ProduceRecord } from "../../../broker/broker.ts";
import { kafkaPartition } from "../../../broker/partitioner.ts";
import type { Converter, HeaderConverter } from "../../api/converter.ts";
import type { SourceRecord } from "../../api/records.ts";
import { ConnectException, RetriableException, type PluginMetrics, type SourceTask } from "../../api/connector.ts";
import type { TaskMetrics } from "../metrics.ts";
import type { OffsetStore } from "../storage/offset-store.ts";
import { TOLERATED, type RetryWithToleranceOperator } from "../errors/tolerance.ts";
import type { StatusListener } from "../status.ts";
import { WorkerTask } from "./worker-task.ts";
import { describeRecord, encodeHeaders } from "./record-conversion.ts";
import { openTopicReader } from "./topic-reader.ts";

export interface SourcePipeline {
  task: SourceTask;
  taskConfig: Record<string, string>;
  connector: string;
  keyConverter: Converter;
  valueConverter: Converter;
  headerConverter: HeaderConverter;
  /** The converters' class names as configured, for error reports and DLQ headers. */
  converterClasses: { key: string; value: string; header: string };
  transform: (record: SourceRecord) => Promise<SourceRecord | null>;
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
  /** Topics this connector wrote to (GET /connectors/{c}/topics). */
  onTopic: (topic: string) => void;
}

export class WorkerSourceTask extends WorkerTask {
  /** Offsets of acknowledged records, by source partition (JSON), waiting for the next commit. */
  private readonly acknowledged = new Map<
    string,
    { partition: Record<string, unknown>; offset: Record<string, unknown> }
  >();
  private lastCommit = Date.now();
  private readonly partitionCounts = new Map<string, number>();
  private roundRobin = 0;

  constructor(
    id: string,
    workerId: string,
    startPaused: boolean,
    onStatus: StatusListener,
    private readonly p: SourcePipeline,
  ) {
    super(id, workerId, startPaused, onStatus);
  }

  protected async initialize(): Promise<void> {
    const { task, taskConfig, connector, offsets } = this.p;
    task.initialize({
      configs: taskConfig,
      offsetStorageReader: { offset: (partition) => offsets.get(connector, partition) },
      metrics: this.p.pluginMetrics,
      openTopicReader,
    });
    await task.start(taskConfig);
  }

  protected async iterate(): Promise<void> {
    const polled = (await this.poll()) ?? [];
    this.p.metrics.polled(polled.length);
    if (polled.length > 0) await this.send(polled);
    if (Date.now() - this.lastCommit >= this.p.flushIntervalMs) await this.commitOffsets();
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

  protected async onPause(): Promise<void> {
    await this.commitOffsets();
  }

  protected async shutdown(failed: boolean): Promise<void> {
    // Records acknowledged before a failure are still committed: they are in Kafka.
    await this.commitOffsets();
    await this.p.task.stop();
    if (failed) this.log.warn("source task stopped after a failure");
  }

  private async send(records: SourceRecord[]): Promise<void> {
    const { errors } = this.p;
    const out: { record: SourceRecord; produce: ProduceRecord; topic: string }[] = [];
    const skipped: SourceRecord[] = [];
    for (const record of records) {
      const transformed = await errors.execute(
        { stage: "TRANSFORMATION", className: "transforms", describe: () => describeRecord(record) },
        () => this.p.transform(record),
      );
      if (transformed === TOLERATED || transformed === null) {
        skipped.push(record);
        continue;
      }
      const key = await errors.execute(
        { stage: "KEY_CONVERTER", className: this.p.converterClasses.key, describe: () => describeRecord(transformed) },
        () => this.p.keyConverter.fromConnectData(transformed.topic, transformed.keySchema, transformed.key),
      );
      if (key === TOLERATED) {
        skipped.push(record);
        continue;
      }
      const value = await errors.execute(
        {
          stage: "VALUE_CONVERTER",
          className: this.p.converterClasses.value,
          describe: () => describeRecord(transformed),
        },
        () => this.p.valueConverter.fromConnectData(transformed.topic, transformed.valueSchema, transformed.value),
      );
      if (value === TOLERATED) {
        skipped.push(record);
        continue;
      }
      const headers = await errors.execute(
        {
          stage: "HEADER_CONVERTER",
          className: this.p.converterClasses.header,
          describe: () => describeRecord(transformed),
        },
        () => encodeHeaders(transformed.topic, transformed.headers, this.p.headerConverter),
      );
      if (headers === TOLERATED) {
        skipped.push(record);
        continue;
      }
      const partition = transformed.kafkaPartition ?? (await this.partitionFor(transformed.topic, key));
      out.push({
        record,
        topic: transformed.topic,
        produce: {
          key,
          value,
          partition,
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
    for (const [topic, items] of byTopic) {
      const positions = await this.produceWithRetry(
        topic,
        items.map((i) => i.produce),
      );
      this.p.metrics.written(items.length);
      items.forEach(
        (item, i) =>
          void this.p.task.commitRecord?.(item.record, {
            topic,
            partition: positions[i]!.partition,
            offset: positions[i]!.offset,
          }),
      );
    }
    for (const record of skipped) await this.p.task.commitRecord?.(record, null);
    // Source offsets advance in poll order: the last record per source partition carries the position.
    for (const record of records) {
      this.acknowledged.set(JSON.stringify(record.sourcePartition), {
        partition: { ...record.sourcePartition },
        offset: { ...record.sourceOffset },
      });
    }
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

  private async partitionFor(topic: string, key: Uint8Array | null): Promise<number> {
    let count = this.partitionCounts.get(topic);
    if (count === undefined) {
      const description = await this.p.broker.describeTopic(topic);
      if (!description && this.p.createTopics) {
        // Kafka Connect leaves a topic the connector has no topic.creation.* settings for to the
        // broker's auto-creation, with the broker's defaults.
        await this.p.broker.createTopic(autoCreatedTopic(topic));
      }
      count = description?.partitions ?? 1;
      this.partitionCounts.set(topic, count);
      this.p.onTopic(topic);
    }
    return key ? kafkaPartition(key, count) : this.roundRobin++ % count;
  }

  private async commitOffsets(): Promise<void> {
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
