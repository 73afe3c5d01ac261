// Transactions from a task thread on the embedded broker: the thread's transactional producer lives on the
// main thread behind a handle (RemoteBroker, BrokerCalls), fencing crosses back as ProducerFencedError, and
// a thread that ends with a transaction open does not leave it holding back its partitions.
import { afterEach, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { EmbeddedBroker } from "#src/broker/embedded/index.ts";
import { ConnectMetrics } from "#src/connect/runtime/metrics.ts";
import type { OffsetStore } from "#src/connect/runtime/storage/offset-store.ts";
import type { ThreadInit } from "#src/connect/runtime/threads/protocol.ts";
import { TaskThreads } from "#src/connect/runtime/threads/task-threads.ts";
import type { Status } from "#src/connect/runtime/status.ts";
import { waitFor } from "../../fixtures/wait.ts";

const dec = new TextDecoder();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!().catch(() => undefined);
});

test("a task thread's transactions: commit, fencing as ProducerFencedError, and an open one aborted when the thread ends", async () => {
  const dir = await mkdtemp(join(tmpdir(), "sluice-thread-tx-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const broker = new EmbeddedBroker({ dataDir: dir, logger: pino({ level: "silent" }) });
  await broker.connect();
  cleanup.push(() => broker.close());
  await broker.createTopic({ name: "t", partitions: 1, replicationFactor: 1 });
  const values = async () => (await broker.fetch("t", 0, 0)).map((r) => [r.offset, dec.decode(r.value!)]);

  const threads = new TaskThreads({
    entry: join(import.meta.dir, "..", "..", "fixtures", "transaction-thread.ts"),
    max: 1,
    init: { workerId: "w" } as ThreadInit,
    broker,
    offsets: {} as OffsetStore,
    metrics: new ConnectMetrics(),
  });
  cleanup.push(async () => threads.close());
  const steps: Record<string, unknown>[] = [];
  const statuses: Status[] = [];
  const task = threads.start(
    { connector: "c", index: 0, connectorConfig: {}, taskConfig: {}, workerConverters: {}, paused: false },
    [],
    { onStatus: (s) => statuses.push(s), onTopic: (step) => steps.push(JSON.parse(step)) },
  );
  const step = (name: string) => waitFor(`step ${name}`, () => steps.find((s) => s.step === name));

  expect((await step("committed")).positions).toEqual([
    { partition: 0, offset: 0 },
    { partition: 0, offset: 1 },
  ]);
  expect(await values()).toEqual([
    [0, "a"],
    [1, "b"],
  ]);

  await step("open");
  await broker.fenceProducers(["thread-tx"]);
  task.resume();
  const fenced = await step("fenced");
  expect(fenced.fenced).toBe(true);
  expect(fenced.transactionalId).toBe("thread-tx");
  expect(String(fenced.message)).toContain("another producer with the same transactional.id took over");

  expect((await step("fenced-by-thread")).fenced).toBe(true);
  await step("open2");
  // Waits behind the thread's open transaction, until the thread ends and its producers are closed.
  const plain = broker.produce("t", [{ key: null, value: new TextEncoder().encode("plain"), partition: 0 }]);
  task.pause(); // the fixture's thread exits
  let written: { offset: number }[] | undefined;
  void plain.then((positions) => (written = positions));
  expect(
    (await waitFor("the append behind the dead thread's transaction", () => written, { timeoutMs: 10_000 }))[0]!.offset,
  ).toBe(3);
  expect(await values()).toEqual([
    [0, "a"],
    [1, "b"],
    [3, "plain"],
  ]);
  await waitFor("the task FAILED by the thread's end", () => statuses.some((s) => s.state === "FAILED"));
});
