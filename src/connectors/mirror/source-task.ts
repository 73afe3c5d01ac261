// org.apache.kafka.connect.mirror.MirrorSourceTask: reads its topic-partitions from the source cluster
// and returns each record unchanged (key, value and headers as bytes, the timestamp, the partition) for
// the remote topic, with Kafka's source partition `{cluster, partition, topic}` and offset `{offset}`, so
// Kafka's MM2 and Sluice's resume from each other's offsets. Offset syncs go to the offset-syncs topic
// once the target acknowledged a record (commitRecord), as Kafka's task writes them.
import type { Broker, FetchedRecord, PartitionRead } from "../../broker/broker.ts";
import { consumerTuning } from "../../broker/client-settings.ts";
import { ConnectException, SourceTask, type RecordMetadata } from "../../connect/api/connector.ts";
import { Schema } from "../../connect/api/data/index.ts";
import { NO_CONNECT_HEADERS, sourceRecord, type ConnectHeader, type SourceRecord } from "../../connect/api/records.ts";
import { logger } from "../../platform/log.ts";
import { VERSION } from "../../platform/version.ts";
import { encodeOffsetSync, type OffsetSync } from "./offset-sync.ts";
import { OffsetSyncWriter } from "./offset-sync-writer.ts";
import { MirrorSourceLag } from "./source-lag.ts";
import { MirrorSourceMetrics } from "./source-metrics.ts";
import { partitionKey } from "./partition-table.ts";
import { MirrorSourceConfig, type TopicPartition } from "./source-config.ts";

const log = logger("mirror-source-task");

/** Kafka's source partition of a replicated partition; keys in the order Kafka's JSON converter writes them. */
export function wrapPartition(tp: TopicPartition, sourceClusterAlias: string): Record<string, unknown> {
  return { cluster: sourceClusterAlias, partition: tp.partition, topic: tp.topic };
}

/** The offset in a source offset; -1 when there is none (Kafka's MirrorUtils.unwrapOffset). */
export function unwrapOffset(offset: Readonly<Record<string, unknown>> | null | undefined): number {
  const value = offset?.offset;
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  return -1;
}

const CLOSE_WAIT_MS = 10000;

interface Route {
  position: PartitionRead;
  remote: string;
  sourcePartition: Record<string, unknown>;
}

export class MirrorSourceTask extends SourceTask {
  static readonly className = "org.apache.kafka.connect.mirror.MirrorSourceTask";
  private config!: MirrorSourceConfig;
  private consumer: Broker | undefined;
  private offsetSyncsProducer: Broker | undefined;
  private writer: OffsetSyncWriter | undefined;
  /** Next offset to read, per partition (by `partitionKey`). */
  private readonly positions = new Map<string, PartitionRead>();
  private readonly routes = new Map<string, Route>();
  private fetch!: ReturnType<typeof consumerTuning>;
  /** The last fetch's records not yet polled: as Kafka's consumer, a poll answers max.poll.records of them. */
  private fetched: FetchedRecord[] = [];
  private nextFetched = 0;
  private stopping = false;
  private metrics: MirrorSourceMetrics | undefined;
  private lag: MirrorSourceLag | undefined;

  version(): string {
    return VERSION;
  }

