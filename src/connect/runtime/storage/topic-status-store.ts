// Connector and task statuses in the status topic (Kafka Connect's KafkaStatusBackingStore): each
// worker writes the statuses of what it runs; any worker answers for all of them by reading the topic.
import type { Broker, FetchedRecord } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import type { Status } from "../status.ts";
import {
  decodeStatus,
  decodeStatusKey,
  encodeStatus,
  statusKey,
  topicStatusRecord,
  type GenerationStatus,
  type StatusKey,
} from "./internal-records.ts";
import type { StatusStore } from "./status-store.ts";
import { TopicLog } from "./topic-log.ts";

const log = logger("status-store");

export class TopicStatusStore implements StatusStore {
  private readonly connectors = new Map<string, GenerationStatus>();
  private readonly tasks = new Map<string, Map<number, GenerationStatus>>();
  private readonly topics = new Map<string, Set<string>>();
  private readonly log: TopicLog;
  /** Writes go out one after another, so that a later status never lands before an earlier one. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(broker: Broker, topic: string) {
    this.log = new TopicLog(broker, topic, (record) => this.apply(record));
  }

  readToEnd(): Promise<void> {
    return this.log.readToEnd();
  }

  put(key: StatusKey, status: Status | null, generation: number): Promise<void> {
    return this.enqueue([{ key: statusKey(key), value: status ? encodeStatus(status, generation) : null }]);
  }

  putTopic(topic: string, connector: string, task: number): Promise<void> {
    return this.enqueue([topicStatusRecord(topic, connector, task)]);
  }

  resetTopic(topic: string, connector: string): Promise<void> {
    return this.enqueue([{ key: topicStatusRecord(topic, connector, 0).key, value: null }]);
  }

  /** Resolves when the writes made so far are done (or failed). */
  async flushed(): Promise<void> {
    await this.writes;
  }

  connector(name: string): Status | undefined {
    return this.connectors.get(name)?.status;
  }

  taskStatuses(name: string): Map<number, Status> {
    return new Map([...(this.tasks.get(name) ?? [])].map(([task, stored]) => [task, stored.status]));
  }

  connectorTopics(name: string): string[] {
    return [...(this.topics.get(name) ?? [])].sort();
  }

  private enqueue(records: { key: Uint8Array; value: Uint8Array | null }[]): Promise<void> {
    // This worker's own statuses show at once, even while Kafka is away; reading the topic confirms them.
    for (const r of records) this.apply({ topic: "", partition: 0, offset: -1, timestamp: 0, headers: [], ...r });
    const write = this.writes.then(() => this.log.send(records)).then(() => undefined);
    this.writes = write.catch((err) =>
      log.warn({ err: err instanceof Error ? err.message : String(err) }, "could not write a status"),
    );
    return write;
  }

  private apply(record: FetchedRecord): void {
    const key = decodeStatusKey(record.key);
    if (!key) return;
    if ("topic" in key) {
      const topics = this.topics.get(key.connector) ?? new Set<string>();
      if (record.value === null) topics.delete(key.topic);
      else topics.add(key.topic);
      this.topics.set(key.connector, topics);
      return;
    }
    let status: GenerationStatus | null;
    try {
      status = decodeStatus(record.value);
    } catch {
      return;
    }
    if (key.task === undefined) {
      if (status === null) this.connectors.delete(key.connector);
      else if (accept(this.connectors.get(key.connector), status)) this.connectors.set(key.connector, status);
      return;
    }
    const tasks = this.tasks.get(key.connector) ?? new Map<number, GenerationStatus>();
    if (status === null) tasks.delete(key.task);
    else if (accept(tasks.get(key.task), status)) tasks.set(key.task, status);
    this.tasks.set(key.connector, tasks);
  }
}

/**
 * Kafka's rule for UNASSIGNED and FAILED: they replace a status only of the same worker or of an older
 * generation, so a worker releasing a task cannot hide that another one already runs it.
 */
function accept(previous: GenerationStatus | undefined, next: GenerationStatus): boolean {
  if (!previous || (next.status.state !== "UNASSIGNED" && next.status.state !== "FAILED")) return true;
  return previous.status.workerId === next.status.workerId || next.generation > previous.generation;
}
