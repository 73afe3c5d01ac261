// The Broker interface on a real Kafka cluster through @platformatic/kafka's public API: its Admin and
// Producer, and its protocol API functions on its ConnectionPool where the clients have no call for what
// we need (Fetch to each leader of a partition list, without a consumer group; group membership with
// other protocol types). This folder is the only importer of the Kafka client.
import {
  AclOperations,
  AclPermissionTypes,
  Admin,
  ConfigResourceTypes,
  ConnectionPool,
  offsetCommitV8,
  ConfigSources,
  IncrementalAlterConfigOperationTypes,
  FindCoordinatorKeyTypes,
  ListOffsetTimestamps,
  ResourcePatternTypes,
  ResourceTypes,
  UserError,
  type MessageToProduce,
  type ProduceResult,
  type BaseOptions,
  type ConnectionOptions,
} from "@platformatic/kafka";
import {
  BrokerError,
  ProducerFencedError,
  type Broker,
  type FetchedRecord,
  type FetchOptions,
  type GroupMembership,
  type GroupOffset,
  type GroupOptions,
  type PartitionRead,
  type ProduceRecord,
  type RecordHeader,
  type TopicAcl,
  type RecordPosition,
  type TopicConfigChange,
  type TopicConfigEntry,
  type TopicDescription,
  type TopicSpec,
  type TransactionalProducer,
  type TransactionOptions,
} from "../broker.ts";
import type { ClientSecurity, OAuthLogin } from "../client-security.ts";
import type { ClientKind, ClientTuning, ProducerTuning } from "../client-settings.ts";
import { tokenLogin } from "../login.ts";
import { kafkaPartition } from "../partitioner.ts";
import { asBuffer } from "../../platform/buffers.ts";
import { logger as makeLogger, type Logger } from "../../platform/log.ts";
import { isRetriable, kafkaErrorOf, reasonOf, retryDelayMs } from "./errors.ts";
import { LeaderFetcher, READ_COMMITTED } from "./fetch.ts";
import { Producer } from "./produce-request.ts";
import { PlatformaticGroupMembership } from "./group.ts";

const CONFIG_SOURCES: Record<number, TopicConfigEntry["source"]> = {
  [ConfigSources.DYNAMIC_TOPIC_CONFIG]: "topic",
  [ConfigSources.DYNAMIC_BROKER_CONFIG]: "dynamic-broker",
  [ConfigSources.DYNAMIC_DEFAULT_BROKER_CONFIG]: "dynamic-default-broker",
  [ConfigSources.STATIC_BROKER_CONFIG]: "static-broker",
  [ConfigSources.DEFAULT_CONFIG]: "default",
};

export interface KafkaBrokerOptions {
  bootstrapServers: string[];
  clientId?: string;
  /** TLS and SASL of the connections (client-security.ts). */
  security?: ClientSecurity;
  requestTimeoutMs?: number;
  /** Kafka client settings (client-settings.ts): the producer's shape its writes, the consumer's and admin's their connections. */
  tuning?: ClientTuning;
  logger?: Logger;
}

/**
 * One send holds at most this many bytes of keys, values and headers (or max.request.size, if less): a
 * partition's records of one send travel as one record batch, and the broker refuses batches over its
 * message.max.bytes (1 MiB default).
 */
const PRODUCE_CHUNK_BYTES = 512 * 1024;
/** Kafka's producer defaults, for a broker made without client settings (the registry's, the internal topics'). */
const PRODUCER_DEFAULTS: ProducerTuning = {
  compression: "none",
  acks: -1,
  idempotent: true,
  maxRequestSize: 1048576,
  deliveryTimeoutMs: 2147483647,
  transactionTimeoutMs: 60000,
};

export class KafkaBroker implements Broker {
  readonly kind = "kafka";
  private readonly log: Logger;
  private readonly clientId: string;
  private readonly connection: ConnectionOptions;
  private admin?: Admin;
  private producer?: Producer;
  private readonly fetcher: LeaderFetcher;
  private readonly cappedFactors = new Set<number>();
  private readonly producing: ProducerTuning;

  constructor(private readonly options: KafkaBrokerOptions) {
    this.log = options.logger ?? makeLogger("kafka");
    this.clientId = options.clientId ?? "sluice";
    this.connection = {
      connectTimeout: 3000,
      requestTimeout: options.requestTimeoutMs ?? 30000,
      ...connectionSecurity(options.security),
    };
    this.producing = options.tuning?.producer ?? PRODUCER_DEFAULTS;
    const consumer = this.clientOptions("consumer");
    this.fetcher = new LeaderFetcher(
      consumer.clientId,
      { ...this.connection, requestTimeout: consumer.requestTimeout },
      () => this.need(this.admin),
    );
  }