  async start(props: Record<string, string>): Promise<void> {
    this.config = new MirrorSourceConfig(props, true);
    const config = this.config;
    this.fetch = consumerTuning(
      Object.fromEntries(
        Object.entries(config.clientProps("source", "consumer")).filter(
          ([name]) => name !== "bootstrap.servers" && name !== "security.protocol" && !/^(ssl|sasl)\./.test(name),
        ),
      ),
    );
    const partitions = config.taskTopicPartitions;
    this.metrics = new MirrorSourceMetrics(this.context.metrics, config.sourceClusterAlias, config.targetClusterAlias);
    this.lag = new MirrorSourceLag(this.context.metrics, config.sourceClusterAlias, config.targetClusterAlias, (t) =>
      config.formatRemoteTopic(t),
    );
    // Both clients connect at once: one after the other they held up the task's first records.
    const side = config.offsetSyncsTopicLocation;
    const [consumer, syncs] = await Promise.allSettled([
      config.connectClient("source", ["consumer"], "replication-consumer"),
      config.emitOffsetSyncs ? config.connectClient(side, ["producer"], `offset-syncs-${side}-producer`) : undefined,
    ]);
    if (consumer.status === "fulfilled") this.consumer = consumer.value;
    if (syncs.status === "fulfilled") this.offsetSyncsProducer = syncs.value;
    try {
      for (const connected of [consumer, syncs]) if (connected.status === "rejected") throw connected.reason;
      const producer = this.offsetSyncsProducer;
      if (producer) {
        const topic = config.offsetSyncsTopic;
        this.writer = new OffsetSyncWriter(
          config.maxOffsetLag,
          async (sync: OffsetSync) => {
            const { key, value } = encodeOffsetSync(sync);
            await producer.produce(topic, [{ key, value, partition: 0 }]);
          },
          (err, sync) =>
            log.error(
              { err: (err as Error).message, topic: sync.topic, partition: sync.partition },
              "Failure sending offset sync.",
            ),
        );
      }
      await this.seek(partitions);
      for (const p of this.positions.values()) this.lag.track(p.topic, p.partition, p.offset);
    } catch (err) {
      await this.closeClients();
      throw err;
    }
    log.info(
      { task: config.taskIndex, partitions: partitions.length },
      `replicating ${partitions.length} topic-partitions ${config.sourceClusterAlias}->${config.targetClusterAlias}`,
    );
  }

  /** Where each partition starts: one past its committed offset, else per auto.offset.reset. */
  private async seek(partitions: TopicPartition[]): Promise<void> {
    const alias = this.config.sourceClusterAlias;
    const unpositioned: TopicPartition[] = [];
    for (const tp of partitions) {
      const committed = unwrapOffset(this.context.offsetStorageReader.offset(wrapPartition(tp, alias)));
      if (committed < 0) unpositioned.push(tp);
      else this.positions.set(partitionKey(tp.topic, tp.partition), { ...tp, offset: committed + 1 });
    }
    await this.reset(unpositioned);
  }

