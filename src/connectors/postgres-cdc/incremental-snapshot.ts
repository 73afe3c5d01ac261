// Debezium's incremental snapshot (the watermark algorithm of DBLog), driven from the stream: an
// execute-snapshot signal queues tables; each chunk is read between an open and a close watermark
// written into the signalling table; while the stream is between the two, every change of a key of the
// chunk drops that row from it (the change is newer); when the close watermark comes back through the
// WAL, the rows left are handed on as `op: r` records and the next chunk is read. Progress is kept in
// the offsets under Debezium's keys and encoding, so either connector resumes the other's snapshot
// after the last row handed on. With read.only=true nothing is written: the watermarks are
// pg_current_snapshot() and the stream's transaction ids close the window (read-only-window.ts).
import type { Sql } from "postgres";
import type { ConnectHeader, SourceRecord } from "../../connect/api/records.ts";
import { logger } from "../../platform/log.ts";
import { rowOf, tableOfCatalog, type CaptureOptions, type CapturedTable } from "./captured-table.ts";
import { capturedTables, describeTable, resultTypes, type TableName } from "./catalog.ts";
import { capturesTable } from "./config.ts";
import { changeRecords } from "./envelope.ts";
import { decodeKey, encodeKey, javaKindOf, type KeyClass, type KeyValue } from "./incremental-snapshot-key.ts";
import {
  ChunkWindow,
  chunkQuery,
  maximumKeyQuery,
  rowCountQuery,
  windowKey,
  type ChunkTable,
} from "./incremental-snapshot-query.ts";
import { sourcePartition } from "./offsets.ts";
import { nowUnixMicros } from "./pg-epoch.ts";
import type { Tuple } from "./pgoutput.ts";
import { parsePgSnapshot, ReadOnlyWindow } from "./read-only-window.ts";
import { quoteIdentifier } from "./replication-connection.ts";
import type { Signal } from "./signals/signal.ts";

const log = logger("postgres-cdc");

export const OPEN_WINDOW = "snapshot-window-open";
export const CLOSE_WINDOW = "snapshot-window-close";

/** How long a read-only open watermark waits for the transactions streamed to be visible: 100 × 5 ms. */
const STREAMED_VISIBLE_ATTEMPTS = 100;
const STREAMED_VISIBLE_WAIT_MS = 5;

const PRIMARY_KEY = "incremental_snapshot_primary_key";
const MAXIMUM_KEY = "incremental_snapshot_maximum_key";
const COLLECTIONS = "incremental_snapshot_collections";
const CORRELATION_ID = "incremental_snapshot_correlation_id";

/** One table queued for the snapshot, as the offsets keep it. */
export interface DataCollection {
  /** `schema.table` */
  readonly id: string;
  /** The signal's additional condition ("" when none). */
  readonly condition: string;
  /** The signal's surrogate-key ("" when none). */
  readonly surrogateKey: string;
  /** The id of the signal that asked for it (null in offsets of Debezium before 3.x). */
  readonly correlationId: string | null;
}

/** Debezium's incremental_snapshot_collections: a JSON list of the tables still to read, the current one first. */
export function collectionsToJson(collections: readonly DataCollection[]): string {
  return JSON.stringify(
    collections.map((c) => ({
      [`${COLLECTIONS}_id`]: c.id,
      [`${COLLECTIONS}_additional_condition`]: c.condition === "" ? null : c.condition,
      [`${COLLECTIONS}_surrogate_key`]: c.surrogateKey === "" ? null : c.surrogateKey,
      [`${COLLECTIONS}_correlation_id`]: c.correlationId,
    })),
  );
}

export function collectionsFromJson(json: string): DataCollection[] {
  const list = JSON.parse(json) as Record<string, string | null>[];
  return list.map((c) => ({
    id: c[`${COLLECTIONS}_id`] ?? "",
    condition: c[`${COLLECTIONS}_additional_condition`] ?? "",
    surrogateKey: c[`${COLLECTIONS}_surrogate_key`] ?? "",
    correlationId: c[`${COLLECTIONS}_correlation_id`] ?? null,
  }));
}

/** Where in the stream a signal was found: its event's offset and sequence positions. */
export interface StreamPoint {
  /** The signal event's streaming offset (without the incremental snapshot's fields). */
  readonly offset: Record<string, unknown>;
  readonly lastCommitLsn: bigint | null;
  readonly lsn: bigint;
}

