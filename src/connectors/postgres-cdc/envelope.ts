// Debezium's change events for PostgreSQL: per table a key struct (the key columns), a row struct,
// and the envelope {before, after, source, transaction, op, ts_ms, ts_us, ts_ns} around them, with
// the schema names, versions and field order Debezium uses, so consumers and sinks written for
// Debezium (ExtractNewRecordState, JDBC sinks, schema-registry subjects) read Sluice's topics as is.
import { type Field, SchemaBuilder, type Schema, Struct } from "../../connect/api/data/index.ts";
import type { ConnectHeader, SourceRecord } from "../../connect/api/records.ts";
import { sourceRecord } from "../../connect/api/records.ts";

export interface TableColumn {
  readonly name: string;
  /** From column-types.ts: the column's Connect schema. */
  readonly schema: Schema;
  /** In the event key (primary key, or replica identity index). */
  readonly isKey: boolean;
  /** False for a key column that column.include/exclude.list leave out: Debezium keeps it in the key only. */
  readonly inValue?: boolean;
  /** The key's field order when not the columns' (message.key.columns chose them). */
  readonly keyRank?: number;
  /** Its schema in the value when a column rule changed it (column-rules.ts); the key keeps `schema`. */
  readonly valueSchema?: Schema;
  /** A column rule's change to its value in `before` and `after` (never in the key). */
  readonly mapValue?: (value: unknown) => unknown;
}

export interface TableSchemas {
  /** `<topic.prefix>.<schema>.<table>` */
  readonly topic: string;
  /** Null for a table without key columns: its events have a null key. */
  readonly keySchema: Schema | null;
  readonly valueSchema: Schema;
  readonly envelopeSchema: Schema;
  /** The columns' names, in the order a Row holds their values. */
  readonly columns: readonly string[];
  /** Where a Row holds each field of the value and of the key, and each value field's column rule change. */
  readonly valueFields: readonly RowField[];
  readonly keyFields: readonly RowField[];
}

/** A field of a row's struct: its position in the Row, and the column rule's change to its value (value only). */
interface RowField {
  readonly field: Field;
  readonly at: number;
  readonly map?: (value: unknown) => unknown;
}

/** SnapshotRecord values, lower-cased as Debezium writes them. */
export const SNAPSHOT_MARKERS = [
  "true",
  "first",
  "first_in_data_collection",
  "last_in_data_collection",
  "last",
  "false",
  "incremental",
] as const;
export type SnapshotMarker = (typeof SNAPSHOT_MARKERS)[number];

/** io.debezium.connector.postgresql.Source, fields in Debezium's order. */
export const SOURCE_SCHEMA: Schema = SchemaBuilder.struct()
  .name("io.debezium.connector.postgresql.Source")
  .version(1)
  .field("version", SchemaBuilder.string())
  .field("connector", SchemaBuilder.string())
  .field("name", SchemaBuilder.string())
  .field("ts_ms", SchemaBuilder.int64())
  .field(
    "snapshot",
    SchemaBuilder.string()
      .name("io.debezium.data.Enum")
      .version(1)
      .parameter("allowed", SNAPSHOT_MARKERS.join(","))
      .optional()
      .defaultValue("false"),
  )
  .field("db", SchemaBuilder.string())
  .field("sequence", SchemaBuilder.string().optional())
  .field("ts_us", SchemaBuilder.int64().optional())
  .field("ts_ns", SchemaBuilder.int64().optional())
  .field("schema", SchemaBuilder.string())
  .field("table", SchemaBuilder.string())
  .field("txId", SchemaBuilder.int64().optional())
  .field("lsn", SchemaBuilder.int64().optional())
  .field("xmin", SchemaBuilder.int64().optional())
  .field("origin", SchemaBuilder.string().optional())
  .field("origin_lsn", SchemaBuilder.int64().optional())
  .build();

