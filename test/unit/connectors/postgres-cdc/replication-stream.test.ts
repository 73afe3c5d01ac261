import { describe, expect, test } from "bun:test";
import {
  decodeReplicationMessage,
  encodeStandbyStatusUpdate,
} from "#src/connectors/postgres-cdc/replication-stream.ts";
import { ProtocolError } from "#src/connectors/postgres-cdc/wire-reader.ts";
import { wire } from "./wire-bytes.ts";

// 2024-01-02T03:04:05.123456Z: Unix and PostgreSQL-epoch microseconds.
const UNIX_MICROS = 1_704_164_645_123_456n;
const PG_MICROS = UNIX_MICROS - 946_684_800_000_000n;

describe("replication stream framing", () => {
  test("XLogData: start, end, send time, then the plugin's bytes", () => {
    const payload = wire().char("B").uint64(1n).int64(0n).uint32(7).build();
    const message = decodeReplicationMessage(
      wire().char("w").uint64(0x16b374d848n).uint64(0x16b374d900n).int64(PG_MICROS).raw(payload).build(),
    );
    expect(message).toEqual({
      type: "xlogdata",
      walStart: 0x16b374d848n,
      walEnd: 0x16b374d900n,
      sendTime: UNIX_MICROS,
      data: payload,
    });
  });

  test("XLogData with an empty payload", () => {
    const message = decodeReplicationMessage(wire().char("w").uint64(1n).uint64(2n).int64(0n).build());
    expect(message.type === "xlogdata" && message.data.length).toBe(0);
  });

  test("Primary keepalive, with and without a reply request", () => {
    expect(
      decodeReplicationMessage(wire().char("k").uint64(0xffffffff00000001n).int64(PG_MICROS).uint8(1).build()),
    ).toEqual({
      type: "keepalive",
      walEnd: 0xffffffff00000001n,
      sendTime: UNIX_MICROS,
      replyRequested: true,
    });
    const quiet = decodeReplicationMessage(wire().char("k").uint64(5n).int64(-1n).uint8(0).build());
    expect(quiet).toMatchObject({ replyRequested: false, sendTime: 946_684_799_999_999n });
  });

  test("truncated, padded or unknown messages fail", () => {
    expect(() => decodeReplicationMessage(wire().char("k").uint64(5n).int64(0n).build())).toThrow(ProtocolError);
    expect(() => decodeReplicationMessage(wire().char("k").uint64(5n).int64(0n).uint8(0).uint8(0).build())).toThrow(
      /trailing/,
    );
    expect(() => decodeReplicationMessage(wire().char("w").uint64(1n).build())).toThrow(/truncated/);
    expect(() => decodeReplicationMessage(wire().char("x").build())).toThrow(/Unknown replication message 'x'/);
    expect(() => decodeReplicationMessage(new Uint8Array())).toThrow(ProtocolError);
  });

  test("Standby status update: 'r', three LSNs, the clock in the PostgreSQL epoch, the reply flag", () => {
    const bytes = encodeStandbyStatusUpdate({
      written: 0x16b374d848n,
      flushed: 0x16b374d800n,
      applied: 0x10n,
      clock: UNIX_MICROS,
      replyRequested: true,
    });
    expect(bytes).toEqual(
      wire().char("r").uint64(0x16b374d848n).uint64(0x16b374d800n).uint64(0x10n).int64(PG_MICROS).uint8(1).build(),
    );
    expect(bytes.length).toBe(34);
    expect(
      encodeStandbyStatusUpdate({ written: 0n, flushed: 0n, applied: 0n, clock: 0n, replyRequested: false })[33],
    ).toBe(0);
  });
});