  /** The options of one of the clients: its client.id and request.timeout.ms when the settings give them. */
  private clientOptions(kind: ClientKind): BaseOptions & { clientId: string; requestTimeout: number } {
    const tuning = this.options.tuning?.[kind];
    return {
      clientId: tuning?.clientId ?? this.clientId,
      bootstrapBrokers: this.options.bootstrapServers,
      ...this.connection,
      requestTimeout: tuning?.requestTimeoutMs ?? this.connection.requestTimeout ?? 30000,
      retries: 5,
      retryDelay: (_client, operation, attempt, _retries, error) => retryDelayMs(operation, attempt, error),
    };
  }

  async connect(): Promise<void> {
    await this.guard("connect to Kafka", async () => {
      // A login that cannot get a token says why here, rather than as the library's wrapped failure.
      if (this.options.security?.sasl?.mechanism === "oauthbearer")
        await tokenLogin(this.options.security.sasl.login).token();
      this.admin = new Admin(this.clientOptions("admin"));
      // The library connects on first use: ask for the cluster's brokers so that a bad address or
      // credentials fail here.
      await this.admin.metadata({ topics: [] });
      const { idempotent, acks, compression } = this.producing;
      this.producer = new Producer({
        ...this.clientOptions("producer"),
        idempotent,
        acks,
        ...(compression === "none" ? {} : { compression }),
        autocreateTopics: false,
      });
    });
  }

  async clusterId(): Promise<string> {
    return this.guard("describe the cluster", async () => (await this.need(this.admin).metadata({ topics: [] })).id);
  }