/** The envelope's `transaction` block (provide.transaction.metadata). */
const TRANSACTION_SCHEMA: Schema = SchemaBuilder.struct()
  .optional()
  .name("event.block")
  .version(1)
  .field("id", SchemaBuilder.string())
  .field("total_order", SchemaBuilder.int64())
  .field("data_collection_order", SchemaBuilder.int64())
  .build();

/**
 * The schemas of one table's events. Names are used as they come: Debezium's default
 * schema.name.adjustment.mode is `none`.
 */
export function tableSchemas(
  topicPrefix: string,
  schemaName: string,
  tableName: string,
  columns: readonly TableColumn[],
): TableSchemas {
  const topic = `${topicPrefix}.${schemaName}.${tableName}`;
  const key = SchemaBuilder.struct().name(`${topic}.Key`);
  const value = SchemaBuilder.struct().name(`${topic}.Value`);
  const keyColumns = columns
    .map((column, i) => ({ column, rank: column.keyRank ?? i }))
    .filter(({ column }) => column.isKey)
    .sort((a, b) => a.rank - b.rank);
  for (const { column } of keyColumns) key.field(column.name, column.schema);
  for (const column of columns)
    if (column.inValue !== false) value.field(column.name, column.valueSchema ?? column.schema);
  const valueSchema = value.optional().build();
  const keySchema = keyColumns.length > 0 ? key.build() : null;
  const at = (name: string) => columns.findIndex((c) => c.name === name);
  const envelopeSchema = SchemaBuilder.struct()
    .name(`${topic}.Envelope`)
    .version(2)
    .field("before", valueSchema)
    .field("after", valueSchema)
    .field("source", SOURCE_SCHEMA)
    .field("transaction", TRANSACTION_SCHEMA)
    .field("op", SchemaBuilder.string())
    .field("ts_ms", SchemaBuilder.int64().optional())
    .field("ts_us", SchemaBuilder.int64().optional())
    .field("ts_ns", SchemaBuilder.int64().optional())
    .build();
  return {
    topic,
    keySchema,
    valueSchema,
    envelopeSchema,
    columns: columns.map((c) => c.name),
    valueFields: valueSchema.fields.map((field) => {
      const i = at(field.name);
      const map = columns[i]!.mapValue;
      return { field, at: i, ...(map ? { map } : {}) };
    }),
    keyFields: keySchema === null ? [] : keySchema.fields.map((field) => ({ field, at: at(field.name) })),
  };
}

export interface SourceInfo {
  /** The version Debezium would print here; consumers read it as the producer's version. */
  readonly version: string;
  /** topic.prefix */
  readonly name: string;
  readonly db: string;
  readonly schema: string;
  readonly table: string;
  /** Commit time (snapshot: read time), Unix microseconds (after 1970: ts_ms truncates). */
  readonly timestamp: bigint;
  /** Omitted outside snapshots: the field's default, "false", applies. */
  readonly snapshot?: SnapshotMarker;
  readonly lastCommitLsn: bigint | null;
  readonly lsn: bigint | null;
  readonly txId: bigint | null;
  readonly xmin?: bigint | null;
  readonly origin?: string | null;
  readonly originLsn?: bigint | null;
}

/** SOURCE_SCHEMA's fields, looked up once (a record's structs are built field by field). */
const SOURCE = Object.fromEntries(SOURCE_SCHEMA.fields.map((f) => [f.name, f])) as Record<string, Field>;

export function sourceStruct(info: SourceInfo): Struct {
  const struct = new Struct(SOURCE_SCHEMA)
    .put(SOURCE.version!, info.version)
    .put(SOURCE.connector!, "postgresql")
    .put(SOURCE.name!, info.name)
    .put(SOURCE.ts_ms!, info.timestamp / 1000n)
    .put(SOURCE.snapshot!, info.snapshot ?? null)
    .put(SOURCE.db!, info.db)
    .put(SOURCE.sequence!, sequence(info.lastCommitLsn, info.lsn))
    .put(SOURCE.ts_us!, info.timestamp)
    .put(SOURCE.ts_ns!, info.timestamp * 1000n)
    .put(SOURCE.schema!, info.schema)
    .put(SOURCE.table!, info.table)
    .put(SOURCE.origin!, info.origin ?? null)
    .put(SOURCE.origin_lsn!, info.originLsn ?? null);
  // Incremental snapshots read outside any transaction, so Debezium leaves these out there.
  if (info.snapshot !== "incremental")
    struct
      .put(SOURCE.txId!, info.txId)
      .put(SOURCE.lsn!, info.lsn)
      .put(SOURCE.xmin!, info.xmin ?? null);
  return struct;
}

