// Transactions on the embedded broker: a transaction's records, over topics and partitions, are visible
// all together once committed and never when aborted, fenced or cut short by kill -9; positions answered
// at produce are the committed offsets; plain appends to a partition wait behind an open transaction.
import { afterEach, describe, expect, test } from "bun:test";
import { cp, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { BrokerError, type FetchedRecord, ProducerFencedError } from "#src/broker/broker.ts";
import { EmbeddedBroker } from "#src/broker/embedded/index.ts";
import { waitFor } from "../../fixtures/wait.ts";
import { isAborted, TX_RECORDS, TX_TOPIC_A, TX_TOPIC_B, txValue } from "./embedded-tx-crash-producer.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string) => enc.encode(s);
const str = (u: Uint8Array | null) => (u === null ? null : dec.decode(u));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!().catch(() => undefined);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "sluice-embedded-tx-"));
  cleanup.unshift(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function openBroker(dataDir: string): Promise<EmbeddedBroker> {
  const broker = new EmbeddedBroker({ dataDir, logger: pino({ level: "silent" }) });
  await broker.connect();
  cleanup.push(() => broker.close());
  return broker;
}

async function fetchAll(broker: EmbeddedBroker, topic: string, partition = 0): Promise<FetchedRecord[]> {
  const out: FetchedRecord[] = [];
  for (let offset = 0; ; ) {
    const got = await broker.fetch(topic, partition, offset, { maxBytes: 1024 * 1024 });
    if (got.length === 0) return out;
    out.push(...got);
    offset = got[got.length - 1]!.offset + 1;
  }
}

const values = (records: FetchedRecord[]) => records.map((r) => str(r.value));

/** Whether `promise` is still pending once a long poll on an idle partition has run its course. */
async function stillPending(promise: Promise<unknown>, broker: EmbeddedBroker, topic: string): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  const ends = await broker.endOffsets(topic);
  await broker.fetch(topic, 0, ends[0]!, { maxWaitMs: 300 });
  return !settled;
}

