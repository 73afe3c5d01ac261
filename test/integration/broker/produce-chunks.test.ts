// One produce call is sent in chunks, each a record batch per partition, which the broker holds against
// the topic's max.message.bytes: no chunk may grow past its bound by the record that crosses it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";

let kafka: KafkaBroker;
beforeAll(async () => {
  kafka = new KafkaBroker({ bootstrapServers: [(await sharedKafka()).bootstrap] });
  await kafka.connect();
}, 120_000);
afterAll(() => kafka.close());

test("records that together pass a topic's max.message.bytes, each below it, are written in one produce call", async () => {
  const topic = `produce-chunks-${Date.now()}`;
  await kafka.createTopic({
    name: topic,
    partitions: 1,
    replicationFactor: 1,
    config: { "max.message.bytes": "700000" },
  });
  const value = (fill: number) => new Uint8Array(400_000).fill(fill);
  const written = await kafka.produce(topic, [
    { key: null, value: value(1), partition: 0 },
    { key: null, value: value(2), partition: 0 },
  ]);
  expect(written.map((w) => w.offset)).toEqual([0, 1]);
  const read = await kafka.fetch(topic, 0, 0, { maxWaitMs: 10_000 });
  expect(read.map((r) => r.value![0])).toEqual([1, 2]);
}, 60_000);