/** Debezium's "Incremental Snapshot" notification points (type, additional_data). */
export type IncrementalNotify = (type: string, additionalData: Record<string, string>, id: string | null) => void;

export interface IncrementalSnapshotOptions {
  /** The connection chunks are read and watermarks written through. */
  readonly sql: () => Sql;
  readonly capture: CaptureOptions;
  /** signal.data.collection, where the watermarks go; null with read.only (watermarks from pg_current_snapshot()). */
  readonly signalTable: TableName | null;
  readonly chunkSize: number;
  readonly version: string;
  readonly database: string;
  readonly headers: readonly ConnectHeader[];
  readonly notify: IncrementalNotify;
}

/** The table being read: how to read its chunks and make its records. */
interface CurrentTable {
  readonly id: string;
  readonly captured: CapturedTable;
  readonly chunk: ChunkTable;
  /** Per selected column, its tuple position (-1: selected only for the chunk key). */
  readonly positions: readonly number[];
  /** Selected-column indexes of the event key (window) and of the chunk key, with the chunk key's Java classes. */
  readonly eventKey: readonly number[];
  readonly chunkKey: readonly number[];
  readonly chunkKinds: readonly KeyClass[];
}

interface WindowRow {
  readonly tuple: Tuple;
  readonly key: KeyValue[];
}

export class IncrementalSnapshot {
  private collections: DataCollection[] = [];
  private chunkEnd: KeyValue[] | null = null;
  private lastSent: KeyValue[] | null = null;
  private maximum: KeyValue[] | null = null;
  private correlationId: string | null = null;
  private chunkId: string | null = null;
  private windowOpen = false;
  private paused = false;
  private current: CurrentTable | null = null;
  private totalRowsScanned = 0;
  /** The current table's rows (counted when its turn comes; null until then) and chunks read of it, for notifications. */
  private tableRows: number | null = null;
  private chunkIndex = 0;
  private readonly window = new ChunkWindow<WindowRow>();
  /** With read.only: where the stream is relative to the chunk's watermarks. */
  private readonly readOnly: ReadOnlyWindow | null;

  constructor(private readonly options: IncrementalSnapshotOptions) {
    this.readOnly = options.signalTable === null ? new ReadOnlyWindow() : null;
  }

  /** Takes up the snapshot an offset (Sluice's or Debezium's) says is under way. */
  restore(offset: Record<string, unknown> | null): void {
    const collections = offset?.[COLLECTIONS];
    if (typeof collections !== "string") return;
    this.collections = collectionsFromJson(collections);
    const key = (name: string) => (typeof offset![name] === "string" ? decodeKey(offset![name] as string) : null);
    // Resumes after the last row handed on: the rest of its chunk is read again.
    this.chunkEnd = key(PRIMARY_KEY);
    this.maximum = key(MAXIMUM_KEY);
    this.correlationId = typeof offset![CORRELATION_ID] === "string" ? (offset![CORRELATION_ID] as string) : null;
  }

  get running(): boolean {
    return this.collections.length > 0;
  }

  /** The fields every record's offset carries while a snapshot runs (none otherwise). */
  offsetFields(): Record<string, unknown> {
    if (!this.running) return {};
    return {
      [PRIMARY_KEY]: encodeKey(this.lastSent),
      [MAXIMUM_KEY]: encodeKey(this.maximum),
      [COLLECTIONS]: collectionsToJson(this.collections),
      [CORRELATION_ID]: this.correlationId,
    };
  }

  /** At the task's start: a snapshot the offsets say is under way reads its next chunk. */
  async resume(): Promise<void> {
    if (!this.running) return;
    log.info(
      { collections: this.collections.map((c) => c.id) },
      "incremental snapshot in progress; reading the next chunk",
    );
    await this.readChunk();
  }

