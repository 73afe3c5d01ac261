import { describe, expect, test } from "bun:test";
import { readOffset, snapshotOffset, streamingOffset } from "#src/connectors/postgres-cdc/offsets.ts";

describe("postgres-cdc offsets", () => {
  test("a streaming offset resumes at its last commit and names the last change", () => {
    const offset = streamingOffset({ lsnCommit: 100n, lsn: 150n, txId: 7n, tsUsec: 1n, messageType: "INSERT" });
    expect(offset).toEqual({ lsn_proc: 150, lsn_commit: 100, lsn: 150, txId: 7, ts_usec: 1, messageType: "INSERT" });
    expect(readOffset(offset)).toEqual({
      snapshotIncomplete: false,
      resumeLsn: 100n,
      lastChange: { txId: 7n, lsn: 150n, eventsAtLsn: 0 },
      lastCommitLsn: 100n,
    });
  });

  test("lsn_events_processed: the changes handed on at the last change's LSN", () => {
    const offset = streamingOffset({
      lsnCommit: 100n,
      lsn: 150n,
      txId: 7n,
      tsUsec: 1n,
      messageType: "INSERT",
      eventsAtLsn: 3,
    });
    expect(offset.lsn_events_processed).toBe(3);
    expect(readOffset(offset)?.lastChange).toEqual({ txId: 7n, lsn: 150n, eventsAtLsn: 3 });
    // 0 (between transactions) is left out, as Debezium leaves it out.
    expect(streamingOffset({ lsnCommit: 100n, lsn: 100n, txId: 7n, tsUsec: 1n })).not.toHaveProperty(
      "lsn_events_processed",
    );
  });

  test("a BEGIN's offset names no change: none of its transaction was handed on", () => {
    const offset = streamingOffset({ lsnCommit: 100n, lsn: 120n, txId: 8n, tsUsec: 1n, messageType: "BEGIN" });
    expect(readOffset(offset)).toEqual({
      snapshotIncomplete: false,
      resumeLsn: 100n,
      lastChange: null,
      lastCommitLsn: 100n,
    });
  });

  test("a snapshot is complete only at its last record", () => {
    expect(readOffset(snapshotOffset(50n, 3n, 1n, false))?.snapshotIncomplete).toBe(true);
    expect(readOffset(snapshotOffset(50n, 3n, 1n, true))).toEqual({
      snapshotIncomplete: false,
      resumeLsn: 50n,
      lastChange: null,
      lastCommitLsn: null,
    });
  });

  test("no offset, or one without an LSN, is none", () => {
    expect(readOffset(null)).toBeNull();
    expect(readOffset({ txId: 1 })).toBeNull();
  });
});
