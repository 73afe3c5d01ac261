// The Broker interface on a real Kafka cluster. The only module that imports kafkajs.
import {
  Kafka,
  logLevel as KafkaLogLevel,
  type Admin,
  type Producer,
  type KafkaConfig,
  type LogEntry,
  ConfigResourceTypes,
  KafkaJSError,
} from "kafkajs";
import {
  BrokerError,
  type Broker,
  type Bytes,
  type FetchedRecord,
  type FetchOptions,
  type PartitionRead,
  type ProduceRecord,
  type RecordPosition,
  type GroupMembership,
  type GroupOptions,
  type TopicDescription,
  type TopicSpec,
} from "../broker.ts";
import { KafkaGroupMembership, type GroupCluster } from "./group.ts";
import type { ClientSecurity } from "../client-security.ts";
import { logger as makeLogger, type Logger } from "../../platform/log.ts";

export interface KafkaBrokerOptions {
  bootstrapServers: string[];
  clientId?: string;
  /** TLS and SASL of the connections (client-security.ts). */
  security?: ClientSecurity;
  requestTimeoutMs?: number;
  logger?: Logger;
}

/** The subset of kafkajs' internal Cluster used for partition reads without a consumer group. */
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findGroupCoordinator(args: { groupId: string }): Promise<{
    offsetCommit(args: {
      groupId: string;
      groupGenerationId: number;
      memberId: string;
      topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
    }): Promise<unknown>;
  }>;
  findBroker(args: { nodeId: string }): Promise<{
    fetch(args: {
      maxWaitTime: number;
      minBytes: number;
      maxBytes: number;
      isolationLevel: number;
      topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[];
    }): Promise<KafkajsFetchResponse>;
  }>;
}
type KafkajsFetchResponse = { responses: { topicName: string; partitions: KafkajsPartitionData[] }[] };
interface KafkajsPartitionData {
  partition: number;
  errorCode: number;
  messages: {
    offset: string;
    timestamp: string;
    key: Buffer | null;
    value: Buffer | null;
    headers?: Record<string, Buffer | Buffer[] | undefined>;
    isControlRecord?: boolean;
  }[];
}

const CREATE_CLUSTER = "private:Kafka:createCluster";
const PRODUCE_CHUNK = 256;

/**
 * The bytes as a Buffer (kafkajs wants Buffers). A copy: reading `.buffer` of a small typed array makes
 * the engine move it out of the GC heap, which cost more than copying (source throughput +6% measured).
 */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
}
const READ_COMMITTED = 1;
/** Kafka's max.partition.fetch.bytes and fetch.max.bytes defaults. */
const PARTITION_MAX_BYTES = 1048576;
const FETCH_MAX_BYTES = 52428800;

/** One Fetch request to a partition leader: what it asked (to reuse it) and, once answered, its records. */
interface LeaderFetch {
  request: string;
  answer: Promise<FetchedRecord[]>;
  records?: FetchedRecord[];
}

export class KafkaBroker implements Broker {
  readonly kind = "kafka";
  private readonly kafka: Kafka;
  private readonly log: Logger;
  private admin?: Admin;
  private producer?: Producer;
  private cluster?: KafkajsCluster;
  private readonly knownTopics = new Set<string>();
  /** The last Fetch request sent to each leader (by node id), while in flight or holding records. */
  private readonly leaderFetches = new Map<string, LeaderFetch>();
  private readonly cappedFactors = new Set<number>();

