// Turns the pgoutput stream into Debezium change records: tracks the open transaction, keeps the
// relation cache (a Relation message arrives before a table's first change and again after its
// definition changed, e.g. ALTER TABLE ... ADD COLUMN), and stamps each record with the offset a
// restart would resume from.
import type { Sql } from "postgres";
import type { ConnectHeader, SourceRecord } from "../../connect/api/records.ts";
import { tableOfRelation, rowOf, type CaptureOptions, type CapturedTable } from "./captured-table.ts";
import { describeTable } from "./catalog.ts";
import { capturesTable } from "./config.ts";
import { changeRecords, type Operation, type Row } from "./envelope.ts";
import { sourcePartition, streamingOffset, type MessageType, type StoredOffset } from "./offsets.ts";
import { decodePgOutput, type OldTuple, type RelationMessage } from "./pgoutput.ts";
import type { XLogData } from "./replication-stream.ts";
import { nowUnixMicros } from "./pg-epoch.ts";
import type { TransactionMetadata } from "./transaction-metadata.ts";

export interface ChangeStreamOptions extends CaptureOptions {
  readonly version: string;
  readonly database: string;
  readonly tombstonesOnDelete: boolean;
  readonly skippedOperations: ReadonlySet<string>;
  /** On every change record (extended.headers.enabled). */
  readonly headers: readonly ConnectHeader[];
  /** Hears each change event handed on, with its transaction's commit time (Unix microseconds). */
  readonly onEvent: (commitTime: bigint) => void;
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
        const begin = this.options.transactions?.begin(
          transaction.xid,
          x.walStart,
          transaction.commitTime,
          this.position(),
        );
        return begin ? [begin] : [];
      }
      case "commit": {
        if (message.endLsn > this.lastCommitEnd) this.lastCommitEnd = message.endLsn;
        this.lastCommitLsn = x.walStart;
        this.lastTxId = this.transaction?.xid ?? null;
        this.lastCommitTime = message.commitTime;
        this.transaction = null;
        const end = this.options.transactions?.commit(x.walStart, this.position());
        return end ? [end] : [];
      }
      case "relation":
        this.relations.set(message.relationId, await this.capture(message));
        return [];
      case "insert":
        return this.change("c", message.relationId, x.walStart, null, message.newTuple);
      case "update":
        return this.change("u", message.relationId, x.walStart, message.old, message.newTuple);
      case "delete":
        return this.change("d", message.relationId, x.walStart, message.old, null);
      case "truncate":
        return message.relationIds.flatMap((id) => this.event("t", id, x.walStart, null, null));
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
    return streamingOffset({
      lsnCommit: this.lastCommitEnd,
      lsn: this.lastCommitEnd,
      txId: this.lastTxId,
      tsUsec: this.lastCommitTime,
    });
  }

  private async capture(relation: RelationMessage): Promise<CapturedTable | null> {
    if (!capturesTable(this.options.filters, relation.namespace, relation.name)) return null;
    return tableOfRelation(
      relation,
      await describeTable(this.sql, { schema: relation.namespace, table: relation.name }),
      this.options,
    );
  }

  private change(
    op: "c" | "u" | "d",
    relationId: number,
    lsn: bigint,
    old: OldTuple | null,
    newTuple: OldTuple["tuple"] | null,
  ): SourceRecord[] {
    const table = this.relations.get(relationId);
    if (!table) return [];
    return this.event(
      op,
      relationId,
      lsn,
      old === null ? null : rowOf(table, old.tuple),
      newTuple === null ? null : rowOf(table, newTuple),
    );
  }

  private event(
    op: Exclude<Operation, "r">,
    relationId: number,
    lsn: bigint,
    before: Row | null,
    after: Row | null,
  ): SourceRecord[] {
    const table = this.relations.get(relationId);
    const transaction = this.transaction;
    if (!table || transaction === null || this.options.skippedOperations.has(op)) return [];
    // After a restart the server resends the transaction that was under way; what was handed on is skipped.
    if (this.resumed !== null && transaction.xid === this.resumed.txId && lsn <= this.resumed.lsn) return [];
    this.options.onEvent(transaction.commitTime);
    const transactions = this.options.transactions;
    const offset = streamingOffset({
      lsnCommit: this.lastCommitEnd,
      lsn,
      txId: transaction.xid,
      tsUsec: transaction.commitTime,
      messageType: MESSAGE_TYPES[op],
    });
    return changeRecords(
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
        ...(transactions ? { transactionBlock: () => transactions.event(`${table.schema}.${table.table}`, lsn) } : {}),
      },
    );
  }
}
