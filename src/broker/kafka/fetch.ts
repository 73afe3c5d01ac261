// The fetch path of the Kafka broker: Fetch v12 sent straight to each partition's leader on connections
// of its own, without a consumer group, with the read_committed filtering a Java consumer does.
import {
  ConnectionPool,
  FetchIsolationLevels,
  type fetchV12,
  type Admin,
  type Broker as KafkaNode,
  type ConnectionOptions,
} from "@platformatic/kafka";
import { BrokerError, type FetchedRecord, type FetchOptions, type PartitionRead } from "../broker.ts";
import { fetchApi, type FetchResponse } from "./fetch-response.ts";
import { CONTROL, controlTypeOf, pushRecords, TRANSACTIONAL } from "./record-batch.ts";

export const READ_COMMITTED = FetchIsolationLevels.READ_COMMITTED;

/** How a leader is asked: the consumer's fetch settings (Kafka's defaults but for the isolation level). */
interface FetchShape {
  maxWaitMs: number;
  partitionMaxBytes: number;
  minBytes: number;
  totalMaxBytes: number;
  isolation: number;
}
/** Kafka's max.partition.fetch.bytes and fetch.max.bytes defaults. */
const PARTITION_MAX_BYTES = 1048576;
const FETCH_MAX_BYTES = 52428800;

/** One Fetch request to a partition leader: what it asked (to reuse it) and, once answered, its records. */
interface LeaderFetch {
  request: string;
  answer: Promise<FetchedRecord[]>;
  records?: FetchedRecord[];
}

export class LeaderFetcher {
  /**
   * Fetches have their own connections, and each fetch in flight one of its own: a broker answers a
   * connection's requests one at a time, so a long poll holds its connection until it is answered, and
   * another reader's fetch sent behind it (the DEK registry's log behind `_schemas`', connect's logs
   * beside the registry's in `sluice dev`) would wait out the poll before the broker even read it.
   */
  private readonly fetchPools: ConnectionPool[] = [];
  private readonly busyFetchPools = new Set<ConnectionPool>();
  /** A fetch failed in a way that says leaders moved: the next one asks for fresh metadata. */
  private staleMetadata = false;
  /** The last Fetch request sent to each leader (by node id), while in flight or holding records. */
  private readonly leaderFetches = new Map<number, LeaderFetch>();

  /** `admin` answers metadata (where the leaders are); it throws while not connected. */
  constructor(
    private readonly clientId: string,
    private readonly connection: ConnectionOptions,
    private readonly admin: () => Admin,
  ) {}

  /** The first records any leader answers for the reads, waiting at most maxWaitMs for one. */
  async fetchMany(reads: PartitionRead[], maxWaitMs: number, options: FetchOptions = {}): Promise<FetchedRecord[]> {
    return this.firstRecords(await this.send(reads, maxWaitMs, options));
  }

  /**
   * Sends the fetches a later fetchMany with the same reads and options will take, without waiting for
   * them: what a caller busy with the last records would ask next is on its way meanwhile. A failure is
   * left for that fetchMany to meet.
   */
  prefetch(reads: PartitionRead[], maxWaitMs: number, options: FetchOptions = {}): void {
    this.send(reads, maxWaitMs, options).catch(() => {});
  }

  /** One fetch per leader of the reads, reusing one already on its way. */
  private async send(reads: PartitionRead[], maxWaitMs: number, options: FetchOptions): Promise<LeaderFetch[]> {
    const shape: FetchShape = {
      maxWaitMs,
      partitionMaxBytes: options.maxBytes ?? PARTITION_MAX_BYTES,
      minBytes: options.minBytes ?? 1,
      totalMaxBytes: options.totalMaxBytes ?? FETCH_MAX_BYTES,
      isolation: options.isolationLevel === "read_uncommitted" ? FetchIsolationLevels.READ_UNCOMMITTED : READ_COMMITTED,
    };
    const { byLeader, nodes } = await this.readsByLeader(reads);
    return [...byLeader].map(([nodeId, mine]) => this.leaderFetch(nodeId, nodes.get(nodeId)!, mine, shape));
  }

  close(): Promise<void>[] {
    return this.fetchPools.map((pool) => pool.close());
  }

  /** The reads grouped by the node that leads their partition, with the nodes' addresses. */
  private async readsByLeader(
    reads: PartitionRead[],
  ): Promise<{ byLeader: Map<number, PartitionRead[]>; nodes: Map<number, KafkaNode> }> {
    const forceUpdate = this.staleMetadata;
    this.staleMetadata = false;
    const metadata = await this.admin().metadata({ topics: [...new Set(reads.map((r) => r.topic))], forceUpdate });
    const byLeader = new Map<number, PartitionRead[]>();
    for (const read of reads) {
      const leader = metadata.topics.get(read.topic)?.partitions[read.partition]?.leader ?? -1;
      if (leader < 0 || !metadata.brokers.has(leader)) {
        this.staleMetadata = true;
        throw new BrokerError(`no leader for ${read.topic}-${read.partition}`, true);
      }
      byLeader.set(leader, [...(byLeader.get(leader) ?? []), read]);
    }
    return { byLeader, nodes: metadata.brokers };
  }

