import { afterEach, describe, expect, test } from "bun:test";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { BrokerError, type FetchedRecord, type ProduceRecord } from "#src/broker/broker.ts";
import { EmbeddedBroker, type EmbeddedBrokerOptions, repairPartitionLog } from "#src/broker/embedded/index.ts";
import { kafkaPartition } from "#src/broker/partitioner.ts";
import type { Logger } from "#src/platform/log.ts";
import { CRASH_TOPIC, crashKey, crashValue } from "./embedded-crash-producer.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string) => enc.encode(s);
const str = (u: Uint8Array | null) => (u === null ? null : dec.decode(u));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!().catch(() => undefined);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "sluice-embedded-"));
  cleanup.unshift(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A logger whose lines the test can inspect. */
function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

async function openBroker(dataDir: string, options: Partial<EmbeddedBrokerOptions> = {}): Promise<EmbeddedBroker> {
  const broker = new EmbeddedBroker({ dataDir, logger: captureLogger().logger, ...options });
  await broker.connect();
  cleanup.push(() => broker.close());
  return broker;
}

async function fetchAll(broker: EmbeddedBroker, topic: string, partition = 0): Promise<FetchedRecord[]> {
  const out: FetchedRecord[] = [];
  let offset = 0;
  for (;;) {
    const got = await broker.fetch(topic, partition, offset, { maxBytes: 64 * 1024 });
    if (got.length === 0) return out;
    out.push(...got);
    offset = got[got.length - 1].offset + 1;
  }
}

/** Polls a condition until it holds or the deadline passes (for effects with no event to await). */
async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

const logFile = (dir: string, topic: string, partition = 0) => join(dir, "topics", topic, `${partition}.log`);

describe("EmbeddedBroker produce/fetch", () => {
  test("round-trips keys, values, headers (in order, repeated keys, null values), tombstones and timestamps", async () => {
    const broker = await openBroker(await tempDir());
    const headers = [
      { key: "a", value: b("x") },
      { key: "ü-name", value: new Uint8Array([0, 255]) },
      { key: "a", value: b("y") },
      { key: "n", value: null },
      { key: "a", value: null },
    ];
    expect(await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 })).toBe(true);
    const records: ProduceRecord[] = [
      { key: b("k1"), value: b("v1"), headers, timestamp: 1234 },
      { key: b("k1"), value: null },
      { key: null, value: b("no key") },
      { key: new Uint8Array(0), value: new Uint8Array(0) },
      { key: null, value: null, timestamp: -1 },
    ];
    const before = Date.now();
    const positions = await broker.produce("t", records);
    expect(positions).toEqual([0, 1, 2, 3, 4].map((offset) => ({ partition: 0, offset })));

    const got = await broker.fetch("t", 0, 0);
    expect(got.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(got[0]).toEqual({
      topic: "t",
      partition: 0,
      offset: 0,
      timestamp: 1234,
      key: b("k1"),
      value: b("v1"),
      headers,
    });
    expect(got[1].value).toBeNull();
    expect(got[1].timestamp).toBeGreaterThanOrEqual(before);
    expect(got[2].key).toBeNull();
    expect(str(got[2].value)).toBe("no key");
    expect(got[3].key).toEqual(new Uint8Array(0));
    expect(got[3].value).toEqual(new Uint8Array(0));
    expect(got[4]).toMatchObject({ key: null, value: null, timestamp: -1, headers: [] });

    expect((await broker.fetch("t", 0, 3)).map((r) => r.offset)).toEqual([3, 4]);
    expect(await broker.fetch("t", 0, 5)).toEqual([]);
    expect(await broker.endOffsets("t")).toEqual([5]);
    expect(await broker.startOffsets("t")).toEqual([0]);
  });

  test("assigns contiguous offsets to concurrent producers and serves them in offset order", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 });
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        broker.produce("t", [
          { key: null, value: b(`a${i}`) },
          { key: null, value: b(`b${i}`) },
        ]),
      ),
    );
    const offsets = results.flat().map((p) => p.offset);
    expect([...offsets].sort((x, y) => x - y)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    // Records of one call are adjacent and in call order.
    for (const [first, second] of results) expect(second.offset).toBe(first.offset + 1);

    const all = await fetchAll(broker, "t");
    expect(all.map((r) => r.offset)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    results.forEach(([first], i) => expect(str(all[first.offset].value)).toBe(`a${i}`));
  });

  test("fetch honours maxBytes but always returns at least one record", async () => {
    const broker = await openBroker(await tempDir());
    await broker.produce(
      "t",
      Array.from({ length: 50 }, (_, i) => ({ key: null, value: b("x".repeat(1000) + i) })),
    );
    const one = await broker.fetch("t", 0, 10, { maxBytes: 1 });
    expect(one.map((r) => r.offset)).toEqual([10]);
    const some = await broker.fetch("t", 0, 10, { maxBytes: 5000 });
    expect(some.length).toBeGreaterThan(1);
    expect(some.length).toBeLessThan(6);
    expect(some.map((r) => r.offset)).toEqual(some.map((_, i) => 10 + i));
  });

  test("records larger than a read chunk and seeks through the sparse index", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    await broker.produce("t", [
      { key: b("small"), value: b("before") },
      { key: b("big"), value: big },
    ]);
    const records = Array.from({ length: 3000 }, (_, i) => ({ key: b(`k${i}`), value: b(`v${i}`.padEnd(i % 97)) }));
    await broker.produce("t", records);
    const check = async (target: EmbeddedBroker) => {
      const [bigRecord] = await target.fetch("t", 0, 1, { maxBytes: 1 });
      expect(bigRecord.offset).toBe(1);
      expect(bigRecord.value).toEqual(big);
      for (const offset of [0, 2, 3, 57, 1000, 1001, 2047, 2999, 3001]) {
        const [first] = await target.fetch("t", 0, offset, { maxBytes: 1 });
        expect(first.offset).toBe(offset);
        if (offset >= 2) expect(str(first.value)).toBe(`v${offset - 2}`.padEnd((offset - 2) % 97));
      }
    };
    await check(broker);
    await broker.close();
    await check(await openBroker(dir));
  });

  test("routes keyed records like Kafka, null keys stick per call, explicit partitions win", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "p", partitions: 3, replicationFactor: 1 });
    const keys = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    const positions = await broker.produce(
      "p",
      keys.map((k) => ({ key: b(k), value: b(k) })),
    );
    positions.forEach((p, i) => expect(p.partition).toBe(kafkaPartition(b(keys[i]), 3)));

    const unkeyed = await broker.produce("p", [
      { key: null, value: b("1") },
      { key: null, value: b("2") },
    ]);
    expect(unkeyed[0].partition).toBe(unkeyed[1].partition);
    const next = await broker.produce("p", [{ key: null, value: b("3") }]);
    expect(next[0].partition).toBe((unkeyed[0].partition + 1) % 3);

    const explicit = await broker.produce("p", [{ key: b("alpha"), value: b("x"), partition: 2 }]);
    expect(explicit[0].partition).toBe(2);
    const rejected = broker.produce("p", [{ key: null, value: b("x"), partition: 3 }]);
    await expect(rejected).rejects.toBeInstanceOf(BrokerError);

    const ends = await broker.endOffsets("p");
    expect(ends.reduce((a, c) => a + c, 0)).toBe(keys.length + 3 + 1);
  });

  test("topic creation, description and auto-creation", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    expect(await broker.describeTopic("missing")).toBeUndefined();
    const spec = { name: "conf", partitions: 4, replicationFactor: 3, config: { "cleanup.policy": "compact" } };
    expect(await broker.createTopic(spec)).toBe(true);
    expect(await broker.createTopic({ ...spec, partitions: 1 })).toBe(false);
    expect(await broker.describeTopic("conf")).toEqual({ ...spec });
    await expect(broker.createTopic({ name: "bad/name", partitions: 1, replicationFactor: 1 })).rejects.toBeInstanceOf(
      BrokerError,
    );
    await expect(broker.createTopic({ name: "x", partitions: 0, replicationFactor: 1 })).rejects.toBeInstanceOf(
      BrokerError,
    );

    await broker.produce("auto", [{ key: b("k"), value: b("v") }]);
    expect(await broker.describeTopic("auto")).toEqual({
      name: "auto",
      partitions: 1,
      replicationFactor: 1,
      config: {},
    });
    expect(JSON.parse(await readFile(join(dir, "topics", "conf", "meta.json"), "utf8"))).toMatchObject(spec);

    const strict = await openBroker(await tempDir(), { autoCreateTopics: false });
    await expect(strict.produce("nope", [{ key: null, value: b("v") }])).rejects.toBeInstanceOf(BrokerError);
    expect(await strict.describeTopic("nope")).toBeUndefined();
    await expect(strict.fetch("nope", 0, 0)).rejects.toBeInstanceOf(BrokerError);
    await expect(strict.endOffsets("nope")).rejects.toBeInstanceOf(BrokerError);
  });

  test("rejects out-of-range fetches and keyless records on compacted topics", async () => {
    const broker = await openBroker(await tempDir());
    await broker.produce("t", [{ key: null, value: b("v") }]);
    await expect(broker.fetch("t", 0, 2)).rejects.toBeInstanceOf(BrokerError);
    await expect(broker.fetch("t", 1, 0)).rejects.toBeInstanceOf(BrokerError);
    await expect(broker.fetch("t", 0, -1)).rejects.toBeInstanceOf(BrokerError);
    await broker.createTopic({
      name: "c",
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    await expect(broker.produce("c", [{ key: null, value: b("v") }])).rejects.toBeInstanceOf(BrokerError);
    expect(await broker.endOffsets("c")).toEqual([0]);
  });
});

