// File source → broker → file sink on the embedded broker and on real Kafka: every line arrives once,
// in order; pause/resume/stop/restart; offsets; restart of the worker resumes from committed offsets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import type { BrokerKind } from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";

const lines = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `line-${from + i}`);
const readLines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

describe.each(["embedded", "kafka"] as BrokerKind[])("file pipeline on %s", (kind) => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  let input: string;
  let output: string;
  const topic = `lines-${kind}-${Date.now()}`;

  beforeAll(async () => {
    worker = await startTestConnect(kind);
    api = connectClient(worker.url);
    input = join(worker.dir, "in.txt");
    output = join(worker.dir, "out.txt");
    writeFileSync(input, lines(500).join("\n") + "\n");
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  }, 60_000);

  test("every line arrives exactly once and in order", async () => {
    const source = await api.post("/connectors", {
      name: "src",
      config: { "connector.class": "FileStreamSource", file: input, topic, "tasks.max": "1" },
    });
    expect(source.status).toBe(201);
    expect(source.headers.get("location")).toBe("/connectors/src");
    expect(source.body).toEqual({
      name: "src",
      config: { "connector.class": "FileStreamSource", file: input, topic, "tasks.max": "1", name: "src" },
      tasks: [{ connector: "src", task: 0 }],
      type: "source",
    });
    const sink = await api.post("/connectors", {
      name: "sink",
      config: {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        file: output,
        topics: topic,
      },
    });
    expect(sink.status).toBe(201);
    await api.waitForState("src", "RUNNING", 1);
    await api.waitForState("sink", "RUNNING", 1);
    await waitFor("500 lines in the sink file", () => readLines(output).length >= 500 || undefined);
    appendFileSync(input, lines(100, 500).join("\n") + "\n");
    await waitFor("600 lines in the sink file", () => readLines(output).length >= 600 || undefined);
    expect(readLines(output)).toEqual(lines(600));
    expect((await api.get("/connectors")).body).toEqual(["sink", "src"]);
    expect((await api.get("/connectors/src/topics")).body).toEqual({ src: { topics: [topic] } });
  });

  test("pause stops delivery, resume continues without loss", async () => {
    expect((await api.put("/connectors/sink/pause")).status).toBe(202);
    await api.waitForState("sink", "PAUSED", 1);
    appendFileSync(input, lines(50, 600).join("\n") + "\n");
    // The source keeps producing while the sink is paused: wait for the source to have read it all.
    await waitFor("source offset after 650 lines", async () => {
      const r = await api.get("/connectors/src/offsets");
      return r.body.offsets[0]?.offset.position === readFileSync(input).length || undefined;
    });
    expect(readLines(output).length).toBe(600);
    expect((await api.put("/connectors/sink/resume")).status).toBe(202);
    await waitFor("650 lines after resume", () => readLines(output).length >= 650 || undefined);
    expect(readLines(output)).toEqual(lines(650));
  });

  test("stop, offsets API, restart", async () => {
    expect((await api.put("/connectors/src/stop")).status).toBe(204);
    await api.waitForState("src", "STOPPED");
    expect((await api.get("/connectors/src/status")).body.tasks).toEqual([]);
    const offsets = await api.get("/connectors/src/offsets");
    expect(offsets.body).toEqual({
      offsets: [{ partition: { filename: input }, offset: { position: readFileSync(input).length } }],
    });
    // Sink positions are committed after each flush (every offset.flush.interval.ms).
    const sinkOffsets = await waitFor("the sink's committed position", async () => {
      const r = await api.get("/connectors/sink/offsets");
      return r.body.offsets[0]?.offset.kafka_offset === 650 ? r.body.offsets : undefined;
    });
    expect(sinkOffsets).toEqual([
      { partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 650 } },
    ]);
    // Offsets change only while stopped.
    const refused = await api.patch("/connectors/sink/offsets", {
      offsets: [{ partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } }],
    });
    expect(refused.status).toBe(400);
    expect((await api.put("/connectors/src/resume")).status).toBe(202);
    await api.waitForState("src", "RUNNING", 1);

    expect((await api.post("/connectors/src/restart")).status).toBe(204);
    const planned = await api.post("/connectors/src/restart?includeTasks=true");
    expect(planned.status).toBe(202);
    expect(planned.body.connector.state).toBe("RESTARTING");
    await api.waitForState("src", "RUNNING", 1);
    expect((await api.post("/connectors/src/tasks/0/restart")).status).toBe(204);
    expect((await api.post("/connectors/src/tasks/7/restart")).status).toBe(404);
    await api.waitForState("src", "RUNNING", 1);
    appendFileSync(input, lines(10, 650).join("\n") + "\n");
    await waitFor("660 lines", () => readLines(output).length >= 660 || undefined);
    expect(readLines(output)).toEqual(lines(660));
  });

  test("a restarted worker resumes from the committed offsets", async () => {
    // Wait for the source's and sink's last commits, then restart the worker process-equivalent.
    await waitFor(
      "source offsets committed",
      async () =>
        (await api.get("/connectors/src/offsets")).body.offsets[0]?.offset.position === readFileSync(input).length ||
        undefined,
    );
    await worker.stop();
    worker = await worker.restart();
    api = connectClient(worker.url);
    // Standalone keeps REST-created connectors until restart only (as Kafka Connect): create again.
    await api.post("/connectors", {
      name: "src",
      config: { "connector.class": "FileStreamSource", file: input, topic },
    });
    await api.post("/connectors", {
      name: "sink",
      config: { "connector.class": "FileStreamSink", file: output, topics: topic },
    });
    appendFileSync(input, lines(40, 660).join("\n") + "\n");
    await waitFor("700 lines", () => readLines(output).length >= 700 || undefined);
    expect(readLines(output)).toEqual(lines(700));
  });

  test("a sink on topics.regex reads a topic made after it started, within the consumer's metadata.max.age.ms", async () => {
    const prefix = `later-${kind}-${Date.now()}`;
    const laterIn = join(worker.dir, "later-in.txt");
    const laterOut = join(worker.dir, "later-out.txt");
    writeFileSync(laterIn, lines(20).join("\n") + "\n");
    // Nothing matches yet: each task starts with no partitions, and asks again every 300 ms.
    const sinkConfig = {
      "connector.class": "FileStreamSink",
      file: laterOut,
      "topics.regex": `${prefix}-.*`,
      "tasks.max": "2",
      "consumer.override.metadata.max.age.ms": "300",
    };
    expect((await api.post("/connectors", { name: "later-sink", config: sinkConfig })).status).toBe(201);
    await api.waitForState("later-sink", "RUNNING", 2);
    expect(
      (
        await api.post("/connectors", {
          name: "later-src",
          config: { "connector.class": "FileStreamSource", file: laterIn, topic: `${prefix}-a` },
        })
      ).status,
    ).toBe(201);
    await waitFor("20 lines from the later topic", () => readLines(laterOut).length >= 20 || undefined);
    expect(readLines(laterOut)).toEqual(lines(20));
    for (const name of ["later-src", "later-sink"]) expect((await api.delete(`/connectors/${name}`)).status).toBe(204);
  });
});
