// The embedded broker's files belong to the main thread: a task thread reaches them through this
// proxy, one message per call, and the main thread answers from its broker (BrokerCalls).
// Long polls wait on the main thread, so an idle sink on a task thread costs nothing there.
// A transactional producer stays on the main thread too; the task holds a handle to it. The main thread
// keeps each thread's producers (BrokerCalls) and closes them when the thread ends, so a thread that dies
// mid-transaction leaves no transaction holding back the partitions it wrote to.
import type {
  Broker,
  FetchedRecord,
  FetchOptions,
  GroupMembership,
  PartitionRead,
  ProduceRecord,
  RecordPosition,
  TopicDescription,
  TopicSpec,
  TransactionalProducer,
  TransactionOptions,
} from "../../../broker/broker.ts";

/** The Broker calls a task may make; group membership stays with the worker. */
const TASK_CALLS = [
  "createTopic",
  "describeTopic",
  "partitionCounts",
  "listTopics",
  "produce",
  "endOffsets",
  "startOffsets",
  "fetch",
  "fetchMany",
  "committedOffsets",
  "commitOffsets",
  "fenceProducers",
] as const;
type TaskCall = (typeof TASK_CALLS)[number];

/** Calls on a transactional producer the main thread holds for a task thread: the handle, then the arguments. */
const TRANSACTION_CALLS = {
  "transaction.produce": "produce",
  "transaction.commit": "commit",
  "transaction.abort": "abort",
  "transaction.close": "close",
} as const;
type TransactionCall = keyof typeof TRANSACTION_CALLS;
const OPEN_TRANSACTIONAL = "transactionalProducer";

export type RemoteCall = TaskCall | TransactionCall | typeof OPEN_TRANSACTIONAL;

export class RemoteBroker implements Broker {
  readonly kind = "embedded";

  constructor(private readonly call: (method: RemoteCall, args: unknown[]) => Promise<unknown>) {}

  async connect(): Promise<void> {}
  async close(): Promise<void> {}
  createTopic(spec: TopicSpec) {
    return this.call("createTopic", [spec]) as Promise<boolean>;
  }
  describeTopic(name: string) {
    return this.call("describeTopic", [name]) as Promise<TopicDescription | undefined>;
  }
  partitionCounts(topics: string[]) {
    return this.call("partitionCounts", [topics]) as Promise<Map<string, number>>;
  }
  listTopics() {
    return this.call("listTopics", []) as Promise<string[]>;
  }
  produce(topic: string, records: ProduceRecord[]) {
    return this.call("produce", [topic, records]) as Promise<RecordPosition[]>;
  }
  endOffsets(topic: string) {
    return this.call("endOffsets", [topic]) as Promise<number[]>;
  }
  startOffsets(topic: string) {
    return this.call("startOffsets", [topic]) as Promise<number[]>;
  }
  fetch(topic: string, partition: number, offset: number, options?: FetchOptions) {
    return this.call("fetch", [topic, partition, offset, options]) as Promise<FetchedRecord[]>;
  }
  fetchMany(reads: PartitionRead[], options?: FetchOptions) {
    return this.call("fetchMany", [reads, options]) as Promise<FetchedRecord[]>;
  }
  committedOffsets(group: string, topic: string) {
    return this.call("committedOffsets", [group, topic]) as Promise<Map<number, number>>;
  }
  commitOffsets(group: string, topic: string, offsets: RecordPosition[]) {
    return this.call("commitOffsets", [group, topic, offsets]) as Promise<void>;
  }
  async transactionalProducer(transactionalId: string, options?: TransactionOptions): Promise<TransactionalProducer> {
    const handle = (await this.call(OPEN_TRANSACTIONAL, [transactionalId, options])) as number;
    const call = this.call;
    return {
      transactionalId,
      produce: (topic, records) => call("transaction.produce", [handle, topic, records]) as Promise<RecordPosition[]>,
      commit: () => call("transaction.commit", [handle]) as Promise<void>,
      abort: () => call("transaction.abort", [handle]) as Promise<void>,
      close: () => call("transaction.close", [handle]) as Promise<void>,
    };
  }
  fenceProducers(transactionalIds: string[]) {
    return this.call("fenceProducers", [transactionalIds]) as Promise<void>;
  }
  groupMembership(): GroupMembership {
    throw new Error("group membership is the worker's, not a task's");
  }
}

/** One task thread's broker calls, run on the main thread's broker, with the transactional producers it opened. */
export class BrokerCalls {
  private readonly producers = new Map<number, TransactionalProducer>();
  private nextHandle = 0;
  private closed = false;

  constructor(private readonly broker: Broker) {}

  async serve(method: string, args: unknown[]): Promise<unknown> {
    if (method === OPEN_TRANSACTIONAL) {
      const producer = await this.broker.transactionalProducer(
        args[0] as string,
        args[1] as TransactionOptions | undefined,
      );
      if (this.closed) {
        await producer.close();
        throw new Error("the task thread ended");
      }
      const handle = this.nextHandle++;
      this.producers.set(handle, producer);
      return handle;
    }
    if (method in TRANSACTION_CALLS) {
      const [handle, ...rest] = args;
      const producer = this.producers.get(handle as number);
      if (!producer) throw new Error(`no transactional producer ${String(handle)} on this task thread`);
      const name = TRANSACTION_CALLS[method as TransactionCall];
      if (name === "close") this.producers.delete(handle as number);
      return (producer[name] as (...a: unknown[]) => Promise<unknown>).apply(producer, rest);
    }
    if (!(TASK_CALLS as readonly string[]).includes(method)) throw new Error(`not a task's broker call: ${method}`);
    return (this.broker[method as TaskCall] as (...a: unknown[]) => Promise<unknown>).apply(this.broker, args);
  }

  /** The thread ended: its producers are closed, aborting their open transactions. */
  async close(): Promise<void> {
    this.closed = true;
    const producers = [...this.producers.values()];
    this.producers.clear();
    await Promise.all(producers.map((p) => p.close().catch(() => undefined)));
  }
}
