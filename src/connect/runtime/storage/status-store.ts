// Connector and task statuses, and the topics each connector used, as a herder reads and writes them
// (Kafka Connect's StatusBackingStore): in the status topic (topic-status-store.ts) for a cluster, in
// memory for a standalone worker, which alone runs its connectors.
import type { Status } from "../status.ts";
import type { StatusKey } from "./internal-records.ts";

export interface StatusStore {
  /** Writes a connector's (no `task`) or a task's status; null removes it. `generation`: the writer's group generation. */
  put(key: StatusKey, status: Status | null, generation: number): Promise<void>;
  putTopic(topic: string, connector: string, task: number): Promise<void>;
  resetTopic(topic: string, connector: string): Promise<void>;
  /** Catches up with what other workers wrote. */
  readToEnd(): Promise<void>;
  connector(name: string): Status | undefined;
  taskStatuses(name: string): Map<number, Status>;
  /** The topics a connector used, sorted. */
  connectorTopics(name: string): string[];
}

/** Statuses in memory (Kafka's MemoryStatusBackingStore): the last status written wins. */
export class MemoryStatusStore implements StatusStore {
  private readonly connectors = new Map<string, Status>();
  private readonly tasks = new Map<string, Map<number, Status>>();
  private readonly topics = new Map<string, Set<string>>();

  async put(key: StatusKey, status: Status | null): Promise<void> {
    if (key.task === undefined) {
      if (status) this.connectors.set(key.connector, status);
      else this.connectors.delete(key.connector);
      return;
    }
    const tasks = this.tasks.get(key.connector) ?? new Map<number, Status>();
    if (status) tasks.set(key.task, status);
    else tasks.delete(key.task);
    this.tasks.set(key.connector, tasks);
  }

  async putTopic(topic: string, connector: string): Promise<void> {
    const topics = this.topics.get(connector) ?? new Set<string>();
    topics.add(topic);
    this.topics.set(connector, topics);
  }

  async resetTopic(topic: string, connector: string): Promise<void> {
    this.topics.get(connector)?.delete(topic);
  }

  async readToEnd(): Promise<void> {}

  connector(name: string): Status | undefined {
    return this.connectors.get(name);
  }

  taskStatuses(name: string): Map<number, Status> {
    return new Map(this.tasks.get(name));
  }

  connectorTopics(name: string): string[] {
    return [...(this.topics.get(name) ?? [])].sort();
  }

  /** Forgets everything of a deleted connector. */
  remove(name: string): void {
    this.connectors.delete(name);
    this.tasks.delete(name);
    this.topics.delete(name);
  }
}
