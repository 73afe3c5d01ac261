// Runs a SinkTask: broker → converters → transforms → put. Positions are committed for the group
// connect-<connector> only after the task flushed (SinkTask.flush/preCommit), so a crash re-delivers
// what was not flushed and loses nothing.
import { BrokerError, type Broker, type FetchedRecord, type FetchOptions } from "../../../broker/broker.ts";
import { DEFAULT_READS, type ConsumerTuning } from "../../../broker/client-settings.ts";
import type { Converter, HeaderConverter } from "../../api/converter.ts";
import type { TaskMetrics } from "../metrics.ts";
import type { SinkRecord } from "../../api/records.ts";
import {
  ConnectException,
  RetriableException,
  type ErrantRecordReporter,
  type SinkTask,
  type TopicPartition,
} from "../../api/connector.ts";
import { TOLERATED, type RetryWithToleranceOperator } from "../errors/tolerance.ts";
import { decodeHeaders, describeRecord, encodeHeaders } from "./record-conversion.ts";
import type { StatusListener } from "../status.ts";
import { WorkerTask } from "./worker-task.ts";

export interface SinkPipeline {
  task: SinkTask;
  taskConfig: Record<string, string>;
  connector: string;
  group: string;
  /**
   * The consumer settings the task honours (worker's `consumer.*`, connector's `consumer.override.*`):
   * fetch sizes and wait, isolation level, max.poll.records, auto.offset.reset. Absent: Kafka Connect's.
   */
  consumer?: ConsumerTuning;
  partitions: TopicPartition[];
  /**
   * The task's partitions as they are now, asked every `everyMs` (the consumer's metadata.max.age.ms):
   * a topic that `topics.regex` comes to match, or partitions added to a topic, are then read, and
   * what is no longer the task's is committed and closed, as a Kafka Connect rebalance does.
   */
  refresh?: { partitions: () => Promise<TopicPartition[]>; everyMs: number };
  keyConverter: Converter;
  valueConverter: Converter;
  headerConverter: HeaderConverter;
  /** The converters' class names as configured, for error reports and DLQ headers. */
  converterClasses: { key: string; value: string; header: string };
  transform: (record: SinkRecord) => SinkRecord | null | Promise<SinkRecord | null>;
  /** Error tolerance, with the dead letter queue among its reporters when the connector has one. */
  errors: RetryWithToleranceOperator;
  broker: Broker;
  flushIntervalMs: number;
  metrics: TaskMetrics;
  onTopic: (topic: string) => void;
}

const key = (tp: TopicPartition) => `${tp.topic}:${tp.partition}`;
const topicPartitionOf = (k: string): TopicPartition => ({
  topic: k.slice(0, k.lastIndexOf(":")),
  partition: Number(k.slice(k.lastIndexOf(":") + 1)),
});
/** The class Kafka names for a failure the task reports itself (the DLQ's class.name header). */
const SINK_TASK_CLASS = "org.apache.kafka.connect.sink.SinkTask";

export class WorkerSinkTask extends WorkerTask {
  /** Next offset to fetch per partition. */
  private readonly positions = new Map<string, number>();
  /** Offsets (next to read) of everything handed to put() since the last commit. */
  private readonly consumed = new Map<string, number>();
  private readonly pausedPartitions = new Set<string>();
  /** The task's partitions: as started, then as the last refresh found them. */
  private assigned: TopicPartition[];
  private lastCommit = Date.now();
  private lastRefresh = Date.now();
  private commitRequested = false;
  private timeoutMs: number | undefined;
  /** The records handed to put() and what was read for each, for the errant record reporter. */
  private readonly originals = new WeakMap<SinkRecord, FetchedRecord>();
  /** Errant record reports not yet done; offsets are committed only after them. */
  private readonly errantReports = new Set<Promise<void>>();
  private errantFailure: unknown;
  /** Records fetched and not handed to the task yet: at most max.poll.records go to one put(), as a consumer's poll returns them. */
  private buffered: FetchedRecord[] = [];
  private readonly consumer: ConsumerTuning;

  constructor(
    id: string,
    workerId: string,
    startPaused: boolean,
    onStatus: StatusListener,
    private readonly p: SinkPipeline,
  ) {
    super(id, workerId, startPaused, onStatus);
    this.assigned = [...p.partitions];
    this.consumer = p.consumer ?? DEFAULT_READS;
  }

