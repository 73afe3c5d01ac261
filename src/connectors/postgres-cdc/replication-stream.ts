// The streaming replication sub-protocol inside CopyBoth: what the walsender sends in each CopyData
// (XLogData 'w' carrying a pgoutput message, or a Primary keepalive 'k'), and the Standby status
// update 'r' the client answers with. The LSNs in that update are how the slot learns what it may
// recycle, so the client must only report what it has durably handed on.
import { pgMicrosToUnixMicros, unixMicrosToPgMicros } from "./pg-epoch.ts";
import { ProtocolError, WireReader } from "./wire-reader.ts";

export interface XLogData {
  readonly type: "xlogdata";
  /** Where this message's WAL starts. */
  readonly walStart: bigint;
  /** The server's current end of WAL. */
  readonly walEnd: bigint;
  /** The server's clock when it sent this, in Unix microseconds. */
  readonly sendTime: bigint;
  /** The output plugin's message (for pgoutput: see pgoutput.ts). */
  readonly data: Uint8Array;
}

export interface PrimaryKeepalive {
  readonly type: "keepalive";
  readonly walEnd: bigint;
  readonly sendTime: bigint;
  /** The server disconnects after wal_sender_timeout unless the client answers soon. */
  readonly replyRequested: boolean;
}

export type ReplicationMessage = XLogData | PrimaryKeepalive;

/** One reader for every message (decoding is synchronous). */
const reader = new WireReader(new Uint8Array(0));

/** Decodes the payload of one CopyData message received during START_REPLICATION. */
export function decodeReplicationMessage(copyData: Uint8Array): ReplicationMessage {
  reader.reset(copyData);
  const kind = reader.char();
  switch (kind) {
    case "w":
      return {
        type: "xlogdata",
        walStart: reader.uint64(),
        walEnd: reader.uint64(),
        sendTime: pgMicrosToUnixMicros(reader.int64()),
        data: reader.rest(),
      };
    case "k": {
      const keepalive: PrimaryKeepalive = {
        type: "keepalive",
        walEnd: reader.uint64(),
        sendTime: pgMicrosToUnixMicros(reader.int64()),
        replyRequested: reader.uint8() === 1,
      };
      reader.end("Primary keepalive");
      return keepalive;
    }
    default:
      throw new ProtocolError(`Unknown replication message '${kind}' (0x${copyData[0]?.toString(16) ?? "??"})`);
  }
}

export interface StandbyStatus {
  /** Last WAL byte + 1 received and written (for a logical client: everything it has taken in). */
  readonly written: bigint;
  /** Last WAL byte + 1 flushed: the slot's confirmed_flush_lsn moves here. */
  readonly flushed: bigint;
  /** Last WAL byte + 1 applied. */
  readonly applied: bigint;
  /** The client's clock, in Unix microseconds. */
  readonly clock: bigint;
  /** Asks the server to answer with a keepalive at once. */
  readonly replyRequested: boolean;
}

/** The payload of the CopyData message carrying a Standby status update. */
export function encodeStandbyStatusUpdate(status: StandbyStatus): Uint8Array {
  const bytes = new Uint8Array(34);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, "r".charCodeAt(0));
  view.setBigUint64(1, status.written);
  view.setBigUint64(9, status.flushed);
  view.setBigUint64(17, status.applied);
  view.setBigInt64(25, unixMicrosToPgMicros(status.clock));
  view.setUint8(33, status.replyRequested ? 1 : 0);
  return bytes;
}
