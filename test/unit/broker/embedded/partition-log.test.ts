// One partition's log (PartitionLog), directly on a temp dir: offsets and group-committed appends,
// reads, long-poll waits, close, reopening, and compaction as the log runs it (on demand and by itself).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { BrokerError } from "#src/broker/broker.ts";
import { PartitionLog, type AppendRecord, type CompactionSettings } from "#src/broker/embedded/partition-log.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const silent = pino({ level: "silent" });

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sluice-partition-log-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function open(
  dir: string,
  options: { compaction?: CompactionSettings; log?: pino.Logger } = {},
): Promise<PartitionLog> {
  const log = await PartitionLog.open({
    dir,
    partition: 0,
    log: options.log ?? silent,
    compaction: options.compaction,
  });
  cleanups.push(() => log.close());
  return log;
}

const record = (value: string, key: string | null = null, timestamp = 1000): AppendRecord => ({
  timestamp,
  key: key === null ? null : enc.encode(key),
  value: enc.encode(value),
  headers: [],
});
const view = (records: { offset: number; key: Uint8Array | null; value: Uint8Array | null }[]) =>
  records.map((r) => [
    r.offset,
    r.key === null ? null : dec.decode(r.key),
    r.value === null ? null : dec.decode(r.value),
  ]);

describe("appends and reads", () => {
  test("concurrent appends get contiguous offsets in call order; only then is the high watermark past them", async () => {
    const log = await open(tempDir());
    expect(log.highWatermark).toBe(0);
    const appends = [
      log.append([record("a"), record("b")]),
      log.append([record("c")]),
      log.append([record("d"), record("e"), record("f")]),
    ];
    // Offsets are assigned at once, but nothing is visible before it is on disk.
    expect(await log.read(0, 1 << 20)).toEqual([]);
    expect(await Promise.all(appends)).toEqual([[0, 1], [2], [3, 4, 5]]);
    expect(log.highWatermark).toBe(6);
    expect(view(await log.read(2, 1 << 20))).toEqual([
      [2, null, "c"],
      [3, null, "d"],
      [4, null, "e"],
      [5, null, "f"],
    ]);
    expect(await log.read(6, 1 << 20)).toEqual([]);
  });

  test("a read returns at least one record, then stops before maxBytes; keys, headers and timestamps come back", async () => {
    const log = await open(tempDir());
    const big = "x".repeat(10_000);
    await log.append([
      { timestamp: 42, key: enc.encode("k"), value: enc.encode(big), headers: [{ key: "h", value: enc.encode("v") }] },
      record(big),
      record(big),
    ]);
    const [first, ...rest] = await log.read(0, 1);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ offset: 0, timestamp: 42 });
    expect(dec.decode(first!.key!)).toBe("k");
    expect(first!.headers).toEqual([{ key: "h", value: enc.encode("v") }]);
    expect((await log.read(0, 25_000)).map((r) => r.offset)).toEqual([0, 1]);
  });

  test("reopened, the log has its records and continues their offsets", async () => {
    const dir = tempDir();
    const first = await PartitionLog.open({ dir, partition: 0, log: silent });
    await first.append([record("a"), record("b")]);
    await first.close();
    const again = await open(dir);
    expect(again.highWatermark).toBe(2);
    expect(await again.append([record("c")])).toEqual([2]);
    expect(view(await again.read(0, 1 << 20)).map(([, , v]) => v)).toEqual(["a", "b", "c"]);
  });
});

describe("waiting for records", () => {
  test("a wait ends when a record at or after its offset lands, or at once when one is there", async () => {
    const log = await open(tempDir());
    let woke = false;
    const waiting = log.waitForRecords(0, 60_000).then(() => (woke = true));
    await log.append([record("a")]);
    await waiting;
    expect(woke).toBe(true);
    const started = Date.now();
    await log.waitForRecords(0, 60_000);
    await log.waitForRecords(5, 0);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("a wait with nothing arriving ends after maxWaitMs; close ends every wait", async () => {
    const log = await open(tempDir());
    const started = Date.now();
    await log.waitForRecords(0, 20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    const long = log.waitForRecords(0, 60_000);
    await log.close();
    await long;
  });
});

describe("close", () => {
  test("appends already accepted are written before close resolves; later ones are refused", async () => {
    const dir = tempDir();
    const log = await PartitionLog.open({ dir, partition: 0, log: silent });
    const pending = log.append([record("last")]);
    await log.close();
    expect(await pending).toEqual([0]);
    const refused = await log.append([record("late")]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BrokerError);
    expect((refused as BrokerError).message).toEndWith("0.log is closed");
    expect(view(await (await open(dir)).read(0, 1 << 20))).toEqual([[0, null, "last"]]);
  });
});

describe("compaction as the log runs it", () => {
  const settings = (minBytes = 1 << 30): CompactionSettings => ({
    deleteRetentionMs: 1000,
    minCleanableDirtyRatio: 0.5,
    minBytes,
  });

  test("a log without cleanup.policy=compact is never rewritten", async () => {
    const log = await open(tempDir());
    await log.append([record("a1", "a"), record("a2", "a")]);
    expect(log.compacted).toBe(false);
    expect(await log.compact(Date.now())).toEqual({ before: 2, after: 2 });
    expect((await log.read(0, 1 << 20)).length).toBe(2);
  });

  test("the latest record per key survives, with its offset; keys are rebuilt from the file when it is reopened", async () => {
    const dir = tempDir();
    const first = await PartitionLog.open({ dir, partition: 0, log: silent, compaction: settings() });
    await first.append([record("a1", "a"), record("b1", "b"), record("a2", "a")]);
    await first.close();
    const log = await open(dir, { compaction: settings() });
    await log.append([record("b2", "b"), record("c1", "c")]);
    expect(await log.compact(2000)).toEqual({ before: 5, after: 3 });
    expect(view(await log.read(0, 1 << 20))).toEqual([
      [2, "a", "a2"],
      [3, "b", "b2"],
      [4, "c", "c1"],
    ]);
    expect(await log.append([record("a3", "a")])).toEqual([5]);
  });

  test("two compactions asked for at once run one after the other", async () => {
    const log = await open(tempDir(), { compaction: settings() });
    await log.append([record("a1", "a"), record("a2", "a"), record("a3", "a")]);
    const [first, second] = await Promise.all([log.compact(2000), log.compact(2000)]);
    expect(first).toEqual({ before: 3, after: 1 });
    expect(second).toEqual({ before: 1, after: 1 });
  });

  test("starts by itself once superseded records pass min.cleanable.dirty.ratio in a log of at least minBytes", async () => {
    const lines: string[] = [];
    let compacted!: () => void;
    const done = new Promise<void>((resolve) => (compacted = resolve));
    const log = await open(tempDir(), {
      compaction: settings(0),
      log: pino(
        { level: "info" },
        { write: (line: string) => void (lines.push(line), line.includes("compacted partition log") && compacted()) },
      ),
    });
    await log.append([record("a1", "a"), record("b1", "b")]);
    // Two keys in two records: nothing superseded, nothing to do.
    expect(lines.filter((l) => l.includes("compacted"))).toEqual([]);
    // Half the records superseded is not more than the ratio; three in five is.
    await log.append([record("a2", "a"), record("a3", "a")]);
    expect(lines.filter((l) => l.includes("compacted"))).toEqual([]);
    await log.append([record("a4", "a")]);
    await done;
    expect(view(await log.read(0, 1 << 20))).toEqual([
      [1, "b", "b1"],
      [4, "a", "a4"],
    ]);
  });
});