  protected async initialize(): Promise<void> {
    const { task, taskConfig } = this.p;
    task.initialize({
      configs: taskConfig,
      offset: (offsets) => {
        for (const [tp, offset] of offsets) this.positions.set(key(tp), offset);
        this.buffered = []; // as a consumer's seek drops what it fetched
      },
      timeout: (ms) => (this.timeoutMs = ms),
      assignment: () => [...this.assigned],
      pause: (...tps) => tps.forEach((tp) => this.pausedPartitions.add(key(tp))),
      resume: (...tps) => tps.forEach((tp) => this.pausedPartitions.delete(key(tp))),
      requestCommit: () => (this.commitRequested = true),
      errantRecordReporter: () => this.errantRecordReporter(),
    });
    await task.start(taskConfig);
    await this.open(this.assigned);
  }

  private errantRecordReporter(): ErrantRecordReporter | null {
    if (!this.p.errors.reportsErrantRecords) return null;
    return { report: (record, error) => this.reportErrant(record, error) };
  }

  /** As Kafka's WorkerErrantRecordReporter: the record as read goes to the error reporters. */
  private reportErrant(record: SinkRecord, error: Error): Promise<void> {
    const report = (async () => {
      const original = this.originals.get(record) ?? (await this.reconverted(record));
      await this.p.errors.reportFailed(error, {
        stage: "TASK_PUT",
        className: SINK_TASK_CLASS,
        describe: () => describeRecord(record),
        original,
      });
    })();
    this.errantReports.add(report);
    // A report the task does not await still fails the task, at the next commit.
    report.catch((err: unknown) => (this.errantFailure ??= err)).finally(() => this.errantReports.delete(report));
    return report;
  }

  /** A record the task made itself (not one it was given): converted back as Kafka does. */
  private async reconverted(record: SinkRecord): Promise<FetchedRecord> {
    const { topic } = record;
    return {
      topic,
      partition: record.kafkaPartition,
      offset: record.kafkaOffset,
      timestamp: record.timestamp ?? Date.now(),
      key: await this.p.keyConverter.fromConnectData(topic, record.keySchema, record.key),
      value: await this.p.valueConverter.fromConnectData(topic, record.valueSchema, record.value),
      headers: encodeHeaders(topic, record.headers, this.p.headerConverter) ?? [],
    };
  }

  /**
   * Resume from the group's committed positions; a partition without one starts as auto.offset.reset
   * says: at the beginning (Kafka Connect's default, earliest), at the end (latest), or not at all (none).
   */
  private async open(partitions: TopicPartition[]): Promise<void> {
    const reset = this.consumer.autoOffsetReset;
    for (const topic of new Set(partitions.map((tp) => tp.topic))) {
      const committed = await this.p.broker.committedOffsets(this.p.group, topic);
      const mine = partitions.filter((t) => t.topic === topic);
      const uncommitted = mine.filter((tp) => !committed.has(tp.partition));
      if (uncommitted.length > 0 && reset === "none")
        throw new ConnectException(
          `org.apache.kafka.clients.consumer.NoOffsetForPartitionException: Undefined offset with no reset policy for partitions: [${uncommitted.map((tp) => `${tp.topic}-${tp.partition}`).join(", ")}]`,
        );
      const starts =
        uncommitted.length === 0
          ? []
          : reset === "latest"
            ? await this.p.broker.endOffsets(topic)
            : await this.p.broker.startOffsets(topic);
      for (const tp of mine) this.positions.set(key(tp), committed.get(tp.partition) ?? starts[tp.partition] ?? 0);
      this.p.onTopic(topic);
    }
    await this.p.task.open?.([...partitions]);
  }

  /** Takes up partitions that are now the task's and lets go of those that are not (see SinkPipeline.refresh). */
  private async refresh(): Promise<void> {
    const refresh = this.p.refresh;
    if (!refresh || Date.now() - this.lastRefresh < refresh.everyMs) return;
    this.lastRefresh = Date.now();
    let now: TopicPartition[];
    try {
      now = await refresh.partitions();
    } catch (err) {
      if (!(err instanceof BrokerError) || !err.retriable) throw err;
      return; // the broker is away: the partitions stay as they are until the next refresh
    }
    const before = new Set(this.assigned.map(key));
    const after = new Set(now.map(key));
    const revoked = this.assigned.filter((tp) => !after.has(key(tp)));
    const added = now.filter((tp) => !before.has(key(tp)));
    if (revoked.length === 0 && added.length === 0) return;
    this.log.info({ added: added.map(key), revoked: revoked.map(key) }, "the task's partitions changed");
    if (revoked.length > 0) {
      await this.commit();
      await this.p.task.close?.(revoked);
      for (const tp of revoked) for (const state of [this.positions, this.consumed]) state.delete(key(tp));
      for (const tp of revoked) this.pausedPartitions.delete(key(tp));
    }
    this.assigned = now;
    if (added.length > 0) await this.open(added);
  }

