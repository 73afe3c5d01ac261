import { describe, expect, test } from "bun:test";
import { decodePgOutput, UNCHANGED_TOAST } from "#src/connectors/postgres-cdc/pgoutput.ts";
import { ProtocolError } from "#src/connectors/postgres-cdc/wire-reader.ts";
import { wire } from "./wire-bytes.ts";

const PG_EPOCH_UNIX_MICROS = 946_684_800_000_000n;
const COMMIT_PG_MICROS = 757_479_845_123_456n; // 2024-01-02T03:04:05.123456Z

describe("pgoutput messages", () => {
  test("Begin: final LSN, commit time, xid", () => {
    const bytes = wire().char("B").uint64(0x16b374d848n).int64(COMMIT_PG_MICROS).uint32(0xfffffff0).build();
    expect(decodePgOutput(bytes)).toEqual({
      type: "begin",
      finalLsn: 0x16b374d848n,
      commitTime: COMMIT_PG_MICROS + PG_EPOCH_UNIX_MICROS,
      xid: 0xfffffff0,
    });
  });

  test("Commit: flags, commit LSN, end LSN, commit time", () => {
    const bytes = wire().char("C").uint8(0).uint64(0x16b374d848n).uint64(0x16b374d878n).int64(COMMIT_PG_MICROS).build();
    expect(decodePgOutput(bytes)).toEqual({
      type: "commit",
      flags: 0,
      commitLsn: 0x16b374d848n,
      endLsn: 0x16b374d878n,
      commitTime: 1_704_164_645_123_456n,
    });
  });

  test("Origin: origin LSN and name", () => {
    expect(decodePgOutput(wire().char("O").uint64(42n).cstring("pg_16385").build())).toEqual({
      type: "origin",
      originLsn: 42n,
      name: "pg_16385",
    });
  });

  test("Relation: namespace, name, replica identity and columns with key flag, type OID and modifier", () => {
    const bytes = wire()
      .char("R")
      .uint32(16385)
      .cstring("public")
      .cstring("çustomers")
      .char("d")
      .int16(3)
      .uint8(1)
      .cstring("id")
      .uint32(23)
      .int32(-1)
      .uint8(0)
      .cstring("price")
      .uint32(1700)
      .int32(((10 << 16) | 2) + 4)
      .uint8(0)
      .cstring("mood")
      .uint32(16390)
      .int32(-1)
      .build();
    expect(decodePgOutput(bytes)).toEqual({
      type: "relation",
      relationId: 16385,
      namespace: "public",
      name: "çustomers",
      replicaIdentity: "default",
      columns: [
        { name: "id", isKey: true, typeOid: 23, typeModifier: -1 },
        { name: "price", isKey: false, typeOid: 1700, typeModifier: 655366 },
        { name: "mood", isKey: false, typeOid: 16390, typeModifier: -1 },
      ],
    });
  });

  test("Relation: every replica identity setting, and a table without columns", () => {
    const relation = (identity: string) =>
      wire().char("R").uint32(1).cstring("").cstring("t").char(identity).int16(0).build();
    expect(
      ["d", "n", "f", "i"].map((c) => (decodePgOutput(relation(c)) as { replicaIdentity: string }).replicaIdentity),
    ).toEqual(["default", "nothing", "full", "index"]);
    expect(() => decodePgOutput(relation("x"))).toThrow(/replica identity 'x'/);
  });

  test("Type: OID, namespace, name", () => {
    expect(decodePgOutput(wire().char("Y").uint32(16390).cstring("public").cstring("mood").build())).toEqual({
      type: "type",
      typeOid: 16390,
      namespace: "public",
      name: "mood",
    });
  });

  test("Insert: a TupleData with null, unchanged TOAST, text and binary columns", () => {
    const bytes = wire()
      .char("I")
      .uint32(16385)
      .char("N")
      .int16(5)
      .text("42")
      .char("n")
      .char("u")
      .text("héllo, wörld")
      .char("b")
      .int32(3)
      .raw(Uint8Array.of(0, 0xff, 7))
      .build();
    expect(decodePgOutput(bytes)).toEqual({
      type: "insert",
      relationId: 16385,
      newTuple: ["42", null, UNCHANGED_TOAST, "héllo, wörld", Uint8Array.of(0, 0xff, 7)],
    });
  });

  test("text holding U+FFFD itself is read; messages inside larger buffers, one after another, read from their own start", () => {
    const replacement = wire().char("I").uint32(1).char("N").int16(1).text("a\uFFFDb").build();
    expect(decodePgOutput(replacement)).toMatchObject({ newTuple: ["a\uFFFDb"] });
    const begin = wire().char("B").uint64(0x16b374d848n).int64(COMMIT_PG_MICROS).uint32(7).build();
    const commit = wire().char("C").uint8(0).uint64(1n).uint64(2n).int64(COMMIT_PG_MICROS).build();
    const shared = Buffer.alloc(200);
    shared.set(begin, 13);
    shared.set(commit, 101);
    const other = new Uint8Array(begin.length + 3);
    other.set(begin, 3);
    for (const [bytes, expected] of [
      [shared.subarray(13, 13 + begin.length), { type: "begin", finalLsn: 0x16b374d848n, xid: 7 }],
      [shared.subarray(101, 101 + commit.length), { type: "commit", commitLsn: 1n, endLsn: 2n }],
      [other.subarray(3), { type: "begin", finalLsn: 0x16b374d848n, xid: 7 }],
      [shared.subarray(101, 101 + commit.length), { type: "commit", commitLsn: 1n, endLsn: 2n }],
    ] as const)
      expect(decodePgOutput(bytes)).toMatchObject(expected);
  });

  test("Insert: an empty text value is not a null", () => {
    const bytes = wire().char("I").uint32(1).char("N").int16(1).text("").build();
    expect(decodePgOutput(bytes)).toMatchObject({ newTuple: [""] });
  });

  test("Update: new tuple only, with the old key ('K'), with the old row ('O')", () => {
    const newOnly = wire().char("U").uint32(7).char("N").int16(2).text("1").text("b").build();
    expect(decodePgOutput(newOnly)).toEqual({
      type: "update",
      relationId: 7,
      old: null,
      newTuple: ["1", "b"],
    });

    const withKey = wire()
      .char("U")
      .uint32(7)
      .char("K")
      .int16(2)
      .text("1")
      .char("n")
      .char("N")
      .int16(2)
      .text("2")
      .text("b")
      .build();
    expect(decodePgOutput(withKey)).toEqual({
      type: "update",
      relationId: 7,
      old: { kind: "key", tuple: ["1", null] },
      newTuple: ["2", "b"],
    });

    const withOld = wire()
      .char("U")
      .uint32(7)
      .char("O")
      .int16(2)
      .text("1")
      .text("a")
      .char("N")
      .int16(2)
      .text("1")
      .char("u")
      .build();
    expect(decodePgOutput(withOld)).toEqual({
      type: "update",
      relationId: 7,
      old: {
        kind: "full",
        tuple: ["1", "a"],
      },
      newTuple: ["1", UNCHANGED_TOAST],
    });

    expect(() => decodePgOutput(wire().char("U").uint32(7).char("X").build())).toThrow(/expected 'N'/);
  });

  test("Delete: with the old key ('K') or the old row ('O')", () => {
    expect(decodePgOutput(wire().char("D").uint32(9).char("K").int16(1).text("5").build())).toEqual({
      type: "delete",
      relationId: 9,
      old: { kind: "key", tuple: ["5"] },
    });
    expect(decodePgOutput(wire().char("D").uint32(9).char("O").int16(2).text("5").char("n").build())).toEqual({
      type: "delete",
      relationId: 9,
      old: { kind: "full", tuple: ["5", null] },
    });
    expect(() => decodePgOutput(wire().char("D").uint32(9).char("N").int16(0).build())).toThrow(/expected 'K' or 'O'/);
  });

  test("Truncate: relations and the CASCADE / RESTART IDENTITY option bits", () => {
    const truncate = (options: number) => wire().char("T").uint32(2).uint8(options).uint32(16385).uint32(16400).build();
    expect(decodePgOutput(truncate(0))).toEqual({
      type: "truncate",
      cascade: false,
      restartIdentity: false,
      relationIds: [16385, 16400],
    });
    expect(decodePgOutput(truncate(1))).toMatchObject({ cascade: true, restartIdentity: false });
    expect(decodePgOutput(truncate(2))).toMatchObject({ cascade: false, restartIdentity: true });
    expect(decodePgOutput(truncate(3))).toMatchObject({ cascade: true, restartIdentity: true });
  });

  test("Message: transactional flag, LSN, prefix and binary content", () => {
    const bytes = wire()
      .char("M")
      .uint8(1)
      .uint64(0x20n)
      .cstring("audit")
      .int32(4)
      .raw(Uint8Array.of(0, 1, 2, 0))
      .build();
    expect(decodePgOutput(bytes)).toEqual({
      type: "message",
      transactional: true,
      lsn: 0x20n,
      prefix: "audit",
      content: Uint8Array.of(0, 1, 2, 0),
    });
    expect(decodePgOutput(wire().char("M").uint8(0).uint64(1n).cstring("").int32(0).build())).toMatchObject({
      transactional: false,
      content: new Uint8Array(),
    });
  });

  test("malformed messages fail with a ProtocolError naming the problem", () => {
    expect(() => decodePgOutput(wire().char("B").uint64(1n).build())).toThrow(/truncated/);
    expect(() => decodePgOutput(wire().char("O").uint64(1n).raw(new TextEncoder().encode("no-nul")).build())).toThrow(
      /Unterminated string/,
    );
    expect(() =>
      decodePgOutput(wire().char("I").uint32(1).char("N").int16(1).char("t").int32(10).raw(Uint8Array.of(1)).build()),
    ).toThrow(/truncated/);
    expect(() => decodePgOutput(wire().char("I").uint32(1).char("N").int16(1).char("t").int32(-1).build())).toThrow(
      /Negative length/,
    );
    expect(() => decodePgOutput(wire().char("I").uint32(1).char("N").int16(-1).build())).toThrow(
      /Negative column count -1/,
    );
    expect(() => decodePgOutput(wire().char("I").uint32(1).char("N").int16(1).char("z").build())).toThrow(
      /tuple column kind 'z'/,
    );
    expect(() => decodePgOutput(wire().char("I").uint32(1).char("K").int16(0).build())).toThrow(/Insert: expected 'N'/);
    expect(() =>
      decodePgOutput(wire().char("I").uint32(1).char("N").int16(1).char("t").int32(1).raw(Uint8Array.of(0xff)).build()),
    ).toThrow(/UTF-8/);
    expect(() => decodePgOutput(wire().char("Y").uint32(1).cstring("a").cstring("b").uint8(0).build())).toThrow(
      /trailing/,
    );
    expect(() => decodePgOutput(wire().char("S").uint32(1).uint8(1).build())).toThrow(
      /Stream Start .*streaming and two_phase were not requested/,
    );
    expect(() => decodePgOutput(wire().char("P").build())).toThrow(/Prepare/);
    expect(() => decodePgOutput(wire().char("Z").build())).toThrow(/Unknown pgoutput message 'Z'/);
    expect(() => decodePgOutput(new Uint8Array())).toThrow(ProtocolError);
  });
});