  /**
   * A change streamed for `table` (`schema.table`) in transaction `xid`, with these event key values: an
   * open window drops their rows. Read-only, the change may show the window closed: its rows are answered,
   * to go before the change, and the next chunk is read.
   */
  async changed(
    table: string,
    keys: readonly (readonly (string | null)[])[],
    xid: bigint,
    at: StreamPoint,
  ): Promise<SourceRecord[]> {
    const readOnly = this.readOnly;
    if (readOnly === null) {
      if (this.windowOpen) this.deduplicate(table, keys);
      return [];
    }
    readOnly.streamed(xid);
    readOnly.changeOf(xid);
    if (this.running && readOnly.closed) {
      const records = this.windowRecords(at);
      await this.readChunk();
      return records;
    }
    if (readOnly.deduplicating) this.deduplicate(table, keys);
    return [];
  }

  private deduplicate(table: string, keys: readonly (readonly (string | null)[])[]): void {
    if (this.window.size === 0 || this.current?.id !== table) return;
    for (const key of keys)
      if (this.window.remove(windowKey(key))) log.debug({ table, key }, "row removed from the snapshot window");
  }

  /**
   * Read-only: a transaction committed (`xid`), or the stream is idle after it: once the stream has caught
   * up with the chunk's read, its window closes and the next chunk is read; while the watermarks stay the
   * same (nothing runs in the database), chunk after chunk, until `room` records are there. `more`: there
   * would have been another chunk.
   */
  async caughtUp(
    xid: bigint | null,
    at: StreamPoint,
    room: number,
  ): Promise<{ records: SourceRecord[]; more: boolean }> {
    const readOnly = this.readOnly;
    const records: SourceRecord[] = [];
    if (readOnly === null) return { records, more: false };
    if (xid !== null) readOnly.streamed(xid);
    if (!this.running) return { records, more: false };
    if (xid !== null && readOnly.maxInProgressCommitted(xid)) {
      readOnly.close();
      records.push(...this.windowRecords(at));
      await this.readChunk();
      return { records, more: false };
    }
    while (this.running && readOnly.caughtUp(xid)) {
      if (records.length >= room) return { records, more: true };
      readOnly.close();
      records.push(...this.windowRecords(at));
      await this.readChunk();
      if (readOnly.watermarksChanged()) break;
    }
    return { records, more: false };
  }

  /** Whether watermarks come from pg_current_snapshot() (read.only) rather than the signalling table. */
  get readOnlyWatermarks(): boolean {
    return this.readOnly !== null;
  }

  /** Acts on a signal found at `at`; answers the records to hand on before the signal's own. */
  async signal(signal: Signal, at: StreamPoint): Promise<SourceRecord[]> {
    switch (signal.type) {
      case OPEN_WINDOW:
        if (this.expected(signal.id)) this.windowOpen = true;
        return [];
      case CLOSE_WINDOW: {
        if (!this.expected(signal.id)) return [];
        this.windowOpen = false;
        const records = this.windowRecords(at);
        await this.readChunk();
        return records;
      }
      case "execute-snapshot":
        await this.execute(signal);
        return [];
      case "stop-snapshot":
        return this.stop(signal);
      case "pause-snapshot":
        if (this.running && !this.paused) {
          log.info("pausing the incremental snapshot");
          this.paused = true;
          this.notify("PAUSED", { data_collections: this.ids() });
        }
        return [];
      case "resume-snapshot":
        if (this.running && this.paused) {
          log.info("resuming the incremental snapshot");
          this.paused = false;
          this.notify("RESUMED", { data_collections: this.ids() });
          await this.readChunk();
        }
        return [];
      default:
        return [];
    }
  }

  /** Watermarks of another chunk (one before a restart, or after a stop) are ignored. */
  private expected(id: string): boolean {
    if (this.chunkId !== null && id.startsWith(this.chunkId)) return true;
    log.info({ id, expected: this.chunkId }, "watermark of another chunk ignored");
    return false;
  }

  private ids(): string {
    return this.collections.map((c) => c.id).join(",");
  }

  private notify(type: string, data: Record<string, string>): void {
    this.options.notify(type, { ...data, connector_name: this.options.capture.topicPrefix }, this.correlationId);
  }