  constructor(private readonly options: KafkaBrokerOptions) {
    this.log = options.logger ?? makeLogger("kafka");
    const log = this.log;
    this.kafka = new Kafka({
      clientId: options.clientId ?? "sluice",
      brokers: options.bootstrapServers,
      requestTimeout: options.requestTimeoutMs ?? 30000,
      connectionTimeout: 3000,
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2000 },
      ...kafkajsSecurity(options.security),
      logLevel: KafkaLogLevel.WARN,
      logCreator: () => (entry: LogEntry) => {
        const { message, ...rest } = entry.log;
        // kafkajs logs expected coordinator/leader churn as ERROR; our callers report real failures.
        log.debug({ ...rest, namespace: entry.namespace }, message);
      },
    });
  }

  async connect(): Promise<void> {
    await this.guard("connect to Kafka", async () => {
      this.admin = this.kafka.admin();
      await this.admin.connect();
      this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      await this.producer.connect();
      this.cluster = this.newCluster<KafkajsCluster>();
      await this.cluster.connect();
    });
  }

  /** A cluster object of kafkajs (metadata and connections to every broker) of our own. */
  private newCluster<T>(): T {
    const create = (this.kafka as unknown as Record<symbol, (o: object) => T>)[Object.getOwnPropertySymbols(this.kafka).find((s) => s.description === CREATE_CLUSTER)!];
    if (!create) throw new Error("unsupported kafkajs version: no internal cluster factory");
    return create({ allowAutoTopicCreation: false, isolationLevel: READ_COMMITTED });
  }

  groupMembership(options: GroupOptions): GroupMembership {
    return new KafkaGroupMembership(this.newCluster<GroupCluster>(), options);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.producer?.disconnect(), this.admin?.disconnect(), this.cluster?.disconnect()]);
  }

  async createTopic(spec: TopicSpec): Promise<boolean> {
    return this.guard(`create topic ${spec.name}`, async () => {
      const admin = this.need(this.admin);
      const brokers = (await admin.describeCluster()).brokers.length;
      // As Confluent and Connect do: the requested replication factor, capped by the live brokers.
      const replicationFactor = Math.min(spec.replicationFactor, Math.max(1, brokers));
      if (replicationFactor < spec.replicationFactor) {
        // Said once per requested factor: every internal topic asks for the same one.
        const first = !this.cappedFactors.has(spec.replicationFactor);
        this.cappedFactors.add(spec.replicationFactor);
        const fields = { topic: spec.name, requested: spec.replicationFactor, brokers };
        if (first) this.log.warn(fields, `replication factor ${spec.replicationFactor} capped to ${replicationFactor} by ${brokers} live broker${brokers === 1 ? "" : "s"} for topic ${spec.name}; other topics asking for ${spec.replicationFactor} are capped the same way`);
        else this.log.debug(fields, "replication factor capped by live brokers");
      }
      return admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: spec.name,
            numPartitions: spec.partitions,
            replicationFactor,
            configEntries: Object.entries(spec.config ?? {}).map(([name, value]) => ({ name, value })),
          },
        ],
      });
    });
  }

  async listTopics(): Promise<string[]> {
    return this.guard("list topics", () => this.need(this.admin).listTopics());
  }

  async describeTopic(name: string): Promise<TopicDescription | undefined> {
    return this.guard(`describe topic ${name}`, async () => {
      const admin = this.need(this.admin);
      const topics = await admin.listTopics();
      if (!topics.includes(name)) return undefined;
      const meta = await admin.fetchTopicMetadata({ topics: [name] });
      const partitions = meta.topics[0]?.partitions ?? [];
      const configs = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name }],
      });
      const config: Record<string, string> = {};
      for (const entry of configs.resources[0]?.configEntries ?? []) config[entry.configName] = entry.configValue;
      return {
        name,
        partitions: partitions.length,
        replicationFactor: partitions[0]?.replicas.length ?? 0,
        config,
      };
    });
  }

  async produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    return this.guard(`write to ${topic}`, async () => {
      // kafkajs groups a send's messages by partition by copying the partition's list per message
      // (quadratic): bounded chunks keep that cost linear. Chunks go out in order, one at a time.
      const positions: RecordPosition[] = [];
      for (let start = 0; start < records.length; start += PRODUCE_CHUNK) {
        positions.push(...(await this.produceChunk(topic, records.slice(start, start + PRODUCE_CHUNK))));
      }
      return positions;
    });
  }

  private async produceChunk(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    const result = await this.need(this.producer).send({
      topic,
      acks: -1,
      messages: records.map((r) => ({
        key: r.key ? asBuffer(r.key) : null,
        value: r.value ? asBuffer(r.value) : null,
        partition: r.partition,
        timestamp: r.timestamp === undefined ? undefined : String(r.timestamp),
        headers: r.headers ? Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, asBuffer(v)])) : undefined,
      })),
    });
    // kafkajs answers one base offset per partition; records of a partition are contiguous in send order.
    const next = new Map(result.map((r) => [r.partition, Number(r.baseOffset)]));
    return records.map((r) => {
      const partition = r.partition ?? result[0]!.partition;
      const offset = next.get(partition)!;
      next.set(partition, offset + 1);
      return { partition, offset };
    });
  }

  async endOffsets(topic: string): Promise<number[]> {
    return this.offsets(topic, "high");
  }

  async startOffsets(topic: string): Promise<number[]> {
    return this.offsets(topic, "low");
  }

  private async offsets(topic: string, which: "high" | "low"): Promise<number[]> {
    return this.guard(`read offsets of ${topic}`, async () => {
      const offsets = await this.need(this.admin).fetchTopicOffsets(topic);
      const out: number[] = [];
      for (const o of offsets) out[o.partition] = Number(o[which]);
      return out;
    });
  }

  fetch(topic: string, partition: number, offset: number, options: FetchOptions = {}): Promise<FetchedRecord[]> {
    return this.fetchMany([{ topic, partition, offset }], options);
  }

  async fetchMany(reads: PartitionRead[], options: FetchOptions = {}): Promise<FetchedRecord[]> {
    if (reads.length === 0) return [];
    return this.guard(`read ${[...new Set(reads.map((r) => r.topic))].join(", ")}`, async () => {
      const cluster = this.need(this.cluster);
      const byLeader = await this.readsByLeader(cluster, reads);
      const maxBytes = options.maxBytes ?? PARTITION_MAX_BYTES;
      const fetches = [...byLeader].map(([nodeId, mine]) => this.leaderFetch(cluster, nodeId, mine, options.maxWaitMs ?? 0, maxBytes));
      return this.firstRecords(fetches);
    });
  }

  /** The reads grouped by the node that leads their partition. */
  private async readsByLeader(cluster: KafkajsCluster, reads: PartitionRead[]): Promise<Map<string, PartitionRead[]>> {
    const byLeader = new Map<string, PartitionRead[]>();
    for (const topic of new Set(reads.map((r) => r.topic))) {
      if (!this.knownTopics.has(topic)) {
        await cluster.addTargetTopic(topic);
        this.knownTopics.add(topic);
      }
      const ofTopic = reads.filter((r) => r.topic === topic);
      const led = new Set<number>();
      for (const [nodeId, partitions] of Object.entries(cluster.findLeaderForPartitions(topic, ofTopic.map((r) => r.partition)))) {
        const mine = byLeader.get(nodeId) ?? [];
        for (const partition of partitions) {
          mine.push(ofTopic.find((r) => r.partition === partition)!);
          led.add(partition);
        }
        byLeader.set(nodeId, mine);
      }
      const leaderless = ofTopic.find((r) => !led.has(r.partition));
      if (leaderless) {
        await cluster.refreshMetadata();
        throw new BrokerError(`no leader for ${topic}-${leaderless.partition}`, true);
      }
    }
    return byLeader;
  }

  /**
   * One Fetch request for all of a leader's partitions, minBytes 1: the broker answers as soon as any of
   * them has a record, or after maxWaitMs. A request still in flight (or answered with records nobody
   * took yet) for the same partitions at the same offsets is reused rather than sent again: a leader
   * that was slower than another in the last call is not asked twice, and its answer is not lost.
   */
  private leaderFetch(cluster: KafkajsCluster, nodeId: string, reads: PartitionRead[], maxWaitMs: number, maxBytes: number): LeaderFetch {
    const request = JSON.stringify([maxBytes, reads.map((r) => [r.topic, r.partition, r.offset])]);
    const pending = this.leaderFetches.get(nodeId);
    if (pending?.request === request) return pending;
    const fetch: LeaderFetch = { request, answer: this.sendFetch(cluster, nodeId, reads, maxWaitMs, maxBytes) };
    this.leaderFetches.set(nodeId, fetch);
    const forget = (): void => {
      if (this.leaderFetches.get(nodeId) === fetch) this.leaderFetches.delete(nodeId);
    };
    fetch.answer.then((records) => {
      // An empty answer is stale as soon as it arrives; records stay until a caller takes them.
      if (records.length === 0) forget();
      else fetch.records = records;
    }, forget);
    return fetch;
  }

  private async sendFetch(cluster: KafkajsCluster, nodeId: string, reads: PartitionRead[], maxWaitMs: number, maxBytes: number): Promise<FetchedRecord[]> {
    const topics = new Map<string, { partition: number; fetchOffset: string; maxBytes: number }[]>();
    for (const r of reads) topics.set(r.topic, [...(topics.get(r.topic) ?? []), { partition: r.partition, fetchOffset: String(r.offset), maxBytes }]);
    try {
      const broker = await cluster.findBroker({ nodeId });
      const response = await broker.fetch({
        maxWaitTime: maxWaitMs,
        minBytes: 1,
        maxBytes: Math.max(maxBytes, Math.min(maxBytes * reads.length, FETCH_MAX_BYTES)),
        isolationLevel: READ_COMMITTED,
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
      });
      return recordsOf(response, reads);
    } catch (err) {
      // Most fetch errors (not the leader any more, unknown partition, broker gone) mean stale metadata.
      await cluster.refreshMetadata().catch(() => undefined);
      throw err;
    }
  }

  /** Waits for the first leader to answer with records (or for all to answer empty), then takes every answer with records. */
  private async firstRecords(fetches: LeaderFetch[]): Promise<FetchedRecord[]> {
    await new Promise<void>((resolve, reject) => {
      let unanswered = fetches.length;
      for (const f of fetches) f.answer.then((records) => (records.length > 0 || --unanswered === 0) && resolve(), reject);
    });
    const records: FetchedRecord[] = [];
    for (const f of fetches) {
      if (!f.records) continue;
      records.push(...f.records);
      f.records = undefined;
      for (const [nodeId, pending] of this.leaderFetches) if (pending === f) this.leaderFetches.delete(nodeId);
    }
    return records;
  }

  async committedOffsets(group: string, topic: string): Promise<Map<number, number>> {
    return this.retrying(`read offsets of group ${group}`, async () => {
      const result = await this.need(this.admin).fetchOffsets({ groupId: group, topics: [topic] });
      const out = new Map<number, number>();
      for (const p of result[0]?.partitions ?? []) {
        const o = Number(p.offset);
        if (o >= 0) out.set(p.partition, o);
      }
      return out;
    });
  }

  async commitOffsets(group: string, topic: string, offsets: RecordPosition[]): Promise<void> {
    // A plain OffsetCommit to the coordinator, without group membership (generation -1, no member id),
    // as a Java consumer with assign() commits. kafkajs' admin.setOffsets joins the group first, which
    // takes seconds per commit.
    await this.retrying(`commit offsets of group ${group}`, async () => {
      const cluster = this.need(this.cluster);
      const coordinator = await cluster.findGroupCoordinator({ groupId: group });
      await coordinator.offsetCommit({
        groupId: group,
        groupGenerationId: -1,
        memberId: "",
        topics: [{ topic, partitions: offsets.map((o) => ({ partition: o.partition, offset: String(o.offset) })) }],
      });
    });
  }

  /**
   * Group coordinator calls: a coordinator that is loading or moving answers with retriable errors for
   * a while after a broker start, which kafkajs' admin does not retry itself.
   */
  private async retrying<T>(what: string, action: () => Promise<T>, deadlineMs = 30000): Promise<T> {
    const deadline = Date.now() + deadlineMs;
    let delay = 100;
    for (;;) {
      try {
        return await this.guard(what, action);
      } catch (err) {
        if (!(err instanceof BrokerError) || !err.retriable || Date.now() + delay > deadline) throw err;
        this.log.debug({ err: err.message, retryInMs: delay }, "retrying a group coordinator call");
        await Bun.sleep(delay); // back-off while the coordinator loads
        delay = Math.min(delay * 2, 2000);
      }
    }
  }

  private need<T>(value: T | undefined): T {
    if (value === undefined) throw new BrokerError("not connected to Kafka", false);
    return value;
  }

  private async guard<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (err) {
      if (err instanceof BrokerError) throw err;
      // kafkajs gives up after its own retries with a non-retriable wrapper; what it wrapped decides.
      const retriable =
        err instanceof KafkaJSError &&
        (err.retriable || err.name === "KafkaJSNumberOfRetriesExceeded" || (err.cause instanceof KafkaJSError && err.cause.retriable));
      const reason = err instanceof Error ? err.message : String(err);
      throw new BrokerError(`could not ${what} (${this.options.bootstrapServers.join(",")}): ${reason}`, retriable, err);
    }
  }
}