describe("EmbeddedBroker durability", () => {
  test("reopening shows the same topics, records and offsets", async () => {
    const dir = await tempDir();
    const first = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await first.connect();
    await first.createTopic({ name: "a", partitions: 2, replicationFactor: 1, config: { "retention.ms": "-1" } });
    for (let i = 0; i < 100; i++)
      await first.produce("a", [{ key: b(`k${i}`), value: b(`v${i}`), headers: [{ key: "i", value: b(String(i)) }] }]);
    const before = [await fetchAll(first, "a", 0), await fetchAll(first, "a", 1)];
    const ends = await first.endOffsets("a");
    await first.close();

    const second = await openBroker(dir);
    expect(await second.describeTopic("a")).toEqual({
      name: "a",
      partitions: 2,
      replicationFactor: 1,
      config: { "retention.ms": "-1" },
    });
    expect(await second.endOffsets("a")).toEqual(ends);
    expect([await fetchAll(second, "a", 0), await fetchAll(second, "a", 1)]).toEqual(before);
    const [pos] = await second.produce("a", [{ key: null, value: b("more"), partition: 1 }]);
    expect(pos).toEqual({ partition: 1, offset: ends[1] });
  });

  test("garbage after the last record refuses to open, naming file and byte, and changes nothing", async () => {
    const dir = await tempDir();
    const first = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await first.connect();
    await first.produce(
      "t",
      Array.from({ length: 5 }, (_, i) => ({ key: b(`k${i}`), value: b(`v${i}`) })),
    );
    await first.close();
    const file = logFile(dir, "t");
    const goodSize = (await stat(file)).size;
    // A plausible length running past the end, but not the start of the frame of offset 5.
    await appendFile(file, new Uint8Array([0, 0, 0, 60, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
    const before = await readFile(file);

    const broker = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    const refused = await broker.connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(BrokerError);
    expect((refused as Error).message).toContain(`${file} is damaged at byte ${goodSize}`);
    expect((refused as Error).message).toContain(`sluice repair-log ${file}`);
    expect((await readFile(file)).equals(before)).toBe(true);
    expect((await readdir(join(dir, "topics", "t"))).sort()).toEqual(["0.log", "meta.json"]);
    // The refusal released the data directory: a repaired log opens.
    await rm(file);
    await openBroker(dir);
  });

  test("a torn last frame is cut with a warning and its bytes kept beside the log; produce continues", async () => {
    const dir = await tempDir();
    const first = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await first.connect();
    await first.createTopic({
      name: "connect-offsets",
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    await first.produce(
      "connect-offsets",
      Array.from({ length: 5 }, (_, i) => ({ key: b(`k${i}`), value: b(`value-${i}`) })),
    );
    await first.close();
    const file = logFile(dir, "connect-offsets");
    const whole = await readFile(file);
    const torn = whole.subarray(0, whole.length - 7);
    await writeFile(file, torn);

    const { logger, lines } = captureLogger();
    const broker = await openBroker(dir, { logger });
    const warning = lines.find((l) => l.level === 40 && l.msg.includes("torn last record"));
    expect(warning?.file).toBe(file);
    expect(lines.some((l) => l.level >= 50)).toBe(false);
    const kept = await readFile(warning?.keptIn as string);
    expect(Buffer.concat([await readFile(file), kept]).equals(torn)).toBe(true);
    expect(kept.length).toBe(warning?.droppedBytes as number);
    expect((await fetchAll(broker, "connect-offsets")).map((r) => str(r.value))).toEqual([
      "value-0",
      "value-1",
      "value-2",
      "value-3",
    ]);
    expect(await broker.endOffsets("connect-offsets")).toEqual([4]);
    expect(await broker.produce("connect-offsets", [{ key: b("k"), value: b("again") }])).toEqual([
      { partition: 0, offset: 4 },
    ]);
  });

  test("damage in the middle refuses to open, changes nothing, and repair-log salvages all intact records", async () => {
    const dir = await tempDir();
    const first = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await first.connect();
    for (let i = 0; i < 10; i++) await first.produce("t", [{ key: b(`k${i}`), value: b(`value-${i}`) }]);
    await first.close();
    const file = logFile(dir, "t");
    const bytes = new Uint8Array(await readFile(file));
    const frameSize = bytes.length / 10; // all frames have the same size here
    bytes[3 * frameSize + frameSize - 2] ^= 0xff; // inside record 3's value
    await writeFile(file, bytes);

    const refused = await new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger }).connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((refused as Error).message).toContain(`${file} is damaged at byte ${3 * frameSize} (checksum mismatch`);
    expect((refused as Error).message).toContain("intact records before it end at offset 2");
    expect(new Uint8Array(await readFile(file))).toEqual(bytes);

    const repair = await repairPartitionLog(file, captureLogger().logger);
    expect(repair).toMatchObject({ records: 9, lastOffset: 9, skipped: [{ from: 3 * frameSize, to: 4 * frameSize }] });
    expect(new Uint8Array(await readFile(repair.keptAs!))).toEqual(bytes);
    const broker = await openBroker(dir);
    expect((await fetchAll(broker, "t")).map((r) => r.offset)).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
    expect(await broker.produce("t", [{ key: null, value: b("after") }])).toEqual([{ partition: 0, offset: 10 }]);
  });

  test("a half-created topic (empty logs, no meta.json) is removed; one holding anything else refuses to open", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "topics", "half"), { recursive: true });
    await writeFile(join(dir, "topics", "half", "0.log"), "");
    // Stopped while meta.json was being written (seen when dev was stopped as it created its topics).
    await mkdir(join(dir, "topics", "stopped"), { recursive: true });
    await writeFile(join(dir, "topics", "stopped", "0.log"), "");
    await writeFile(join(dir, "topics", "stopped", ".meta.json.tmp-11405-3"), '{"name":"stopped"');
    await (await openBroker(dir)).close();
    expect(await readdir(join(dir, "topics"))).toEqual([]);

    await mkdir(join(dir, "topics", "kept"), { recursive: true });
    await writeFile(join(dir, "topics", "kept", "0.log"), "");
    await writeFile(join(dir, "topics", "kept", "0.log.torn-1"), "cut bytes");
    const refused = await new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger }).connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((refused as Error).message).toContain("has data but no meta.json");
    expect(await readFile(join(dir, "topics", "kept", "0.log.torn-1"), "utf8")).toBe("cut bytes");
  });

  test("a malformed committed offsets file is an error naming it, not an empty group", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "groups"), { recursive: true });
    await writeFile(join(dir, "groups", "g.json"), '{"group":');
    const broker = await openBroker(dir);
    await expect(broker.committedOffsets("g", "t")).rejects.toThrow(join(dir, "groups", "g.json"));
  });

  test("committed offsets are durable and merged per partition", async () => {
    const dir = await tempDir();
    const first = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await first.connect();
    expect(await first.committedOffsets("g", "t")).toEqual(new Map());
    await first.commitOffsets("g", "t", [
      { partition: 0, offset: 5 },
      { partition: 1, offset: 7 },
    ]);
    await first.commitOffsets("g", "t", [{ partition: 1, offset: 9 }]);
    await first.commitOffsets("g", "other", [{ partition: 0, offset: 1 }]);
    await first.commitOffsets("group/with spaces", "t", [{ partition: 0, offset: 2 }]);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => first.commitOffsets("busy", "t", [{ partition: i, offset: i }])),
    );
    await expect(first.commitOffsets("g", "t", [{ partition: 0, offset: -1 }])).rejects.toBeInstanceOf(BrokerError);
    await first.close();

    const second = await openBroker(dir);
    expect(await second.committedOffsets("g", "t")).toEqual(
      new Map([
        [0, 5],
        [1, 9],
      ]),
    );
    expect(await second.committedOffsets("g", "other")).toEqual(new Map([[0, 1]]));
    expect(await second.committedOffsets("group/with spaces", "t")).toEqual(new Map([[0, 2]]));
    expect((await second.committedOffsets("busy", "t")).size).toBe(20);
    expect(await second.committedOffsets("unknown", "t")).toEqual(new Map());
    expect(await readdir(join(dir, "groups"))).toContain(`${encodeURIComponent("group/with spaces")}.json`);
  });
});