  protected async iterate(): Promise<void> {
    await this.refresh();
    if (this.buffered.length === 0) {
      this.buffered = await this.fetch(this.activePartitions());
    }
    // Paused while fetching: nothing more is delivered; positions stay, so it is fetched again on resume.
    if (this.isPaused) {
      this.buffered = [];
      return;
    }
    const fetched = this.nextPoll();
    this.p.metrics.read(fetched.length);
    if (this.buffered.length === 0 && fetched.length > 0) this.prefetchAfter(fetched);
    const records: SinkRecord[] = [];
    for (const raw of fetched) {
      const record = await this.convert(raw);
      this.positions.set(key(raw), raw.offset + 1);
      this.consumed.set(key(raw), raw.offset + 1);
      if (record) records.push(record);
    }
    if (records.length > 0 || this.timeoutMs !== undefined) {
      this.timeoutMs = undefined;
      await this.put(records);
    }
    if (this.commitRequested || Date.now() - this.lastCommit >= this.p.flushIntervalMs) await this.commit();
  }

  protected async onPause(): Promise<void> {
    await this.commit();
  }

  protected async shutdown(failed: boolean): Promise<void> {
    // After a failure nothing more is flushed: the unflushed records are delivered again on restart.
    if (!failed) await this.commit();
    await this.p.task.close?.([...this.assigned]);
    await this.p.task.stop();
  }

  /** As Kafka: a RetriableException redelivers the same batch after a pause; anything else fails the task. */
  private async put(records: SinkRecord[]): Promise<void> {
    let delay = 250;
    for (;;) {
      try {
        await this.p.task.put(records);
        this.p.metrics.put(records.length);
        return;
      } catch (err) {
        if (!(err instanceof RetriableException) || this.stopping) throw err;
        this.log.warn({ err: err.message, retryInMs: delay }, "put failed with a retriable error; redelivering");
        await Bun.sleep(delay); // back-off before redelivery
        delay = Math.min(delay * 2, 10000);
      }
    }
  }

  /**
   * Up to max.poll.records of the records fetched, in order, leaving out those of partitions revoked,
   * paused or moved (by the task's offset()) since the fetch.
   */
  private nextPoll(): FetchedRecord[] {
    const out: FetchedRecord[] = [];
    let i = 0;
    for (; i < this.buffered.length && out.length < this.consumer.maxPollRecords; i++) {
      const record = this.buffered[i]!;
      const at = this.positions.get(key(record));
      if (at === undefined || record.offset < at || this.pausedPartitions.has(key(record))) continue;
      out.push(record);
    }
    this.buffered = i === this.buffered.length ? [] : this.buffered.slice(i);
    return out;
  }

  /**
   * The records just taken drained the buffer: the fetch the next iteration will make (from the positions
   * past them, if put() moves nothing) is sent now, so that it travels while they are converted and put.
   */
  private prefetchAfter(fetched: FetchedRecord[]): void {
    if (!this.p.broker.prefetch) return;
    const next = new Map<string, number>();
    for (const record of fetched) next.set(key(record), record.offset + 1);
    const reads = this.activePartitions().map((tp) => ({
      topic: tp.topic,
      partition: tp.partition,
      offset: next.get(key(tp)) ?? this.positions.get(key(tp))!,
    }));
    if (reads.length > 0) this.p.broker.prefetch(reads, this.fetchOptions());
  }

  private activePartitions(): TopicPartition[] {
    return this.assigned.filter((tp) => !this.pausedPartitions.has(key(tp)));
  }

  private fetchOptions(): FetchOptions {
    const { fetchMaxWaitMs, fetchMinBytes, fetchMaxBytes, maxPartitionFetchBytes, isolationLevel } = this.consumer;
    return {
      maxWaitMs: fetchMaxWaitMs,
      minBytes: fetchMinBytes,
      maxBytes: maxPartitionFetchBytes,
      totalMaxBytes: fetchMaxBytes,
      isolationLevel,
    };
  }

  private async fetch(partitions: TopicPartition[]): Promise<FetchedRecord[]> {
    if (partitions.length === 0) {
      // Everything paused by the task: wait for a resume or commit (a while even with fetch.max.wait.ms=0).
      await Bun.sleep(Math.max(this.consumer.fetchMaxWaitMs, 100));
      return [];
    }
    try {
      // All partitions in one call (one Fetch per leader), long-polled together: an idle sink does not
      // spin, and a record on any partition ends the wait.
      const reads = partitions.map((tp) => ({
        topic: tp.topic,
        partition: tp.partition,
        offset: this.positions.get(key(tp))!,
      }));
      return await this.p.broker.fetchMany(reads, this.fetchOptions());
    } catch (err) {
      if (!(err instanceof BrokerError) || !err.retriable) throw err;
      this.log.warn({ err: err.message }, "cannot read from the broker; retrying");
      await Bun.sleep(1000); // back-off while the broker is away
      return [];
    }
  }

