// A record batch damaged in Kafka's log: Kafka checks a batch's CRC when it is written, not when it is read,
// so a bit flipped on disk afterwards is served as it is. Sluice's reads check every batch (as Kafka's
// consumer does with check.crcs=true): the batches before the damaged one are read, and a read from it
// fails in Kafka's consumer's words.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, openSync, readdirSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { BrokerError, encoder } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { sharedKafka, type KafkaCluster } from "../../fixtures/kafka.ts";

let kafka: KafkaCluster;
let broker: KafkaBroker;
beforeAll(async () => {
  kafka = await sharedKafka();
  broker = new KafkaBroker({ bootstrapServers: [kafka.bootstrap], clientId: "damaged-batch" });
  await broker.connect();
}, 120_000);
afterAll(() => broker?.close());

/** Flips one bit of the byte `fromEnd` bytes before the end of the partition's (only) segment. */
function flipBit(topic: string, fromEnd: number): void {
  const dir = join(kafka.logDir!, `${topic}-0`);
  const segment = join(dir, readdirSync(dir).find((f) => f.endsWith(".log"))!);
  const at = statSync(segment).size - fromEnd;
  const fd = openSync(segment, "r+");
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, at);
    byte[0]! ^= 0x04;
    writeSync(fd, byte, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}

test("a batch whose bytes no longer match its CRC fails the read, naming the partition and offset", async () => {
  const topic = `damaged-batch-${Date.now()}`;
  await broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
  await broker.produce(topic, [{ key: null, value: encoder.encode("intact"), partition: 0 }]);
  await broker.produce(topic, [{ key: null, value: encoder.encode("to be damaged"), partition: 0 }]);
  const read = () => broker.fetchMany([{ topic, partition: 0, offset: 1 }], { maxWaitMs: 5000 });
  expect((await read()).map((r) => Buffer.from(r.value!).toString())).toEqual(["to be damaged"]);

  flipBit(topic, 3); // in the last record's value
  const failure = await read().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(BrokerError);
  expect((failure as BrokerError).message).toContain(
    `Record batch for partition ${topic}-0 at offset 1 is invalid, cause: Record is corrupt (stored crc = `,
  );
  expect((failure as BrokerError).retriable).toBe(false);
  // The batch before it is whole: a read from its offset hands it on, and stops at the damaged one.
  const before = await broker.fetchMany([{ topic, partition: 0, offset: 0 }], { maxWaitMs: 5000 });
  expect(before.map((r) => Buffer.from(r.value!).toString())).toEqual(["intact"]);
}, 60_000);
