// A record's headers through a Sluice worker on Kafka as Kafka Connect keeps them: Python's confluent-kafka
// writes a record with a repeated header and a null one, a sink cannot convert it, and the dead letter queue
// gets it with all of its headers, in order, then the __connect.errors.* context; confluent-kafka reads them so.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { pythonScript } from "../../fixtures/python.ts";
import { waitFor } from "../../fixtures/wait.ts";

const RUN = Date.now();
const TOPIC = `headers-in-${RUN}`;
const DLQ = `headers-dlq-${RUN}`;

const WRITE = `
import json, sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1]})
p.produce(sys.argv[2], value=b"not json", partition=0, headers=[("a", b"1"), ("a", b"2"), ("b", None)])
if p.flush(30) != 0:
    sys.exit("not delivered")
print(json.dumps("ok"))
`;

/** The headers of the topic's first record, as [key, text or null]; null while it has none. */
const READ = `
import json, sys
from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": "dlq-headers-reader", "enable.auto.commit": False})
c.assign([TopicPartition(sys.argv[2], 0, OFFSET_BEGINNING)])
m = c.poll(5)
c.close()
if m is None or m.error():
    print(json.dumps(None))
else:
    print(json.dumps([[k, None if v is None else v.decode()] for k, v in (m.headers() or [])]))
`;

let worker: TestConnect;
beforeAll(async () => {
  worker = await startTestConnect("kafka");
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  removeConnectDir(worker);
});

test("the dead letter queue keeps a record's repeated and null headers, in order, before the error context", async () => {
  const { bootstrap } = await sharedKafka();
  await pythonScript(WRITE, bootstrap, TOPIC);
  const api = connectClient(worker.url);
  const created = await api.post("/connectors", {
    name: "headers-sink",
    config: {
      "connector.class": "FileStreamSink",
      topics: TOPIC,
      file: join(worker.dir, "headers.txt"),
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      "errors.tolerance": "all",
      "errors.deadletterqueue.topic.name": DLQ,
      "errors.deadletterqueue.topic.replication.factor": "1",
      "errors.deadletterqueue.context.headers.enable": "true",
    },
  });
  expect(created.status).toBe(201);
  const headers = await waitFor(
    "the DLQ record",
    async () => ((await pythonScript(READ, bootstrap, DLQ)) as [string, string | null][] | null) ?? undefined,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  expect(headers.slice(0, 6)).toEqual([
    ["a", "1"],
    ["a", "2"],
    ["b", null],
    ["__connect.errors.topic", TOPIC],
    ["__connect.errors.partition", "0"],
    ["__connect.errors.offset", "0"],
  ]);
}, 180_000);