  /**
   * One Fetch request for all of a leader's partitions: the broker answers as soon as they have minBytes
   * (by default 1: any record), or after maxWaitMs. A request still in flight (or answered with records nobody
   * took yet) for the same partitions at the same offsets is reused rather than sent again: a leader
   * that was slower than another in the last call is not asked twice, and its answer is not lost.
   */
  private leaderFetch(nodeId: number, node: KafkaNode, reads: PartitionRead[], shape: FetchShape): LeaderFetch {
    const { partitionMaxBytes, minBytes, totalMaxBytes, isolation } = shape;
    const request = JSON.stringify([
      partitionMaxBytes,
      minBytes,
      totalMaxBytes,
      isolation,
      reads.map((r) => [r.topic, r.partition, r.offset]),
    ]);
    const pending = this.leaderFetches.get(nodeId);
    if (pending?.request === request) return pending;
    const fetch: LeaderFetch = { request, answer: this.sendFetch(node, reads, shape) };
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

  private async sendFetch(node: KafkaNode, reads: PartitionRead[], shape: FetchShape): Promise<FetchedRecord[]> {
    const maxBytes = shape.partitionMaxBytes;
    const topics = new Map<string, fetchV12.FetchRequestPartition[]>();
    for (const r of reads) {
      topics.set(r.topic, [
        ...(topics.get(r.topic) ?? []),
        {
          partition: r.partition,
          currentLeaderEpoch: -1,
          fetchOffset: BigInt(r.offset),
          lastFetchedEpoch: -1,
          partitionMaxBytes: maxBytes,
        },
      ]);
    }
    // A pool no fetch is using now; one more when every pool is busy (as many as fetches ever ran at once).
    let pool = this.fetchPools.find((p) => !this.busyFetchPools.has(p));
    if (!pool) this.fetchPools.push((pool = new ConnectionPool(this.clientId, this.connection)));
    this.busyFetchPools.add(pool);
    try {
      const connection = await pool.get(node);
      // Fetch v12 names topics (later versions want topic ids); session id 0 with epoch -1 is a full
      // fetch without a fetch session, so concurrent readers of one broker do not disturb each other.
      const response = await fetchApi.async(
        connection,
        shape.maxWaitMs,
        shape.minBytes,
        Math.min(maxBytes * reads.length, shape.totalMaxBytes),
        shape.isolation,
        0,
        -1,
        [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
        [],
        "",
      );
      return recordsOf(response, reads);
    } catch (err) {
      // Most fetch errors (not the leader any more, unknown partition, broker gone) mean stale metadata.
      this.staleMetadata = true;
      throw err;
    } finally {
      this.busyFetchPools.delete(pool);
    }
  }

  /** Waits for the first leader to answer with records (or for all to answer empty), then takes every answer with records. */
  private async firstRecords(fetches: LeaderFetch[]): Promise<FetchedRecord[]> {
    await new Promise<void>((resolve, reject) => {
      let unanswered = fetches.length;
      for (const f of fetches)
        f.answer.then((records) => (records.length > 0 || --unanswered === 0) && resolve(), reject);
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
}

/**
 * The records of a Fetch response from each read's offset on, as a read_committed consumer sees them:
 * without transaction markers and without the records of aborted transactions.
 */
function recordsOf(response: FetchResponse, reads: PartitionRead[]): FetchedRecord[] {
  const records: FetchedRecord[] = [];
  for (const { topicId: topic, partitions } of response.responses) {
    for (const data of partitions) {
      const from = reads.find((r) => r.topic === topic && r.partition === data.partitionIndex)?.offset;
      if (from === undefined) continue;
      const aborted = [...(data.abortedTransactions ?? [])].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
      const abortedProducers = new Set<bigint>();
      for (const batch of data.records ?? []) {
        while (aborted.length > 0 && Number(aborted[0]!.firstOffset) <= batch.baseOffset)
          abortedProducers.add(aborted.shift()!.producerId);
        if (batch.attributes & CONTROL) {
          // An abort marker (control type 0) ends that producer's aborted transaction.
          if (controlTypeOf(batch) === 0) abortedProducers.delete(batch.producerId);
          continue;
        }
        if (batch.attributes & TRANSACTIONAL && abortedProducers.has(batch.producerId)) continue;
        pushRecords(records, topic, data.partitionIndex, from, batch);
      }
    }
  }
  return records;
}