describe("EmbeddedBroker compaction", () => {
  const compacted = (deleteRetentionMs = 86_400_000) => ({
    partitions: 1,
    replicationFactor: 1,
    config: { "cleanup.policy": "compact", "delete.retention.ms": String(deleteRetentionMs) },
  });

  test("keeps the last record per key with its offset; tombstones go after delete.retention.ms", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    await broker.createTopic({ name: "c", ...compacted(1000) });
    const now = Date.now();
    const writes: [string, string | null][] = [
      ["a", "a1"], // 0
      ["b", "b1"], // 1
      ["a", "a2"], // 2
      ["c", "c1"], // 3
      ["b", null], // 4: tombstone
      ["a", "a3"], // 5
      ["d", "d1"], // 6
      ["c", null], // 7: tombstone, the last record
    ];
    for (const [k, v] of writes)
      await broker.produce("c", [{ key: b(k), value: v === null ? null : b(v), timestamp: now }]);

    const [result] = await broker.compact("c", { now });
    expect(result).toEqual({ before: 8, after: 4 });
    const view = (records: FetchedRecord[]) => records.map((r) => [r.offset, str(r.key), str(r.value)]);
    expect(view(await fetchAll(broker, "c"))).toEqual([
      [4, "b", null],
      [5, "a", "a3"],
      [6, "d", "d1"],
      [7, "c", null],
    ]);
    expect(await broker.endOffsets("c")).toEqual([8]);
    expect(await broker.startOffsets("c")).toEqual([0]);
    // A fetch from inside a gap starts at the next surviving record.
    expect((await broker.fetch("c", 0, 1))[0].offset).toBe(4);

    // Past the tombstone horizon: b's tombstone goes; c's stays because it is the last record.
    await broker.compact("c", { now: now + 5000 });
    expect(view(await fetchAll(broker, "c"))).toEqual([
      [5, "a", "a3"],
      [6, "d", "d1"],
      [7, "c", null],
    ]);

    await broker.produce("c", [{ key: b("a"), value: b("a4") }]);
    await broker.close();
    const reopened = await openBroker(dir);
    expect(view(await fetchAll(reopened, "c"))).toEqual([
      [5, "a", "a3"],
      [6, "d", "d1"],
      [7, "c", null],
      [8, "a", "a4"],
    ]);
    expect(await reopened.endOffsets("c")).toEqual([9]);
    await reopened.compact("c", { now });
    expect(view(await fetchAll(reopened, "c")).map(([o]) => o)).toEqual([6, 7, 8]);
  });

  test("runs by itself once superseded records dominate, and never disturbs concurrent fetches and produces", async () => {
    const dir = await tempDir();
    const { logger, lines } = captureLogger();
    const broker = await openBroker(dir, { logger, compactionMinBytes: 64 * 1024 });
    await broker.createTopic({ name: "c", ...compacted() });
    const keys = 20;
    const value = (key: number, version: number) => b(`key=${key};version=${version};${"p".repeat(200)}`);
    let version = 0;
    const latest = new Map<number, number>();
    const produceRound = async () => {
      const v = version++;
      await broker.produce(
        "c",
        Array.from({ length: keys }, (_, k) => ({ key: b(`k${k}`), value: value(k, v) })),
      );
      for (let k = 0; k < keys; k++) latest.set(k, v);
    };

    // Readers check every record they see against the invariant value = f(key, version) and offset order.
    let stop = false;
    let fetchedBatches = 0;
    const reader = async () => {
      while (!stop) {
        let offset = 0;
        let last = -1;
        for (;;) {
          const got = await broker.fetch("c", 0, offset, { maxBytes: 8 * 1024 });
          if (got.length === 0) break;
          for (const r of got) {
            expect(r.offset).toBeGreaterThan(last);
            last = r.offset;
            const text = str(r.value)!;
            expect(text.startsWith(`key=${str(r.key)!.slice(1)};`)).toBe(true);
          }
          fetchedBatches++;
          offset = last + 1;
        }
      }
    };
    const readers = [reader(), reader()];
    for (let i = 0; i < 200; i++) await produceRound();
    const compactions = () => lines.filter((l) => l.msg === "compacted partition log").length;
    await waitFor(async () => compactions() > 0, 20_000, "automatic compaction");
    // More rounds and an explicit compaction racing the readers and writers.
    await Promise.all([Promise.all(Array.from({ length: 50 }, produceRound)), broker.compact("c")]);
    stop = true;
    await Promise.all(readers);
    expect(fetchedBatches).toBeGreaterThan(0);
    expect(compactions()).toBeGreaterThan(1);

    const [final] = await broker.compact("c");
    expect(final.after).toBe(keys);
    const all = await fetchAll(broker, "c");
    expect(all).toHaveLength(keys);
    for (const r of all) {
      const k = Number(str(r.key)!.slice(1));
      expect(str(r.value)).toBe(str(value(k, latest.get(k)!)));
    }
    expect(await broker.endOffsets("c")).toEqual([250 * keys]);
    expect((await stat(logFile(dir, "c"))).size).toBeLessThan(keys * 400);
    expect(await readdir(join(dir, "topics", "c"))).not.toContain("0.log.compacting");
  });

  test("a temp file left by a compaction interrupted by a crash is discarded on open", async () => {
    const dir = await tempDir();
    const first = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await first.connect();
    await first.createTopic({
      name: "c",
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    await first.produce("c", [{ key: b("k"), value: b("v") }]);
    await first.close();
    await writeFile(`${logFile(dir, "c")}.compacting`, new Uint8Array([1, 2, 3]));
    const broker = await openBroker(dir);
    expect((await readdir(join(dir, "topics", "c"))).sort()).toEqual(["0.log", "meta.json"]);
    expect((await fetchAll(broker, "c")).map((r) => str(r.value))).toEqual(["v"]);
  });
});

describe("EmbeddedBroker long poll", () => {
  test("a waiting fetch returns as soon as a record is produced", async () => {
    const broker = await openBroker(await tempDir());
    await broker.produce("t", [{ key: null, value: b("first") }]);
    const started = Date.now();
    const waiting = broker.fetch("t", 0, 1, { maxWaitMs: 30_000 });
    await broker.produce("t", [{ key: null, value: b("second") }]);
    const got = await waiting;
    expect(got.map((r) => str(r.value))).toEqual(["second"]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("without records it waits for maxWaitMs and returns empty; close ends the wait", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 });
    const started = performance.now();
    expect(await broker.fetch("t", 0, 0, { maxWaitMs: 100 })).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);

    const waiting = broker.fetch("t", 0, 0, { maxWaitMs: 60_000 });
    await broker.close();
    expect(await waiting).toEqual([]);
  });
});