  /** Positions partitions at their earliest (or, with auto.offset.reset=latest, next) offset. */
  private async reset(partitions: TopicPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    if (this.fetch.autoOffsetReset === "none")
      // Kafka's consumer fails each poll of these partitions (NoOffsetForPartitionException); said once, here.
      throw new ConnectException(
        `no offset for ${partitions.map((tp) => `${tp.topic}-${tp.partition}`).join(", ")} and the source consumer's auto.offset.reset is none`,
      );
    const consumer = this.consumer!;
    const latest = this.fetch.autoOffsetReset === "latest";
    for (const topic of new Set(partitions.map((tp) => tp.topic))) {
      const offsets = latest ? await consumer.endOffsets(topic) : await consumer.startOffsets(topic);
      for (const tp of partitions.filter((p) => p.topic === topic))
        this.positions.set(partitionKey(tp.topic, tp.partition), { ...tp, offset: offsets[tp.partition] ?? 0 });
    }
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.stopping || !this.consumer) return null;
    const consumer = this.consumer;
    void this.lag?.refresh((topic) => consumer.endOffsets(topic));
    if (this.nextFetched >= this.fetched.length) {
      this.fetched = [];
      this.nextFetched = 0;
      const reads = [...this.positions.values()];
      try {
        this.fetched = await this.consumer.fetchMany(reads, {
          maxWaitMs: this.config.pollTimeoutMs,
          minBytes: this.fetch.fetchMinBytes,
          maxBytes: this.fetch.maxPartitionFetchBytes,
          totalMaxBytes: this.fetch.fetchMaxBytes,
          isolationLevel: this.fetch.isolationLevel,
        });
      } catch (err) {
        // As Kafka's task: a failed poll is logged and polled again; a position the log no longer has
        // (retention, a recreated topic) is reset as the consumer would.
        log.warn({ err: (err as Error).message }, "Failure during poll.");
        await this.resetOutOfRange().catch(() => undefined);
        // As long as Kafka's poll would have waited: an unreachable cluster is not asked in a tight loop.
        await Bun.sleep(Math.min(this.config.pollTimeoutMs, 1000));
        return null;
      }
      if (this.fetched.length === 0) return null;
    }
    // A poll's records become source records (held until the target acknowledges them) a poll's worth at
    // a time, not a whole fetch (up to fetch.max.bytes) at once.
    const start = this.nextFetched;
    const end = Math.min(this.fetched.length, start + this.fetch.maxPollRecords);
    this.nextFetched = end;
    const records: SourceRecord[] = [];
    // A fetch answers partition by partition: what a record needs of its partition is looked up when the
    // partition changes, not per record.
    let current: { topic: string; partition: number; route: Route | undefined } | undefined;
    for (let i = start; i < end; i++) {
      const r = this.fetched[i]!;
      if (current?.partition !== r.partition || current.topic !== r.topic)
        current = { topic: r.topic, partition: r.partition, route: this.routeOf(r) };
      const route = current.route;
      if (!route || r.offset < route.position.offset) continue;
      route.position.offset = r.offset + 1;
      this.metrics?.read(route.remote, r.partition, r.timestamp, r.value?.length ?? 0);
      // One to one, as MirrorSourceTask copies them: in order, repeated keys and null values kept.
      const headers: readonly ConnectHeader[] =
        r.headers.length === 0
          ? NO_CONNECT_HEADERS
          : r.headers.map(({ key, value }) => ({ key, schema: Schema.BYTES_SCHEMA, value }));
      records.push(
        sourceRecord({
          sourcePartition: route.sourcePartition,
          sourceOffset: { offset: r.offset },
          topic: route.remote,
          kafkaPartition: r.partition,
          keySchema: Schema.OPTIONAL_BYTES_SCHEMA,
          key: r.key,
          valueSchema: Schema.BYTES_SCHEMA,
          value: r.value,
          timestamp: r.timestamp,
          headers,
        }),
      );
    }
    return records.length > 0 ? records : null;
  }

  /** A replicated partition's position, remote topic and source partition (one object for all its records). */
  private routeOf(tp: TopicPartition): Route | undefined {
    const key = partitionKey(tp.topic, tp.partition);
    const position = this.positions.get(key);
    if (!position) return undefined;
    let route = this.routes.get(key);
    if (route?.position !== position) {
      route = {
        position,
        remote: this.config.formatRemoteTopic(tp.topic),
        sourcePartition: wrapPartition(tp, this.config.sourceClusterAlias),
      };
      this.routes.set(key, route);
    }
    return route;
  }

  private async resetOutOfRange(): Promise<void> {
    const consumer = this.consumer!;
    const outOfRange: PartitionRead[] = [];
    for (const topic of new Set([...this.positions.values()].map((p) => p.topic))) {
      const [start, end] = [await consumer.startOffsets(topic), await consumer.endOffsets(topic)];
      for (const p of this.positions.values()) {
        if (p.topic !== topic) continue;
        const [first, next] = [start[p.partition], end[p.partition]];
        if (first !== undefined && next !== undefined && (p.offset < first || p.offset > next)) outOfRange.push(p);
      }
    }
    if (outOfRange.length === 0) return;
    log.warn(
      { partitions: outOfRange.map((p) => `${p.topic}-${p.partition}@${p.offset}`) },
      "positions out of range on the source cluster; reset per auto.offset.reset",
    );
    await this.reset(outOfRange);
    for (const tp of outOfRange) {
      const p = this.positions.get(partitionKey(tp.topic, tp.partition));
      if (p) this.lag?.track(p.topic, p.partition, p.offset);
    }
  }

  override commitRecord(record: SourceRecord, metadata: RecordMetadata | null): void {
    if (this.stopping || !metadata) return;
    this.metrics?.written(metadata.topic, metadata.partition, record.timestamp ?? Date.now());
    const partition = record.sourcePartition as { topic: string; partition: number };
    this.lag?.written(partition.topic, partition.partition, unwrapOffset(record.sourceOffset));
    if (!this.writer) return;
    this.writer.maybeQueue(partition.topic, partition.partition, unwrapOffset(record.sourceOffset), metadata.offset);
    this.writer.firePending();
  }

  override commit(): void {
    // Held syncs go out at each offset commit, so a quiet partition's last sync is not left behind.
    this.writer?.promoteDelayed();
    this.writer?.firePending();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.writer) {
      const drained = this.writer.drain();
      await Promise.race([drained, Bun.sleep(CLOSE_WAIT_MS)]);
    }
    await this.closeClients();
  }

  private async closeClients(): Promise<void> {
    await Promise.all(
      [this.consumer?.close(), this.offsetSyncsProducer?.close()].map((p) => p?.catch(() => undefined)),
    );
    this.consumer = this.offsetSyncsProducer = undefined;
  }
}
