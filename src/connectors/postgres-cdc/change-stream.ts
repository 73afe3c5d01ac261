// Turns the pgoutput stream into Debezium change records: tracks the open transaction, keeps the
// relation cache (a Relation message arrives before a table's first change and again after its
// definition changed, e.g. ALTER TABLE ... ADD COLUMN), and stamps each record with the offset a
// restart would resume from.
import type { Sql } from "postgres";
import type { ConnectHeader, SourceRecord } from "../../connect/api/records.ts";
import { tableOfRelation, rowOf, type CaptureOptions, type CapturedTable } from "./captured-table.ts";
import { describeTable, type TableName } from "./catalog.ts";
import { capturesTable } from "./config.ts";
import { changeRecords, type Operation, type Row } from "./envelope.ts";
import {
  sourcePartition,
  streamingOffset,
  type MessageType,
  type StoredOffset,
  type StreamingPosition,
} from "./offsets.ts";
import { decodePgOutput, type OldTuple, type RelationMessage } from "./pgoutput.ts";
import type { XLogData } from "./replication-stream.ts";
import { nowUnixMicros } from "./pg-epoch.ts";
import { signalOfRow } from "./signals/source-channel.ts";
import type { Signal } from "./signals/signal.ts";
import type { TransactionMetadata } from "./transaction-metadata.ts";

/** Where a signal was found in the stream, for the records its action hands on. */
export interface SignalPoint {
  readonly offset: Record<string, unknown>;
  readonly lastCommitLsn: bigint | null;
  readonly lsn: bigint;
}

/** What the stream tells the signalling machinery (signal.data.collection with the source channel; read.only). */
export interface StreamSignals {
  /** signal.data.collection (null: none read from the stream): captured whatever the filters say, as Debezium's. */
  readonly table: TableName | null;
  /** Acts on a signal inserted into the table; answers records to hand on before the insert's own. */
  signal(signal: Signal, at: SignalPoint): Promise<SourceRecord[]>;
  /**
   * A change of `table` (`schema.table`) in transaction `xid` with these event key values (for the
   * incremental snapshot's window); answers records to hand on before the change's own.
   */
  changed(
    table: string,
    keys: readonly (readonly (string | null)[])[],
    xid: bigint,
    at: SignalPoint,
  ): Promise<SourceRecord[]>;
  /** Transaction `xid` committed; answers records to hand on after its end. */
  committed(xid: bigint, at: SignalPoint): Promise<SourceRecord[]>;
  /** Fields every offset carries (the incremental snapshot's progress). */
  offsetFields(): Record<string, unknown>;
}

export interface ChangeStreamOptions extends CaptureOptions {
  readonly version: string;
  readonly database: string;
  readonly tombstonesOnDelete: boolean;
  readonly skippedOperations: ReadonlySet<string>;
  /** On every change record (extended.headers.enabled). */
  readonly headers: readonly ConnectHeader[];
  /** Hears each change event handed on, with its transaction's commit time (Unix microseconds). */
  readonly onEvent: (commitTime: bigint) => void;
  readonly signals?: StreamSignals | null;
  /** provide.transaction.metadata: BEGIN/END records and the events' transaction blocks. */
  readonly transactions?: TransactionMetadata | null;
}

const MESSAGE_TYPES: Record<Exclude<Operation, "r">, MessageType> = {
  c: "INSERT",
  u: "UPDATE",
  d: "DELETE",
  t: "TRUNCATE",
};

export class ChangeStream {
  /** By relation id; null for a table the filters leave out. */
  private readonly relations = new Map<number, CapturedTable | null>();
  private transaction: { readonly xid: bigint; readonly commitTime: bigint } | null = null;
  /** Everything before this was handed on: records of later transactions may restart from here. */
  private lastCommitEnd: bigint;
  private lastTxId: bigint | null = null;
  private lastCommitTime = 0n;
  /** The LSN of the last change message and how many in a row had it (lsn_events_processed; 0 after a commit). */
  private eventLsn: bigint | null = null;
  private eventsAtLsn = 0;

  constructor(
    private readonly sql: Sql,
    private readonly options: ChangeStreamOptions,
    start: bigint,
    /** From the stored offset: changes up to it were handed on before the restart. */
    private readonly resumed: StoredOffset["lastChange"],
    /**
     * Where the events' `sequence` starts: as Debezium's, the position of the last Commit message
     * received (null until the first one after a snapshot; after a restart, the stored lsn_commit).
     * Unlike lastCommitEnd, keepalives do not move it, nor do transactions pgoutput leaves out.
     */
    private lastCommitLsn: bigint | null = null,
  ) {
    this.lastCommitEnd = start;
  }