  private async convert(raw: FetchedRecord): Promise<SinkRecord | null> {
    const describe = () => `topic '${raw.topic}' partition ${raw.partition} offset ${raw.offset}`;
    // Each stage's answer is awaited only when it is a promise (an await per record and stage costs).
    const maybeKey = this.p.errors.execute(
      { stage: "KEY_CONVERTER", className: this.p.converterClasses.key, describe, original: raw },
      () => this.p.keyConverter.toConnectData(raw.topic, raw.key),
    );
    const keyData = maybeKey instanceof Promise ? await maybeKey : maybeKey;
    if (keyData === TOLERATED) return null;
    const maybeValue = this.p.errors.execute(
      { stage: "VALUE_CONVERTER", className: this.p.converterClasses.value, describe, original: raw },
      () => this.p.valueConverter.toConnectData(raw.topic, raw.value),
    );
    const valueData = maybeValue instanceof Promise ? await maybeValue : maybeValue;
    if (valueData === TOLERATED) return null;
    const maybeHeaders = this.p.errors.execute(
      { stage: "HEADER_CONVERTER", className: this.p.converterClasses.header, describe, original: raw },
      () => decodeHeaders(raw.topic, raw.headers, this.p.headerConverter),
    );
    const headers = maybeHeaders instanceof Promise ? await maybeHeaders : maybeHeaders;
    if (headers === TOLERATED) return null;
    const record: SinkRecord = {
      topic: raw.topic,
      kafkaPartition: raw.partition,
      kafkaOffset: raw.offset,
      keySchema: keyData.schema,
      key: keyData.value,
      valueSchema: valueData.schema,
      value: valueData.value,
      timestamp: raw.timestamp,
      timestampType: "CreateTime",
      headers,
      originalTopic: raw.topic,
      originalKafkaPartition: raw.partition,
      originalKafkaOffset: raw.offset,
    };
    const maybeTransformed = this.p.errors.execute(
      { stage: "TRANSFORMATION", className: "transforms", describe: () => describeRecord(record), original: raw },
      () => this.p.transform(record),
    );
    const transformed = maybeTransformed instanceof Promise ? await maybeTransformed : maybeTransformed;
    if (transformed === TOLERATED || transformed === null) return null;
    this.originals.set(transformed, raw);
    return transformed;
  }

  /** flush → preCommit → commit the group's positions: only what the task made durable. */
  private async commit(): Promise<void> {
    this.lastCommit = Date.now();
    this.commitRequested = false;
    await Promise.allSettled(this.errantReports);
    if (this.errantFailure !== undefined) throw this.errantFailure;
    if (this.consumed.size === 0) return;
    const committed = this.p.metrics.commitTimer();
    const offsets = new Map([...this.consumed].map(([k, offset]) => [topicPartitionOf(k), offset]));
    await this.p.task.flush(offsets);
    // Matched by topic and partition, not by identity: preCommit may answer with partitions of its own.
    const committable = (await this.p.task.preCommit?.(offsets)) ?? offsets;
    const byTopic = new Map<string, { partition: number; offset: number }[]>();
    for (const [{ topic, partition }, offset] of committable)
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset }]);
    try {
      for (const [topic, positions] of byTopic) await this.p.broker.commitOffsets(this.p.group, topic, positions);
    } catch (err) {
      // Not committed: the positions stay for the next commit (what the sink flushed is redelivered at worst).
      if (!(err instanceof BrokerError) || !err.retriable) throw err;
      this.log.warn({ err: err.message }, "cannot commit offsets; retrying at the next commit");
      return;
    }
    for (const [tp, offset] of committable) if (this.consumed.get(key(tp)) === offset) this.consumed.delete(key(tp));
    committed();
    await this.reportLag();
  }

  /** End offsets minus positions over the task's partitions (one ListOffsets per topic per commit). */
  private async reportLag(): Promise<void> {
    let lag = 0;
    try {
      for (const topic of new Set(this.assigned.map((tp) => tp.topic))) {
        const ends = await this.p.broker.endOffsets(topic);
        for (const tp of this.assigned.filter((p) => p.topic === topic))
          lag += Math.max(0, (ends[tp.partition] ?? 0) - (this.positions.get(key(tp)) ?? 0));
      }
    } catch {
      return; // the broker is away: the last figure stands
    }
    this.p.metrics.lag(lag);
  }
}
