// What a crash can leave at the end of a partition log (a prefix of the next frame) against everything
// else, which is damage: the rule that decides between cutting a torn frame and refusing start-up.
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, open, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { FRAME_START_BYTES, encodeFrame, isTornFrame, type FrameRecord } from "#src/broker/embedded/record-frame.ts";
import { repairPartitionLog } from "#src/broker/embedded/log-repair.ts";
import { LogDamaged, recoverLog, scanLog } from "#src/broker/embedded/recovery.ts";

const record = fc.record({
  offset: fc.integer({ min: 0, max: 2 ** 40 }),
  timestamp: fc.integer({ min: -1, max: 2 ** 45 }),
  key: fc.option(fc.uint8Array({ maxLength: 40 })),
  value: fc.option(fc.uint8Array({ maxLength: 200 })),
  headers: fc.array(
    fc.record({ key: fc.string({ maxLength: 8 }), value: fc.option(fc.uint8Array({ maxLength: 8 })) }),
    {
      maxLength: 3,
    },
  ),
});
const startOf = (bytes: Uint8Array) => bytes.subarray(0, FRAME_START_BYTES);

describe("isTornFrame", () => {
  test("every proper prefix of the next frame is torn", () => {
    fc.assert(
      fc.property(record, fc.double({ min: 0, max: 1, noNaN: true }), (r: FrameRecord, share) => {
        const frame = encodeFrame(r);
        const cut = 1 + Math.floor(share * (frame.length - 2));
        expect(isTornFrame(startOf(frame.subarray(0, cut)), cut, r.offset)).toBe(true);
      }),
    );
  });

  test("a whole frame, the prefix of a frame with another offset, or a bad version is not torn", () => {
    fc.assert(
      fc.property(record, fc.integer({ min: 1, max: 1000 }), (r: FrameRecord, skew) => {
        const frame = encodeFrame(r);
        expect(isTornFrame(startOf(frame), frame.length, r.offset)).toBe(false);
        const prefix = frame.subarray(0, frame.length - 1);
        expect(isTornFrame(startOf(prefix), prefix.length, r.offset + skew)).toBe(false);
        const badVersion = prefix.slice();
        badVersion[8] = 2;
        expect(isTornFrame(startOf(badVersion), badVersion.length, r.offset)).toBe(false);
      }),
    );
  });

  test("the prefix of a frame past a gap (offsets an aborted transaction left unused) is torn", () => {
    fc.assert(
      fc.property(record, fc.integer({ min: 1, max: 1000 }), (r: FrameRecord, gap) => {
        fc.pre(r.offset >= gap);
        const frame = encodeFrame(r);
        const prefix = frame.subarray(0, frame.length - 1);
        expect(isTornFrame(startOf(prefix), prefix.length, r.offset - gap)).toBe(true);
      }),
    );
  });

  test("an implausible length is not torn, fewer bytes than a header are", () => {
    expect(isTornFrame(new Uint8Array(FRAME_START_BYTES), 100, 0)).toBe(false);
    expect(isTornFrame(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1]), 100, 0)).toBe(false);
    expect(isTornFrame(new Uint8Array([7, 7, 7]), 3, 0)).toBe(true);
  });
});

