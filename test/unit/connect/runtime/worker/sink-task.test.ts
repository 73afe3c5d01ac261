// The sink task loop (WorkerSinkTask) on an embedded broker: what the task is given, when the group's
// positions are committed (only after flush, only what preCommit allows), redelivery after a
// retriable put, failures, pause and resume, and the SinkTaskContext calls.
import { afterEach, describe, expect, test } from "bun:test";
import { type Broker, decoder, encoder } from "#src/broker/broker.ts";
import { taskClientTuning, type ConsumerTuning } from "#src/broker/client-settings.ts";
import type { EmbeddedBroker } from "#src/broker/embedded/embedded-broker.ts";
import { RetriableException, SinkTask, type TopicPartition } from "#src/connect/api/connector.ts";
import type { SinkRecord } from "#src/connect/api/records.ts";
import { JsonConverter } from "#src/connect/converters/json.ts";
import { SimpleHeaderConverter } from "#src/connect/converters/simple-header.ts";
import { StringConverter } from "#src/connect/converters/string.ts";
import { DeadLetterQueueReporter } from "#src/connect/runtime/errors/dead-letter-queue.ts";
import { RetryWithToleranceOperator } from "#src/connect/runtime/errors/tolerance.ts";
import { ConnectMetrics } from "#src/connect/runtime/metrics.ts";
import { sinkConnectorDefinition } from "#src/connect/runtime/worker/connector-config.ts";
import { WorkerSinkTask } from "#src/connect/runtime/worker/sink-task.ts";
import { tempBroker } from "../../../../fixtures/embedded-broker.ts";
import { StatusLog } from "./status-log.ts";

const GROUP = "connect-sink";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A sink task whose put, flush and preCommit the test scripts; it records what it was given. */
class ScriptedSinkTask extends SinkTask {
  readonly batches: SinkRecord[][] = [];
  readonly flushed: Map<string, number>[] = [];
  readonly calls: string[] = [];
  onPut?: (records: SinkRecord[], batch: number) => void | Promise<void>;
  onOpen?: (partitions: TopicPartition[]) => void;
  commitOnly?: (offsets: Map<TopicPartition, number>) => Map<TopicPartition, number>;
  version = () => "1";
  start() {
    this.calls.push("start");
  }
  override open(partitions: TopicPartition[]) {
    this.calls.push(`open ${partitions.map((tp) => `${tp.topic}:${tp.partition}`).join(",")}`);
    this.onOpen?.(partitions);
  }
  async put(records: SinkRecord[]) {
    this.batches.push(records);
    await this.onPut?.(records, this.batches.length);
  }
  override flush(offsets: Map<TopicPartition, number>) {
    this.flushed.push(new Map([...offsets].map(([tp, offset]) => [`${tp.topic}:${tp.partition}`, offset])));
  }
  override preCommit(offsets: Map<TopicPartition, number>) {
    return this.commitOnly?.(offsets) ?? offsets;
  }
  override close(partitions: TopicPartition[]) {
    this.calls.push(`close ${partitions.map((tp) => `${tp.topic}:${tp.partition}`).join(",")}`);
  }
  stop() {
    this.calls.push("stop");
  }
  get values(): unknown[][] {
    return this.batches.map((batch) => batch.map((r) => r.value));
  }
}

/** A broker in a temp dir, `values` already in topic "in" (partition 0). */
async function broker(...values: string[]): Promise<EmbeddedBroker> {
  const temp = await tempBroker();
  cleanups.push(temp.close);
  if (values.length > 0) await produce(temp.broker, "in", values);
  return temp.broker;
}

async function produce(broker: EmbeddedBroker, topic: string, values: string[], partition = 0): Promise<void> {
  await broker.produce(
    topic,
    values.map((v) => ({ key: encoder.encode(`k-${v}`), value: encoder.encode(v), partition })),
  );
}