  private async execute(signal: Signal): Promise<void> {
    const data = signal.data ?? {};
    const type = typeof data.type === "string" ? data.type.toLowerCase() : "incremental";
    if (type !== "incremental") {
      log.warn({ id: signal.id, type }, "execute-snapshot of this type is not handled by the incremental snapshot");
      return;
    }
    const requested = Array.isArray(data["data-collections"])
      ? data["data-collections"].filter((c): c is string => typeof c === "string")
      : [];
    if (requested.length === 0) {
      log.warn({ id: signal.id }, "execute-snapshot without data-collections ignored");
      return;
    }
    const conditions = (Array.isArray(data["additional-conditions"]) ? data["additional-conditions"] : []).flatMap(
      (c) => {
        const { "data-collection": collection, filter } = (c ?? {}) as Record<string, unknown>;
        return typeof collection === "string" && typeof filter === "string"
          ? [{ pattern: new RegExp(`^(?:${collection})$`), filter }]
          : [];
      },
    );
    const surrogateKey = typeof data["surrogate-key"] === "string" ? data["surrogate-key"] : "";
    // As Debezium: each name is a regular expression over the captured tables; one matching none stays as given.
    const known = (await capturedTables(this.options.sql(), this.options.capture.filters)).map(
      (t) => `${t.schema}.${t.table}`,
    );
    const expanded = requested.flatMap((r) => {
      const pattern = new RegExp(`^(?:${r})$`);
      const matching = known.filter((id) => pattern.test(id));
      return matching.length > 0 ? matching : [r];
    });
    const wasRunning = this.running;
    this.collections.push(
      ...expanded.map((id) => ({
        id,
        condition: conditions.find((c) => c.pattern.test(id))?.filter ?? "",
        surrogateKey,
        correlationId: signal.id,
      })),
    );
    this.correlationId = signal.id;
    log.info({ collections: expanded, id: signal.id }, "incremental snapshot requested");
    if (!wasRunning) {
      this.notify("STARTED", { data_collections: this.ids() });
      this.notify("DATA_COLLECTIONS_RESOLVED", { data_collections: this.ids() });
      await this.readChunk();
    }
  }

  private stop(signal: Signal): SourceRecord[] {
    if (!this.running) {
      log.warn("no incremental snapshot running; stop-snapshot ignored");
      return [];
    }
    const data = signal.data ?? {};
    const named = Array.isArray(data["data-collections"])
      ? data["data-collections"].filter((c): c is string => typeof c === "string")
      : [];
    if (named.length === 0) {
      log.info("stopping the incremental snapshot");
      this.collections = [];
      this.resetChunk();
      this.window.clear();
      this.windowOpen = false;
      this.readOnly?.reset();
      this.notify("ABORTED", {});
      return [];
    }
    const ids = this.collections.map((c) => c.id);
    const expanded = named.flatMap((n) => {
      const pattern = new RegExp(`^(?:${n})$`);
      const matching = ids.filter((id) => pattern.test(id));
      return matching.length > 0 ? matching : [n];
    });
    log.info({ collections: expanded }, "removing tables from the incremental snapshot");
    const currentId = this.current?.id ?? this.collections[0]?.id;
    const stopCurrent = expanded.includes(currentId ?? "");
    this.collections = [this.collections[0]!, ...this.collections.slice(1).filter((c) => !expanded.includes(c.id))];
    if (stopCurrent) {
      this.window.clear();
      this.readOnly?.reset();
      this.nextCollection();
    }
    this.notify("ABORTED", { data_collections: expanded.join(",") });
    return [];
  }

  private resetChunk(): void {
    this.chunkEnd = null;
    this.lastSent = null;
    this.maximum = null;
    this.current = null;
    this.tableRows = null;
    this.chunkIndex = 0;
  }

  private nextCollection(): void {
    this.collections.shift();
    this.resetChunk();
    if (!this.running) {
      log.info("incremental snapshot completed");
      this.notify("COMPLETED", {});
      this.correlationId = null;
    }
  }

  /** The window's rows as `op: r` records, in key order; each one's offset names its key as the last sent. */
  private windowRecords(at: StreamPoint): SourceRecord[] {
    const table = this.current;
    const rows = this.window.drain();
    if (table === null) return [];
    const { version, database, headers, capture } = this.options;
    return rows.flatMap((row) => {
      this.lastSent = row.key;
      return changeRecords(
        table.captured.schemas,
        {
          op: "r",
          before: null,
          after: rowOf(table.captured, row.tuple),
          source: {
            version,
            name: capture.topicPrefix,
            db: database,
            schema: table.captured.schema,
            table: table.captured.table,
            timestamp: nowUnixMicros(),
            snapshot: "incremental",
            lastCommitLsn: at.lastCommitLsn,
            lsn: at.lsn,
            txId: null,
          },
          processedAt: nowUnixMicros(),
        },
        {
          sourcePartition: sourcePartition(capture.topicPrefix),
          sourceOffset: { ...at.offset, ...this.offsetFields() },
          tombstonesOnDelete: false,
          headers,
        },
      );
    });
  }

