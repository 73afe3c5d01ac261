// The worker's part in starting tasks, on an embedded broker in a temp dir with small scripted
// connectors: which partitions a sink task gets, what topics it creates on the way, and the
// converters it gives the task.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import type { EmbeddedBroker } from "#src/broker/embedded/embedded-broker.ts";
import { Schema, SchemaBuilder } from "#src/connect/api/data/index.ts";
import { sourceRecord } from "#src/connect/api/records.ts";
import { waitFor } from "../../../../fixtures/wait.ts";
import { RECORDING_SINK, SCRIPTED_SOURCE, startWorker as startScriptedWorker } from "../scripted-worker.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWorker(workerConfig: Record<string, string> = {}) {
  const worker = await startScriptedWorker(workerConfig);
  cleanups.push(worker.close);
  return worker;
}

/** Polls `condition` (a record arriving, a topic appearing) until it holds. */
const until = (condition: () => boolean | Promise<boolean>, what: string) =>
  waitFor(what, condition, { timeoutMs: 5000, intervalMs: 5 });

describe("sink partitions", () => {
  test("tasks.max is read through its declared setting, so a config provider reference counts", async () => {
    process.env.SLUICE_TEST_TASKS_MAX = "2";
    cleanups.push(() => void delete process.env.SLUICE_TEST_TASKS_MAX);
    const { broker, startTask, script } = await startWorker({
      "config.providers": "env",
      "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    });
    await broker.createTopic({ name: "four", partitions: 4, replicationFactor: 1 });
    const config = {
      name: "s",
      "connector.class": RECORDING_SINK,
      topics: "four",
      "tasks.max": "${env:SLUICE_TEST_TASKS_MAX}",
    };
    expect((await startTask(config, 0))?.state).toBe("RUNNING");
    expect((await startTask(config, 1))?.state).toBe("RUNNING");
    // Read raw, the reference was NaN and no task got any partition.
    expect(script.opened.get(0)?.map((tp) => tp.partition)).toEqual([0, 2]);
    expect(script.opened.get(1)?.map((tp) => tp.partition)).toEqual([1, 3]);
  });
});

describe("topics the worker creates", () => {
  test("a sink's missing topic is created as the broker's auto-creation would: its replication factor", async () => {
    const { broker, startTask } = await startWorker();
    const created = spyOn(broker, "createTopic");
    expect((await startTask({ name: "s", "connector.class": RECORDING_SINK, topics: "missing" }))?.state).toBe(
      "RUNNING",
    );
    expect(created.mock.calls.map(([spec]) => spec)).toEqual([
      { name: "missing", partitions: 1, replicationFactor: -1 },
    ]);
    // The embedded broker's default is one copy.
    expect((await broker.describeTopic("missing"))?.replicationFactor).toBe(1);
  });

  test("a source's missing topic likewise", async () => {
    const { broker, startTask, script } = await startWorker();
    const created = spyOn(broker, "createTopic");
    expect((await startTask({ name: "src", "connector.class": SCRIPTED_SOURCE }))?.state).toBe("RUNNING");
    script.toPoll.push(sourceRecord({ sourcePartition: {}, sourceOffset: {}, topic: "fresh", value: null }));
    await until(async () => (await broker.endOffsets("fresh").catch(() => [0]))[0] === 1, "the record");
    expect(created.mock.calls.map(([spec]) => spec)).toEqual([{ name: "fresh", partitions: 1, replicationFactor: -1 }]);
  });

  test("the dead letter queue topic gets errors.deadletterqueue.topic.replication.factor: 3 unless set, -1 passed on", async () => {
    const { broker, startTask } = await startWorker();
    const created = spyOn(broker, "createTopic");
    await broker.createTopic({ name: "in", partitions: 1, replicationFactor: 1 });
    created.mockClear();
    const sink = { "connector.class": RECORDING_SINK, topics: "in", "errors.tolerance": "all" };
    expect((await startTask({ ...sink, name: "a", "errors.deadletterqueue.topic.name": "dlq-a" }, 0))?.state).toBe(
      "RUNNING",
    );
    expect(
      (
        await startTask(
          {
            ...sink,
            name: "b",
            "errors.deadletterqueue.topic.name": "dlq-b",
            "errors.deadletterqueue.topic.replication.factor": "-1",
          },
          1,
        )
      )?.state,
    ).toBe("RUNNING");
    expect(created.mock.calls.map(([spec]) => spec)).toEqual([
      { name: "dlq-a", partitions: 1, replicationFactor: 3 },
      { name: "dlq-b", partitions: 1, replicationFactor: -1 },
    ]);
  });
});

describe("header.converter", () => {
  const BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";
  const STRING = "org.apache.kafka.connect.storage.StringConverter";
  const mapSchema = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build();
  const withHeader = (topic: string) =>
    sourceRecord({
      sourcePartition: {},
      sourceOffset: {},
      topic,
      value: null,
      headers: [{ key: "h", schema: mapSchema, value: new Map([["a", 1]]) }],
    });
  const rawHeader = async (broker: EmbeddedBroker, topic: string) => {
    await until(async () => (await broker.endOffsets(topic).catch(() => [0]))[0] === 1, "the record");
    return new TextDecoder().decode((await broker.fetch(topic, 0, 0))[0]!.headers.find((h) => h.key === "h")!.value!);
  };

  test("a source writes headers with SimpleHeaderConverter unless told otherwise", async () => {
    const { broker, startTask, script } = await startWorker();
    expect((await startTask({ name: "src", "connector.class": SCRIPTED_SOURCE }))?.state).toBe("RUNNING");
    script.toPoll.push(withHeader("simple"));
    expect(await rawHeader(broker, "simple")).toBe('{"a":1}');
  });

  test("a source's headers reach the topic all of them, in order: a repeated key twice, a null value null", async () => {
    const { broker, startTask, script } = await startWorker();
    expect((await startTask({ name: "src", "connector.class": SCRIPTED_SOURCE }))?.state).toBe("RUNNING");
    script.toPoll.push({
      ...withHeader("listed"),
      headers: [
        { key: "h", schema: Schema.STRING_SCHEMA, value: "one" },
        { key: "n", schema: Schema.OPTIONAL_STRING_SCHEMA, value: null },
        { key: "h", schema: Schema.STRING_SCHEMA, value: "two" },
      ],
    });
    await until(async () => (await broker.endOffsets("listed").catch(() => [0]))[0] === 1, "the record");
    const [record] = await broker.fetch("listed", 0, 0);
    expect(record!.headers.map(({ key, value }) => [key, value && new TextDecoder().decode(value)])).toEqual([
      ["h", "one"],
      ["n", null],
      ["h", "two"],
    ]);
  });

  test("a connector's header.converter writes its headers (StringConverter: Java's toString)", async () => {
    const { broker, startTask, script } = await startWorker();
    expect(
      (await startTask({ name: "src", "connector.class": SCRIPTED_SOURCE, "header.converter": STRING }))?.state,
    ).toBe("RUNNING");
    script.toPoll.push(withHeader("string"));
    expect(await rawHeader(broker, "string")).toBe("{a=1}");
  });

  test("a sink reads headers through the worker's header.converter and its header.converter.* settings", async () => {
    const { broker, startTask, script } = await startWorker({
      "header.converter": STRING,
      "header.converter.converter.encoding": "UTF-16",
    });
    // All of a record's headers, in order: a key repeated, a null value.
    const headers = [
      { key: "h", value: new Uint8Array([0xfe, 0xff, 0x00, 0x68, 0x00, 0xe9]) },
      { key: "n", value: null },
      { key: "h", value: new Uint8Array([0xfe, 0xff, 0x00, 0x78]) },
    ];
    await broker.produce("in", [{ key: null, value: null, headers }]);
    expect(
      (await startTask({ name: "s", "connector.class": RECORDING_SINK, topics: "in", "value.converter": BYTES }))
        ?.state,
    ).toBe("RUNNING");
    await until(() => script.put.length === 1, "the record");
    expect(script.put[0]!.headers).toEqual([
      { key: "h", schema: Schema.OPTIONAL_STRING_SCHEMA, value: "hé" },
      { key: "n", schema: Schema.OPTIONAL_STRING_SCHEMA, value: null },
      { key: "h", schema: Schema.OPTIONAL_STRING_SCHEMA, value: "x" },
    ]);
  });

  test("a connector's header.converter wins over the worker's, with its own settings", async () => {
    const { broker, startTask, script } = await startWorker({
      "header.converter": STRING,
      "header.converter.converter.encoding": "UTF-16",
    });
    await broker.produce("in", [
      { key: null, value: null, headers: [{ key: "h", value: new TextEncoder().encode("hé") }] },
    ]);
    const sink = {
      name: "s",
      "connector.class": RECORDING_SINK,
      topics: "in",
      "value.converter": BYTES,
      "header.converter": STRING,
    };
    expect((await startTask(sink))?.state).toBe("RUNNING");
    await until(() => script.put.length === 1, "the record");
    expect(script.put[0]!.headers).toEqual([{ key: "h", schema: Schema.OPTIONAL_STRING_SCHEMA, value: "hé" }]);
  });

  test("a class that is no HeaderConverter fails the task, naming the setting", async () => {
    const { startTask } = await startWorker();
    const status = await startTask({
      name: "s",
      "connector.class": RECORDING_SINK,
      topics: "in",
      "header.converter": "io.confluent.connect.avro.AvroConverter",
    });
    expect(status?.state).toBe("FAILED");
    expect(status?.trace).toContain(
      "Invalid value io.confluent.connect.avro.AvroConverter for configuration header.converter: Class io.confluent.connect.avro.AvroConverter is not a HeaderConverter.",
    );
  });
});