describe("EmbeddedBroker lifecycle and locking", () => {
  test("a second instance on the same data directory fails until the first closes", async () => {
    const dir = await tempDir();
    const first = await openBroker(dir);
    expect(Number((await readFile(join(dir, ".lock"), "utf8")).trim())).toBe(process.pid);
    const second = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    const failure = await second.connect().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(BrokerError);
    expect(String((failure as Error).message)).toContain("in use");
    await first.close();
    await second.connect();
    cleanup.push(() => second.close());
    expect(await second.describeTopic("x")).toBeUndefined();
  });

  test("of two brokers connecting at once to one directory, exactly one wins", async () => {
    const dir = await tempDir();
    const brokers = [0, 1].map(() => new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger }));
    cleanup.push(() => Promise.all(brokers.map((broker) => broker.close())));
    const outcomes = await Promise.allSettled(brokers.map((broker) => broker.connect()));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
  });

  test("the stale lock of a dead process is taken over", async () => {
    const dir = await tempDir();
    const child = Bun.spawn([process.execPath, "-e", "0"]);
    await child.exited;
    await writeFile(join(dir, ".lock"), `${child.pid}\n`);
    const { logger, lines } = captureLogger();
    await openBroker(dir, { logger });
    expect(lines.some((l) => l.msg.includes("stale lock") && l.stalePid === child.pid)).toBe(true);
    expect(Number((await readFile(join(dir, ".lock"), "utf8")).trim())).toBe(process.pid);
  });

  test("operations before connect and after close reject with BrokerError; close releases the lock", async () => {
    const dir = await tempDir();
    const broker = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await expect(broker.produce("t", [])).rejects.toBeInstanceOf(BrokerError);
    await broker.connect();
    await broker.produce("t", [{ key: null, value: b("v") }]);
    await broker.close();
    await broker.close();
    for (const op of [
      () => broker.produce("t", [{ key: null, value: b("v") }]),
      () => broker.fetch("t", 0, 0),
      () => broker.endOffsets("t"),
      () => broker.describeTopic("t"),
      () => broker.createTopic({ name: "u", partitions: 1, replicationFactor: 1 }),
      () => broker.commitOffsets("g", "t", []),
      () => broker.committedOffsets("g", "t"),
      () => broker.connect(),
    ]) {
      await expect(op()).rejects.toBeInstanceOf(BrokerError);
    }
    expect(await readdir(dir)).not.toContain(".lock");
  });

  test("close waits for produces in flight", async () => {
    const dir = await tempDir();
    const broker = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    await broker.connect();
    await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 });
    const inFlight = Array.from({ length: 50 }, (_, i) => broker.produce("t", [{ key: null, value: b(`v${i}`) }]));
    await broker.close();
    expect((await Promise.all(inFlight)).flat().map((p) => p.offset)).toHaveLength(50);
    const reopened = await openBroker(dir);
    expect(await reopened.endOffsets("t")).toEqual([50]);
  });
});