  groupMembership(options: GroupOptions): GroupMembership {
    const findCoordinator = async (groupId: string) => {
      const [coordinator] = await this.need(this.admin).findCoordinator({
        keyType: FindCoordinatorKeyTypes.GROUP,
        keys: [groupId],
      });
      if (!coordinator) throw new BrokerError(`no coordinator for group ${groupId}`, true);
      return coordinator;
    };
    return new PlatformaticGroupMembership(this.clientId, this.connection, findCoordinator, options);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.producer?.close(), this.admin?.close(), ...this.fetcher.close()]);
  }

  async createTopic(spec: TopicSpec): Promise<boolean> {
    return this.guard(`create topic ${spec.name}`, async () => {
      const admin = this.need(this.admin);
      // (A factor of 1 cannot be capped: the brokers are not counted for it.)
      const brokers =
        spec.replicationFactor > 1 ? (await admin.metadata({ topics: [], forceUpdate: true })).brokers.size : 1;
      // As Confluent and Connect do: the requested replication factor, capped by the live brokers.
      const replicationFactor = Math.min(spec.replicationFactor, Math.max(1, brokers));
      if (replicationFactor < spec.replicationFactor) {
        // Said once per requested factor: every internal topic asks for the same one.
        const first = !this.cappedFactors.has(spec.replicationFactor);
        this.cappedFactors.add(spec.replicationFactor);
        const fields = { topic: spec.name, requested: spec.replicationFactor, brokers };
        if (first)
          this.log.warn(
            fields,
            `replication factor ${spec.replicationFactor} capped to ${replicationFactor} by ${brokers} live broker${brokers === 1 ? "" : "s"} for topic ${spec.name}; other topics asking for ${spec.replicationFactor} are capped the same way`,
          );
        else this.log.debug(fields, "replication factor capped by live brokers");
      }
      try {
        await admin.createTopics({
          topics: [{ topic: spec.name, partitions: spec.partitions, replicas: replicationFactor }],
          configs: Object.entries(spec.config ?? {}).map(([name, value]) => ({ name, value })),
        });
      } catch (err) {
        if (!kafkaErrorOf(err, ["TOPIC_ALREADY_EXISTS"])) throw err;
        await this.known(spec.name);
        return false;
      }
      await this.leadersElected(spec.name);
      return true;
    });
  }

  /**
   * Waits until every partition of a new topic has a leader that serves it, so that the first read or
   * write does not fail: metadata names a leader before that broker has loaded the partition, so the
   * leaders are asked for an offset too.
   */
  private async leadersElected(topic: string): Promise<void> {
    const admin = this.need(this.admin);
    const deadline = Date.now() + 10000;
    // Asked again soon, then less often: the leaders are mostly there within tens of milliseconds, and a
    // connector's start waits on each topic it creates.
    for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
      try {
        const partitions =
          (await admin.metadata({ topics: [topic], forceUpdate: true })).topics.get(topic)?.partitions ?? [];
        if (partitions.length > 0 && partitions.every((p) => p && p.leader >= 0)) {
          await admin.listOffsets({
            topics: [
              {
                name: topic,
                partitions: partitions.map((_, partitionIndex) => ({
                  partitionIndex,
                  timestamp: ListOffsetTimestamps.LATEST,
                })),
              },
            ],
          });
          return;
        }
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      if (Date.now() > deadline) throw new BrokerError(`no leaders for the partitions of the new topic ${topic}`, true);
      await Bun.sleep(pause);
    }
  }

  /**
   * Waits (a bounded while) until this broker's metadata has another client's new topic: its
   * CreateTopics is answered before the brokers learn of it, and a caller that found it existing would
   * otherwise describe no topic. Its leaders are not waited for: an existing topic may be offline.
   */
  private async known(topic: string): Promise<void> {
    const admin = this.need(this.admin);
    for (const deadline = Date.now() + 10000; Date.now() < deadline; await Bun.sleep(50)) {
      const partitions =
        (await admin.metadata({ topics: [topic], forceUpdate: true }).catch(() => undefined))?.topics.get(topic)
          ?.partitions ?? [];
      if (partitions.length > 0) return;
    }
  }

  async listTopics(): Promise<string[]> {
    return this.guard("list topics", () => this.need(this.admin).listTopics({ includeInternals: true }));
  }

  async describeTopic(name: string): Promise<TopicDescription | undefined> {
    return this.guard(`describe topic ${name}`, async () => {
      const admin = this.need(this.admin);
      if (!(await admin.listTopics({ includeInternals: true })).includes(name)) return undefined;
      const partitions =
        (await admin.metadata({ topics: [name], forceUpdate: true })).topics.get(name)?.partitions ?? [];
      const [described] = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: name }],
      });
      const config: Record<string, string> = {};
      for (const entry of described?.configs ?? []) if (entry.value != null) config[entry.name] = entry.value;
      return { name, partitions: partitions.length, replicationFactor: partitions[0]?.replicas.length ?? 0, config };
    });
  }

  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    if (topics.length === 0) return new Map();
    return this.guard("describe topics", async () => {
      const admin = this.need(this.admin);
      const existing = new Set(await admin.listTopics({ includeInternals: true }));
      const wanted = topics.filter((t) => existing.has(t));
      const out = new Map<string, number>();
      if (wanted.length === 0) return out;
      const { topics: described } = await admin.metadata({ topics: wanted, forceUpdate: true });
      for (const topic of wanted) {
        const count = described.get(topic)?.partitionsCount ?? 0;
        if (count > 0) out.set(topic, count);
      }
      return out;
    });
  }

  async describeTopicConfigs(topics: string[]): Promise<Map<string, TopicConfigEntry[]>> {
    if (topics.length === 0) return new Map();
    return this.guard("describe topic configs", async () => {
      const described = await this.need(this.admin).describeConfigs({
        includeSynonyms: false,
        resources: topics.map((resourceName) => ({ resourceType: ConfigResourceTypes.TOPIC, resourceName })),
      });
      const out = new Map<string, TopicConfigEntry[]>();
      for (const resource of described) {
        out.set(
          resource.resourceName,
          resource.configs.map((c) => ({
            name: c.name,
            value: c.value ?? null,
            source: CONFIG_SOURCES[c.configSource] ?? "other",
            readOnly: c.readOnly,
            sensitive: c.isSensitive,
          })),
        );
      }
      return out;
    });
  }

  async alterTopicConfigs(changes: Map<string, TopicConfigChange[]>): Promise<Map<string, string>> {
    const refused = new Map<string, string>();
    if (changes.size === 0) return refused;
    // One request per topic, so that one topic the broker refuses does not hide the others' answers.
    for (const [topic, entries] of changes) {
      await this.guard(`alter the configs of topic ${topic}`, () =>
        this.need(this.admin).incrementalAlterConfigs({
          resources: [
            {
              resourceType: ConfigResourceTypes.TOPIC,
              resourceName: topic,
              configs: entries.map((e) =>
                e.op === "set"
                  ? { name: e.name, configOperation: IncrementalAlterConfigOperationTypes.SET, value: e.value }
                  : { name: e.name, configOperation: IncrementalAlterConfigOperationTypes.DELETE },
              ),
            },
          ],
        }),
      ).catch((err: BrokerError) => {
        if (err.retriable) throw err;
        refused.set(topic, err.message);
      });
    }
    return refused;
  }

  async createPartitions(topic: string, total: number): Promise<boolean> {
    return this.guard(`add partitions to topic ${topic}`, async () => {
      try {
        await this.need(this.admin).createPartitions({ topics: [{ name: topic, count: total }] });
      } catch (err) {
        // Already as many (or more): another replicator got there first, as Kafka's MM2 takes it.
        if (kafkaErrorOf(err, ["INVALID_PARTITIONS"])) return false;
        throw err;
      }
      await this.leadersElected(topic);
      return true;
    });
  }

  async describeTopicAcls(): Promise<TopicAcl[] | null> {
    return this.guard("describe topic ACLs", async () => {
      let resources: Awaited<ReturnType<Admin["describeAcls"]>>;
      try {
        resources = await this.need(this.admin).describeAcls({
          filter: {
            resourceType: ResourceTypes.TOPIC,
            resourceName: null,
            resourcePatternType: ResourcePatternTypes.ANY,
            principal: null,
            host: null,
            operation: AclOperations.ANY,
            permissionType: AclPermissionTypes.ANY,
          },
        });
      } catch (err) {
        if (kafkaErrorOf(err, ["SECURITY_DISABLED"])) return null;
        throw err;
      }
      return resources.flatMap((r) =>
        r.acls.map(
          (a): TopicAcl => ({
            topic: r.resourceName,
            patternType: nameOf(ResourcePatternTypes, r.resourcePatternType) as TopicAcl["patternType"],
            principal: a.principal,
            host: a.host,
            operation: nameOf(AclOperations, a.operation) as TopicAcl["operation"],
            permission: nameOf(AclPermissionTypes, a.permissionType) as TopicAcl["permission"],
          }),
        ),
      );
    });
  }

  async createTopicAcls(acls: TopicAcl[]): Promise<{ acl: TopicAcl; reason: string }[]> {
    const refused: { acl: TopicAcl; reason: string }[] = [];
    // One request per binding, so that one the broker refuses does not hide the others' answers.
    for (const acl of acls) {
      await this.guard(`create an ACL on topic ${acl.topic}`, () =>
        this.need(this.admin).createAcls({
          creations: [
            {
              resourceType: ResourceTypes.TOPIC,
              resourceName: acl.topic,
              resourcePatternType: ResourcePatternTypes[acl.patternType],
              principal: acl.principal,
              host: acl.host,
              operation: AclOperations[acl.operation],
              permissionType: AclPermissionTypes[acl.permission],
            },
          ],
        }),
      ).catch((err: BrokerError) => {
        if (err.retriable) throw err;
        refused.push({ acl, reason: err.message });
      });
    }
    return refused;
  }

  async produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    return this.guard(`write to ${topic}`, async () => {
      const producer = this.need(this.producer);
      return (await this.send(producer, (o) => producer.send(o), [{ topic, records }]))[0]!;
    });
  }

  async transactionalProducer(
    transactionalId: string,
    options: TransactionOptions = {},
  ): Promise<TransactionalProducer> {
    const producer = await this.transactional(transactionalId, options);
    return new KafkaTransactionalProducer(transactionalId, producer, (send, writes) =>
      this.send(producer, send, writes),
    );
  }

  async fenceProducers(transactionalIds: string[]): Promise<void> {
    // Opening a producer with the id bumps its epoch (InitProducerId), which aborts the old one's transaction.
    for (const id of transactionalIds) await (await this.transactional(id, {})).close().catch(() => undefined);
  }

  /** A producer of `transactionalId` whose epoch Kafka has bumped (InitProducerId): earlier ones are fenced. */
  private async transactional(transactionalId: string, options: TransactionOptions): Promise<Producer> {
    const { compression } = this.producing;
    const producer = new Producer({
      ...this.clientOptions("producer"),
      transactionalId,
      // A new producer asks InitProducerId with no id and epoch (-1), as Kafka's clients do: the library's
      // default (0, 0) is taken by the coordinator for an old epoch of this id, and refused as fenced.
      producerId: -1n,
      producerEpoch: -1,
      idempotent: true,
      acks: -1,
      // The library sends it as the transaction timeout too (InitProducerId).
      timeout: options.transactionTimeoutMs ?? this.producing.transactionTimeoutMs,
      ...(compression === "none" ? {} : { compression }),
      autocreateTopics: false,
    });
    try {
      const transaction = await producer.beginTransaction();
      await transaction.cancel(); // nothing written: no EndTxn is owed
      return producer;
    } catch (err) {
      await producer.close().catch(() => undefined);
      throw fencedOr(transactionalId, err, "open a transactional producer");
    }
  }

  /**
   * Writes each topic's records through `send` (a producer's, or a transaction's), placed as Kafka's
   * producer would and chunked by size; a chunk may carry several topics (one request per leader).
   * Answers the positions of each write's records.
   */
  private async send(producer: Producer, send: Sender, writes: TopicWrite[]): Promise<RecordPosition[][]> {
    const { maxRequestSize } = this.producing;
    const items: PlacedRecord[] = [];
    for (const [w, { topic, records }] of writes.entries()) {
      // The count places records that name no partition; it must include the highest one a record names.
      const highest = records.reduce((max, r) => Math.max(max, r.partition ?? -1), -1);
      const partitions = await partitionsKnown(producer, topic, highest);
      for (const [i, record] of records.entries()) {
        const size = sizeOf(record);
        // As Kafka's producer refuses it (RecordTooLargeException), before anything of the send is written.
        if (size > maxRequestSize)
          throw new BrokerError(
            `The message is ${size} bytes when serialized which is larger than ${maxRequestSize}, which is the value of the max.request.size configuration.`,
            false,
          );
        // Placed here rather than by the library, to answer each record's position.
        const partition = record.partition ?? (record.key ? kafkaPartition(record.key, partitions) : 0);
        items.push({ write: w, index: i, topic, partition, record, size });
      }
    }
    const positions: RecordPosition[][] = writes.map(() => []);
    const chunkBytes = Math.min(PRODUCE_CHUNK_BYTES, maxRequestSize);
    // Chunks go out in order, one at a time (the idempotent producer keeps one request in flight).
    for (let start = 0; start < items.length; ) {
      let end = start;
      for (let bytes = 0; end < items.length && (end === start || bytes + items[end]!.size <= chunkBytes); end++)
        bytes += items[end]!.size;
      const chunk = items.slice(start, end);
      const answered = await sendChunk(send, chunk);
      chunk.forEach((item, i) => (positions[item.write]![item.index] = answered[i]!));
      start = end;
    }
    return positions;
  }

  async endOffsets(topic: string): Promise<number[]> {
    return this.offsets(topic, ListOffsetTimestamps.LATEST);
  }

  async startOffsets(topic: string): Promise<number[]> {
    return this.offsets(topic, ListOffsetTimestamps.EARLIEST);
  }

  private async offsets(topic: string, timestamp: bigint): Promise<number[]> {
    return this.guard(`read offsets of ${topic}`, async () => {
      const admin = this.need(this.admin);
      const count = (await admin.metadata({ topics: [topic] })).topics.get(topic)?.partitionsCount ?? 0;
      const partitions = Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp }));
      const [listed] = await admin.listOffsets({
        topics: [{ name: topic, partitions }],
        isolationLevel: READ_COMMITTED,
      });
      const out: number[] = [];
      for (const p of listed?.partitions ?? []) out[p.partitionIndex] = Number(p.offset);
      return out;
    });
  }

  fetch(topic: string, partition: number, offset: number, options: FetchOptions = {}): Promise<FetchedRecord[]> {
    return this.fetchMany([{ topic, partition, offset }], options);
  }

  async fetchMany(reads: PartitionRead[], options: FetchOptions = {}): Promise<FetchedRecord[]> {
    if (reads.length === 0) return [];
    return this.guard(`read ${[...new Set(reads.map((r) => r.topic))].join(", ")}`, () =>
      this.fetcher.fetchMany(reads, options.maxWaitMs ?? 0, options),
    );
  }

  prefetch(reads: PartitionRead[], options: FetchOptions = {}): void {
    if (reads.length > 0) this.fetcher.prefetch(reads, options.maxWaitMs ?? 0, options);
  }

  async committedOffsets(group: string, topic: string): Promise<Map<number, number>> {
    return this.retrying(`read offsets of group ${group}`, async () => {
      const [listed] = await this.need(this.admin).listConsumerGroupOffsets({ groups: [group] });
      const out = new Map<number, number>();
      for (const p of listed?.topics.find((t) => t.name === topic)?.partitions ?? []) {
        if (p.committedOffset >= 0n) out.set(p.partitionIndex, Number(p.committedOffset));
      }
      return out;
    });
  }

  async commitOffsets(group: string, topic: string, offsets: RecordPosition[]): Promise<void> {
    // A plain OffsetCommit to the coordinator, without group membership (generation -1, no member id),
    // as a Java consumer with assign() commits.
    await this.retrying(`commit offsets of group ${group}`, () =>
      this.need(this.admin).alterConsumerGroupOffsets({
        groupId: group,
        topics: [
          { name: topic, partitionOffsets: offsets.map((o) => ({ partition: o.partition, offset: BigInt(o.offset) })) },
        ],
      }),
    );
  }

  async listConsumerGroups(): Promise<string[]> {
    return this.retrying("list consumer groups", async () => {
      // Kafka's forConsumerGroups(): classic and consumer-protocol groups whose protocol type is the
      // consumer's, or none (a consumer that only commits, with assign()).
      const groups = await this.need(this.admin).listGroups({ types: ["classic", "consumer"] });
      return [...groups.values()]
        .filter((g) => g.protocolType === "" || g.protocolType === "consumer")
        .map((g) => g.id);
    });
  }

  async groupOffsets(group: string): Promise<GroupOffset[]> {
    return this.retrying(`read offsets of group ${group}`, async () => {
      const [listed] = await this.need(this.admin).listConsumerGroupOffsets({ groups: [group] });
      const out: GroupOffset[] = [];
      for (const t of listed?.topics ?? [])
        for (const p of t.partitions)
          if (p.committedOffset >= 0n)
            out.push({
              topic: t.name,
              partition: p.partitionIndex,
              offset: Number(p.committedOffset),
              metadata: p.metadata ?? "",
            });
      return out;
    });
  }

  async groupState(group: string): Promise<string> {
    return this.retrying(`describe group ${group}`, async () => {
      try {
        const described = await this.need(this.admin).describeGroups({ groups: [group] });
        return described.get(group)?.state ?? "Dead";
      } catch (err) {
        if (kafkaErrorOf(err, ["GROUP_ID_NOT_FOUND"])) return "Dead";
        throw err;
      }
    });
  }

  async alterGroupOffsets(group: string, offsets: GroupOffset[]): Promise<void> {
    type CommitTopic = Parameters<typeof offsetCommitV8.api.async>[5][number];
    const topics = new Map<string, CommitTopic>();
    for (const o of offsets) {
      let topic = topics.get(o.topic);
      if (!topic) topics.set(o.topic, (topic = { name: o.topic, partitions: [] }));
      topic.partitions.push({
        partitionIndex: o.partition,
        committedOffset: BigInt(o.offset),
        committedLeaderEpoch: -1,
        committedMetadata: o.metadata,
      });
    }
    // An OffsetCommit of its own, as Kafka's Admin.alterConsumerGroupOffsets sends it (no generation, no
    // member): the library's call drops the metadata. A coordinator that moved or is loading is asked
    // again; a group with members refuses it (UNKNOWN_MEMBER_ID, not retriable).
    await this.retrying(`commit offsets of group ${group}`, async () => {
      const [coordinator] = await this.need(this.admin).findCoordinator({
        keyType: FindCoordinatorKeyTypes.GROUP,
        keys: [group],
      });
      if (!coordinator) throw new BrokerError(`no coordinator for group ${group}`, true);
      const pool = new ConnectionPool(this.clientOptions("admin").clientId, this.connection);
      try {
        await offsetCommitV8.api.async(await pool.get(coordinator), group, -1, "", null, [...topics.values()]);
      } finally {
        await pool.close().catch(() => undefined);
      }
    });
  }

  /**
   * Group coordinator calls: a coordinator that is loading or moving answers with retriable errors for
   * a while after a broker start, longer than the library's own retries.
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
      // A topic not there (yet) is one a caller may wait for, as Kafka's clients do.
      const retriable = isRetriable(err) || (err instanceof UserError && err.message.startsWith("Unknown topic"));
      throw new BrokerError(
        `could not ${what} (${this.options.bootstrapServers.join(",")}): ${reasonOf(err)}`,
        retriable,
        err,
      );
    }
  }
}

/** The name of one of the library's enumerations' values (Kafka's enum names); UNKNOWN for one it does not name. */
function nameOf(enumeration: Record<string, number>, value: number): string {
  for (const [name, v] of Object.entries(enumeration)) if (v === value) return name;
  return "UNKNOWN";
}

