// fetchMany on both brokers: several partitions in one call (on Kafka one Fetch request per leader), and
// a long poll that any of the partitions ends, not only the first.
import { Admin } from "@platformatic/kafka";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decoder, encoder, type Broker, type FetchedRecord, type PartitionRead } from "#src/broker/broker.ts";
import { fetchApi } from "#src/broker/kafka/fetch-response.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { tempBroker, type TempBroker } from "../../fixtures/embedded-broker.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";

const summary = (records: FetchedRecord[]) =>
  records.map((r) => `${r.partition}@${r.offset}=${decoder.decode(r.value!)}`).sort();

let topicCount = 0;
async function newTopic(broker: Broker, partitions: number): Promise<string> {
  const name = `fetch-many-${Date.now()}-${topicCount++}`;
  await broker.createTopic({ name, partitions, replicationFactor: 1 });
  return name;
}

async function produce(broker: Broker, topic: string, partition: number, ...values: string[]): Promise<void> {
  await broker.produce(
    topic,
    values.map((v) => ({ key: null, value: encoder.encode(v), partition })),
  );
}

const reads = (topic: string, ...offsets: number[]): PartitionRead[] =>
  offsets.map((offset, partition) => ({ topic, partition, offset }));

/** The same behaviour on either broker. */
function fetchManyBehaviour(connect: () => Promise<Broker>) {
  let broker: Broker;
  beforeAll(async () => {
    broker = await connect();
  }, 120_000);

  test("readers of different topics do not wait behind each other's long polls", async () => {
    const quiet = await newTopic(broker, 1);
    const busy = await newTopic(broker, 1);
    expect(await broker.fetch(quiet, 0, 0)).toEqual([]);
    expect(await broker.fetch(busy, 0, 0)).toEqual([]);
    // One reader long-polls a topic nothing is written to (the DEK registry's log beside `_schemas`)...
    let quietAnswered = false;
    const quietPoll = broker.fetch(quiet, 0, 0, { maxWaitMs: 3_000 }).then((r) => {
      quietAnswered = true;
      return r;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    // ...and another reads back what it writes: it is answered while the first poll is still waiting.
    for (let i = 0; i < 3; i++) {
      await produce(broker, busy, 0, `v${i}`);
      expect(summary(await broker.fetch(busy, 0, i, { maxWaitMs: 10_000 }))).toEqual([`0@${i}=v${i}`]);
    }
    expect(quietAnswered).toBe(false);
    expect(await quietPoll).toEqual([]);
  }, 30_000);

  test("a long poll across two partitions ends as soon as a record arrives on the second", async () => {
    const topic = await newTopic(broker, 2);
    // Metadata and connections in place first, so the poll below is on its way at once.
    expect(await broker.fetchMany(reads(topic, 0, 0))).toEqual([]);
    const started = performance.now();
    let answered = false;
    const poll = broker.fetchMany(reads(topic, 0, 0), { maxWaitMs: 10_000 });
    void poll.then(() => (answered = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    await produce(broker, topic, 1, "late");
    const got = await poll;
    const elapsed = performance.now() - started;
    expect(summary(got)).toEqual(["1@0=late"]);
    // The poll's own limit is 10 s; well under it means the record on partition 1 ended the wait.
    expect(elapsed).toBeLessThan(5_000);
  }, 30_000);

  test("records of several partitions come back in one call, each from its own offset", async () => {
    const topic = await newTopic(broker, 3);
    await produce(broker, topic, 0, "a0", "a1");
    await produce(broker, topic, 1, "b0");
    await produce(broker, topic, 2, "c0", "c1", "c2");
    const got = await broker.fetchMany(reads(topic, 1, 0, 2), { maxWaitMs: 10_000 });
    expect(summary(got)).toEqual(["0@1=a1", "1@0=b0", "2@2=c2"]);
  }, 30_000);

  test("with nothing to read, the poll answers empty after its wait", async () => {
    const topic = await newTopic(broker, 2);
    const started = performance.now();
    expect(await broker.fetchMany(reads(topic, 0, 0), { maxWaitMs: 1_000 })).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  }, 30_000);

  return () => broker;
}

describe("embedded broker", () => {
  let temp: TempBroker;
  afterAll(() => temp.close());
  fetchManyBehaviour(async () => (temp = await tempBroker()).broker);
});

describe("Kafka", () => {
  let kafka: KafkaBroker;
  afterAll(() => kafka.close());
  const broker = fetchManyBehaviour(async () => {
    kafka = new KafkaBroker({ bootstrapServers: [(await sharedKafka()).bootstrap] });
    await kafka.connect();
    return kafka;
  });

  test("one Fetch request per leader carries all the partitions it leads", async () => {
    const topic = await newTopic(broker(), 3);
    await produce(broker(), topic, 0, "a0");
    await produce(broker(), topic, 2, "c0");
    expect(await broker().fetchMany(reads(topic, 0, 0, 0))).toHaveLength(2);
    const admin = new Admin({ clientId: "fetch-many-test", bootstrapBrokers: [(await sharedKafka()).bootstrap] });
    const metadata = await admin.metadata({ topics: [topic] });
    await admin.close();
    const leaders = new Map<string, string[]>();
    metadata.topics.get(topic)!.partitions.forEach((p, i) => {
      const { host, port } = metadata.brokers.get(p.leader)!;
      leaders.set(`${host}:${port}`, [...(leaders.get(`${host}:${port}`) ?? []), `${topic}-${i}`]);
    });
    // Count the requests sent through the Fetch function (each still goes to Kafka).
    const sent: { node: string; partitions: string[]; maxWaitMs: number; minBytes: number }[] = [];
    const original = fetchApi.async;
    fetchApi.async = (connection, maxWaitMs, minBytes, ...rest) => {
      const partitions = rest[4].flatMap((t) => t.partitions.map((p) => `${t.topicId}-${p.partition}`)).sort();
      sent.push({ node: `${connection.host}:${connection.port}`, partitions, maxWaitMs, minBytes });
      return original(connection, maxWaitMs, minBytes, ...rest);
    };
    try {
      const got = await broker().fetchMany(reads(topic, 0, 0, 0), { maxWaitMs: 5_000 });
      expect(summary(got)).toEqual(["0@0=a0", "2@0=c0"]);
    } finally {
      fetchApi.async = original;
    }
    expect(sent).toEqual(
      [...leaders].map(([node, partitions]) => ({
        node,
        partitions: partitions.sort(),
        maxWaitMs: 5_000,
        minBytes: 1,
      })),
    );
  }, 30_000);

  test("a prefetch is the request the next fetchMany of the same reads takes; one of other reads is not served", async () => {
    const topic = await newTopic(broker(), 2);
    await produce(broker(), topic, 0, "a0", "a1");
    await produce(broker(), topic, 1, "b0");
    expect(await broker().fetchMany(reads(topic, 0, 0))).toHaveLength(3); // metadata and connections in place
    let sent = 0;
    const original = fetchApi.async;
    fetchApi.async = (...args) => {
      sent++;
      return original(...args);
    };
    try {
      kafka.prefetch(reads(topic, 1, 0), { maxWaitMs: 5_000 });
      expect(summary(await broker().fetchMany(reads(topic, 1, 0), { maxWaitMs: 5_000 }))).toEqual(["0@1=a1", "1@0=b0"]);
      expect(sent).toBe(1);
      // A prefetch from offsets the reader then moved away from: the fetch at the new offsets answers.
      kafka.prefetch(reads(topic, 2, 1), { maxWaitMs: 200 });
      expect(summary(await broker().fetchMany(reads(topic, 0, 0), { maxWaitMs: 5_000 }))).toEqual([
        "0@0=a0",
        "0@1=a1",
        "1@0=b0",
      ]);
      expect(sent).toBe(3);
    } finally {
      fetchApi.async = original;
    }
  }, 30_000);
});
