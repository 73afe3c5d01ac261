// Decoder of the messages PostgreSQL's built-in `pgoutput` plugin writes into each XLogData
// ("Logical Replication Message Formats" in the protocol docs). It covers a slot started without
// `streaming` and `two_phase`: then every protocol version (1-4) lays these messages out the same
// way, and the messages of streamed or prepared transactions never arrive, so they are refused.
import { pgMicrosToUnixMicros } from "./pg-epoch.ts";
import { ProtocolError, WireReader } from "./wire-reader.ts";

/** A TOASTed value the change did not touch: the server does not resend it. */
export const UNCHANGED_TOAST: unique symbol = Symbol("unchanged-toast");

/**
 * One column of a TupleData: null, UNCHANGED_TOAST, the type's text output (the default), or its
 * binary send format (only with the `binary` option). Plain values, so a row costs no object per column.
 */
export type TupleValue = null | typeof UNCHANGED_TOAST | string | Uint8Array;

export type Tuple = readonly TupleValue[];

/** pg_class.relreplident: which old values updates and deletes carry. */
export type ReplicaIdentity = "default" | "nothing" | "full" | "index";

export interface RelationColumn {
  readonly name: string;
  /** Part of the replica identity (the primary key, unless REPLICA IDENTITY says otherwise). */
  readonly isKey: boolean;
  readonly typeOid: number;
  /** atttypmod: -1 when the type has none, else type-specific (length, precision and scale). */
  readonly typeModifier: number;
}

export interface BeginMessage {
  readonly type: "begin";
  /** The transaction's commit LSN. */
  readonly finalLsn: bigint;
  /** Commit time, Unix microseconds. */
  readonly commitTime: bigint;
  readonly xid: number;
}

export interface CommitMessage {
  readonly type: "commit";
  readonly flags: number;
  readonly commitLsn: bigint;
  /** Where the transaction's WAL ends: confirming this LSN releases it. */
  readonly endLsn: bigint;
  readonly commitTime: bigint;
}

export interface OriginMessage {
  readonly type: "origin";
  /** The commit LSN on the origin server. */
  readonly originLsn: bigint;
  readonly name: string;
}

/** Sent before the first change of a relation in a session, and again when its definition changes. */
export interface RelationMessage {
  readonly type: "relation";
  readonly relationId: number;
  /** Empty for pg_catalog. */
  readonly namespace: string;
  readonly name: string;
  readonly replicaIdentity: ReplicaIdentity;
  readonly columns: readonly RelationColumn[];
}

/** Names a non-built-in type a later Relation refers to. */
export interface TypeMessage {
  readonly type: "type";
  readonly typeOid: number;
  readonly namespace: string;
  readonly name: string;
}

export interface InsertMessage {
  readonly type: "insert";
  readonly relationId: number;
  readonly newTuple: Tuple;
}

/** The old row of an update or delete: the replica-identity columns only ('K'), or all of them ('O'). */
export interface OldTuple {
  readonly kind: "key" | "full";
  readonly tuple: Tuple;
}

export interface UpdateMessage {
  readonly type: "update";
  readonly relationId: number;
  /** Null when the key did not change and the identity is not FULL. */
  readonly old: OldTuple | null;
  readonly newTuple: Tuple;
}

export interface DeleteMessage {
  readonly type: "delete";
  readonly relationId: number;
  readonly old: OldTuple;
}

export interface TruncateMessage {
  readonly type: "truncate";
  readonly cascade: boolean;
  readonly restartIdentity: boolean;
  readonly relationIds: readonly number[];
}

/** A pg_logical_emit_message() message. */
export interface LogicalMessage {
  readonly type: "message";
  readonly transactional: boolean;
  readonly lsn: bigint;
  readonly prefix: string;
  readonly content: Uint8Array;
}

export type PgOutputMessage =
  | BeginMessage
  | CommitMessage
  | OriginMessage
  | RelationMessage
  | TypeMessage
  | InsertMessage
  | UpdateMessage
  | DeleteMessage
  | TruncateMessage
  | LogicalMessage;

const REPLICA_IDENTITIES: Record<string, ReplicaIdentity> = { d: "default", n: "nothing", f: "full", i: "index" };

/** Message kinds of streamed (protocol 2+) and two-phase (3+) transactions, which need options this decoder never sets. */
const UNREQUESTED: Record<string, string> = {
  S: "Stream Start",
  E: "Stream Stop",
  c: "Stream Commit",
  A: "Stream Abort",
  b: "Begin Prepare",
  P: "Prepare",
  K: "Commit Prepared",
  r: "Rollback Prepared",
  p: "Stream Prepare",
};

/** One reader for every message: decoding is synchronous, and the stream is decoded a message at a time. */
const reader = new WireReader(new Uint8Array(0));

