// compactSegment directly, on a log file the test writes: what a compaction keeps, records appended
// while it copied, the key table it leaves, and giving up (close) without touching the log.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { open, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { compactionTempFile, compactSegment, type CompactionJob } from "#src/broker/embedded/compaction.ts";
import { readFrames } from "#src/broker/embedded/frame-reader.ts";
import { keyId, type KeyState } from "#src/broker/embedded/key-id.ts";
import { decodeFrame, encodeFrame, type FrameRecord } from "#src/broker/embedded/record-frame.ts";
import { Segment } from "#src/broker/embedded/segment.ts";
import { SparseIndex } from "#src/broker/embedded/sparse-index.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** [key, value] at offsets from `first`; a null value is a tombstone. */
const frames = (first: number, timestamp: number, ...records: [string, string | null][]): FrameRecord[] =>
  records.map(([key, value], i) => ({
    offset: first + i,
    timestamp,
    key: enc.encode(key),
    value: value === null ? null : enc.encode(value),
    headers: [],
  }));

/** A log file holding `records`, as a segment, with the key table an open partition would have built. */
async function logOf(records: FrameRecord[]): Promise<{
  file: string;
  dir: string;
  segment: Segment;
  keys: Map<string, KeyState>;
  append: (more: FrameRecord[]) => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-compaction-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "0.log");
  await writeFile(file, new Uint8Array(0));
  const handle = await open(file, "r+");
  const segment = new Segment(handle, new SparseIndex(), 0, 0);
  cleanups.push(() => closeSegment(segment));
  const keys = new Map<string, KeyState>();
  const append = async (more: FrameRecord[]) => {
    for (const r of more) {
      const frame = encodeFrame(r);
      await handle.write(frame, 0, frame.length, segment.end);
      segment.index.add(r.offset, segment.end);
      segment.end += frame.length;
      segment.records++;
      keys.set(keyId(r.key!), { offset: r.offset, tombstone: r.value === null, timestamp: r.timestamp });
    }
  };
  await append(records);
  return { file, dir, segment, keys, append };
}

function job(log: Awaited<ReturnType<typeof logOf>>, overrides: Partial<CompactionJob> = {}): CompactionJob {
  return {
    file: log.file,
    source: log.segment,
    keys: log.keys,
    visibleEnd: Number.MAX_SAFE_INTEGER,
    tombstoneHorizon: 0,
    log: pino({ level: "silent" }),
    cancelled: () => false,
    exclusive: async (swap) => swap(log.segment.end),
    ...overrides,
  };
}

function closeSegment(segment: Segment): Promise<void> {
  segment.retire();
  return segment.closed;
}

/** Runs the compaction; the segment it installs is closed after the test. */
async function compact(compaction: CompactionJob): Promise<Segment | undefined> {
  const installed = await compactSegment(compaction);
  if (installed) cleanups.push(() => closeSegment(installed));
  return installed;
}

async function contents(segment: Segment): Promise<[number, string, string | null][]> {
  const out: [number, string, string | null][] = [];
  for await (const f of readFrames(segment.handle, 0, segment.end)) {
    const r = decodeFrame(f.buf, f.at, f.bodyLength);
    out.push([r.offset, dec.decode(r.key!), r.value === null ? null : dec.decode(r.value)]);
  }
  return out;
}

describe("compactSegment", () => {
  test("keeps the latest record per key at its offset, and tombstones newer than the horizon; the new file is the log", async () => {
    const log = await logOf([
      ...frames(0, 100, ["a", "a1"], ["b", "b1"], ["a", "a2"], ["b", null]),
      ...frames(4, 900, ["c", "c1"], ["c", null], ["d", "d1"]),
    ]);
    const compacted = (await compact(job(log, { tombstoneHorizon: 500 })))!;
    // b's tombstone (time 100) is past the horizon and goes; c's (time 900) stays.
    expect(await contents(compacted)).toEqual([
      [2, "a", "a2"],
      [5, "c", null],
      [6, "d", "d1"],
    ]);
    expect(compacted.records).toBe(3);
    // Renamed over the log: reading the file by its name gives the compacted records.
    const onDisk = await readFile(log.file);
    expect(onDisk.length).toBe(compacted.end);
    expect(await readdir(log.dir)).toEqual(["0.log"]);
    // The expired tombstone's key is forgotten; the others stay.
    expect([...log.keys.keys()].sort()).toEqual(["a", "c", "d"]);
  });

  test("the last record stays even as an expired tombstone, so the end offset survives a reopen", async () => {
    const log = await logOf(frames(0, 100, ["a", "a1"], ["a", null]));
    const compacted = (await compact(job(log, { tombstoneHorizon: 500 })))!;
    expect(await contents(compacted)).toEqual([[1, "a", null]]);
  });

  test("records not visible yet (a transaction's) are kept and supersede nothing; the key table says what is visible", async () => {
    const log = await logOf(frames(0, 100, ["a", "a1"], ["b", "b1"]));
    // Offsets 2.. are written but not visible: the key table (kept at publication) still points at 0 and 1.
    await log.append(frames(2, 100, ["a", "a2"], ["b", null], ["a", "a3"]));
    log.keys.set("a", { offset: 0, tombstone: false, timestamp: 100 });
    log.keys.set("b", { offset: 1, tombstone: false, timestamp: 100 });
    const compacted = (await compact(job(log, { visibleEnd: 2, tombstoneHorizon: 500 })))!;
    expect(await contents(compacted)).toEqual([
      [0, "a", "a1"],
      [1, "b", "b1"],
      [2, "a", "a2"],
      [3, "b", null],
      [4, "a", "a3"],
    ]);
  });

  test("records appended while it copied are carried over as they are, under the swap's lock", async () => {
    const log = await logOf(frames(0, 100, ["a", "a1"], ["b", null], ["a", "a2"]));
    const compacted = (await compact(
      job(log, {
        tombstoneHorizon: 500,
        exclusive: async (swap) => {
          // Meanwhile: a new b after its tombstone, and a new a.
          await log.append(frames(3, 1000, ["b", "b2"], ["a", "a3"]));
          return swap(log.segment.end);
        },
      }),
    ))!;
    // a2 was the latest when copied: it stays until the next compaction.
    expect(await contents(compacted)).toEqual([
      [2, "a", "a2"],
      [3, "b", "b2"],
      [4, "a", "a3"],
    ]);
    // b's expired tombstone was dropped, but b's key now names the newer record: it is kept.
    expect(log.keys.get("b")).toEqual({ offset: 3, tombstone: false, timestamp: 1000 });
  });

  test("given up (the partition closing) before or at the swap: nothing installed, the log untouched, no temp file", async () => {
    const log = await logOf(frames(0, 100, ["a", "a1"], ["a", "a2"]));
    const before = await readFile(log.file);
    expect(await compact(job(log, { cancelled: () => true }))).toBeUndefined();
    expect(await compact(job(log, { exclusive: async () => undefined }))).toBeUndefined();
    expect((await readFile(log.file)).equals(before)).toBe(true);
    expect(await readdir(log.dir)).toEqual(["0.log"]);
    expect(compactionTempFile(log.file)).toBe(`${log.file}.compacting`);
  });
});
