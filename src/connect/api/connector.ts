// The contracts a connector implements, mirroring Kafka Connect's so a Java connector author feels at
// home: a Connector splits the work into task configs; Tasks move the records.
import type { SettingsDefinition } from "../../platform/settings.ts";
import type { SinkRecord, SourceRecord } from "./records.ts";

export type ConnectorType = "source" | "sink";

export interface ConnectorContext {
  /** Asks the runtime to call taskConfigs() again and restart the tasks with the result. */
  requestTaskReconfiguration(): void;
  /** Fails the connector with this error (visible in its status). */
  raiseError(error: Error): void;
}

export abstract class Connector {
  abstract readonly type: ConnectorType;
  context!: ConnectorContext;
  initialize(context: ConnectorContext): void {
    this.context = context;
  }
  abstract version(): string;
  abstract start(props: Record<string, string>): void | Promise<void>;
  /** The task class to run (a constructor taking no arguments). */
  abstract taskClass(): TaskClass;
  /** Up to `maxTasks` task configurations. */
  abstract taskConfigs(maxTasks: number): Record<string, string>[];
  abstract stop(): void | Promise<void>;
  /** The connector's own settings (framework settings are added by the runtime). */
  abstract config(): SettingsDefinition;
  /**
   * KIP-875: called before the runtime alters or resets this connector's offsets; true when the
   * connector accepts framework-managed offsets (the default).
   */
  alterOffsets?(
    config: Record<string, string>,
    offsets: Map<Record<string, unknown>, Record<string, unknown> | null>,
  ): boolean;
  /**
   * Kafka's Connector.validate beyond the declared settings, e.g. trying the connection: problems by
   * setting name. Called only when the connector's own settings are valid, and bounded by the caller
   * (connection-check.ts), since it answers a REST call.
   */
  validate?(props: Record<string, string>): Promise<Map<string, string[]>>;
  /**
   * Sluice's own, not Kafka's (whose connectors cannot tell a delete from a stop): called once, after
   * stop() and after its tasks stopped, when the connector's config was deleted, with the config it ran
   * with. For what the connector leaves outside Kafka (a replication slot): remove it or say so.
   */
  deleted?(props: Record<string, string>): void | Promise<void>;
}

/**
 * A task's constructor. `className` is the Java class Kafka Connect shows as task.class (built-in tasks
 * declare theirs: a JS class name is neither Kafka's nor stable across builds).
 */
export type TaskClass = (new () => Task) & { readonly className?: string };

/** KIP-618: whether a source connector can give exactly-once delivery with a given config. */
export type ExactlyOnceSupport = "SUPPORTED" | "UNSUPPORTED";
/** KIP-618: whether a source connector can say where its transactions end (`transaction.boundary=connector`). */
export type ConnectorTransactionBoundaries = "SUPPORTED" | "UNSUPPORTED";

export abstract class SourceConnector extends Connector {
  readonly type = "source" as const;
  /**
   * Asked when a connector with `exactly.once.support=required` is validated or created on a worker with
   * exactly-once source support. Not implemented (Kafka's null): the connector cannot be created with
   * `required`, only with `requested`.
   */
  exactlyOnceSupport?(props: Record<string, string>): ExactlyOnceSupport | null;
  /** Asked for `transaction.boundary=connector`; Kafka's default: UNSUPPORTED. */
  canDefineTransactionBoundaries?(props: Record<string, string>): ConnectorTransactionBoundaries;
}

export abstract class SinkConnector extends Connector {
  readonly type = "sink" as const;
}

export interface Task {
  version(): string;
  start(props: Record<string, string>): void | Promise<void>;
  stop(): void | Promise<void>;
}

/** Reads the offsets this connector's source tasks committed, by source partition. */
export interface OffsetStorageReader {
  offset(partition: Record<string, unknown>): Record<string, unknown> | null;
}

/**
 * Gauges a task publishes on the worker's /metrics (in the spirit of Kafka's KIP-877 PluginMetrics).
 * The task names them; the worker drops them when the task stops.
 */
export interface PluginMetrics {
  /** A gauge series read at each scrape; every series of one name must carry the same label names. */
  gauge(name: string, help: string, labels: Readonly<Record<string, string>>, read: () => number): void;
}

/**
 * KIP-618: how a task with `transaction.boundary=connector` ends its transactions. A request names the
 * record after which the transaction ends (it is in the ended one), or, without a record, ends it after
 * the records of the current poll().
 */
export interface TransactionContext {
  commitTransaction(record?: SourceRecord): void;
  abortTransaction(record?: SourceRecord): void;
}

