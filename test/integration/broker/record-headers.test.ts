// Record headers as Kafka has them, an ordered list in which a key may repeat and a value may be null, on
// both brokers: written and read back unchanged, and on Kafka the same list that Python's confluent-kafka
// (librdkafka) writes and reads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encoder, type Broker, type RecordHeader } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { tempBroker, type TempBroker } from "../../fixtures/embedded-broker.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { pythonScript } from "../../fixtures/python.ts";

const HEADERS: RecordHeader[] = [
  { key: "a", value: encoder.encode("1") },
  { key: "a", value: encoder.encode("2") },
  { key: "b", value: null },
  { key: "e", value: new Uint8Array() },
  { key: "a", value: null },
];
/** Headers as [key, hex or null]: comparable whatever byte array type a side holds. */
const listed = (headers: readonly RecordHeader[]) =>
  headers.map(({ key, value }) => [key, value === null ? null : Buffer.from(value).toString("hex")]);

let topicCount = 0;
async function newTopic(broker: Broker): Promise<string> {
  const name = `record-headers-${Date.now()}-${topicCount++}`;
  await broker.createTopic({ name, partitions: 1, replicationFactor: 1 });
  return name;
}

function headersBehaviour(connect: () => Promise<Broker>) {
  let broker: Broker;
  beforeAll(async () => {
    broker = await connect();
  }, 120_000);

  test("a record's headers come back in order, with repeated keys, null and empty values", async () => {
    const topic = await newTopic(broker);
    await broker.produce(topic, [
      { key: null, value: encoder.encode("v"), partition: 0, headers: HEADERS },
      { key: null, value: encoder.encode("none"), partition: 0 },
    ]);
    const [first, second] = await broker.fetch(topic, 0, 0, { maxWaitMs: 10_000 });
    expect(listed(first!.headers)).toEqual(listed(HEADERS));
    expect(second!.headers).toEqual([]);
    const [many] = await broker.fetchMany([{ topic, partition: 0, offset: 0 }], { maxWaitMs: 10_000 });
    expect(listed(many!.headers)).toEqual(listed(HEADERS));
  }, 30_000);

  return () => broker;
}

const PYTHON_WRITE = `
import json, sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1]})
p.produce(sys.argv[2], value=b"v", partition=0,
          headers=[("a", b"1"), ("a", b"2"), ("b", None), ("e", b""), ("a", None)])
if p.flush(30) != 0:
    sys.exit("not delivered")
print(json.dumps("ok"))
`;

const PYTHON_READ = `
import json, sys
from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": "record-headers-reader", "enable.auto.commit": False})
c.assign([TopicPartition(sys.argv[2], 0, OFFSET_BEGINNING)])
m = c.poll(30)
if m is None or m.error():
    sys.exit(f"no record: {m and m.error()}")
print(json.dumps([[k, None if v is None else v.hex()] for k, v in (m.headers() or [])]))
c.close()
`;

describe("embedded broker", () => {
  let temp: TempBroker;
  afterAll(() => temp.close());
  headersBehaviour(async () => (temp = await tempBroker()).broker);
});

describe("Kafka", () => {
  let kafka: KafkaBroker;
  afterAll(() => kafka.close());
  const broker = headersBehaviour(async () => {
    kafka = new KafkaBroker({ bootstrapServers: [(await sharedKafka()).bootstrap] });
    await kafka.connect();
    return kafka;
  });

  test("confluent-kafka reads the headers Sluice writes as they were written", async () => {
    const topic = await newTopic(broker());
    await broker().produce(topic, [{ key: null, value: encoder.encode("v"), partition: 0, headers: HEADERS }]);
    expect(await pythonScript(PYTHON_READ, (await sharedKafka()).bootstrap, topic)).toEqual(listed(HEADERS));
  }, 120_000);

  test("Sluice reads the headers confluent-kafka writes as they were written", async () => {
    const topic = await newTopic(broker());
    await pythonScript(PYTHON_WRITE, (await sharedKafka()).bootstrap, topic);
    const [record] = await broker().fetch(topic, 0, 0, { maxWaitMs: 10_000 });
    expect(listed(record!.headers)).toEqual(listed(HEADERS));
  }, 120_000);
});
