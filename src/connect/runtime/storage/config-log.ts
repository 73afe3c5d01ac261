// Connector configs, task configs and target states in the config topic (Kafka Connect's
// KafkaConfigBackingStore). Every worker reads the whole topic and keeps following it; task configs
// of a connector become visible together, when its commit record is read.
import type { Broker, FetchedRecord } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import type { ConfigView } from "./config-store.ts";
import { decodeConfigRecord, encodeConfigRecord, type ConfigRecord, type TargetState } from "./internal-records.ts";
import { TopicLog } from "./topic-log.ts";

const log = logger("config-log");

export type ConfigChange =
  | { kind: "connector"; name: string; removed: boolean }
  | { kind: "target"; name: string }
  | { kind: "tasks"; name: string }
  | { kind: "task-count"; name: string }
  | { kind: "restart"; name: string; includeTasks: boolean; onlyFailed: boolean };

/** What the config topic says, after applying its records in order. Pure: tested directly. */
export class ConfigState implements ConfigView {
  readonly connectors = new Map<string, Record<string, string>>();
  readonly targets = new Map<string, TargetState>();
  /** Committed task configs per connector. */
  readonly tasks = new Map<string, Record<string, string>[]>();
  private readonly pending = new Map<string, Map<number, Record<string, string>>>();
  /** KIP-618: each connector's task count as of its last fencing round (task-count records). */
  readonly taskCounts = new Map<string, number>();
  /** Connectors whose task configs changed since their last fencing round. */
  readonly pendingFencing = new Set<string>();

  apply(record: ConfigRecord): ConfigChange | undefined {
    switch (record.kind) {
      case "connector":
        if (record.config === null) {
          if (!this.connectors.delete(record.name)) return undefined;
          this.targets.delete(record.name);
          this.tasks.delete(record.name);
          this.pending.delete(record.name);
          this.taskCounts.delete(record.name);
          this.pendingFencing.delete(record.name);
          return { kind: "connector", name: record.name, removed: true };
        }
        this.connectors.set(record.name, record.config);
        return { kind: "connector", name: record.name, removed: false };
      case "target":
        if (record.state === null) this.targets.delete(record.name);
        else this.targets.set(record.name, record.state);
        return { kind: "target", name: record.name };
      case "task": {
        const pending = this.pending.get(record.name) ?? new Map<number, Record<string, string>>();
        if (record.config === null) pending.delete(record.task);
        else pending.set(record.task, record.config);
        this.pending.set(record.name, pending);
        return undefined;
      }
      case "commit": {
        const pending = this.pending.get(record.name) ?? new Map<number, Record<string, string>>();
        const configs: Record<string, string>[] = [];
        for (let i = 0; i < record.tasks; i++) {
          const config = pending.get(i) ?? this.tasks.get(record.name)?.[i];
          // An incomplete set (a writer died mid-way) is skipped, as Kafka marks it inconsistent.
          if (!config) {
            log.warn({ connector: record.name, tasks: record.tasks }, "task configs incomplete at commit; ignored");
            return undefined;
          }
          configs.push(config);
        }
        this.pending.delete(record.name);
        this.tasks.set(record.name, configs);
        this.pendingFencing.add(record.name);
        return { kind: "tasks", name: record.name };
      }
      case "task-count":
        this.taskCounts.set(record.name, record.tasks);
        this.pendingFencing.delete(record.name);
        return { kind: "task-count", name: record.name };
      case "restart":
        return { kind: "restart", name: record.name, includeTasks: record.includeTasks, onlyFailed: record.onlyFailed };
    }
  }

  target(name: string): TargetState {
    return this.targets.get(name) ?? "STARTED";
  }
}

export class ConfigLog {
  readonly state = new ConfigState();
  private readonly log: TopicLog;
  private following = false;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    broker: Broker,
    topic: string,
    private readonly onChange: (change: ConfigChange) => void,
  ) {
    this.log = new TopicLog(broker, topic, (record) => this.apply(record));
  }

  /** The offset up to which this worker has read the config topic. */
  get offset(): number {
    return this.log.position;
  }

  readToEnd(): Promise<void> {
    return this.log.readToEnd();
  }

  /** Keeps reading what others write, every `intervalMs`. */
  follow(intervalMs: number): void {
    this.following = true;
    const tick = async () => {
      try {
        await this.log.readToEnd();
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, "could not read the config topic");
      }
      if (this.following) this.timer = setTimeout(tick, intervalMs);
    };
    void tick();
  }

  stop(): void {
    this.following = false;
    clearTimeout(this.timer);
  }

  /** Writes the records in one batch, and resolves once they are acknowledged and read back. */
  async write(records: ConfigRecord[]): Promise<void> {
    await this.log.send(records.map((r) => ({ ...encodeConfigRecord(r), partition: 0 })));
    await this.log.readToEnd();
  }

  private apply(record: FetchedRecord): void {
    let decoded: ConfigRecord | undefined;
    try {
      decoded = decodeConfigRecord(record.key, record.value);
    } catch (err) {
      log.warn({ offset: record.offset, err: String(err) }, "unreadable config record skipped");
      return;
    }
    const change = decoded && this.state.apply(decoded);
    if (change) this.onChange(change);
  }
}
