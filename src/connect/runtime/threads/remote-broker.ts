// The embedded broker's files belong to the main thread: a task thread reaches them through this
// proxy, one message per call, and the main thread answers from its broker (serveBrokerCall).
// Long polls wait on the main thread, so an idle sink on a task thread costs nothing there.
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
} from "../../../broker/broker.ts";

/** The Broker calls a task may make; group membership stays with the worker. */
const TASK_CALLS = [
  "createTopic",
  "describeTopic",
  "listTopics",
  "produce",
  "endOffsets",
  "startOffsets",
  "fetch",
  "fetchMany",
  "committedOffsets",
  "commitOffsets",
] as const;
type TaskCall = (typeof TASK_CALLS)[number];

export class RemoteBroker implements Broker {
  readonly kind = "embedded";

  constructor(private readonly call: (method: TaskCall, args: unknown[]) => Promise<unknown>) {}

  async connect(): Promise<void> {}
  async close(): Promise<void> {}
  createTopic(spec: TopicSpec) {
    return this.call("createTopic", [spec]) as Promise<boolean>;
  }
  describeTopic(name: string) {
    return this.call("describeTopic", [name]) as Promise<TopicDescription | undefined>;
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
  async transactionalProducer(transactionalId: string): Promise<TransactionalProducer> {
    throw new Error(`transactions are not available to task threads yet (${transactionalId})`);
  }
  async fenceProducers(): Promise<void> {}
  groupMembership(): GroupMembership {
    throw new Error("group membership is the worker's, not a task's");
  }
}

/** Runs a task thread's broker call on the main thread's broker. */
export function serveBrokerCall(broker: Broker, method: string, args: unknown[]): Promise<unknown> {
  if (!(TASK_CALLS as readonly string[]).includes(method)) throw new Error(`not a task's broker call: ${method}`);
  return (broker[method as TaskCall] as (...a: unknown[]) => Promise<unknown>).apply(broker, args);
}
