// The source task loop (WorkerSourceTask) on an embedded broker with a file offset store: what reaches
// the broker, what the task is told of it, when source offsets are stored, retriable and other poll
// failures, skipped records, pause and resume.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { decoder, encoder, type Broker, type ProduceRecord } from "#src/broker/broker.ts";
import type { EmbeddedBroker } from "#src/broker/embedded/embedded-broker.ts";
import { kafkaPartition } from "#src/broker/partitioner.ts";
import { RetriableException, SourceTask, type RecordMetadata } from "#src/connect/api/connector.ts";
import { newRecord, sourceRecord, type SourceRecord } from "#src/connect/api/records.ts";
import { SimpleHeaderConverter } from "#src/connect/converters/simple-header.ts";
import { StringConverter } from "#src/connect/converters/string.ts";
import { RetryWithToleranceOperator } from "#src/connect/runtime/errors/tolerance.ts";
import { ConnectMetrics } from "#src/connect/runtime/metrics.ts";
import { FileOffsetStore } from "#src/connect/runtime/storage/offset-store.ts";
import { sourceConnectorDefinition } from "#src/connect/runtime/worker/connector-config.ts";
import { MAX_BATCHES_IN_FLIGHT, WorkerSourceTask } from "#src/connect/runtime/worker/source-task.ts";
import { tempBroker } from "../../../../fixtures/embedded-broker.ts";
import { captureLogs } from "../../../../fixtures/logs.ts";
import { waitFor } from "../../../../fixtures/wait.ts";
import { StatusLog } from "./status-log.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A source task handing out what the test offers (records, or an error to throw), one poll each; it waits when there is nothing. */
class ScriptedSourceTask extends SourceTask {
  private readonly queue: (SourceRecord[] | Error)[] = [];
  private wake?: () => void;
  polls = 0;
  commits = 0;
  readonly committedRecords: [unknown, RecordMetadata | null][] = [];
  readonly calls: string[] = [];
  onCommitRecord?: (count: number) => void;
  version = () => "1";
  start() {
    this.calls.push("start");
  }
  offer(...items: (SourceRecord[] | Error)[]) {
    this.queue.push(...items);
    this.wake?.();
  }
  /** How many records were acknowledged (commitRecord) when each poll began. */
  readonly acknowledgedAtPoll: number[] = [];
  async poll() {
    this.polls++;
    this.acknowledgedAtPoll.push(this.committedRecords.length);
    while (this.queue.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    const next = this.queue.shift()!;
    if (next instanceof Error) throw next;
    return next;
  }
  override commit() {
    this.commits++;
  }
  override commitRecord(record: SourceRecord, metadata: RecordMetadata | null) {
    this.committedRecords.push([record.value, metadata]);
    this.onCommitRecord?.(this.committedRecords.length);
  }
  stop() {
    this.calls.push("stop");
  }
}

/** Stops the worker; the poll its loop may wait in (it polls on while writes are acknowledged) answers nothing. */
function stop(worker: WorkerSourceTask, task: ScriptedSourceTask): void {
  void worker.stop(5000);
  task.offer([]);
}

const record = (file: string, position: number, value: string, key: string | null = null) =>
  sourceRecord({ sourcePartition: { file }, sourceOffset: { position }, topic: "out", key, value });

async function startSource(
  task: ScriptedSourceTask,
  options: {
    connector?: Record<string, string>;
    flushIntervalMs?: number;
    transform?: (r: SourceRecord) => SourceRecord | null;
    /** Exactly once, with this transaction.boundary; offsets go to the topic "offsets" in the transactions. */
    boundary?: "poll" | "interval" | "connector";
    /** Writes to this topic wait until the test opens the gate. */
    gated?: { topic: string; open: Promise<void> };
    /** Sees the records of each produce to the gated topic. */
    onProduce?: (records: ProduceRecord[]) => void;
    /** The producer's buffer.memory. */
    bufferMemory?: number;
  } = {},
) {
  const temp = await tempBroker();
  cleanups.push(temp.close);
  const exactlyOnce = options.boundary
    ? {
        producer: await temp.broker.transactionalProducer("group-src-0"),
        boundary: options.boundary,
        intervalMs: 60_000,
        offsetsTopic: "offsets",
      }
    : undefined;
  const offsets = await FileOffsetStore.open(join(temp.dir, "offsets"), "offset.storage.file.filename");
  const settings = sourceConnectorDefinition.parse({
    name: "src",
    "connector.class": "test.Source",
    ...options.connector,
  }).values;
  const string = (isKey: boolean) => {
    const converter = new StringConverter();
    converter.configure({}, isKey);
    return converter;
  };
  const log = new StatusLog();
  const metrics = new ConnectMetrics().task("src", 0);
  const worker = new WorkerSourceTask("src-0", "w", false, log.listener, {
    task,
    taskConfig: {},
    connector: "src",
    keyConverter: string(true),
    valueConverter: string(false),
    headerConverter: new SimpleHeaderConverter(),
    converterClasses: { key: "StringConverter", value: "StringConverter", header: "SimpleHeaderConverter" },
    transform: async (r) => (options.transform ? options.transform(r) : r),
    errors: new RetryWithToleranceOperator(settings, "src-0", metrics),
    broker: options.gated
      ? gatedBroker(temp.broker, options.gated.topic, options.gated.open, options.onProduce)
      : temp.broker,
    offsets,
    flushIntervalMs: options.flushIntervalMs ?? 60_000,
    metrics,
    pluginMetrics: new ConnectMetrics().plugin("src", 0),
    createTopics: true,
    onTopic: () => {},
    ...(exactlyOnce ? { exactlyOnce } : {}),
    ...(options.bufferMemory === undefined ? {} : { bufferMemory: options.bufferMemory }),
  });
  worker.start();
  return { worker, log, broker: temp.broker, offsets };
}

/** The broker, with its writes to one topic held until `open` settles: acknowledgements out of order. */
function gatedBroker(
  broker: EmbeddedBroker,
  topic: string,
  open: Promise<void>,
  onProduce?: (records: ProduceRecord[]) => void,
): Broker {
  return new Proxy(broker, {
    get(target, name, receiver) {
      if (name !== "produce") {
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (to: string, records: ProduceRecord[]) => {
        if (to === topic) {
          onProduce?.(records);
          await open;
        }
        return target.produce(to, records);
      };
    },
  });
}

async function written(
  broker: EmbeddedBroker,
  topic: string,
  partition = 0,
): Promise<[string | null, string | null][]> {
  const text = (bytes: Uint8Array | null) => (bytes === null ? null : decoder.decode(bytes));
  return (await broker.fetch(topic, partition, 0)).map((r) => [text(r.key), text(r.value)]);
}

describe("sending", () => {
  test("polled records go through the transform and converters to the key's partition; commitRecord gets each position; offsets are stored per source partition", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, broker, offsets } = await startSource(task, {
      flushIntervalMs: 0,
      transform: (r) => newRecord(r, { value: `${String(r.value)}!` }),
    });
    await broker.createTopic({ name: "out", partitions: 3, replicationFactor: 1 });
    task.onCommitRecord = (count) => void (count === 3 && stop(worker, task));
    task.offer([record("a", 1, "v1", "k1"), record("a", 2, "v2", "k2"), record("b", 7, "v3", "k1")]);
    await log.reached("UNASSIGNED");

    const k1 = kafkaPartition(encoder.encode("k1"), 3);
    const k2 = kafkaPartition(encoder.encode("k2"), 3);
    expect(k1).not.toBe(k2);
    expect(await written(broker, "out", k1)).toEqual([
      ["k1", "v1!"],
      ["k1", "v3!"],
    ]);
    expect(await written(broker, "out", k2)).toEqual([["k2", "v2!"]]);
    expect(task.committedRecords).toEqual([
      ["v1", { topic: "out", partition: k1, offset: 0 }],
      ["v2", { topic: "out", partition: k2, offset: 0 }],
      ["v3", { topic: "out", partition: k1, offset: 1 }],
    ]);
    // The last record of each source partition carries its position.
    expect(offsets.all("src")).toEqual([
      { partition: { file: "a" }, offset: { position: 2 } },
      { partition: { file: "b" }, offset: { position: 7 } },
    ]);
    expect(task.commits).toBe(1);
    expect(task.calls).toEqual(["start", "stop"]);
  });

  test("a connector that reuses one source-partition object: the last position per partition is stored, as a copy", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, offsets } = await startSource(task, { flushIntervalMs: 0 });
    const a = { file: "a" };
    const b = { file: "b" };
    const at = (partition: Record<string, unknown>, position: number) =>
      sourceRecord({ sourcePartition: partition, sourceOffset: { position }, topic: "out", value: String(position) });
    task.onCommitRecord = (count) => void (count === 5 && stop(worker, task));
    task.offer([at(a, 1), at(a, 2), at(b, 10), at(a, 3), at(b, 11)]);
    await log.reached("UNASSIGNED");
    a.file = "changed later"; // what was stored is the runtime's own copy
    expect(offsets.all("src")).toEqual([
      { partition: { file: "a" }, offset: { position: 3 } },
      { partition: { file: "b" }, offset: { position: 11 } },
    ]);
  });

  test("a record the transform drops or whose failure is tolerated is not written, commitRecord gets null, and its offset still advances", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, broker, offsets } = await startSource(task, {
      connector: { "errors.tolerance": "all" },
      transform: (r) => {
        if (r.value === "drop") return null;
        if (r.value === "bad") throw new Error("cannot transform");
        return r;
      },
    });
    task.onCommitRecord = (count) => void (count === 3 && stop(worker, task));
    task.offer([record("a", 1, "drop"), record("a", 2, "ok"), record("a", 3, "bad")]);
    await log.reached("UNASSIGNED");
    expect(await written(broker, "out")).toEqual([[null, "ok"]]);
    // As Kafka Connect's: a skipped record at once, a written one once acknowledged.
    expect(task.committedRecords).toEqual([
      ["drop", null],
      ["bad", null],
      ["ok", { topic: "out", partition: 0, offset: 0 }],
    ]);
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 3 });
  });

  test("errors.tolerance=none: a transform failure fails the task, naming the tolerance", async () => {
    const task = new ScriptedSourceTask();
    const { log, broker } = await startSource(task, {
      transform: () => {
        throw new Error("cannot transform");
      },
    });
    task.offer([record("a", 1, "x")]);
    const failed = await log.reached("FAILED");
    expect(failed.trace).toStartWith("ConnectException: Tolerance exceeded in error handler");
    expect(failed.trace).toContain("Caused by: Error: cannot transform");
    expect(await broker.describeTopic("out")).toBeUndefined();
  });
});