  /** The records of one XLogData (none for most messages). */
  async records(x: XLogData): Promise<SourceRecord[]> {
    const message = decodePgOutput(x.data);
    switch (message.type) {
      case "begin": {
        const transaction = { xid: BigInt(message.xid), commitTime: message.commitTime };
        this.transaction = transaction;
        // Resent after a restart, the BEGIN counts among the messages at the stored change's LSN when it has
        // that LSN (a COPY's first rows share the BEGIN's), as Debezium's WalPositionLocator counts it:
        // with lsn_events_processed > 1 that repeats the last row handed on, as Debezium does.
        if (this.resumed?.txId === transaction.xid && this.resumed.lsn === x.walStart) this.countEvent(x.walStart);
        // The BEGIN record's offset as Debezium's: the transaction's own position, where none of it went yet.
        const begin = this.options.transactions?.begin(
          transaction.xid,
          x.walStart,
          transaction.commitTime,
          this.offsetAt({
            lsnCommit: this.inTransactionCommitLsn(),
            lsn: x.walStart,
            txId: transaction.xid,
            tsUsec: transaction.commitTime,
            messageType: "BEGIN",
          }),
        );
        return begin ? [begin] : [];
      }
      case "commit": {
        if (message.endLsn > this.lastCommitEnd) this.lastCommitEnd = message.endLsn;
        this.lastCommitLsn = x.walStart;
        this.lastTxId = this.transaction?.xid ?? null;
        this.lastCommitTime = message.commitTime;
        this.transaction = null;
        this.eventLsn = null;
        this.eventsAtLsn = 0;
        const end = this.options.transactions?.commit(
          x.walStart,
          message.commitTime,
          this.offsetAt({
            lsnCommit: this.lastCommitEnd,
            lsn: this.lastCommitEnd,
            txId: this.lastTxId,
            tsUsec: this.lastCommitTime,
            messageType: "COMMIT",
          }),
        );
        const committed =
          this.lastTxId === null
            ? undefined
            : await this.options.signals?.committed(this.lastTxId, {
                offset: this.position(),
                lastCommitLsn: this.lastCommitLsn,
                lsn: x.walStart,
              });
        return [...(end ? [end] : []), ...(committed ?? [])];
      }
      case "relation":
        this.relations.set(message.relationId, await this.capture(message));
        return [];
      case "insert":
        this.countEvent(x.walStart);
        return this.change("c", message.relationId, x.walStart, null, message.newTuple);
      case "update":
        this.countEvent(x.walStart);
        return this.change("u", message.relationId, x.walStart, message.old, message.newTuple);
      case "delete":
        this.countEvent(x.walStart);
        return this.change("d", message.relationId, x.walStart, message.old, null);
      case "truncate": {
        const records: SourceRecord[] = [];
        for (const id of message.relationIds) {
          this.countEvent(x.walStart);
          records.push(...(await this.event("t", id, x.walStart, null, null)));
        }
        return records;
      }
      default:
        // Type, Origin and logical-decoding messages carry nothing Debezium's events hold.
        return [];
    }
  }

  /** Whether a transaction's messages are under way (a record carrying position() would point before its changes). */
  get inTransaction(): boolean {
    return this.transaction !== null;
  }

  /** A keepalive: between transactions, the server has sent everything before `walEnd`. */
  keepalive(walEnd: bigint): void {
    if (this.transaction === null && walEnd > this.lastCommitEnd) this.lastCommitEnd = walEnd;
  }

  /** The offset of a record carrying no change (a heartbeat): resume after everything handled. */
  position(): Record<string, unknown> {
    return {
      ...this.offsetAt({
        lsnCommit: this.lastCommitEnd,
        lsn: this.lastCommitEnd,
        txId: this.lastTxId,
        tsUsec: this.lastCommitTime,
      }),
      // As Debezium's, whose offsets always hold its transaction context (empty between transactions).
      ...this.options.transactions?.offsetFields(),
    };
  }

  /**
   * lsn_commit of a transaction's records, as Debezium's: the last Commit message received (streaming
   * resumes there and the transaction comes again), not a keepalive's position since, which may lie
   * within the transaction's WAL.
   */
  private inTransactionCommitLsn(): bigint {
    return this.lastCommitLsn ?? this.lastCommitEnd;
  }

  private offsetAt(p: StreamingPosition): Record<string, unknown> {
    return { ...streamingOffset(p), ...this.options.signals?.offsetFields() };
  }

  /** Counts a change message at `lsn` (Debezium counts those of tables the filters leave out too). */
  private countEvent(lsn: bigint): void {
    if (this.eventLsn === lsn) this.eventsAtLsn++;
    else {
      this.eventLsn = lsn;
      this.eventsAtLsn = 1;
    }
  }