/** Decodes the `data` of one XLogData written by pgoutput. */
export function decodePgOutput(data: Uint8Array): PgOutputMessage {
  reader.reset(data);
  const kind = reader.char();
  const message = decodeBody(kind, reader);
  reader.end(`pgoutput message '${kind}'`);
  return message;
}

function decodeBody(kind: string, reader: WireReader): PgOutputMessage {
  switch (kind) {
    case "B":
      return {
        type: "begin",
        finalLsn: reader.uint64(),
        commitTime: pgMicrosToUnixMicros(reader.int64()),
        xid: reader.uint32(),
      };
    case "C":
      return {
        type: "commit",
        flags: reader.uint8(),
        commitLsn: reader.uint64(),
        endLsn: reader.uint64(),
        commitTime: pgMicrosToUnixMicros(reader.int64()),
      };
    case "O":
      return { type: "origin", originLsn: reader.uint64(), name: reader.cstring() };
    case "R":
      return decodeRelation(reader);
    case "Y":
      return { type: "type", typeOid: reader.uint32(), namespace: reader.cstring(), name: reader.cstring() };
    case "I": {
      const relationId = reader.uint32();
      expectKind(reader, "N", "Insert");
      return { type: "insert", relationId, newTuple: decodeTuple(reader) };
    }
    case "U": {
      const relationId = reader.uint32();
      let marker = reader.char();
      let old: OldTuple | null = null;
      if (marker === "K" || marker === "O") {
        old = { kind: marker === "K" ? "key" : "full", tuple: decodeTuple(reader) };
        marker = reader.char();
      }
      if (marker !== "N") throw new ProtocolError(`Update: expected 'N' before the new tuple, got '${marker}'`);
      return { type: "update", relationId, old, newTuple: decodeTuple(reader) };
    }
    case "D": {
      const relationId = reader.uint32();
      const marker = reader.char();
      if (marker !== "K" && marker !== "O") throw new ProtocolError(`Delete: expected 'K' or 'O', got '${marker}'`);
      return { type: "delete", relationId, old: { kind: marker === "K" ? "key" : "full", tuple: decodeTuple(reader) } };
    }
    case "T": {
      const count = reader.uint32();
      const options = reader.uint8();
      const relationIds: number[] = [];
      for (let i = 0; i < count; i++) relationIds.push(reader.uint32());
      return { type: "truncate", cascade: (options & 1) !== 0, restartIdentity: (options & 2) !== 0, relationIds };
    }
    case "M": {
      const transactional = (reader.uint8() & 1) !== 0;
      const lsn = reader.uint64();
      const prefix = reader.cstring();
      return { type: "message", transactional, lsn, prefix, content: reader.bytesOf(reader.int32()) };
    }
    default: {
      const name = UNREQUESTED[kind];
      if (name)
        throw new ProtocolError(`pgoutput sent a ${name} message, but streaming and two_phase were not requested`);
      throw new ProtocolError(`Unknown pgoutput message '${kind}'`);
    }
  }
}

function decodeRelation(reader: WireReader): RelationMessage {
  const relationId = reader.uint32();
  const namespace = reader.cstring();
  const name = reader.cstring();
  const identity = reader.char();
  const replicaIdentity = REPLICA_IDENTITIES[identity];
  if (!replicaIdentity)
    throw new ProtocolError(`Relation ${namespace}.${name}: unknown replica identity '${identity}'`);
  const count = reader.int16();
  const columns: RelationColumn[] = [];
  for (let i = 0; i < count; i++) {
    const flags = reader.uint8();
    columns.push({
      isKey: (flags & 1) !== 0,
      name: reader.cstring(),
      typeOid: reader.uint32(),
      typeModifier: reader.int32(),
    });
  }
  return { type: "relation", relationId, namespace, name, replicaIdentity, columns };
}

function decodeTuple(reader: WireReader): Tuple {
  const count = reader.int16();
  if (count < 0) throw new ProtocolError(`Negative column count ${count} in a tuple`);
  const values = new Array<TupleValue>(count);
  for (let i = 0; i < count; i++) {
    const kind = reader.uint8();
    switch (kind) {
      case 0x6e: // 'n'
        values[i] = null;
        break;
      case 0x75: // 'u'
        values[i] = UNCHANGED_TOAST;
        break;
      case 0x74: // 't'
        values[i] = reader.text(reader.int32());
        break;
      case 0x62: // 'b'
        values[i] = reader.bytesOf(reader.int32());
        break;
      default:
        throw new ProtocolError(`Unknown tuple column kind '${String.fromCharCode(kind)}' in column ${i}`);
    }
  }
  return values;
}

function expectKind(reader: WireReader, expected: string, what: string): void {
  const kind = reader.char();
  if (kind !== expected) throw new ProtocolError(`${what}: expected '${expected}', got '${kind}'`);
}