/** The `sequence` field: a JSON array of the last commit LSN and this event's LSN, as decimal strings. */
export function sequence(lastCommitLsn: bigint | null, lsn: bigint | null): string {
  // A snapshot's rows all share one: written once, not per row.
  if (lastCommitLsn === lastSequence.lastCommitLsn && lsn === lastSequence.lsn) return lastSequence.text;
  const text = (v: bigint | null) => (v === null ? "null" : `"${v}"`);
  lastSequence = { lastCommitLsn, lsn, text: `[${text(lastCommitLsn)},${text(lsn)}]` };
  return lastSequence.text;
}

let lastSequence = { lastCommitLsn: null as bigint | null, lsn: null as bigint | null, text: "[null,null]" };

export type Operation = "c" | "u" | "d" | "r" | "t";

/**
 * A row's Connect values in the order of its table's columns (TableSchemas.columns): positions, so that
 * its structs are filled without looking a column up by name.
 */
export type Row = readonly unknown[];

/** The Row of values given by column name (columns left out are null). */
export function namedRow(schemas: TableSchemas, values: Readonly<Record<string, unknown>>): Row {
  return schemas.columns.map((name) => values[name] ?? null);
}

export interface ChangeEvent {
  readonly op: Operation;
  readonly before: Row | null;
  readonly after: Row | null;
  readonly source: SourceInfo;
  readonly transaction?: {
    readonly id: string;
    readonly totalOrder: bigint;
    readonly dataCollectionOrder: bigint;
  } | null;
  /** When the connector handled the event (the envelope's ts_*), Unix microseconds. */
  readonly processedAt: bigint;
}

export interface RecordOptions {
  /** `{"server": topic.prefix}` */
  readonly sourcePartition: Record<string, unknown>;
  readonly sourceOffset: Record<string, unknown>;
  /** tombstones.on.delete: a null-valued record after each delete, so compaction can drop the key. */
  readonly tombstonesOnDelete: boolean;
  /** Headers every record of a change carries after its own (extended.headers.enabled: contextHeaders()). */
  readonly headers?: readonly ConnectHeader[];
  /**
   * provide.transaction.metadata: the `transaction` block of each record of the change but tombstones,
   * asked in the order they are written (a key change is two events, as in Debezium).
   */
  readonly transactionBlock?: () => ChangeEvent["transaction"];
  /** Fields added to each record's offset once its block is counted (the transaction's counts so far). */
  readonly offsetFields?: () => Record<string, unknown>;
}

/** The task a record came from, as Debezium's extended headers name it. */
export interface TaskContext {
  /** topic.prefix */
  readonly logicalName: string;
  readonly taskId: string;
  /** Made anew each time the task starts (a UUIDv7). */
  readonly runId: string;
}

const STRING_HEADER = SchemaBuilder.string().build();

/** Debezium's context headers (extended.headers.enabled), in its order. */
export function contextHeaders(task: TaskContext): ConnectHeader[] {
  return [
    { key: "__debezium.context.connectorLogicalName", schema: STRING_HEADER, value: task.logicalName },
    { key: "__debezium.context.taskId", schema: STRING_HEADER, value: task.taskId },
    { key: "__debezium.context.connectorName", schema: STRING_HEADER, value: "postgresql" },
    { key: "__debezium.context.runId", schema: STRING_HEADER, value: task.runId },
  ];
}