describe("EmbeddedBroker transactions", () => {
  test("a commit makes records in several topics visible at the positions produce answered", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    await broker.createTopic({ name: "a", partitions: 2, replicationFactor: 1 });
    await broker.createTopic({ name: "b", partitions: 1, replicationFactor: 1 });
    const tx = await broker.transactionalProducer("tx");
    const positionsA = await tx.produce("a", [
      { key: null, value: b("a0"), partition: 0 },
      { key: null, value: b("a1"), partition: 1 },
      { key: null, value: b("a2"), partition: 0 },
    ]);
    const positionsB = await tx.produce("b", [{ key: b("k"), value: b("b0") }]);
    expect(positionsA).toEqual([
      { partition: 0, offset: 0 },
      { partition: 1, offset: 0 },
      { partition: 0, offset: 1 },
    ]);
    expect(positionsB).toEqual([{ partition: 0, offset: 0 }]);
    expect(await broker.endOffsets("a")).toEqual([0, 0]);
    expect(await fetchAll(broker, "b")).toEqual([]);

    await tx.commit();
    expect(await broker.endOffsets("a")).toEqual([2, 1]);
    expect(values(await fetchAll(broker, "a", 0))).toEqual(["a0", "a2"]);
    expect((await fetchAll(broker, "a", 0)).map((r) => r.offset)).toEqual([0, 1]);
    expect(values(await fetchAll(broker, "a", 1))).toEqual(["a1"]);
    expect(values(await fetchAll(broker, "b"))).toEqual(["b0"]);
    // A commit with nothing produced is a no-op; the next transaction follows on.
    await tx.commit();
    expect(await tx.produce("b", [{ key: b("k"), value: b("b1") }])).toEqual([{ partition: 0, offset: 1 }]);
    await tx.commit();
    expect(values(await fetchAll(broker, "b"))).toEqual(["b0", "b1"]);
    await tx.close();
    expect(await readdir(join(dir, "transactions"))).toEqual([]);
  });

  test("an aborted transaction is never visible, and its offsets go to the next writer", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    const tx = await broker.transactionalProducer("tx");
    await tx.produce("t", [{ key: null, value: b("x"), partition: 0 }]);
    await tx.produce("t", [{ key: null, value: b("y"), partition: 0 }]);
    await tx.abort();
    expect(await broker.endOffsets("t")).toEqual([0]);
    expect(await tx.produce("t", [{ key: null, value: b("z"), partition: 0 }])).toEqual([{ partition: 0, offset: 0 }]);
    await tx.commit();
    expect(await broker.produce("t", [{ key: null, value: b("plain"), partition: 0 }])).toEqual([
      { partition: 0, offset: 1 },
    ]);
    expect(values(await fetchAll(broker, "t"))).toEqual(["z", "plain"]);
  });

  test("opening a producer with the same transactional.id fences the earlier one and discards its transaction", async () => {
    const broker = await openBroker(await tempDir());
    const first = await broker.transactionalProducer("conn-0");
    await first.produce("t", [{ key: null, value: b("zombie"), partition: 0 }]);
    const second = await broker.transactionalProducer("conn-0");
    for (const op of [() => first.produce("t", [{ key: null, value: b("again") }]), () => first.commit()]) {
      const err = await op().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProducerFencedError);
      expect((err as ProducerFencedError).transactionalId).toBe("conn-0");
      expect((err as Error).message).toContain("transactional.id conn-0");
      expect((err as Error).message).toContain("another producer with the same transactional.id took over");
    }
    expect(await second.produce("t", [{ key: null, value: b("new"), partition: 0 }])).toEqual([
      { partition: 0, offset: 0 },
    ]);
    await second.commit();
    expect(values(await fetchAll(broker, "t"))).toEqual(["new"]);
    // Another id is not affected.
    const other = await broker.transactionalProducer("conn-1");
    await other.produce("t", [{ key: null, value: b("other"), partition: 0 }]);
    await other.commit();
    expect(values(await fetchAll(broker, "t"))).toEqual(["new", "other"]);
  });

  test("fenceProducers aborts the open transaction before it resolves; the fenced producer cannot commit", async () => {
    const broker = await openBroker(await tempDir());
    const tx = await broker.transactionalProducer("conn-0");
    await tx.produce("t", [{ key: null, value: b("zombie"), partition: 0 }]);
    const plain = broker.produce("t", [{ key: null, value: b("plain"), partition: 0 }]);
    await broker.fenceProducers(["conn-0", "never-opened"]);
    expect(await plain).toEqual([{ partition: 0, offset: 1 }]);
    await expect(tx.commit()).rejects.toBeInstanceOf(ProducerFencedError);
    expect(values(await fetchAll(broker, "t"))).toEqual(["plain"]);
    await tx.abort(); // nothing open: a no-op, also when fenced
  });

  test("fencing during a commit lets the commit finish; the fenced producer's next transaction is refused", async () => {
    const broker = await openBroker(await tempDir());
    const tx = await broker.transactionalProducer("conn-0");
    await tx.produce("t", [{ key: null, value: b("in-flight"), partition: 0 }]);
    const committing = tx.commit();
    await broker.fenceProducers(["conn-0"]);
    await committing;
    expect(values(await fetchAll(broker, "t"))).toEqual(["in-flight"]);
    await expect(tx.produce("t", [{ key: null, value: b("late") }])).rejects.toBeInstanceOf(ProducerFencedError);
  });

  test("a plain append to a partition waits behind an open transaction and follows its records", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 });
    const tx = await broker.transactionalProducer("tx");
    expect(
      (
        await tx.produce(
          "t",
          [0, 1, 2].map((i) => ({ key: null, value: b(`tx${i}`) })),
        )
      ).map((p) => p.offset),
    ).toEqual([0, 1, 2]);
    const plain = broker.produce("t", [{ key: null, value: b("plain") }]);
    expect(await stillPending(plain, broker, "t")).toBe(true);
    expect(await broker.endOffsets("t")).toEqual([0]);
    await tx.commit();
    expect(await plain).toEqual([{ partition: 0, offset: 3 }]);
    const stored = await fetchAll(broker, "t");
    expect(stored.map((r) => [r.offset, str(r.value)])).toEqual([
      [0, "tx0"],
      [1, "tx1"],
      [2, "tx2"],
      [3, "plain"],
    ]);
  });

  test("two transactions on one partition: the aborted one's offsets stay a gap, kept across a restart", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    const first = await broker.transactionalProducer("first");
    const second = await broker.transactionalProducer("second");
    await first.produce("t", [
      { key: null, value: b("f0") },
      { key: null, value: b("f1") },
    ]);
    expect(await second.produce("t", [{ key: null, value: b("s0") }])).toEqual([{ partition: 0, offset: 2 }]);
    // Committed, but written only once the transaction ahead of it is decided.
    const committing = second.commit();
    expect(await stillPending(committing, broker, "t")).toBe(true);
    await first.abort();
    await committing;
    expect((await fetchAll(broker, "t")).map((r) => [r.offset, str(r.value)])).toEqual([[2, "s0"]]);
    expect(await broker.endOffsets("t")).toEqual([3]);
    await broker.close();

    const reopened = await openBroker(dir);
    expect((await fetchAll(reopened, "t")).map((r) => [r.offset, str(r.value)])).toEqual([[2, "s0"]]);
    expect(await reopened.produce("t", [{ key: null, value: b("next") }])).toEqual([{ partition: 0, offset: 3 }]);
  });

  test("concurrent transactions and plain appends on shared partitions: every record at the position answered, no aborted one", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "x", partitions: 3, replicationFactor: 1 });
    await broker.createTopic({ name: "y", partitions: 2, replicationFactor: 1 });
    const expected = new Map<string, string>(); // "<topic>/<partition>/<offset>" → value
    const where = (topic: string, p: { partition: number; offset: number }) => `${topic}/${p.partition}/${p.offset}`;
    const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;
    const transactional = async (id: number) => {
      const tx = await broker.transactionalProducer(`tx-${id}`);
      for (let round = 0; round < 60; round++) {
        const written: [string, { partition: number; offset: number }, string][] = [];
        for (let call = 0; call < 1 + (round % 3); call++) {
          const topic = pick(["x", "y"]);
          const batch = Array.from({ length: 1 + ((round + call) % 4) }, (_, i) => `t${id}-${round}-${call}-${i}`);
          const positions = await tx.produce(
            topic,
            batch.map((v) => ({
              key: null,
              value: b(v),
              partition: Math.floor(Math.random() * (topic === "x" ? 3 : 2)),
            })),
          );
          positions.forEach((p, i) => written.push([topic, p, batch[i]!]));
        }
        if (round % 4 === 3) await tx.abort();
        else {
          await tx.commit();
          for (const [topic, p, v] of written) expected.set(where(topic, p), v);
        }
      }
      await tx.close();
    };
    const plain = async (id: number) => {
      for (let round = 0; round < 60; round++) {
        const topic = pick(["x", "y"]);
        const value = `p${id}-${round}`;
        const [p] = await broker.produce(topic, [{ key: null, value: b(value) }]);
        expected.set(where(topic, p!), value);
      }
    };
    // Meanwhile a reader takes whole snapshots (one fetchMany of every partition): never part of a transaction.
    const size = (round: number) => {
      let records = 0;
      for (let call = 0; call < 1 + (round % 3); call++) records += 1 + ((round + call) % 4);
      return records;
    };
    let writing = true;
    let snapshots = 0;
    const reader = async () => {
      const reads = [0, 1, 2].map((partition) => ({ topic: "x", partition, offset: 0 }));
      reads.push(...[0, 1].map((partition) => ({ topic: "y", partition, offset: 0 })));
      while (writing) {
        const counts = new Map<string, number>();
        for (const r of await broker.fetchMany(reads, { maxBytes: 64 * 1024 * 1024 })) {
          const m = /^t(\d+)-(\d+)-/.exec(str(r.value)!);
          if (m) counts.set(`${m[1]}-${m[2]}`, (counts.get(`${m[1]}-${m[2]}`) ?? 0) + 1);
        }
        for (const [txn, count] of counts) expect([txn, count]).toEqual([txn, size(Number(txn.split("-")[1]))]);
        snapshots++;
      }
    };
    const reading = reader();
    await Promise.all([...[0, 1, 2, 3].map(transactional), ...[0, 1].map(plain)]);
    writing = false;
    await reading;
    expect(snapshots).toBeGreaterThan(1);

    const stored = new Map<string, string>();
    for (const [topic, partitions] of [
      ["x", 3],
      ["y", 2],
    ] as const) {
      for (let partition = 0; partition < partitions; partition++) {
        for (const r of await fetchAll(broker, topic, partition)) stored.set(where(topic, r), str(r.value)!);
      }
    }
    expect(stored.size).toBe(expected.size);
    expect([...stored].sort()).toEqual([...expected].sort());
  });

  test("a committed transaction becomes visible in all its partitions at once, when the last is written", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "a", partitions: 1, replicationFactor: 1 });
    await broker.createTopic({ name: "b", partitions: 1, replicationFactor: 1 });
    // `blocker` holds a-0: `tx`'s part there is written only once blocker is decided.
    const blocker = await broker.transactionalProducer("blocker");
    await blocker.produce("a", [{ key: null, value: b("blocked") }]);
    const tx = await broker.transactionalProducer("tx");
    await tx.produce("a", [{ key: null, value: b("a1") }]);
    await tx.produce("b", [{ key: null, value: b("b0") }]);
    const committing = tx.commit();
    // A plain append to b after tx's part is acknowledged only once it is visible, after tx's.
    let plainDone = false;
    const plain = broker.produce("b", [{ key: null, value: b("plain") }]).then((p) => ((plainDone = true), p));
    const reads = [
      { topic: "a", partition: 0, offset: 0 },
      { topic: "b", partition: 0, offset: 0 },
    ];
    expect(await broker.fetchMany(reads, { maxWaitMs: 300 })).toEqual([]);
    expect(await broker.endOffsets("b")).toEqual([0]);
    expect(plainDone).toBe(false);
    await blocker.abort();
    await committing;
    expect(await plain).toEqual([{ partition: 0, offset: 1 }]);
    const seen = await broker.fetchMany(reads);
    expect(seen.map((r) => [r.topic, r.offset, str(r.value)])).toEqual([
      ["a", 1, "a1"],
      ["b", 0, "b0"],
      ["b", 1, "plain"],
    ]);
  });

  test("compaction while a transaction is written but not visible keeps the value readers see", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({
      name: "c",
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    await broker.createTopic({ name: "o", partitions: 1, replicationFactor: 1 });
    await broker.produce("c", [{ key: b("k"), value: b("v1") }]);
    const blocker = await broker.transactionalProducer("blocker");
    await blocker.produce("o", [{ key: null, value: b("blocked") }]);
    const tx = await broker.transactionalProducer("tx");
    await tx.produce("c", [{ key: b("k"), value: b("v2") }]);
    await tx.produce("o", [{ key: null, value: b("o") }]);
    const committing = tx.commit();
    await waitFor("the transaction's write to c", async () => (await broker.compact("c"))[0]!.before === 2);
    expect(values(await fetchAll(broker, "c"))).toEqual(["v1"]);
    await blocker.abort();
    await committing;
    expect(values(await fetchAll(broker, "c"))).toEqual(["v1", "v2"]);
    await broker.compact("c");
    expect(values(await fetchAll(broker, "c"))).toEqual(["v2"]);
  });

  test("a commit resolves once its transaction is visible, also when it waits to be shown behind another", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "a", partitions: 1, replicationFactor: 1 });
    await broker.createTopic({ name: "b", partitions: 1, replicationFactor: 1 });
    const blocker = await broker.transactionalProducer("blocker");
    await blocker.produce("b", [{ key: null, value: b("blocked") }]);
    // `first` is written in a but waits for b; `second`, written in a after it, is shown with or after it.
    const first = await broker.transactionalProducer("first");
    await first.produce("a", [{ key: null, value: b("first-a") }]);
    await first.produce("b", [{ key: null, value: b("first-b") }]);
    const firstCommitting = first.commit();
    const second = await broker.transactionalProducer("second");
    await second.produce("a", [{ key: null, value: b("second-a") }]);
    const secondCommitting = second.commit();
    expect(await stillPending(secondCommitting, broker, "a")).toBe(true);
    expect(await broker.endOffsets("a")).toEqual([0]);
    await blocker.abort();
    await secondCommitting;
    expect(values(await fetchAll(broker, "a"))).toEqual(["first-a", "second-a"]);
    await firstCommitting;
    expect(values(await fetchAll(broker, "b"))).toEqual(["first-b"]);
  });

  test("two transactions each behind the other in one partition become visible together", async () => {
    const broker = await openBroker(await tempDir());
    await broker.createTopic({ name: "a", partitions: 1, replicationFactor: 1 });
    await broker.createTopic({ name: "b", partitions: 1, replicationFactor: 1 });
    const first = await broker.transactionalProducer("first");
    const second = await broker.transactionalProducer("second");
    await first.produce("a", [{ key: null, value: b("first-a") }]);
    await second.produce("b", [{ key: null, value: b("second-b") }]);
    await first.produce("b", [{ key: null, value: b("first-b") }]);
    await second.produce("a", [{ key: null, value: b("second-a") }]);
    const committing = second.commit();
    expect(await stillPending(committing, broker, "a")).toBe(true);
    await first.commit();
    await committing;
    expect(values(await fetchAll(broker, "a"))).toEqual(["first-a", "second-a"]);
    expect(values(await fetchAll(broker, "b"))).toEqual(["second-b", "first-b"]);
  });

  test("a transaction open longer than its timeout is aborted; the next produce or commit says so", async () => {
    const broker = await openBroker(await tempDir());
    const tx = await broker.transactionalProducer("slow", { transactionTimeoutMs: 200 });
    await tx.produce("t", [{ key: null, value: b("late"), partition: 0 }]);
    // The plain append behind it goes ahead once the broker aborted it.
    expect(await broker.produce("t", [{ key: null, value: b("plain"), partition: 0 }])).toEqual([
      { partition: 0, offset: 1 },
    ]);
    const err = await tx.commit().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect((err as Error).message).toContain("transaction.timeout.ms (200 ms)");
    expect(values(await fetchAll(broker, "t"))).toEqual(["plain"]);
    await tx.produce("t", [{ key: null, value: b("fresh"), partition: 0 }]);
    await tx.commit();
    expect(values(await fetchAll(broker, "t"))).toEqual(["plain", "fresh"]);
  });

  test("closing the broker aborts open transactions and writes the appends waiting behind them", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    const tx = await broker.transactionalProducer("tx");
    await tx.produce("t", [{ key: null, value: b("open"), partition: 0 }]);
    const plain = broker.produce("t", [{ key: null, value: b("plain"), partition: 0 }]);
    await broker.close();
    expect(await plain).toEqual([{ partition: 0, offset: 1 }]);
    await expect(tx.commit()).rejects.toBeInstanceOf(BrokerError);
    const reopened = await openBroker(dir);
    expect((await fetchAll(reopened, "t")).map((r) => [r.offset, str(r.value)])).toEqual([[1, "plain"]]);
  });

  test("a commit record left by a crash is completed at start-up, at the committed offsets", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    await broker.createTopic({ name: "a", partitions: 1, replicationFactor: 1 });
    await broker.createTopic({ name: "b", partitions: 1, replicationFactor: 1 });
    // `blocker` holds partition a-0, so `tx`'s commit stops after its commit record and its write to b.
    const blocker = await broker.transactionalProducer("blocker");
    await blocker.produce("a", [{ key: null, value: b("blocked") }]);
    const tx = await broker.transactionalProducer("tx");
    expect(
      await tx.produce("a", [
        { key: null, value: b("a1") },
        { key: null, value: b("a2") },
      ]),
    ).toEqual([
      { partition: 0, offset: 1 },
      { partition: 0, offset: 2 },
    ]);
    await tx.produce("b", [{ key: null, value: b("b0") }]);
    const committing = tx.commit();
    // Its part in b is written, but not visible while its part in a waits.
    await waitFor("the transaction's write to b", async () => (await stat(join(dir, "topics", "b", "0.log"))).size > 0);
    expect(await broker.endOffsets("b")).toEqual([0]);
    // The data directory as a crash at this moment would leave it.
    const crashed = await tempDir();
    await cp(dir, crashed, { recursive: true });
    await rm(join(crashed, ".lock"));
    expect((await readdir(join(crashed, "transactions"))).filter((f) => f.endsWith(".commit"))).toHaveLength(1);
    await blocker.abort();
    await committing;

    const recovered = await openBroker(crashed);
    expect((await fetchAll(recovered, "a")).map((r) => [r.offset, str(r.value)])).toEqual([
      [1, "a1"],
      [2, "a2"],
    ]);
    expect(values(await fetchAll(recovered, "b"))).toEqual(["b0"]);
    expect(await readdir(join(crashed, "transactions"))).toEqual([]);
    expect(await recovered.produce("a", [{ key: null, value: b("after") }])).toEqual([{ partition: 0, offset: 3 }]);
  });
});