/** Header names as bytes, encoded once: a pipeline writes the same few names on every record. */
const headerNames = new Map<string, Buffer>();

/**
 * Headers as the library takes them: a Map it writes entry by entry, in order. A key that repeats needs
 * its own Buffer, as a Map keeps one entry per key object. A null value the library's record writer
 * writes as Kafka's null (length -1), though its types say Buffer.
 */
function headersOf(headers: readonly RecordHeader[]): Map<Buffer, Buffer> {
  const out = new Map<Buffer, Buffer>();
  for (const { key: name, value } of headers) {
    let key = headerNames.get(name);
    if (!key) {
      if (headerNames.size >= 1024) headerNames.clear();
      headerNames.set(name, (key = Buffer.from(name)));
    }
    if (out.has(key)) key = Buffer.from(name);
    out.set(key, value === null ? (null as unknown as Buffer) : asBuffer(value));
  }
  return out;
}

/** The library's transaction (its class is not exported). */
type Transaction = Awaited<ReturnType<Producer["beginTransaction"]>>;
type Sender = (options: { messages: MessageToProduce[] }) => Promise<ProduceResult>;

/** A topic's records of one send. */
interface TopicWrite {
  topic: string;
  records: ProduceRecord[];
}

/** A record of a send, placed, with where its position goes. */
interface PlacedRecord {
  write: number;
  index: number;
  topic: string;
  partition: number;
  record: ProduceRecord;
  size: number;
}