/**
 * The records of one change: the event itself; after a delete, its tombstone (with the delete's
 * headers, as Debezium's); and an update that changed the key becomes, as in Debezium, a delete of the
 * old key (header `__debezium.newkey`), its tombstone, and a create under the new key (header
 * `__debezium.oldkey`).
 */
export function changeRecords(schemas: TableSchemas, event: ChangeEvent, options: RecordOptions): SourceRecord[] {
  const row = (values: Row | null) =>
    values === null ? null : rowStruct(schemas.valueSchema, schemas.valueFields, values);
  const key = (values: Row | null) =>
    values === null || schemas.keySchema === null || event.op === "t"
      ? null
      : rowStruct(schemas.keySchema, schemas.keyFields, values);
  const record = (
    op: Operation,
    before: Row | null,
    after: Row | null,
    headers: ConnectHeader[] = [],
  ): SourceRecord => {
    const transaction = options.transactionBlock?.() ?? event.transaction;
    return sourceRecord({
      sourcePartition: options.sourcePartition,
      sourceOffset: options.offsetFields
        ? { ...options.sourceOffset, ...options.offsetFields() }
        : options.sourceOffset,
      topic: schemas.topic,
      // Truncates name no row: no key, and no key schema (a null struct would not convert).
      keySchema: op === "t" ? null : schemas.keySchema,
      key: key(op === "d" ? before : after),
      valueSchema: schemas.envelopeSchema,
      value: envelopeStruct(schemas.envelopeSchema, { ...event, op, transaction }, row(before), row(after)),
      headers: [...headers, ...(options.headers ?? [])],
    });
  };
  const tombstone = (deleted: SourceRecord): SourceRecord[] =>
    options.tombstonesOnDelete
      ? [sourceRecord({ ...deleted, valueSchema: null, value: null, headers: [...deleted.headers] })]
      : [];

  if (event.op === "u" && schemas.keySchema !== null && event.before !== null && event.after !== null) {
    const oldKey = key(event.before);
    const newKey = key(event.after);
    if (oldKey !== null && newKey !== null && !oldKey.equals(newKey)) {
      const deleted = record("d", event.before, null, [
        { key: "__debezium.newkey", schema: schemas.keySchema, value: newKey },
      ]);
      return [
        deleted,
        ...tombstone(deleted),
        record("c", null, event.after, [{ key: "__debezium.oldkey", schema: schemas.keySchema, value: oldKey }]),
      ];
    }
  }
  const main = record(event.op, event.before, event.after);
  return event.op === "d" ? [main, ...tombstone(main)] : [main];
}

/** Where the envelope schema (built in tableSchemas) has each field. */
const ENVELOPE = { before: 0, after: 1, source: 2, transaction: 3, op: 4, ts_ms: 5, ts_us: 6, ts_ns: 7 } as const;

function envelopeStruct(schema: Schema, event: ChangeEvent, before: Struct | null, after: Struct | null): Struct {
  const transaction = event.transaction
    ? new Struct(TRANSACTION_SCHEMA)
        .put("id", event.transaction.id)
        .put("total_order", event.transaction.totalOrder)
        .put("data_collection_order", event.transaction.dataCollectionOrder)
    : null;
  const fields = schema.fields;
  return new Struct(schema)
    .put(fields[ENVELOPE.before]!, before)
    .put(fields[ENVELOPE.after]!, after)
    .put(fields[ENVELOPE.source]!, sourceStruct(event.source))
    .put(fields[ENVELOPE.transaction]!, transaction)
    .put(fields[ENVELOPE.op]!, event.op)
    .put(fields[ENVELOPE.ts_ms]!, event.processedAt / 1000n)
    .put(fields[ENVELOPE.ts_us]!, event.processedAt)
    .put(fields[ENVELOPE.ts_ns]!, event.processedAt * 1000n);
}

function rowStruct(schema: Schema, fields: readonly RowField[], values: Row): Struct {
  const struct = new Struct(schema);
  for (const { field, at, map } of fields) {
    const value = values[at] ?? null;
    struct.put(field, map ? map(value) : value);
  }
  return struct;
}