describe("poll failures", () => {
  test("a RetriableException is polled again; another error fails the task, and what the broker acknowledged is still stored", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, broker, offsets } = await startSource(task);
    task.offer(
      [record("a", 1, "v1")],
      new RetriableException("source busy"),
      [record("a", 2, "v2")],
      new Error("source gone"),
    );
    const failed = await log.reached("FAILED");
    await worker.stop(5000); // the failed loop's end: its shutdown
    expect(failed.trace).toStartWith("Error: source gone");
    expect(task.polls).toBe(4);
    expect(await written(broker, "out")).toEqual([
      [null, "v1"],
      [null, "v2"],
    ]);
    // offset.flush.interval.ms is a minute: the offsets were stored as the task stopped.
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 2 });
    expect(task.calls).toEqual(["start", "stop"]);
    expect(log.states).toEqual(["RUNNING", "FAILED"]);
  });
});

describe("polling on while batches are written", () => {
  const to = (topic: string, position: number, extra: Partial<SourceRecord> = {}) =>
    sourceRecord({
      sourcePartition: { file: "a" },
      sourceOffset: { position },
      topic,
      value: String(position),
      ...extra,
    });

  test("a later batch acknowledged first: its record is committed at once, the offsets only after the earlier batch", async () => {
    const task = new ScriptedSourceTask();
    const gate = Promise.withResolvers<void>();
    const { worker, log, offsets } = await startSource(task, {
      flushIntervalMs: 0,
      gated: { topic: "slow", open: gate.promise },
    });
    task.offer([to("slow", 1)], [to("fast", 2)], [to("fast", 3)]);
    await waitFor("the fast batches acknowledged", () => task.committedRecords.length === 2);
    expect(task.committedRecords.map(([value]) => value)).toEqual(["2", "3"]);
    // A round (offset.flush.interval.ms is 0: it commits) while the first batch is still out.
    task.offer([]);
    await waitFor("a round after the acknowledgements", () => task.polls === 5);
    expect(offsets.get("src", { file: "a" })).toBeNull();
    gate.resolve();
    await waitFor("the slow batch acknowledged", () => task.committedRecords.length === 3);
    stop(worker, task);
    await log.reached("UNASSIGNED");
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 3 });
  });

  test("a write that fails mid-pipeline fails the task; nothing past it is written or committed", async () => {
    const task = new ScriptedSourceTask();
    const gate = Promise.withResolvers<void>();
    const { worker, log, broker, offsets } = await startSource(task, {
      gated: { topic: "out", open: gate.promise },
    });
    await broker.createTopic({ name: "out", partitions: 1, replicationFactor: 1 });
    // The second batch names a partition the topic does not have: the broker refuses it.
    task.offer([to("out", 1)], [to("out", 2, { kafkaPartition: 5 })], [to("out", 3)], [to("out", 4)]);
    await waitFor("all four batches polled and sent", () => task.polls === 5); // the fifth waits for an offer
    gate.resolve();
    // FAILED at once, though the loop may be in its next poll, which then ends it.
    const failed = await log.reached("FAILED");
    stop(worker, task);
    await worker.stop(5000);
    expect(failed.trace).toContain("partition 5 does not exist in topic out");
    expect((await written(broker, "out")).map(([, value]) => value)).toEqual(["1"]);
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 1 });
    expect(task.committedRecords.map(([value]) => value)).toEqual(["1"]);
  });

  test("polling stops at the bound of batches in flight until one is acknowledged", async () => {
    const task = new ScriptedSourceTask();
    const gate = Promise.withResolvers<void>();
    const { worker, log, offsets } = await startSource(task, { gated: { topic: "out", open: gate.promise } });
    const count = MAX_BATCHES_IN_FLIGHT + 2;
    task.offer(...Array.from({ length: count }, (_, i) => [to("out", i + 1)]));
    await waitFor("the bound reached", () => task.polls === MAX_BATCHES_IN_FLIGHT);
    gate.resolve();
    await waitFor("every batch acknowledged", () => task.committedRecords.length === count);
    // The first polls ran ahead of any acknowledgement up to the bound; the next waited for one.
    const ahead = task.acknowledgedAtPoll.slice(0, MAX_BATCHES_IN_FLIGHT + 1);
    expect(ahead.slice(0, -1).every((acknowledged) => acknowledged === 0)).toBe(true);
    expect(ahead.at(-1)).toBeGreaterThan(0);
    stop(worker, task);
    await log.reached("UNASSIGNED");
    expect(offsets.get("src", { file: "a" })).toEqual({ position: count });
  });

  test("producer buffer.memory bounds the bytes in flight: with room for one record, each poll waits for the last", async () => {
    const task = new ScriptedSourceTask();
    const gate = Promise.withResolvers<void>();
    const { worker, log } = await startSource(task, { gated: { topic: "out", open: gate.promise }, bufferMemory: 1 });
    task.offer([to("out", 1)], [to("out", 2)], [to("out", 3)]);
    await waitFor("the first batch polled", () => task.polls === 1);
    gate.resolve();
    await waitFor("every batch acknowledged", () => task.committedRecords.length === 3);
    expect(task.acknowledgedAtPoll.slice(0, 3)).toEqual([0, 1, 2]);
    stop(worker, task);
    await log.reached("UNASSIGNED");
  });

  test("batches polled while a topic's write is under way go out together in its next produce, in order", async () => {
    const task = new ScriptedSourceTask();
    const gate = Promise.withResolvers<void>();
    const produced: number[] = [];
    const { worker, log, broker, offsets } = await startSource(task, {
      gated: { topic: "out", open: gate.promise },
      onProduce: (records) => produced.push(records.length),
    });
    task.offer(...Array.from({ length: 5 }, (_, i) => [to("out", i + 1)]));
    await waitFor("every batch polled and sent", () => task.polls === 6); // the sixth waits for an offer
    gate.resolve();
    await waitFor("every batch acknowledged", () => task.committedRecords.length === 5);
    // The first batch went alone; the four polled while it was out, in one produce.
    expect(produced).toEqual([1, 4]);
    expect((await written(broker, "out")).map(([, value]) => value)).toEqual(["1", "2", "3", "4", "5"]);
    expect(task.committedRecords.map(([value]) => value)).toEqual(["1", "2", "3", "4", "5"]);
    stop(worker, task);
    await log.reached("UNASSIGNED");
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 5 });
  });

  test("a batch that takes long to convert lets an earlier write's acknowledgement in between, not only after it", async () => {
    const task = new ScriptedSourceTask();
    const gate = Promise.withResolvers<void>();
    const acknowledgedWhileConverting: number[] = [];
    const { worker, log } = await startSource(task, {
      gated: { topic: "out", open: gate.promise },
      transform: (r) => {
        if ((r.sourceOffset as { position: number }).position > 1) {
          gate.resolve(); // the first batch's write may now be acknowledged
          // A converter's CPU work, with no await in it: 2 ms a record until the acknowledgement is seen
          // (up to a second for the whole batch), then none.
          const until = performance.now() + 2;
          while (task.committedRecords.length === 0 && performance.now() < until);
          acknowledgedWhileConverting.push(task.committedRecords.length);
        }
        return r;
      },
    });
    task.offer(
      [to("out", 1)],
      Array.from({ length: 500 }, (_, i) => to("out", i + 2)),
    );
    await waitFor("every record acknowledged", () => task.committedRecords.length === 501);
    // The second batch's conversion was cut into slices; the first write's answer came in one of them.
    expect(acknowledgedWhileConverting.at(-1)).toBe(1);
    stop(worker, task);
    await log.reached("UNASSIGNED");
  });
});