/** How long a write to a partition this client has not yet seen waits for its metadata (Kafka's max.block.ms is 60 s). */
const NEW_PARTITION_WAIT_MS = 10000;

/**
 * The topic's partition count as the producer knows it, refreshed until it includes `partition`: the
 * library folds a partition beyond its cached count onto one it knows (partition modulo count), so a
 * write to a partition just added elsewhere would land on the wrong one. Not known within the bound,
 * the write fails as retriable, as Kafka's producer times out waiting for metadata.
 */
async function partitionsKnown(producer: Producer, topic: string, partition: number): Promise<number> {
  const count = async (forceUpdate: boolean) =>
    (await producer.metadata({ topics: [topic], forceUpdate })).topics.get(topic)?.partitionsCount ?? 1;
  let known = await count(false);
  for (const deadline = Date.now() + NEW_PARTITION_WAIT_MS; partition >= known; ) {
    if (Date.now() >= deadline)
      throw new BrokerError(
        `Partition ${partition} of topic ${topic} with partition count ${known} is not present in metadata after ${NEW_PARTITION_WAIT_MS} ms.`,
        true,
      );
    known = await count(true);
    if (partition >= known) await Bun.sleep(100); // the brokers learn of new partitions within moments
  }
  return known;
}

async function sendChunk(send: Sender, items: PlacedRecord[]): Promise<RecordPosition[]> {
  const result = await send({
    messages: items.map(({ topic, partition, record: r }) => ({
      topic,
      partition,
      key: r.key ? asBuffer(r.key) : undefined,
      value: r.value ? asBuffer(r.value) : undefined,
      timestamp: r.timestamp === undefined ? undefined : BigInt(r.timestamp),
      headers: r.headers?.length ? headersOf(r.headers) : undefined, // (no Map for a record without)
    })),
  });
  // One base offset per topic partition; records of a partition are contiguous in send order. (Nested
  // maps, not a key text per record: this runs once per record written.)
  const next = new Map<string, Map<number, number>>();
  for (const o of result.offsets ?? []) {
    let partitions = next.get(o.topic);
    if (!partitions) next.set(o.topic, (partitions = new Map()));
    partitions.set(o.partition, Number(o.offset));
  }
  return items.map(({ topic, partition }) => {
    const partitions = next.get(topic);
    const offset = partitions?.get(partition);
    if (offset === undefined) throw new BrokerError(`no offset answered for ${topic}-${partition}`, false);
    partitions!.set(partition, offset + 1);
    return { partition, offset };
  });
}