describe("recoverLog", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-recovery-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const logger = pino({ level: "silent" });
  const frames = Array.from({ length: 20 }, (_, offset) =>
    encodeFrame({ offset, timestamp: 1, key: null, value: new TextEncoder().encode(`value-${offset}`), headers: [] }),
  );
  const whole = Buffer.concat(frames);
  let n = 0;

  async function recover(bytes: Uint8Array): Promise<{ file: string; result: unknown; offsets: number[] }> {
    const file = join(dir, `${n++}.log`);
    await writeFile(file, bytes);
    const handle = await open(file, "r+");
    const offsets: number[] = [];
    try {
      const result = await recoverLog(handle, file, logger, (_, offset) => offsets.push(offset)).catch(
        (err: unknown) => err,
      );
      return { file, result, offsets };
    } finally {
      await handle.close();
    }
  }

  test("an empty log has no records and nothing to cut", async () => {
    expect(await recover(new Uint8Array(0))).toMatchObject({ result: { validEnd: 0, lastOffset: -1 }, offsets: [] });
  });

  test("scanning on from a frame and the offset before it visits the rest; an offset going backwards is damage", async () => {
    const file = join(dir, `${n++}.log`);
    await writeFile(file, whole);
    const handle = await open(file, "r");
    const tenth = frames.slice(0, 10).reduce((sum, f) => sum + f.length, 0);
    try {
      const offsets: number[] = [];
      expect(await scanLog(handle, tenth, 9, (_, offset) => void offsets.push(offset))).toEqual({
        validEnd: whole.length,
        lastOffset: 19,
        size: whole.length,
      });
      expect(offsets).toEqual(Array.from({ length: 10 }, (_, i) => 10 + i));
      const stale = await scanLog(handle, tenth, 15, () => {});
      expect(stale).toMatchObject({ validEnd: tenth, lastOffset: 15, size: whole.length });
      expect(stale.damage?.message).toBe(`offset 10 after 15 at byte ${tenth}`);
    } finally {
      await handle.close();
    }
  });

  test("a whole log is left as it is", async () => {
    const { file, result, offsets } = await recover(whole);
    expect(result).toEqual({ validEnd: whole.length, lastOffset: 19 });
    expect(offsets).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((await readFile(file)).equals(whole)).toBe(true);
  });

  test("a torn last frame is cut and kept beside the log", async () => {
    const torn = whole.subarray(0, whole.length - 3);
    const { file, result } = await recover(torn);
    expect(result).toEqual({ validEnd: whole.length - frames[19].length, lastOffset: 18 });
    const kept = (await readdir(dir)).filter((f) => f.startsWith(`${file.split("/").pop()}.torn-`));
    expect(kept).toHaveLength(1);
    expect((await readFile(join(dir, kept[0]!))).equals(torn.subarray(whole.length - frames[19].length))).toBe(true);
  });

  test("a length field grown past the end in a middle frame is damage, not a torn frame", async () => {
    const damaged = Buffer.from(whole);
    const at = frames.slice(0, 10).reduce((sum, f) => sum + f.length, 0);
    damaged[at + 1] = 0x10; // body length + 1 MiB: runs past the end, but intact frames follow
    const { file, result } = await recover(damaged);
    expect(result).toBeInstanceOf(LogDamaged);
    expect(result).toMatchObject({ file, position: at, lastGoodOffset: 9 });
    expect((await readFile(file)).equals(damaged)).toBe(true);
  });

  test("a flipped byte in the last frame, a stale frame and garbage are damage", async () => {
    const lastFlipped = Buffer.from(whole);
    lastFlipped[whole.length - 2] ^= 1;
    const stale = Buffer.concat([whole, frames[3]]);
    const garbage = Buffer.from(whole.map((_, i) => (i * 131) & 0xff));
    for (const bytes of [lastFlipped, stale, garbage]) {
      const { file, result } = await recover(bytes);
      expect(result).toBeInstanceOf(LogDamaged);
      expect((await readFile(file)).equals(bytes)).toBe(true);
    }
  });
});

describe("repairPartitionLog", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-repair-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const logger = pino({ level: "silent" });
  const frames = Array.from({ length: 12 }, (_, offset) =>
    encodeFrame({
      offset,
      timestamp: 1,
      key: null,
      value: new TextEncoder().encode(`v${offset}`.repeat(offset + 1)),
      headers: [],
    }),
  );
  const starts = frames.map((_, i) => frames.slice(0, i).reduce((sum, f) => sum + f.length, 0));

  test("skips each damaged range and a torn end, keeps every intact record and the original bytes", async () => {
    const file = join(dir, "topics", "t", "0.log");
    await mkdir(join(dir, "topics", "t"), { recursive: true });
    const damaged = Buffer.concat([...frames, frames[11].subarray(0, 5)]);
    damaged[starts[2] + 10] ^= 1; // record 2's body
    damaged[starts[7] + 5] ^= 1; // record 7's checksum
    await writeFile(file, damaged);

    const repair = await repairPartitionLog(file, logger);
    expect(repair.skipped).toEqual([
      { from: starts[2], to: starts[3] },
      { from: starts[7], to: starts[8] },
      { from: damaged.length - 5, to: damaged.length },
    ]);
    expect(repair).toMatchObject({ records: 10, lastOffset: 11 });
    expect((await readFile(repair.keptAs!)).equals(damaged)).toBe(true);
    const handle = await open(file, "r");
    const offsets: number[] = [];
    expect((await scanLog(handle, 0, -1, (_, offset) => void offsets.push(offset))).damage).toBeUndefined();
    await handle.close();
    expect(offsets).toEqual([0, 1, 3, 4, 5, 6, 8, 9, 10, 11]);

    expect(await repairPartitionLog(file, logger)).toEqual({ records: 10, lastOffset: 11, skipped: [] });
    await expect(repairPartitionLog(join(dir, "elsewhere.log"), logger)).rejects.toThrow("is not a partition log");
  });
});