const sinkSettings = (connector: Record<string, string> = {}) =>
  sinkConnectorDefinition.parse({ name: "sink", "connector.class": "test.Sink", topics: "in", ...connector }).values;

/** Starts a WorkerSinkTask over `partitions` of topic "in", with String converters unless a value converter is given. */
function startSink(
  broker: EmbeddedBroker,
  task: ScriptedSinkTask,
  options: {
    partitions?: number[];
    connector?: Record<string, string>;
    valueConverter?: JsonConverter;
    flushIntervalMs?: number;
    dlq?: DeadLetterQueueReporter;
    /** The partitions each refresh finds, asked at every round. */
    refresh?: () => number[];
    /** Consumer settings over Kafka Connect's (a worker's consumer.*, a connector's consumer.override.*). */
    consumer?: Partial<ConsumerTuning>;
  } = {},
) {
  const settings = sinkSettings(options.connector);
  const log = new StatusLog();
  const keyConverter = new StringConverter();
  keyConverter.configure({}, true);
  const valueConverter = options.valueConverter ?? new StringConverter();
  if (!options.valueConverter) valueConverter.configure({}, false);
  const metrics = new ConnectMetrics().task("sink", 0);
  const worker = new WorkerSinkTask("sink-0", "w", false, log.listener, {
    task,
    taskConfig: {},
    connector: "sink",
    group: GROUP,
    ...(options.consumer ? { consumer: { ...taskClientTuning({}).consumer, ...options.consumer } } : {}),
    partitions: (options.partitions ?? [0]).map((partition) => ({ topic: "in", partition })),
    ...(options.refresh
      ? {
          refresh: {
            partitions: async () => options.refresh!().map((partition) => ({ topic: "in", partition })),
            everyMs: 0,
          },
        }
      : {}),
    keyConverter,
    valueConverter,
    headerConverter: new SimpleHeaderConverter(),
    converterClasses: {
      key: "StringConverter",
      value: valueConverter.constructor.name,
      header: "SimpleHeaderConverter",
    },
    transform: async (record) => record,
    errors: new RetryWithToleranceOperator(settings, "sink-0", metrics, options.dlq ? [options.dlq] : []),
    broker,
    flushIntervalMs: options.flushIntervalMs ?? 60_000,
    metrics,
    onTopic: () => {},
  });
  worker.start();
  return { worker, log };
}

const committed = async (broker: EmbeddedBroker) => Object.fromEntries(await broker.committedOffsets(GROUP, "in"));

describe("delivery and commits", () => {
  test("delivers each record once, converted; positions are committed after flush, and a new task resumes from them", async () => {
    const b = await broker("a", "b", "c");
    const first = new ScriptedSinkTask();
    const { worker, log } = startSink(b, first);
    first.onPut = (records) => void (records.length > 0 && worker.stop(5000));
    await log.reached("UNASSIGNED");
    expect(first.values).toEqual([["a", "b", "c"]]);
    expect(first.batches[0]!.map((r) => [r.key, r.kafkaOffset, r.topic, r.kafkaPartition, r.timestampType])).toEqual([
      ["k-a", 0, "in", 0, "CreateTime"],
      ["k-b", 1, "in", 0, "CreateTime"],
      ["k-c", 2, "in", 0, "CreateTime"],
    ]);
    // Nothing was committed before the stop (offset.flush.interval.ms is a minute): the stop flushed, then committed.
    expect(first.flushed).toEqual([new Map([["in:0", 3]])]);
    expect(first.calls).toEqual(["start", "open in:0", "close in:0", "stop"]);
    expect(await committed(b)).toEqual({ 0: 3 });
    expect(log.states).toEqual(["RUNNING", "UNASSIGNED"]);

    await produce(b, "in", ["d"]);
    const second = new ScriptedSinkTask();
    const next = startSink(b, second);
    second.onPut = () => void next.worker.stop(5000);
    await next.log.reached("UNASSIGNED");
    expect(second.values).toEqual([["d"]]);
  });

  test("only the offsets preCommit returns are committed: the rest is delivered again to the next task", async () => {
    const b = await broker("a", "b", "c");
    const first = new ScriptedSinkTask();
    first.commitOnly = () => new Map([[{ topic: "in", partition: 0 }, 1]]); // only "a" is durable
    const { worker, log } = startSink(b, first, { flushIntervalMs: 0 });
    first.onPut = () => void worker.stop(5000);
    await log.reached("UNASSIGNED");
    expect(await committed(b)).toEqual({ 0: 1 });

    const second = new ScriptedSinkTask();
    const next = startSink(b, second);
    second.onPut = () => void next.worker.stop(5000);
    await next.log.reached("UNASSIGNED");
    expect(second.values).toEqual([["b", "c"]]);
  });
});

