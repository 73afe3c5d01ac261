// Debezium's transaction metadata (provide.transaction.metadata): a BEGIN record on the transaction topic
// when a streamed transaction begins, an END record with its event counts (in all and per table) when it
// commits, and each change event's `transaction` block (id, total_order, data_collection_order). As
// Debezium's PostgreSQL connector, every id is `<xid>:<LSN of the message at hand>`, so the BEGIN, the
// events and the END of one transaction carry different ids (compare by the part before the colon).
// As Debezium's TransactionContext, the open transaction is kept in every record's offset (its xid and
// its counts per table), so a task restarted in the middle of a transaction goes on counting where the
// committed offset left off, without a second BEGIN, and the END counts the whole transaction.
import { SchemaBuilder, type Schema, Struct } from "../../connect/api/data/index.ts";
import { sourceRecord, type SourceRecord } from "../../connect/api/records.ts";

/** Debezium's offset keys: the open transaction's xid, and its events so far per `schema.table` after the prefix. */
const OFFSET_TRANSACTION_ID = "transaction_id";
const OFFSET_COLLECTION_ORDER = "transaction_data_collection_order_";

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
  total: bigint;
  /** Events per `schema.table`, in the order the tables first appeared. */
  readonly perTable: Map<string, bigint>;
}

export class TransactionMetadata {
  private open: OpenTransaction | null;

  constructor(
    /** `<topic.prefix>.<topic.transaction>` */
    private readonly topic: string,
    private readonly sourcePartition: Record<string, unknown>,
    /** The committed offset the task starts from: the transaction it was in the middle of, if any. */
    stored: Record<string, unknown> | null = null,
  ) {
    this.open = storedTransaction(stored);
  }

  /**
   * A Begin message at `lsn`: the BEGIN record (Debezium writes it even if no captured change follows).
   * None for the transaction the stored offset was in: the server sends it again after a restart, and
   * Debezium (3.7) goes on with its counts instead of beginning it anew.
   */
  begin(xid: bigint, lsn: bigint, commitTime: bigint, offset: Record<string, unknown>): SourceRecord | null {
    if (this.open?.xid === xid) return null;
    this.open = { xid, total: 0n, perTable: new Map() };
    const id = `${xid}:${lsn}`;
    return this.record(
      id,
      { ...offset, ...this.offsetFields() },
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

  /**
   * A Commit message at `lsn` (commit time in Unix microseconds): the END record of the open transaction
   * (null when none is open). Its offset still holds the transaction, as Debezium's.
   */
  commit(lsn: bigint, commitTime: bigint, offset: Record<string, unknown>): SourceRecord | null {
    const open = this.open;
    if (open === null) return null;
    const sourceOffset = { ...offset, ...this.offsetFields() };
    this.open = null;
    const id = `${open.xid}:${lsn}`;
    const collections = javaHashMapOrder([...open.perTable.keys()]).map((name) =>
      new Struct(COLLECTION_SCHEMA).put("data_collection", name).put("event_count", open.perTable.get(name)!),
    );
    return this.record(
      id,
      sourceOffset,
      new Struct(VALUE_SCHEMA)
        .put("status", "END")
        .put("id", id)
        .put("event_count", open.total)
        .put("data_collections", collections)
        .put("ts_ms", commitTime / 1000n),
    );
  }

  /** The offset keys of the open transaction (none between transactions), as Debezium stores them. */
  offsetFields(): Record<string, unknown> {
    const open = this.open;
    if (open === null) return {};
    const fields: Record<string, unknown> = { [OFFSET_TRANSACTION_ID]: String(open.xid) };
    for (const [table, count] of open.perTable) fields[OFFSET_COLLECTION_ORDER + table] = Number(count);
    return fields;
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

/** The transaction an offset was written in (Sluice's or Debezium's keys), with its counts so far. */
function storedTransaction(offset: Record<string, unknown> | null): OpenTransaction | null {
  const id = offset?.[OFFSET_TRANSACTION_ID];
  if (offset == null || (typeof id !== "string" && typeof id !== "number") || !/^\d+$/.test(String(id))) return null;
  const perTable = new Map<string, bigint>();
  let total = 0n;
  for (const [key, value] of Object.entries(offset)) {
    if (!key.startsWith(OFFSET_COLLECTION_ORDER)) continue;
    const count =
      typeof value === "bigint" ? value : typeof value === "number" && Number.isInteger(value) ? BigInt(value) : 0n;
    perTable.set(key.slice(OFFSET_COLLECTION_ORDER.length), count);
    total += count;
  }
  return { xid: BigInt(id), total, perTable };
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
