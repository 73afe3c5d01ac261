// The dead letter queue reporter on an embedded broker: the topic it makes (or leaves alone), and
// the record it writes for a tolerated failure, with and without the error context headers.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { decoder, encoder, type FetchedRecord } from "#src/broker/broker.ts";
import { DeadLetterQueueReporter } from "#src/connect/runtime/errors/dead-letter-queue.ts";
import type { ErrorContext } from "#src/connect/runtime/errors/tolerance.ts";
import { sinkConnectorDefinition } from "#src/connect/runtime/worker/connector-config.ts";
import { tempBroker } from "../../../../fixtures/embedded-broker.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function broker() {
  const temp = await tempBroker();
  cleanups.push(temp.close);
  return temp.broker;
}

const settings = (config: Record<string, string>) =>
  sinkConnectorDefinition.parse({ name: "orders-sink", "connector.class": "x", topics: "orders", ...config }).values;
const DLQ = { "errors.tolerance": "all", "errors.deadletterqueue.topic.name": "orders-dlq" };

const consumed: FetchedRecord = {
  topic: "orders",
  partition: 2,
  offset: 41,
  timestamp: 1_700_000_000_000,
  key: encoder.encode("order-7"),
  value: encoder.encode("{not json"),
  // As Kafka has them: in order, a key repeated, a value null.
  headers: [
    { key: "origin", value: encoder.encode("shop") },
    { key: "trace", value: null },
    { key: "origin", value: encoder.encode("app") },
  ],
};
const failure: ErrorContext = {
  stage: "VALUE_CONVERTER",
  className: "org.apache.kafka.connect.json.JsonConverter",
  describe: () => "",
  original: consumed,
};
const text = (headers: FetchedRecord["headers"]) =>
  headers.map(({ key, value }) => [key, value === null ? null : decoder.decode(value)]);
const consumedHeaders = [
  ["origin", "shop"],
  ["trace", null],
  ["origin", "app"],
];

describe("DeadLetterQueueReporter.create", () => {
  test("no reporter, and no topic, without errors.deadletterqueue.topic.name", async () => {
    const b = await broker();
    expect(
      await DeadLetterQueueReporter.create(b, settings({ "errors.tolerance": "all" }), "orders-sink", 0),
    ).toBeUndefined();
    expect(await b.listTopics()).toEqual([]);
  });

  test("a missing topic is created with one partition and the configured replication factor; an existing one is left as it is", async () => {
    const b = await broker();
    const created = spyOn(b, "createTopic");
    const reporter = await DeadLetterQueueReporter.create(
      b,
      settings({ ...DLQ, "errors.deadletterqueue.topic.replication.factor": "-1" }),
      "orders-sink",
      0,
    );
    expect(reporter?.topic).toBe("orders-dlq");
    expect(created.mock.calls.map(([spec]) => spec)).toEqual([
      { name: "orders-dlq", partitions: 1, replicationFactor: -1 },
    ]);

    await b.createTopic({ name: "wide-dlq", partitions: 3, replicationFactor: 1 });
    created.mockClear();
    await DeadLetterQueueReporter.create(
      b,
      settings({ ...DLQ, "errors.deadletterqueue.topic.name": "wide-dlq" }),
      "orders-sink",
      0,
    );
    expect(created).not.toHaveBeenCalled();
    expect((await b.describeTopic("wide-dlq"))?.partitions).toBe(3);
  });
});

describe("DeadLetterQueueReporter.report", () => {
  test("writes the record as it was read, with its own headers (in order, repeated, null), to partition 0", async () => {
    const b = await broker();
    const reporter = (await DeadLetterQueueReporter.create(
      b,
      settings({ ...DLQ, "errors.deadletterqueue.topic.replication.factor": "1" }),
      "orders-sink",
      3,
    ))!;
    await reporter.report(new Error("Unexpected character"), failure);
    const [dead, ...rest] = await b.fetch("orders-dlq", 0, 0);
    expect(rest).toEqual([]);
    expect({
      key: decoder.decode(dead!.key!),
      value: decoder.decode(dead!.value!),
      timestamp: dead!.timestamp,
      headers: text(dead!.headers),
    }).toEqual({
      key: "order-7",
      value: "{not json",
      timestamp: 1_700_000_000_000,
      headers: consumedHeaders,
    });
  });

  test("with errors.deadletterqueue.context.headers.enable, Kafka's __connect.errors.* headers say where and why", async () => {
    const b = await broker();
    const config = {
      ...DLQ,
      "errors.deadletterqueue.topic.replication.factor": "1",
      "errors.deadletterqueue.context.headers.enable": "true",
    };
    const reporter = (await DeadLetterQueueReporter.create(b, settings(config), "orders-sink", 3))!;
    const error = new SyntaxError("Unexpected character");
    await reporter.report(error, failure);
    const [dead] = await b.fetch("orders-dlq", 0, 0);
    expect(text(dead!.headers)).toEqual([
      ...consumedHeaders,
      ["__connect.errors.topic", "orders"],
      ["__connect.errors.partition", "2"],
      ["__connect.errors.offset", "41"],
      ["__connect.errors.connector.name", "orders-sink"],
      ["__connect.errors.task.id", "3"],
      ["__connect.errors.stage", "VALUE_CONVERTER"],
      ["__connect.errors.class.name", "org.apache.kafka.connect.json.JsonConverter"],
      ["__connect.errors.exception.class.name", "SyntaxError"],
      ["__connect.errors.exception.message", "Unexpected character"],
      ["__connect.errors.exception.stacktrace", error.stack!],
    ]);
  });

  test("a failure with no consumed record (a source's) writes nothing", async () => {
    const b = await broker();
    const reporter = (await DeadLetterQueueReporter.create(
      b,
      settings({ ...DLQ, "errors.deadletterqueue.topic.replication.factor": "1" }),
      "orders-sink",
      0,
    ))!;
    await reporter.report(new Error("x"), { ...failure, original: undefined });
    expect(await b.endOffsets("orders-dlq")).toEqual([0]);
  });
});