describe("pause and resume", () => {
  test("a pause waits for the batches being written, stores their offsets and polls nothing until resumed", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, offsets } = await startSource(task);
    task.onCommitRecord = (count) => {
      if (count === 1) worker.pause(); // while the loop already polls on
      if (count === 3) stop(worker, task);
    };
    task.offer([record("a", 1, "v1")]);
    await waitFor("the second poll", () => task.polls === 2);
    task.offer([record("a", 2, "v2")]); // the poll under way still counts
    await log.reached("PAUSED");
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 2 });
    task.offer([record("a", 3, "v3")]);
    // Parked until resumed: no poll takes the record.
    expect(task.polls).toBe(2);
    worker.resume();
    await log.reached("UNASSIGNED");
    expect(task.polls).toBeGreaterThanOrEqual(3);
    expect(offsets.get("src", { file: "a" })).toEqual({ position: 3 });
    expect(log.states).toEqual(["RUNNING", "PAUSED", "RUNNING", "UNASSIGNED"]);
  });
});

describe("exactly once", () => {
  const offsetRecords = async (broker: EmbeddedBroker) =>
    (await broker.fetch("offsets", 0, 0).catch(() => [])).map((r) => [
      decoder.decode(r.key!),
      decoder.decode(r.value!),
    ]);

  test("poll boundary: each poll's records and offsets are committed together, then commitRecord and commit", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, broker } = await startSource(task, { boundary: "poll" });
    await broker.createTopic({ name: "offsets", partitions: 1, replicationFactor: 1 });
    task.onCommitRecord = (count) => void (count === 3 && stop(worker, task));
    task.offer([record("a", 1, "v1"), record("a", 2, "v2")], [record("a", 3, "v3")]);
    await log.reached("UNASSIGNED");
    expect(await written(broker, "out")).toEqual([
      [null, "v1"],
      [null, "v2"],
      [null, "v3"],
    ]);
    expect(await offsetRecords(broker)).toEqual([
      ['["src",{"file":"a"}]', '{"position":2}'],
      ['["src",{"file":"a"}]', '{"position":3}'],
    ]);
    expect(task.commits).toBe(2);
  });

  test("a failure aborts the open transaction: neither its records nor its offsets are visible", async () => {
    const task = new ScriptedSourceTask();
    const { log, broker } = await startSource(task, { boundary: "interval" });
    await broker.createTopic({ name: "offsets", partitions: 1, replicationFactor: 1 });
    task.offer([record("a", 1, "v1")], new Error("the source broke"));
    await log.reached("FAILED");
    expect(await written(broker, "out")).toEqual([]);
    expect(await offsetRecords(broker)).toEqual([]);
    expect(task.committedRecords).toEqual([]);
  });

  test("the connector's abort drops the records and still commits their offsets, as Kafka's tasks do", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, broker } = await startSource(task, { boundary: "connector" });
    await broker.createTopic({ name: "offsets", partitions: 1, replicationFactor: 1 });
    const dropped = record("a", 1, "dropped");
    const kept = record("a", 2, "kept");
    task.onCommitRecord = () => void worker.stop(5000);
    // Asked while the records are polled, as a connector's poll() asks.
    task.context.transactionContext!.abortTransaction(dropped);
    task.offer([dropped]);
    await log.reached("RUNNING");
    await waitFor("the abort's offsets", async () => (await offsetRecords(broker)).length === 1);
    task.context.transactionContext!.commitTransaction(kept);
    task.offer([kept]);
    await log.reached("UNASSIGNED");
    expect(await written(broker, "out")).toEqual([[null, "kept"]]);
    expect(await offsetRecords(broker)).toEqual([
      ['["src",{"file":"a"}]', '{"position":1}'],
      ['["src",{"file":"a"}]', '{"position":2}'],
    ]);
    expect(task.committedRecords.map(([value]) => value)).toEqual(["kept"]);
  });

  test("a producer fenced while the task was away: stopping fails the commit, and the log says fenced and names the id", async () => {
    const task = new ScriptedSourceTask();
    const { worker, log, broker } = await startSource(task, { boundary: "interval" });
    await broker.createTopic({ name: "offsets", partitions: 1, replicationFactor: 1 });
    task.offer([record("a", 1, "v1")]);
    await waitFor("the record in the open transaction", () => task.polls === 2);
    // Another worker took the task over: its producer, with the same transactional.id, fences this one.
    const successor = await broker.transactionalProducer("group-src-0");
    const logs = captureLogs();
    try {
      worker.stop(5000);
      task.offer([]); // ends the poll the loop waits in
      await log.reached("FAILED");
      expect(logs.text()).toMatch(
        /could not commit the transaction: fenced.*group-src-0|group-src-0.*could not commit the transaction: fenced/,
      );
    } finally {
      logs.stop();
      await successor.close();
    }
    expect(await written(broker, "out")).toEqual([]);
    expect(await offsetRecords(broker)).toEqual([]);
  });
});