/**
 * Kafka's transactions through a library producer of one transactional id: each transaction is begun on
 * the first write after the last commit or abort, on the epoch the producer was opened with. Writes wait
 * in a queue until it holds a request's worth or the transaction commits, so that a transaction's records
 * and the source offsets that follow them travel in one request (one AddPartitionsToTxn, one Produce).
 */
class KafkaTransactionalProducer implements TransactionalProducer {
  private transaction?: Transaction;
  private written = false;
  private queue: { write: TopicWrite; done: (positions: RecordPosition[] | Error) => void }[] = [];
  private queuedBytes = 0;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    readonly transactionalId: string,
    private readonly producer: Producer,
    private readonly write: (send: Sender, writes: TopicWrite[]) => Promise<RecordPosition[][]>,
  ) {}

  /** Resolves once the records are sent: when a request's worth is queued, or at the commit. */
  produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        write: { topic, records },
        done: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)),
      });
      for (const r of records) this.queuedBytes += sizeOf(r);
      if (this.queuedBytes >= PRODUCE_CHUNK_BYTES) void this.flush().catch(() => undefined);
    });
  }

  /** Sends what is queued, after what is being sent (one send at a time keeps the order). */
  private flush(): Promise<void> {
    const queued = this.queue.splice(0);
    this.queuedBytes = 0;
    const sent = this.sending.then(async () => {
      if (queued.length === 0) return;
      try {
        const positions = await this.guard("write in a transaction", async () => {
          this.transaction ??= await this.producer.beginTransaction();
          const transaction = this.transaction;
          this.written = true;
          return this.write(
            (o) => transaction.send(o),
            queued.map((q) => q.write),
          );
        });
        queued.forEach((q, i) => q.done(positions[i]!));
      } catch (err) {
        for (const q of queued) q.done(err as Error);
        throw err;
      }
    });
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  async commit(): Promise<void> {
    await this.flush();
    await this.end("commit");
  }

  async abort(): Promise<void> {
    const dropped = this.queue.splice(0);
    this.queuedBytes = 0;
    for (const q of dropped) q.done(new BrokerError("the transaction was aborted before its records were sent", false));
    await this.sending;
    await this.end("abort");
  }

  private async end(how: "commit" | "abort"): Promise<void> {
    const transaction = this.transaction;
    if (!transaction) return;
    await this.guard(`${how} a transaction`, () => (this.written ? transaction[how]() : transaction.cancel()));
    this.transaction = undefined;
    this.written = false;
  }

  async close(): Promise<void> {
    await this.producer.close().catch(() => undefined);
  }

  private async guard<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (err) {
      throw fencedOr(this.transactionalId, err, what);
    }
  }
}