describe("put failures", () => {
  test("a RetriableException redelivers the same batch; another error fails the task with its trace and commits nothing", async () => {
    const b = await broker("a", "b");
    const task = new ScriptedSinkTask();
    task.onPut = (_, batch) => {
      if (batch === 1) throw new RetriableException("database busy");
      if (batch === 2) throw new Error("constraint violated", { cause: new Error("duplicate key") });
    };
    const { worker, log } = startSink(b, task);
    const failed = await log.reached("FAILED");
    await worker.stop(5000); // the failed loop's end: its shutdown
    expect(task.values).toEqual([
      ["a", "b"],
      ["a", "b"],
    ]);
    expect(failed.trace).toStartWith("Error: constraint violated");
    expect(failed.trace).toContain("Caused by: Error: duplicate key");
    // After a failure nothing is flushed: the records come again when the task is restarted.
    expect(task.flushed).toEqual([]);
    expect(await committed(b)).toEqual({});
    expect(task.calls).toEqual(["start", "open in:0", "close in:0", "stop"]);
  });
});

describe("errors.tolerance", () => {
  const schemalessJson = () => {
    const converter = new JsonConverter();
    converter.configure({ "schemas.enable": "false" }, false);
    return converter;
  };
  test("none: a record the converter cannot read fails the task, naming the tolerance", async () => {
    const b = await broker('"a"', "not json");
    const task = new ScriptedSinkTask();
    const { log } = startSink(b, task, { valueConverter: schemalessJson() });
    const failed = await log.reached("FAILED");
    expect(failed.trace).toStartWith("ConnectException: Tolerance exceeded in error handler");
    expect(task.batches).toEqual([]);
  });

  test("all: the record is skipped and sent as read to the dead letter queue; its position is committed with the others", async () => {
    const b = await broker('"a"', "not json", '"c"');
    const connector = {
      "errors.tolerance": "all",
      "errors.deadletterqueue.topic.name": "dlq",
      "errors.deadletterqueue.topic.replication.factor": "1",
      "errors.deadletterqueue.context.headers.enable": "true",
    };
    const dlq = await DeadLetterQueueReporter.create(b, sinkSettings(connector), "sink", 0);
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task, { valueConverter: schemalessJson(), connector, dlq });
    task.onPut = () => void worker.stop(5000);
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["a", "c"]]);
    expect(await committed(b)).toEqual({ 0: 3 });
    const [dead] = await b.fetch("dlq", 0, 0);
    expect(decoder.decode(dead!.value!)).toBe("not json");
    const header = (name: string) => dead!.headers.find((h) => h.key === `__connect.errors.${name}`)?.value;
    expect(decoder.decode(header("offset")!)).toBe("1");
    expect(decoder.decode(header("stage")!)).toBe("VALUE_CONVERTER");
  });
});