describe("EmbeddedBroker commit records at start-up", () => {
  test("a commit record cut short while being written was never committed: it is removed, nothing is redone", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    await broker.produce("t", [{ key: null, value: b("before"), partition: 0 }]);
    await broker.close();
    await writeFile(join(dir, "transactions", ".0.commit.tmp-1-1"), b("half of a commit record"));
    const reopened = await openBroker(dir);
    expect(await readdir(join(dir, "transactions"))).toEqual([]);
    expect(values(await fetchAll(reopened, "t"))).toEqual(["before"]);
  });

  test("a damaged commit record stops start-up, naming it, and is left as it is", async () => {
    const dir = await tempDir();
    const broker = await openBroker(dir);
    await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 });
    const tx = await broker.transactionalProducer("tx");
    await tx.produce("t", [{ key: null, value: b("v"), partition: 0 }]);
    await tx.commit();
    await broker.close();
    const record = join(dir, "transactions", "0.commit");
    const header = new TextEncoder().encode(JSON.stringify({ partitions: [{ topic: "t", partition: 0, frames: 1 }] }));
    const frame = new Uint8Array(40).fill(7);
    await writeFile(record, Buffer.concat([new Uint8Array([0, 0, 0, header.length]), header, frame]));
    const failing = new EmbeddedBroker({ dataDir: dir, logger: pino({ level: "silent" }) });
    const err = await failing.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect((err as Error).message).toContain(`commit record ${record} is damaged`);
    expect(await readdir(join(dir, "transactions"))).toEqual(["0.commit"]);
  });
});

