// Debezium's transaction metadata (provide.transaction.metadata): a BEGIN record on the transaction topic
// when a streamed transaction begins, an END record with its event counts (in all and per table) when it
// commits, and each change event's `transaction` block (id, total_order, data_collection_order). As
// Debezium's PostgreSQL connector, every id is `<xid>:<LSN of the message at hand>`, so the BEGIN, the
// events and the END of one transaction carry different ids (compare by the part before the colon).
import { SchemaBuilder, type Schema, Struct } from "../../connect/api/data/index.ts";
import { sourceRecord, type SourceRecord } from "../../connect/api/records.ts";

const KEY_SCHEMA: Schema = SchemaBuilder.struct()
  .name("io.debezium.connector.common.TransactionMetadataKey")
  .version(1)
  .field("id", SchemaBuilder.string())
  .build();

const COLLECTION_SCHEMA: Schema = SchemaBuilder.struct()
  .optional()
  .name("event.collection")
  .version(1)
  .field("data_collection", SchemaBuilder.string())
  .field("event_count", SchemaBuilder.int64())
  .build();

const VALUE_SCHEMA: Schema = SchemaBuilder.struct()
  .name("io.debezium.connector.common.TransactionMetadataValue")
  .version(1)
  .field("status", SchemaBuilder.string())
  .field("id", SchemaBuilder.string())
  .field("event_count", SchemaBuilder.int64().optional())
  .field("data_collections", SchemaBuilder.array(COLLECTION_SCHEMA).optional())
  .field("ts_ms", SchemaBuilder.int64())
  .build();

/** The envelope's `transaction` block of one event. */
export interface TransactionBlock {
  readonly id: string;
  readonly totalOrder: bigint;
  readonly dataCollectionOrder: bigint;
}

interface OpenTransaction {
  readonly xid: bigint;
  /** Commit time, Unix microseconds. */
  readonly commitTime: bigint;
  total: bigint;
  /** Events per `schema.table`, in the order the tables first appeared. */
  readonly perTable: Map<string, bigint>;
}

export class TransactionMetadata {
  private open: OpenTransaction | null = null;

  constructor(
    /** `<topic.prefix>.<topic.transaction>` */
    private readonly topic: string,
    private readonly sourcePartition: Record<string, unknown>,
  ) {}

  /** A Begin message at `lsn`: the BEGIN record (Debezium writes it even if no captured change follows). */
  begin(xid: bigint, lsn: bigint, commitTime: bigint, offset: Record<string, unknown>): SourceRecord {
    this.open = { xid, commitTime, total: 0n, perTable: new Map() };
    const id = `${xid}:${lsn}`;
    return this.record(
      id,
      offset,
      new Struct(VALUE_SCHEMA)
        .put("status", "BEGIN")
        .put("id", id)
        .put("event_count", null)
        .put("data_collections", null)
        .put("ts_ms", commitTime / 1000n),
    );
  }

  /** Counts one change record of `schema.table` at `lsn` (not a tombstone) and answers its block. */
  event(dataCollection: string, lsn: bigint): TransactionBlock | null {
    const open = this.open;
    if (open === null) return null;
    open.total++;
    const inTable = (open.perTable.get(dataCollection) ?? 0n) + 1n;
    open.perTable.set(dataCollection, inTable);
    return { id: `${open.xid}:${lsn}`, totalOrder: open.total, dataCollectionOrder: inTable };
  }

  /** A Commit message at `lsn`: the END record of the open transaction (null when none is open). */
  commit(lsn: bigint, offset: Record<string, unknown>): SourceRecord | null {
    const open = this.open;
    if (open === null) return null;
    this.open = null;
    const id = `${open.xid}:${lsn}`;
    const collections = javaHashMapOrder([...open.perTable.keys()]).map((name) =>
      new Struct(COLLECTION_SCHEMA).put("data_collection", name).put("event_count", open.perTable.get(name)!),
    );
    return this.record(
      id,
      offset,
      new Struct(VALUE_SCHEMA)
        .put("status", "END")
        .put("id", id)
        .put("event_count", open.total)
        .put("data_collections", collections)
        .put("ts_ms", open.commitTime / 1000n),
    );
  }

  private record(id: string, offset: Record<string, unknown>, value: Struct): SourceRecord {
    return sourceRecord({
      sourcePartition: this.sourcePartition,
      sourceOffset: offset,
      topic: this.topic,
      keySchema: KEY_SCHEMA,
      key: new Struct(KEY_SCHEMA).put("id", id),
      valueSchema: VALUE_SCHEMA,
      value,
    });
  }
}

/** Java's String.hashCode: over UTF-16 code units, in 32-bit arithmetic. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order a java.util.HashMap iterates keys put in `inserted` order (Debezium counts per table in one,
 * so its END record lists the tables that way): by bucket of the table's final size (16, doubled each
 * time the entries pass three quarters of it), then in insertion order within a bucket. (A bucket of
 * more than 8 keys would turn into a tree in a map of 64 buckets or more; no transaction has that many
 * tables colliding.)
 */
export function javaHashMapOrder(inserted: readonly string[]): string[] {
  let capacity = 16;
  while (inserted.length > capacity * 0.75) capacity *= 2;
  const bucket = (key: string) => {
    const h = javaStringHash(key);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return inserted
    .map((key, i) => ({ key, i, b: bucket(key) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((e) => e.key);
}
