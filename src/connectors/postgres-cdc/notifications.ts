// Debezium's notifications (notification.enabled.channels): what the connector tells about its snapshots
// (aggregate "Initial Snapshot", "Incremental Snapshot"; types STARTED, IN_PROGRESS, TABLE_SCAN_COMPLETED,
// COMPLETED, ABORTED, …). The sink channel writes them as records to notification.sink.topic.name, in
// Debezium's key and value schemas; the log channel logs Debezium's line.
import { SchemaBuilder, Struct } from "../../connect/api/data/index.ts";
import { sourceRecord, type SourceRecord } from "../../connect/api/records.ts";
import type { Logger } from "../../platform/log.ts";
import type { EstimatedTable, SnapshotListener } from "./snapshot-progress.ts";

export const INITIAL_SNAPSHOT = "Initial Snapshot";
export const INCREMENTAL_SNAPSHOT = "Incremental Snapshot";

/** The channels Sluice has; Debezium's jmx and http (and custom Java ones) are accepted with a warning. */
export const NOTIFICATION_CHANNELS = ["sink", "log"] as const;
export type NotificationChannelName = (typeof NOTIFICATION_CHANNELS)[number];

const KEY_SCHEMA = SchemaBuilder.struct()
  .name("io.debezium.connector.common.NotificationKey")
  .version(1)
  .field("id", SchemaBuilder.string())
  .build();
const VALUE_SCHEMA = SchemaBuilder.struct()
  .name("io.debezium.connector.common.Notification")
  .version(1)
  .field("id", SchemaBuilder.string())
  .field("type", SchemaBuilder.string())
  .field("aggregate_type", SchemaBuilder.string())
  .field("additional_data", SchemaBuilder.map(SchemaBuilder.string(), SchemaBuilder.string()).optional())
  .field("timestamp", SchemaBuilder.int64())
  .build();

export interface NotificationsConfig {
  readonly channels: ReadonlySet<NotificationChannelName>;
  /** notification.sink.topic.name (set whenever the sink channel is enabled). */
  readonly sinkTopic: string | null;
  /** topic.prefix: each notification's additional_data.connector_name, as Debezium's logical name. */
  readonly logicalName: string;
}

export class Notifications {
  private pending: SourceRecord[] = [];

  /**
   * `position`: the task's source partition and the offset of the last record it handed on when a
   * notification is emitted. A sink record carries it as Debezium's does, so placed after those records
   * it never moves the committed offset back.
   */
  constructor(
    private readonly config: NotificationsConfig,
    private readonly position: { partition: Record<string, unknown>; offset: () => Record<string, unknown> },
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {}

  /** Debezium's notification: aggregateType e.g. "Initial Snapshot", "Incremental Snapshot"; type e.g. "STARTED". */
  emit(aggregateType: string, type: string, additionalData: Record<string, string> = {}, id = this.newId()): void {
    const { channels, sinkTopic, logicalName } = this.config;
    if (channels.size === 0) return;
    const timestamp = this.now();
    // Debezium copies the data into a java.util.HashMap and adds connector_name: its JSON lists them in that map's order.
    const data = new Map(javaHashMapOrder(Object.entries(additionalData), [["connector_name", logicalName]]));
    if (channels.has("log"))
      this.log.info({ notification: { id, aggregateType, type } }, logLine(id, aggregateType, type, data, timestamp));
    if (channels.has("sink") && sinkTopic !== null)
      this.pending.push(
        sourceRecord({
          sourcePartition: this.position.partition,
          sourceOffset: { ...this.position.offset() },
          topic: sinkTopic,
          keySchema: KEY_SCHEMA,
          key: new Struct(KEY_SCHEMA).put("id", id),
          valueSchema: VALUE_SCHEMA,
          value: new Struct(VALUE_SCHEMA)
            .put("id", id)
            .put("type", type)
            .put("aggregate_type", aggregateType)
            .put("additional_data", data)
            .put("timestamp", BigInt(timestamp)),
        }),
      );
  }

  /** The sink channel's records since the last call, for poll() to hand on with the data records. */
  drain(): SourceRecord[] {
    const records = this.pending;
    this.pending = [];
    return records;
  }
}

/**
 * The "Initial Snapshot" notifications at the points Debezium 3.7's (non-chunked) PostgreSQL snapshot
 * sends them: STARTED, DATA_COLLECTIONS_RESOLVED once it knows its tables, then per table IN_PROGRESS
 * and TABLE_SCAN_COMPLETED, then COMPLETED; or, on a failure or a stop, TABLE_SCAN_COMPLETED with
 * status SQL_EXCEPTION for the table being read and ABORTED.
 */
export class InitialSnapshotNotifier implements SnapshotListener {
  private names: string[] = [];
  /** The tables being read (several with snapshot.max.threads), with the rows read so far. */
  private readonly reading = new Map<string, number>();
  private finished = false;

  constructor(private readonly notifications: Notifications) {}