describe("EmbeddedBroker transactions under kill -9", () => {
  test("after each of several kills, every transaction is complete in both topics or absent from both", async () => {
    const dir = await tempDir();
    const script = join(import.meta.dir, "embedded-tx-crash-producer.ts");
    const acknowledged = new Set<string>();
    for (let run = 0; run < 6; run++) {
      const child = Bun.spawn([process.execPath, script, dir, String(run)], { stdout: "pipe", stderr: "inherit" });
      cleanup.push(async () => child.kill("SIGKILL"));
      // Killed after a random number of commits, so the kill lands anywhere in a transaction's life.
      const commits = 5 + Math.floor(Math.random() * 60);
      const reader = child.stdout.getReader();
      let seen = 0;
      let pending = "";
      const deadline = Date.now() + 60_000;
      while (seen < commits) {
        if (Date.now() > deadline) throw new Error(`only ${seen} commits before the deadline (run ${run})`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`transaction crash producer exited early (run ${run})`);
        pending += dec.decode(value, { stream: true });
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          const m = /^commit (\S+)$/.exec(line);
          if (m) {
            acknowledged.add(m[1]!);
            seen++;
          }
        }
      }
      child.kill("SIGKILL");
      expect(await child.exited).not.toBe(0);
      reader.releaseLock();

      const broker = new EmbeddedBroker({ dataDir: dir, logger: pino({ level: "silent" }) });
      await broker.connect();
      try {
        const inA = new Map<string, FetchedRecord[]>();
        for (const partition of [0, 1]) {
          for (const r of await fetchAll(broker, TX_TOPIC_A, partition)) {
            const txn = str(r.key)!.split("/")[0]!;
            inA.set(txn, [...(inA.get(txn) ?? []), r]);
          }
        }
        const inB = (await fetchAll(broker, TX_TOPIC_B)).map((r) => str(r.value)!);
        let countA = 0;
        for (const records of inA.values()) countA += records.length;
        expect(countA).toBe(inB.length * TX_RECORDS);
        expect(new Set(inB).size).toBe(inB.length);
        for (const txn of inB) {
          expect(isAborted(txn)).toBe(false);
          const records = (inA.get(txn) ?? []).sort((x, y) => str(x.key)!.localeCompare(str(y.key)!));
          expect(records.map((r) => str(r.key))).toEqual(Array.from({ length: TX_RECORDS }, (_, i) => `${txn}/${i}`));
          records.forEach((r, i) => expect(r.value).toEqual(txValue(txn, i)));
        }
        // Every commit the child saw resolve survived.
        const committed = new Set(inB);
        for (const txn of acknowledged) expect(committed.has(txn)).toBe(true);
        expect((await readdir(join(dir, "transactions"))).filter((f) => !f.startsWith("."))).toEqual([]);
      } finally {
        await broker.close();
      }
    }
  }, 120_000);
});