  /**
   * After a restart the server resends the transaction that was under way: what was handed on is skipped,
   * up to the stored change; at its LSN, as Debezium's, the stored number of changes if more than one, else all.
   */
  private handedOn(xid: bigint, lsn: bigint): boolean {
    const resumed = this.resumed;
    if (resumed === null || xid !== resumed.txId || lsn > resumed.lsn) return false;
    return lsn < resumed.lsn || resumed.eventsAtLsn <= 1 || this.eventsAtLsn <= resumed.eventsAtLsn;
  }

  private isSignalTable(schema: string, table: string): boolean {
    const signalTable = this.options.signals?.table;
    return signalTable != null && signalTable.schema === schema && signalTable.table === table;
  }

  private async capture(relation: RelationMessage): Promise<CapturedTable | null> {
    if (
      !capturesTable(this.options.filters, relation.namespace, relation.name) &&
      !this.isSignalTable(relation.namespace, relation.name)
    )
      return null;
    return tableOfRelation(
      relation,
      await describeTable(this.sql, { schema: relation.namespace, table: relation.name }),
      this.options,
    );
  }

  private async change(
    op: "c" | "u" | "d",
    relationId: number,
    lsn: bigint,
    old: OldTuple | null,
    newTuple: OldTuple["tuple"] | null,
  ): Promise<SourceRecord[]> {
    const table = this.relations.get(relationId);
    if (!table) return [];
    return this.event(
      op,
      relationId,
      lsn,
      old === null ? null : rowOf(table, old.tuple),
      newTuple === null ? null : rowOf(table, newTuple),
      [old?.tuple, newTuple].flatMap((tuple) => (tuple ? [keyTexts(table, tuple)] : [])),
    );
  }

  private async event(
    op: Exclude<Operation, "r">,
    relationId: number,
    lsn: bigint,
    before: Row | null,
    after: Row | null,
    keys: readonly (readonly (string | null)[])[] = [],
  ): Promise<SourceRecord[]> {
    const table = this.relations.get(relationId);
    const transaction = this.transaction;
    if (!table || transaction === null) return [];
    if (this.handedOn(transaction.xid, lsn)) return [];
    const eventsAtLsn = this.eventsAtLsn;
    const offsetOf = () =>
      this.offsetAt({
        lsnCommit: this.inTransactionCommitLsn(),
        lsn,
        txId: transaction.xid,
        tsUsec: transaction.commitTime,
        messageType: MESSAGE_TYPES[op],
        eventsAtLsn,
      });
    // As Debezium's: a signal acts before its own record goes, so that record's offset holds its effect.
    const signals = this.options.signals;
    const signalled: SourceRecord[] = [];
    if (signals && op === "c" && after !== null && this.isSignalTable(table.schema, table.table)) {
      const signal = signalOfRow(table.schemas.columns, after);
      if (signal !== null)
        signalled.push(
          ...(await signals.signal(signal, {
            offset: streamingOffset({
              lsnCommit: this.lastCommitEnd,
              lsn,
              txId: transaction.xid,
              tsUsec: transaction.commitTime,
              messageType: MESSAGE_TYPES[op],
            }),
            lastCommitLsn: this.lastCommitLsn,
            lsn,
          })),
        );
    }
    if (this.options.skippedOperations.has(op)) return signalled;
    // A record before this change resumes at its transaction's start (position()), so the change is not skipped.
    const windowed = signals
      ? await signals.changed(`${table.schema}.${table.table}`, keys, transaction.xid, {
          offset: this.position(),
          lastCommitLsn: this.lastCommitLsn,
          lsn,
        })
      : [];
    this.options.onEvent(transaction.commitTime);
    const transactions = this.options.transactions;
    const offset = offsetOf();
    return [
      ...signalled,
      ...windowed,
      ...changeRecords(
        table.schemas,
        {
          op,
          before,
          after,
          source: {
            version: this.options.version,
            name: this.options.topicPrefix,
            db: this.options.database,
            schema: table.schema,
            table: table.table,
            timestamp: transaction.commitTime,
            lastCommitLsn: this.lastCommitLsn,
            lsn,
            txId: transaction.xid,
          },
          processedAt: nowUnixMicros(),
        },
        {
          sourcePartition: sourcePartition(this.options.topicPrefix),
          sourceOffset: offset,
          tombstonesOnDelete: this.options.tombstonesOnDelete,
          headers: this.options.headers,
          ...(transactions
            ? {
                transactionBlock: () => transactions.event(`${table.schema}.${table.table}`, lsn),
                offsetFields: () => transactions.offsetFields(),
              }
            : {}),
        },
      ),
    ];
  }
}

/** The event key's values of a tuple as PostgreSQL prints them (what a chunk's query reads for the same row). */
function keyTexts(table: CapturedTable, tuple: OldTuple["tuple"]): (string | null)[] {
  const keyNames = table.schemas.keySchema?.fields.map((f) => f.name) ?? [];
  return keyNames.map((name) => {
    const value = tuple[table.columns.findIndex((c) => c?.name === name)];
    return typeof value === "string" ? value : null;
  });
}
