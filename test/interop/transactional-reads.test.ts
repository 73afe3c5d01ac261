// Transactional reads: Python's confluent-kafka writes committed and aborted transactions to a topic; a
// FileStreamSink on a Sluice worker with consumer.override.isolation.level=read_committed writes only the
// committed records, in order, and never sees a transaction marker (control record) as a record: its
// group's offset moves past the markers inside the topic (committed, as Kafka Connect does, up to the
// last record delivered) while the file has one line per committed record.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../fixtures/connect.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { interopPython } from "../fixtures/python.ts";
import { waitFor } from "../fixtures/wait.ts";

const script = join(import.meta.dir, "python", "transactional_producer.py");

async function produceTransactions(bootstrap: string, topic: string, steps: string[]): Promise<void> {
  const proc = Bun.spawn([interopPython(), script, bootstrap, topic, `tx-${topic}`, ...steps], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`transactional_producer.py failed (exit ${code}): ${err.slice(-3000)}`);
}

const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe("transactional reads", () => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  let bootstrap: string;

  beforeAll(async () => {
    bootstrap = (await sharedKafka()).bootstrap;
    worker = await startTestConnect("kafka");
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("read_committed: a sink writes the committed records only, and never a transaction marker", async () => {
    const topic = `transactions-${Date.now()}`;
    await worker.connect.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    // 3 transactions of records, each followed by its marker: 30 + 1, 20 + 1, 25 + 1 offsets.
    await produceTransactions(bootstrap, topic, ["commit:first:30", "abort:aborted:20", "commit:second:25"]);
    const file = join(worker.dir, `${topic}.txt`);
    const connector = `sink-${topic}`;
    const created = await api.post("/connectors", {
      name: connector,
      config: {
        "connector.class": "FileStreamSink",
        topics: topic,
        file,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "consumer.override.isolation.level": "read_committed",
      },
    });
    expect(created.status).toBe(201);
    const end = (await worker.connect.broker.endOffsets(topic))[0]!;

    expect(end).toBe(78);
    await waitFor("the sink's group at the last committed record", async () => {
      const committed = (await worker.connect.broker.committedOffsets(`connect-${connector}`, topic)).get(0);
      return (committed ?? 0) >= end - 1 || undefined;
    });
    const written = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    expect(written).toEqual([...lines("first", 30), ...lines("second", 25)]);
    expect((await api.get(`/connectors/${connector}/status`)).body.tasks[0].state).toBe("RUNNING");
  });
});