  /** Opens a window, reads the next chunk (moving on past finished tables) and closes the window. */
  private async readChunk(): Promise<void> {
    if (!this.running || this.paused) return;
    this.chunkId = crypto.randomUUID();
    const openedAt = new Date().toISOString();
    await this.watermark(`${this.chunkId}-open`, OPEN_WINDOW, { openWindowTimestamp: openedAt });
    while (this.running) {
      const collection = this.collections[0]!;
      const table = this.current ?? (await this.describe(collection));
      if (table === null) {
        this.nextCollection();
        continue;
      }
      this.current = table;
      const sql = this.options.sql();
      if (this.tableRows === null) {
        const [[count]] = (await sql.unsafe(rowCountQuery(table.chunk)).raw()) as unknown as [[Buffer]];
        this.tableRows = Number(count.toString("utf8"));
      }
      if (this.maximum === null) {
        const [max] = await sql.unsafe(maximumKeyQuery(table.chunk)).raw();
        if (max === undefined) {
          log.info({ table: table.id }, "incremental snapshot of an empty table finished");
          this.tableScanCompleted("EMPTY");
          this.nextCollection();
          continue;
        }
        this.maximum = this.keyOf(table, max as (Buffer | null)[]);
        log.info(
          { table: table.id, maximum: this.maximum.map((k) => k.text) },
          "incremental snapshot of the table will end at its current maximum key",
        );
      }
      const from = this.chunkEnd?.map((k) => k.text) ?? null;
      const rows = await sql
        .unsafe(
          chunkQuery(
            table.chunk,
            this.options.chunkSize,
            from,
            this.maximum.map((k) => k.text),
          ),
        )
        .raw();
      for (const raw of rows as unknown as (Buffer | null)[][]) {
        const tuple = new Array<Tuple[number]>(table.captured.columns.length).fill(null);
        table.positions.forEach((position, i) => {
          const value = raw[i];
          if (position >= 0 && value !== null && value !== undefined) tuple[position] = value.toString("utf8");
        });
        const text = (i: number) => raw[i]?.toString("utf8") ?? null;
        this.window.put(windowKey(table.eventKey.map(text)), { tuple, key: this.keyOf(table, raw) });
      }
      this.totalRowsScanned += rows.length;
      if (rows.length > 0) this.chunkEnd = this.keyOf(table, rows[rows.length - 1] as unknown as (Buffer | null)[]);
      if (this.window.size === 0) {
        log.info({ table: table.id }, "incremental snapshot of the table finished");
        this.tableScanCompleted("SUCCEEDED");
        this.nextCollection();
        continue;
      }
      this.chunkIndex++;
      this.notify("IN_PROGRESS", {
        data_collections: this.ids(),
        chunk_index: String(this.chunkIndex),
        total_chunks: String(Math.ceil(this.tableRows / this.options.chunkSize)),
        total_rows: String(this.tableRows),
        current_collection_in_progress: table.id,
        maximum_key: this.maximum.map((k) => k.text ?? "<null>").join(","),
        last_processed_key: (this.chunkEnd ?? []).map((k) => k.text ?? "<null>").join(","),
      });
      break;
    }
    await this.watermark(`${this.chunkId}-close`, CLOSE_WINDOW, {
      openWindowTimestamp: openedAt,
      closeWindowTimestamp: new Date().toISOString(),
    });
  }

  private tableScanCompleted(status: string): void {
    this.notify("TABLE_SCAN_COMPLETED", {
      data_collections: this.ids(),
      scanned_collection: this.collections[0]!.id,
      total_rows_scanned: String(this.totalRowsScanned),
      total_rows: String(this.tableRows ?? 0),
      status,
    });
  }

  private keyOf(table: CurrentTable, raw: readonly (Buffer | null)[]): KeyValue[] {
    return table.chunkKey.map((i, n) => ({ ...table.chunkKinds[n]!, text: raw[i]?.toString("utf8") ?? null }));
  }

