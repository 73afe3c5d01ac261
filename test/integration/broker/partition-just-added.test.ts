// A partition another client has just added: Sluice's producer still has the topic's old partition count
// cached, and the client library folds a partition beyond it onto one it knows (partition modulo count).
// A MirrorSourceConnector that copies a record to the partition it was just given would then write it to
// partition 0, and fail on finding no offset answered for the partition it asked for.
import { Admin } from "@platformatic/kafka";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";

let kafka: KafkaBroker;
let admin: Admin;
beforeAll(async () => {
  const bootstrap = (await sharedKafka()).bootstrap;
  kafka = new KafkaBroker({ bootstrapServers: [bootstrap] });
  await kafka.connect();
  admin = new Admin({ clientId: "partition-just-added-test", bootstrapBrokers: [bootstrap] });
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await kafka?.close();
});

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

test("a record written to a partition just added by another client lands in that partition", async () => {
  for (let round = 0; round < 5; round++) {
    const topic = `just-added-${Date.now()}-${round}`;
    await admin.createTopics({ topics: [topic], partitions: 3, replicas: 1 });
    // The producer learns the topic with three partitions.
    expect(await kafka.produce(topic, [{ partition: 2, key: null, value: bytes("before") }])).toEqual([
      { partition: 2, offset: 0 },
    ]);
    await admin.createPartitions({ topics: [{ name: topic, count: 4 }] });
    expect(
      await kafka.produce(topic, [
        { partition: 3, key: null, value: bytes("new-1") },
        { partition: 0, key: null, value: bytes("old") },
        { partition: 3, key: null, value: bytes("new-2") },
      ]),
    ).toEqual([
      { partition: 3, offset: 0 },
      { partition: 0, offset: 0 },
      { partition: 3, offset: 1 },
    ]);
    const values = async (partition: number) =>
      (await kafka.fetch(topic, partition, 0, { maxWaitMs: 100 })).map((r) => text(r.value));
    expect(await values(3)).toEqual(["new-1", "new-2"]);
    expect(await values(0)).toEqual(["old"]);
  }
}, 120_000);