  started(): void {
    this.notifications.emit(INITIAL_SNAPSHOT, "STARTED");
  }

  tables(tables: readonly EstimatedTable[]): void {
    this.names = tables.map((t) => t.name);
    // Debezium lists them from a java.util.TreeSet: by name, in UTF-16 order as JavaScript sorts.
    this.notifications.emit(INITIAL_SNAPSHOT, "DATA_COLLECTIONS_RESOLVED", {
      data_collections: [...this.names].sort().join(","),
    });
  }

  tableStarted(table: string): void {
    this.reading.set(table, 0);
    // Debezium lists the tables here from a java.util.HashSet, in its order.
    this.notifications.emit(INITIAL_SNAPSHOT, "IN_PROGRESS", {
      current_collection_in_progress: table,
      data_collections: javaHashSetOrder(this.names).join(","),
    });
  }

  row(table: string): void {
    this.reading.set(table, (this.reading.get(table) ?? 0) + 1);
  }

  tableDone(table: string): void {
    const rows = this.reading.get(table) ?? 0;
    this.reading.delete(table);
    this.notifications.emit(INITIAL_SNAPSHOT, "TABLE_SCAN_COMPLETED", {
      scanned_collection: table,
      data_collections: this.names.join(","),
      total_rows_scanned: String(rows),
      status: "SUCCEEDED",
    });
  }

  done(): void {
    this.finished = true;
    this.notifications.emit(INITIAL_SNAPSHOT, "COMPLETED");
  }

  /** The snapshot failed or was stopped before its end (nothing when it had already completed). */
  aborted(): void {
    if (this.finished) return;
    this.finished = true;
    for (const table of this.reading.keys())
      this.notifications.emit(INITIAL_SNAPSHOT, "TABLE_SCAN_COMPLETED", {
        scanned_collection: table,
        status: "SQL_EXCEPTION",
      });
    this.reading.clear();
    this.notifications.emit(INITIAL_SNAPSHOT, "ABORTED");
  }
}

/** Debezium's log channel line: its prefix, then the notification as its toString() writes it. */
export function logLine(
  id: string,
  aggregateType: string,
  type: string,
  data: ReadonlyMap<string, string>,
  timestamp: number,
): string {
  const map = [...data].map(([k, v]) => `${k}=${v}`).join(", ");
  return `[Notification Service]  {id='${id}', aggregateType='${aggregateType}', type='${type}', additionalData={${map}}, timestamp=${timestamp}}`;
}

/**
 * The iteration order of `new HashMap<>(copied)` followed by put()s of `added` in Java 17: by bucket
 * (the spread String hash masked by the final table size), then by insertion. Java's own order of
 * `copied` (a Map.of, randomly ordered) only matters for keys sharing a bucket; Sluice takes it as given.
 */
export function javaHashMapOrder(
  copied: readonly (readonly [string, string])[],
  added: readonly (readonly [string, string])[],
): [string, string][] {
  const LOAD_FACTOR = 0.75;
  // The copy constructor's pre-sizing (Java 17: (int)(size / loadFactor + 1), rounded up to a power of two).
  let threshold = copied.length > 0 ? tableSizeFor(Math.floor(copied.length / LOAD_FACTOR + 1)) : 0;
  let capacity = 0;
  const entries = new Map<string, string>();
  for (const [key, value] of [...copied, ...added]) {
    if (entries.has(key)) {
      entries.set(key, value);
      continue;
    }
    if (capacity === 0) {
      capacity = threshold > 0 ? threshold : 16;
      threshold = Math.floor(capacity * LOAD_FACTOR);
    }
    entries.set(key, value);
    if (entries.size > threshold) {
      capacity *= 2;
      threshold = capacity > 16 ? threshold * 2 : Math.floor(capacity * LOAD_FACTOR);
    }
  }
  const bucket = (key: string) => spreadHash(key) & (capacity - 1);
  // Array.prototype.sort is stable: within a bucket, insertion order stays.
  return [...entries].sort(([a], [b]) => bucket(a) - bucket(b));
}

/** The iteration order of `new HashSet<>(items)` (a collection of these names, in this order) in Java. */
export function javaHashSetOrder(items: readonly string[]): string[] {
  // HashSet's copy constructor sizes its map for the collection, at least 16 buckets, so it never grows.
  const capacity = tableSizeFor(Math.max(Math.floor(items.length / 0.75) + 1, 16));
  const unique = [...new Set(items)];
  return unique.sort((a, b) => (spreadHash(a) & (capacity - 1)) - (spreadHash(b) & (capacity - 1)));
}

/** java.lang.String.hashCode() (over UTF-16 code units, 32-bit), spread as HashMap.hash() does. */
export function spreadHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h ^ (h >>> 16);
}

/** HashMap.tableSizeFor: the least power of two at least `c` (at least 1). */
function tableSizeFor(c: number): number {
  let n = 1;
  while (n < c) n *= 2;
  return n;
}