/** The records of a Fetch response from each read's offset on, without transaction markers. */
function recordsOf(response: KafkajsFetchResponse, reads: PartitionRead[]): FetchedRecord[] {
  const records: FetchedRecord[] = [];
  for (const { topicName: topic, partitions } of response.responses) {
    for (const data of partitions) {
      const offset = reads.find((r) => r.topic === topic && r.partition === data.partition)?.offset;
      if (offset === undefined) continue;
      for (const m of data.messages) {
        const o = Number(m.offset);
        // Batches may start before the requested offset; transaction markers are not records.
        if (o < offset || m.isControlRecord) continue;
        records.push({
          topic,
          partition: data.partition,
          offset: o,
          timestamp: Number(m.timestamp),
          key: m.key ? new Uint8Array(m.key) : null,
          value: m.value ? new Uint8Array(m.value) : null,
          headers: headersOf(m.headers),
        });
      }
    }
  }
  return records;
}

function headersOf(headers: Record<string, Buffer | Buffer[] | undefined> | undefined): Record<string, Bytes> {
  const out: Record<string, Bytes> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first) out[k] = new Uint8Array(first);
  }
  return out;
}

function kafkajsSecurity(security: ClientSecurity | undefined): Pick<KafkaConfig, "ssl" | "sasl"> {
  const { ssl, sasl } = security ?? {};
  return {
    ...(ssl
      ? {
          ssl: {
            ca: ssl.ca,
            cert: ssl.cert,
            key: ssl.key,
            rejectUnauthorized: true,
            ...(ssl.checkHostname ? {} : { checkServerIdentity: () => undefined }),
          },
        }
      : {}),
    ...(sasl ? { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as KafkaConfig["sasl"] } : {}),
  };
}