export interface SourceTaskContext {
  readonly configs: Readonly<Record<string, string>>;
  /** Only with exactly-once delivery and `transaction.boundary=connector` (Kafka: null otherwise). */
  readonly transactionContext?: TransactionContext;
  readonly offsetStorageReader: OffsetStorageReader;
  /** Absent where no worker collects metrics (e.g. a task run on its own in a test). */
  readonly metrics?: PluginMetrics;
  /** A Kafka client of the task's own for one topic partition (Debezium's signal topic); absent without a worker. */
  readonly openTopicReader?: (options: TopicReaderOptions) => TopicReader;
}

export interface TopicReaderOptions {
  readonly bootstrapServers: readonly string[];
  readonly topic: string;
  readonly partition: number;
  /** The consumer group whose committed offset the reader reads and commits (without joining it, as assign() does). */
  readonly groupId: string;
  readonly clientId: string;
  /** Kafka's client security settings: security.protocol, sasl.*, ssl.* (refused ones throw a ConfigError). */
  readonly security: Readonly<Record<string, string>>;
}

/** One partition of a topic, read by a task for itself; it connects on first use. */
export interface TopicReader {
  /** Records from `offset` on; waits up to `maxWaitMs` when there are none yet. */
  fetch(
    offset: number,
    maxWaitMs: number,
  ): Promise<{ readonly offset: number; readonly key: Uint8Array | null; readonly value: Uint8Array | null }[]>;
  /** The group's committed offset; undefined when it has none. */
  committedOffset(): Promise<number | undefined>;
  /** The first offset still in the partition. */
  earliestOffset(): Promise<number>;
  commit(offset: number): Promise<void>;
  close(): Promise<void>;
}

export interface RecordMetadata {
  topic: string;
  partition: number;
  offset: number;
}

export abstract class SourceTask implements Task {
  context!: SourceTaskContext;
  initialize(context: SourceTaskContext): void {
    this.context = context;
  }
  abstract version(): string;
  abstract start(props: Record<string, string>): void | Promise<void>;
  /** New records, or null/[] when there are none right now (the runtime calls again). May wait briefly. */
  abstract poll(): Promise<SourceRecord[] | null>;
  abstract stop(): void | Promise<void>;
  /** Called after the offsets of records returned so far were committed. */
  commit?(): void | Promise<void>;
  /** Called when Kafka acknowledged a record (metadata null when a transform dropped it). */
  commitRecord?(record: SourceRecord, metadata: RecordMetadata | null): void | Promise<void>;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface SinkTaskContext {
  readonly configs: Readonly<Record<string, string>>;
  /** Rewinds partitions to these offsets before the next put. */
  offset(offsets: Map<TopicPartition, number>): void;
  /** Asks for a new put() after at most this long even without records. */
  timeout(ms: number): void;
  assignment(): TopicPartition[];
  pause(...partitions: TopicPartition[]): void;
  resume(...partitions: TopicPartition[]): void;
  /** Asks the runtime to flush and commit offsets soon. */
  requestCommit(): void;
  /**
   * Kafka's errant record reporter (KIP-610): null unless the connector has a dead letter queue or
   * errors.log.enable, as in Kafka Connect.
   */
  errantRecordReporter(): ErrantRecordReporter | null;
}

/**
 * Hands a record the task cannot write to the connector's error handling (log, dead letter queue), so a
 * bad record need not fail the batch. The promise resolves once the dead letter queue has the record;
 * it rejects, and the task fails, when errors.tolerance is none. Offsets are committed only after every
 * report resolved.
 */
export interface ErrantRecordReporter {
  report(record: SinkRecord, error: Error): Promise<void>;
}

export abstract class SinkTask implements Task {
  context!: SinkTaskContext;
  initialize(context: SinkTaskContext): void {
    this.context = context;
  }
  abstract version(): string;
  abstract start(props: Record<string, string>): void | Promise<void>;
  abstract put(records: SinkRecord[]): void | Promise<void>;
  /** Makes everything put so far durable; offsets (next to read, per partition) are committed only after this returns. */
  flush(_offsets: Map<TopicPartition, number>): void | Promise<void> {}
  /** Offsets safe to commit (default: what was flushed), keyed by partition as `flush` and `context.offset` are. */
  preCommit?(offsets: Map<TopicPartition, number>): Map<TopicPartition, number> | Promise<Map<TopicPartition, number>>;
  open?(partitions: TopicPartition[]): void | Promise<void>;
  close?(partitions: TopicPartition[]): void | Promise<void>;
  abstract stop(): void | Promise<void>;
}

/** Kafka's RetriableException: the runtime retries the operation instead of failing the task. */
export class RetriableException extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "RetriableException";
  }
}

/** Kafka's ConnectException: a connector or task failure with a message for the status trace. */
export class ConnectException extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "ConnectException";
  }
}