describe("fetching", () => {
  test("each round reads all the task's partitions in one long-polled fetchMany: a record on the second ends an idle wait", async () => {
    const b = await broker();
    await b.createTopic({ name: "in", partitions: 2, replicationFactor: 1 });
    await produce(b, "in", ["p0"], 0);
    await produce(b, "in", ["p1"], 1);
    const rounds: string[] = [];
    let produced = false;
    const fetchMany = b.fetchMany.bind(b);
    b.fetchMany = (reads, options) => {
      rounds.push(reads.map((r) => `${r.partition}@${r.offset}`).join(" "));
      const answer = fetchMany(reads, options);
      // The sink is idle once both partitions are read to their end: a record on partition 1 wakes it.
      if (!produced && rounds.at(-1) === "0@1 1@1") {
        produced = true;
        setImmediate(() => void produce(b, "in", ["late"], 1));
      }
      return answer;
    };
    b.fetch = () => Promise.reject(new Error("the sink task reads with fetchMany only"));
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task, { partitions: [0, 1] });
    task.onPut = (_, batch) => void (batch === 2 && worker.stop(5000));
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["p0", "p1"], ["late"]]);
    expect(rounds.slice(0, 2)).toEqual(["0@0 1@0", "0@1 1@1"]);
  });
});

describe("pause and resume", () => {
  test("a pause commits what was delivered and delivers nothing more until resumed", async () => {
    const b = await broker("a", "b");
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task);
    task.onPut = (_, batch) => (batch === 1 ? worker.pause() : void worker.stop(5000));
    await log.reached("PAUSED");
    expect(await committed(b)).toEqual({ 0: 2 });
    await produce(b, "in", ["c"]);
    // Parked until resumed: the record waits.
    expect(task.values).toEqual([["a", "b"]]);
    worker.resume();
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["a", "b"], ["c"]]);
    expect(log.states).toEqual(["RUNNING", "PAUSED", "RUNNING", "UNASSIGNED"]);
  });
});

describe("SinkTaskContext", () => {
  test("offset() rewinds a partition before the next put", async () => {
    const b = await broker("a", "b", "c");
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task);
    task.onPut = (_, batch) =>
      batch === 1 ? task.context.offset(new Map([[{ topic: "in", partition: 0 }, 1]])) : void worker.stop(5000);
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([
      ["a", "b", "c"],
      ["b", "c"],
    ]);
  });

  test("a partition the task pauses is not fetched until it resumes it", async () => {
    const b = await broker();
    await b.createTopic({ name: "in", partitions: 2, replicationFactor: 1 });
    await produce(b, "in", ["p0"], 0);
    await produce(b, "in", ["p1"], 1);
    const task = new ScriptedSinkTask();
    task.onOpen = (partitions) => task.context.pause(partitions[1]!);
    const { worker, log } = startSink(b, task, { partitions: [0, 1] });
    task.onPut = (_, batch) =>
      batch === 1 ? task.context.resume(...task.context.assignment()) : void worker.stop(5000);
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["p0"], ["p1"]]);
  });

  test("requestCommit commits at the end of the round, before offset.flush.interval.ms", async () => {
    const b = await broker("a");
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task);
    let committedWhileRunning: Record<number, number> | undefined;
    task.onPut = async (_, batch) => {
      if (batch === 1) {
        task.context.requestCommit();
        await produce(b, "in", ["b"]);
        return;
      }
      // The next round's put: the commit asked for in the first round is done.
      committedWhileRunning = await committed(b);
      void worker.stop(5000);
    };
    await log.reached("UNASSIGNED");
    expect(committedWhileRunning).toEqual({ 0: 1 });
    expect(task.flushed).toEqual([new Map([["in:0", 1]]), new Map([["in:0", 2]])]);
  });
});