describe("EmbeddedBroker crash safety", () => {
  test("every record acknowledged before kill -9 is present and intact after reopening", async () => {
    const dir = await tempDir();
    const script = join(import.meta.dir, "embedded-crash-producer.ts");
    const child = Bun.spawn([process.execPath, script, dir], { stdout: "pipe", stderr: "inherit" });
    cleanup.push(async () => child.kill("SIGKILL"));

    const acks: { partition: number; offset: number; seq: number }[] = [];
    let ready = false;
    const reader = child.stdout.getReader();
    let pending = "";
    const deadline = Date.now() + 60_000;
    while (acks.length < 3000) {
      if (Date.now() > deadline) throw new Error(`only ${acks.length} acks before the deadline`);
      const { value, done } = await reader.read();
      if (done) throw new Error("crash producer exited early");
      pending += dec.decode(value, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        if (line === "ready") ready = true;
        const m = /^ack (\d+) (\d+) (\d+)$/.exec(line);
        if (m) acks.push({ partition: Number(m[1]), offset: Number(m[2]), seq: Number(m[3]) });
      }
    }
    expect(ready).toBe(true);

    // While it runs, the lock keeps other processes out.
    const intruder = new EmbeddedBroker({ dataDir: dir, logger: captureLogger().logger });
    const refused = await intruder.connect().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BrokerError);
    expect(String((refused as Error).message)).toContain(`running process ${child.pid}`);

    child.kill("SIGKILL");
    expect(await child.exited).not.toBe(0);
    // Acks printed after our last read are not counted; all counted ones must survive.
    reader.releaseLock();

    const broker = await openBroker(dir);
    const ends = await broker.endOffsets(CRASH_TOPIC);
    const stored = [await fetchAll(broker, CRASH_TOPIC, 0), await fetchAll(broker, CRASH_TOPIC, 1)];
    stored.forEach((records, p) => {
      expect(records.map((r) => r.offset)).toEqual(Array.from({ length: ends[p] }, (_, i) => i));
    });
    for (const ack of acks) {
      const record = stored[ack.partition][ack.offset];
      expect(record).toBeDefined();
      expect(record.value).toEqual(crashValue(ack.seq));
      expect(record.key).toEqual(crashKey(ack.seq));
      expect(record.headers).toEqual([{ key: "seq", value: b(String(ack.seq)) }]);
    }
    // The log accepts appends at the right offsets after the crash.
    const [next] = await broker.produce(CRASH_TOPIC, [{ key: null, value: b("after"), partition: 0 }]);
    expect(next.offset).toBe(ends[0]);
  });
});
