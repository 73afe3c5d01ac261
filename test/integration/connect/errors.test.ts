// Error handling: a converter meeting bytes it cannot read fails the task with a clear trace
// (errors.tolerance=none) or skips the record into the dead letter queue (all), on the embedded broker.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decoder, encoder } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { waitFor } from "../../fixtures/wait.ts";

const json = (payload: string) =>
  encoder.encode(JSON.stringify({ schema: { type: "string", optional: false }, payload }));

describe("errors.tolerance and the dead letter queue", () => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  beforeAll(async () => {
    worker = await startTestConnect("embedded");
    api = connectClient(worker.url);
    const broker = worker.connect.broker;
    await broker.createTopic({ name: "mixed", partitions: 1, replicationFactor: 1 });
    await broker.produce("mixed", [
      { key: null, value: json("good-1"), partition: 0 },
      {
        key: null,
        value: encoder.encode("not json at all"),
        partition: 0,
        headers: [
          { key: "origin", value: encoder.encode("test") },
          { key: "origin", value: null },
        ],
      },
      { key: null, value: json("good-2"), partition: 0 },
    ]);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("errors.tolerance=none: the task fails with the converter's error in its trace", async () => {
    await api.post("/connectors", {
      name: "strict",
      config: {
        "connector.class": "FileStreamSink",
        topics: "mixed",
        file: join(worker.dir, "strict.txt"),
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      },
    });
    const status = await waitFor("the task to fail", async () => {
      const s = (await api.get("/connectors/strict/status")).body;
      return s?.tasks?.[0]?.state === "FAILED" ? s : undefined;
    });
    expect(status.connector.state).toBe("RUNNING");
    expect(status.tasks[0].trace).toContain("Tolerance exceeded in error handler");
    expect(status.tasks[0].trace).toContain("Caused by:");
    // Restarting the failed task only (onlyFailed) brings it back to the same failure, visibly.
    const planned = await api.post("/connectors/strict/restart?includeTasks=true&onlyFailed=true");
    expect(planned.status).toBe(202);
    expect(planned.body.tasks[0].state).toBe("RESTARTING");
  });

  test("JsonConverter meeting a schema registry serializer's bytes: the trace says which converter reads them", async () => {
    const broker = worker.connect.broker;
    await broker.createTopic({ name: "framed", partitions: 1, replicationFactor: 1 });
    // Confluent's wire format: magic byte 0, schema id 7, then Avro's encoding of the string "hi".
    await broker.produce("framed", [{ key: null, value: new Uint8Array([0, 0, 0, 0, 7, 4, 104, 105]), partition: 0 }]);
    await api.post("/connectors", {
      name: "framed-json",
      config: {
        "connector.class": "FileStreamSink",
        topics: "framed",
        file: join(worker.dir, "framed.txt"),
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      },
    });
    const trace: string = await waitFor("the task to fail", async () => {
      const s = (await api.get("/connectors/framed-json/status")).body;
      return s?.tasks?.[0]?.state === "FAILED" ? s.tasks[0].trace : undefined;
    });
    expect(trace).toContain(
      "Caused by: Error: the bytes start with Confluent's magic byte and schema id 7: a schema registry serializer wrote them, and JsonConverter cannot read them; use io.confluent.connect.avro.AvroConverter or io.confluent.connect.protobuf.ProtobufConverter with schema.registry.url",
    );
  });

  test("errors.tolerance=all with a DLQ: good records arrive, the bad one goes to the DLQ with context headers", async () => {
    const out = join(worker.dir, "tolerant.txt");
    await api.post("/connectors", {
      name: "tolerant",
      config: {
        "connector.class": "FileStreamSink",
        topics: "mixed",
        file: out,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "errors.tolerance": "all",
        "errors.log.enable": "true",
        "errors.deadletterqueue.topic.name": "mixed-dlq",
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true",
      },
    });
    await waitFor(
      "both good records",
      () => (existsSync(out) && readFileSync(out, "utf8") === "good-1\ngood-2\n") || undefined,
    );
    const dlq = await waitFor("the DLQ record", async () => {
      const records = await worker.connect.broker.fetch("mixed-dlq", 0, 0);
      return records.length > 0 ? records : undefined;
    });
    expect(dlq).toHaveLength(1);
    expect(decoder.decode(dlq[0]!.value!)).toBe("not json at all");
    // The record's own headers as read (a repeated key, a null value), then the error context's.
    const headers = dlq[0]!.headers.map(({ key, value }) => [key, value && decoder.decode(value)]);
    expect(headers.slice(0, 8)).toEqual([
      ["origin", "test"],
      ["origin", null],
      ["__connect.errors.topic", "mixed"],
      ["__connect.errors.partition", "0"],
      ["__connect.errors.offset", "1"],
      ["__connect.errors.connector.name", "tolerant"],
      ["__connect.errors.task.id", "0"],
      ["__connect.errors.stage", "VALUE_CONVERTER"],
    ]);
    expect(headers.find(([key]) => key === "__connect.errors.exception.class.name")?.[1]).toBeTruthy();
    expect((await api.get("/connectors/tolerant/status")).body.tasks[0].state).toBe("RUNNING");
  });
});