describe("partitions that change while the task runs (a topic matched later, partitions added)", () => {
  test("an added partition is opened and read from the group's position; a revoked one is committed, then closed", async () => {
    const b = await broker();
    await b.createTopic({ name: "in", partitions: 2, replicationFactor: 1 });
    await produce(b, "in", ["a"], 0);
    await produce(b, "in", ["p1"], 1);
    const task = new ScriptedSinkTask();
    let partitions = [0];
    const { worker, log } = startSink(b, task, { refresh: () => partitions });
    task.onPut = async (records, batch) => {
      if (batch === 1) {
        expect(records.map((r) => r.value)).toEqual(["a"]);
        partitions = [0, 1]; // the next round takes up partition 1
      } else if (batch === 2) {
        expect(records.map((r) => r.value)).toEqual(["p1"]);
        partitions = [1]; // and then lets go of 0
        await produce(b, "in", ["b"], 0);
        await produce(b, "in", ["p1-2"], 1);
      } else {
        void worker.stop(5000);
      }
    };
    await log.reached("UNASSIGNED");
    // "b" on partition 0 came after it was revoked: it is not this task's to deliver.
    expect(task.values).toEqual([["a"], ["p1"], ["p1-2"]]);
    expect(task.calls).toEqual(["start", "open in:0", "open in:1", "close in:0", "close in:1", "stop"]);
    // Partition 0's position was committed when it was revoked: its next owner starts after "a".
    expect(await committed(b)).toEqual({ 0: 1, 1: 2 });
    expect(task.context.assignment()).toEqual([{ topic: "in", partition: 1 }]);
  });
});

describe("consumer settings", () => {
  test("the fetch after the last of what was fetched is announced to the broker before that last put()", async () => {
    const b = await broker("a", "b", "c");
    const task = new ScriptedSinkTask();
    const announced: string[] = [];
    // The embedded broker has no use for it; a broker that has (Kafka) sends the fetch at once.
    (b as Broker).prefetch = (reads) =>
      void announced.push(
        `${reads.map((r) => `${r.partition}@${r.offset}`).join(" ")} after ${task.batches.length} put(s)`,
      );
    const { worker, log } = startSink(b, task, { consumer: { maxPollRecords: 2 } });
    task.onPut = (_, batch) => void (batch === 2 && worker.stop(5000));
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["a", "b"], ["c"]]);
    expect(announced[0]).toBe("0@3 after 1 put(s)");
  });

  test("max.poll.records: what one fetch returned goes to put() that many at a time, in order", async () => {
    const b = await broker("a", "b", "c", "d", "e");
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task, { consumer: { maxPollRecords: 2 } });
    task.onPut = (_, batch) => void (batch === 3 && worker.stop(5000));
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["a", "b"], ["c", "d"], ["e"]]);
  });

  test("offset() drops the rest of what was fetched, as a consumer's seek does", async () => {
    const b = await broker("a", "b", "c", "d", "e");
    const task = new ScriptedSinkTask();
    const { worker, log } = startSink(b, task, { consumer: { maxPollRecords: 2 } });
    task.onPut = (_, batch) =>
      batch === 1 ? task.context.offset(new Map([[{ topic: "in", partition: 0 }, 4]])) : void worker.stop(5000);
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["a", "b"], ["e"]]);
  });

  test("auto.offset.reset=latest: a group with no committed offset starts after what is there", async () => {
    const b = await broker("old");
    const task = new ScriptedSinkTask();
    // Written once the task has opened its partition (its position taken), before its first fetch.
    task.onOpen = () => void produce(b, "in", ["new"]);
    const { worker, log } = startSink(b, task, { consumer: { autoOffsetReset: "latest" } });
    task.onPut = () => void worker.stop(5000);
    await log.reached("UNASSIGNED");
    expect(task.values).toEqual([["new"]]);
  });

  test("auto.offset.reset=none: a group with no committed offset fails the task with Kafka's exception", async () => {
    const b = await broker("a");
    const { log } = startSink(b, new ScriptedSinkTask(), { consumer: { autoOffsetReset: "none" } });
    const failed = await log.reached("FAILED");
    expect(failed.trace).toContain(
      "NoOffsetForPartitionException: Undefined offset with no reset policy for partitions: [in-0]",
    );
  });
});