/** ProducerFencedError when Kafka said a newer producer took the id over; otherwise a BrokerError. */
function fencedOr(transactionalId: string, err: unknown, what: string): BrokerError {
  if (err instanceof BrokerError) return err;
  if (kafkaErrorOf(err, ["PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH"]))
    return new ProducerFencedError(
      transactionalId,
      `the producer with transactional.id ${transactionalId} was fenced: another producer with the same transactional.id took over (${reasonOf(err)})`,
      err,
    );
  return new BrokerError(`could not ${what} (${transactionalId}): ${reasonOf(err)}`, isRetriable(err), err);
}

function sizeOf(r: ProduceRecord): number {
  let bytes = 16 + (r.key?.length ?? 0) + (r.value?.length ?? 0);
  const headers = r.headers;
  if (headers) for (const h of headers) bytes += h.key.length + (h.value?.length ?? 0);
  return bytes;
}
function connectionSecurity(security: ClientSecurity | undefined): Pick<ConnectionOptions, "tls" | "sasl"> {
  const { ssl, sasl } = security ?? {};
  const mechanisms = { plain: "PLAIN", "scram-sha-256": "SCRAM-SHA-256", "scram-sha-512": "SCRAM-SHA-512" } as const;
  return {
    ...(ssl
      ? {
          tls: {
            ca: ssl.ca,
            cert: ssl.cert,
            key: ssl.key,
            rejectUnauthorized: true,
            ...(ssl.checkHostname ? {} : { checkServerIdentity: () => undefined }),
          },
        }
      : {}),
    ...(sasl?.mechanism === "oauthbearer"
      ? // A function: each authentication, and each re-authentication the broker's session lifetime asks
        // for, takes the login's current token.
        {
          sasl: {
            mechanism: "OAUTHBEARER",
            token: loginOf(sasl.login),
            ...(sasl.extensions ? { oauthBearerExtensions: sasl.extensions } : {}),
          },
        }
      : sasl
        ? { sasl: { mechanism: mechanisms[sasl.mechanism], username: sasl.username, password: sasl.password } }
        : {}),
  };
}

function loginOf(login: OAuthLogin): () => Promise<string> {
  const tokens = tokenLogin(login);
  return () => tokens.token();
}