  private async watermark(id: string, type: string, data: Record<string, string>): Promise<void> {
    const readOnly = this.readOnly;
    if (readOnly !== null) {
      // Read-only: the transactions running now, nothing written.
      const current = async () => {
        const [{ snapshot }] = await this.options.sql()<
          { snapshot: string }[]
        >`SELECT pg_current_snapshot()::text AS snapshot`;
        return parsePgSnapshot(snapshot);
      };
      if (type === CLOSE_WINDOW) return readOnly.setHigh(await current());
      let low = await current();
      // A transaction just streamed may not be visible yet (read-only-window.ts): in a moment it is.
      for (let attempt = 1; !readOnly.seesStreamed(low); attempt++) {
        if (attempt > STREAMED_VISIBLE_ATTEMPTS) {
          log.warn(
            { xmin: String(low.xmin), xmax: String(low.xmax) },
            "a streamed transaction is still not visible; reading the chunk anyway",
          );
          break;
        }
        await Bun.sleep(STREAMED_VISIBLE_WAIT_MS); // back-off until the committing session is done
        low = await current();
      }
      readOnly.setLow(low);
      return;
    }
    const { schema, table } = this.options.signalTable!;
    const payload = {
      ...data,
      ...(this.correlationId !== null ? { correlationId: this.correlationId } : {}),
      ...(this.collections[0] ? { dataCollectionId: this.collections[0].id } : {}),
    };
    // One statement, its own transaction: the watermark is in the WAL before the chunk is read.
    await this.options
      .sql()
      .unsafe(`INSERT INTO ${quoteIdentifier(schema)}.${quoteIdentifier(table)} VALUES ($1, $2, $3)`, [
        id,
        type,
        JSON.stringify(payload),
      ]);
  }

  /** The table as chunks read it; null (notified) for one that is not captured or has no key. */
  private async describe(collection: DataCollection): Promise<CurrentTable | null> {
    const dot = collection.id.indexOf(".");
    const name = { schema: collection.id.slice(0, dot), table: collection.id.slice(dot + 1) };
    const sql = this.options.sql();
    const catalog =
      dot > 0 && capturesTable(this.options.capture.filters, name.schema, name.table)
        ? await describeTable(sql, name)
        : null;
    if (catalog === null || catalog.columns.length === 0) {
      log.warn({ table: collection.id }, "incremental snapshot of a table that is not captured skipped");
      this.tableScanCompleted("UNKNOWN_SCHEMA");
      return null;
    }
    const captured = tableOfCatalog(name, catalog, this.options.capture);
    const primaryKey = catalog.columns.filter((c) => c.isPrimaryKey).map((c) => c.name);
    const keyColumns =
      collection.surrogateKey !== ""
        ? catalog.columns.filter((c) => c.name === collection.surrogateKey).map((c) => c.name)
        : primaryKey;
    if (primaryKey.length === 0 || keyColumns.length === 0) {
      log.warn({ table: collection.id }, "incremental snapshot of a table without primary key skipped");
      this.tableScanCompleted("NO_PRIMARY_KEY");
      return null;
    }
    const columns: string[] = [];
    const positions: number[] = [];
    captured.columns.forEach((c, i) => {
      if (c !== null) {
        columns.push(c.name);
        positions.push(i);
      }
    });
    for (const k of [...primaryKey, ...keyColumns])
      if (!columns.includes(k)) {
        columns.push(k);
        positions.push(-1);
      }
    // The Java class of each key column follows the type Debezium's query result reports (a domain's base type).
    const typeOf = new Map(catalog.columns.map((c) => [c.name, c.typeOid]));
    const types = await resultTypes(
      sql,
      keyColumns.map((k) => typeOf.get(k)!),
    );
    const classOf = (column: string) => {
      const type = types.get(typeOf.get(column)!);
      return type ? javaKindOf(type.oid, type.name, type.isEnum) : javaKindOf(typeOf.get(column)!);
    };
    return {
      id: collection.id,
      captured,
      chunk: { ...name, columns, keyColumns, condition: collection.condition },
      positions,
      eventKey: primaryKey.map((k) => columns.indexOf(k)),
      chunkKey: keyColumns.map((k) => columns.indexOf(k)),
      chunkKinds: keyColumns.map(classOf),
    };
  }
}
