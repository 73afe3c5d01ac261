// The Elasticsearch sink end to end: records produced to real Kafka, a standalone worker, a real
// OpenSearch node. Key ids, replacement by key, deletes by tombstone, offset ids with key.ignore,
// malformed documents skipped, offsets committed only for written documents, and the index mapping
// derived from the value schema (or left to dynamic mapping with schema.ignore).
// Without Java and Maven it is skipped, except in CI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decoder, encoder } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { sharedOpenSearch, type OpenSearchNode } from "../../fixtures/opensearch.ts";
import { waitFor } from "../../fixtures/wait.ts";

const json = (value: unknown) => encoder.encode(JSON.stringify(value));

describe("Elasticsearch sink into OpenSearch", () => {
  let search: OpenSearchNode;
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  const run = Date.now();

  beforeAll(async () => {
    [search, worker] = await Promise.all([sharedOpenSearch(), startTestConnect("kafka")]);
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  /** The document's source, or null when there is none. */
  async function doc(index: string, id: string): Promise<Record<string, unknown> | null> {
    const r = await fetch(`${search.url}/${index}/_doc/${encodeURIComponent(id)}`);
    if (r.status === 404) return null;
    return ((await r.json()) as { _source: Record<string, unknown> })._source;
  }

  async function produce(topic: string, records: { key: string | null; value: unknown }[]): Promise<void> {
    await worker.connect.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    await worker.connect.broker.produce(
      topic,
      records.map((r) => ({
        key: r.key === null ? null : encoder.encode(r.key),
        value: r.value === null ? null : json(r.value),
      })),
    );
  }

  async function createSink(name: string, topic: string, extra: Record<string, string>): Promise<void> {
    const config = {
      "connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
      topics: topic,
      "connection.url": search.url,
      "type.name": "_doc",
      "key.converter": "org.apache.kafka.connect.storage.StringConverter",
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      "value.converter.schemas.enable": "false",
      ...extra,
    };
    const created = await api.post("/connectors", { name, config });
    expect(created.status).toBe(201);
    await api.waitForState(name, "RUNNING", 1);
  }

  /** Waits until the sink committed the partition up to `offset` (exclusive): only after the documents were written. */
  async function committed(name: string, offset: number): Promise<void> {
    await waitFor(
      `${name} committed ${offset}`,
      async () =>
        (await api.get(`/connectors/${name}/offsets`)).body.offsets?.[0]?.offset.kafka_offset === offset || undefined,
    );
  }

  test("keys are ids: an update replaces the document, a tombstone deletes it", async () => {
    const topic = `search-keyed-${run}`;
    await produce(topic, [
      { key: "k1", value: { name: "first", n: 1 } },
      { key: "k2", value: { name: "second", n: 2 } },
      { key: "k1", value: { n: 10 } },
      { key: "k2", value: null },
      { key: "k3", value: { name: "third", nested: { list: [1, 2] } } },
    ]);
    await createSink("keyed", topic, { "behavior.on.null.values": "delete" });
    await committed("keyed", 5);
    // Offsets are committed after flush(), which waits for the bulk requests: the documents are there.
    expect(await doc(topic, "k1")).toEqual({ n: 10 });
    expect(await doc(topic, "k2")).toBeNull();
    expect(await doc(topic, "k3")).toEqual({ name: "third", nested: { list: [1, 2] } });
  });

  test("upsert merges into the existing document", async () => {
    const topic = `search-upsert-${run}`;
    await produce(topic, [
      { key: "u", value: { a: 1, b: 1 } },
      { key: "u", value: { b: 2 } },
    ]);
    await createSink("upsert", topic, { "write.method": "upsert", "connector.class": "OpenSearchSink" });
    await committed("upsert", 2);
    expect(await doc(topic, "u")).toEqual({ a: 1, b: 2 });
  });

  test("key.ignore: ids are topic+partition+offset, the index is the lower-cased topic", async () => {
    const topic = `Search-Ignore-${run}`;
    await produce(topic, [
      { key: null, value: { i: 0 } },
      { key: "same", value: { i: 1 } },
      { key: "same", value: { i: 2 } },
    ]);
    await createSink("ignore", topic, { "key.ignore": "true", "connector.class": "ElasticsearchSink" });
    await committed("ignore", 3);
    const index = topic.toLowerCase();
    for (const i of [0, 1, 2]) expect(await doc(index, `${topic}+0+${i}`)).toEqual({ i });
  });

  test("schema.ignore=false puts the mapping derived from the value schema; schema.ignore=true leaves dynamic mapping", async () => {
    // A struct with an int64 (with a default), a string, a Timestamp and a Decimal, in the JSON converter's envelope.
    const schema = {
      type: "struct",
      name: "Sale",
      optional: false,
      fields: [
        { field: "id", type: "int64", optional: false, default: 0 },
        { field: "name", type: "string", optional: true },
        { field: "seen", type: "int64", name: "org.apache.kafka.connect.data.Timestamp", version: 1, optional: false },
        {
          field: "price",
          type: "bytes",
          name: "org.apache.kafka.connect.data.Decimal",
          version: 1,
          parameters: { scale: "2" },
          optional: false,
        },
      ],
    };
    // 12.34: unscaled 1234 = 0x04d2.
    const value = {
      schema,
      payload: { id: 7, name: "first", seen: 1_700_000_000_123, price: Buffer.from([0x04, 0xd2]).toString("base64") },
    };
    const converter = { "value.converter.schemas.enable": "true" };
    const mapped = `search-mapped-${run}`;
    const dynamic = `search-dynamic-${run}`;
    await produce(mapped, [{ key: "s1", value }]);
    await produce(dynamic, [{ key: "s1", value }]);
    await createSink("mapped", mapped, converter);
    await createSink("dynamic", dynamic, { ...converter, "schema.ignore": "true" });
    await Promise.all([committed("mapped", 1), committed("dynamic", 1)]);

    const mappingOf = async (index: string) =>
      ((await (await fetch(`${search.url}/${index}/_mapping`)).json()) as Record<string, { mappings: unknown }>)[index]!
        .mappings;
    const text = { type: "text", fields: { keyword: { type: "keyword", ignore_above: 256 } } };
    expect(await mappingOf(mapped)).toEqual({
      properties: {
        id: { type: "long", null_value: 0 },
        name: text,
        seen: { type: "date" },
        price: { type: "double" },
      },
    });
    expect(await doc(mapped, "s1")).toEqual({ id: 7, name: "first", seen: 1_700_000_000_123, price: 12.34 });

    // No explicit mapping: the server mapped the JSON converter's output itself (the epoch millis as a
    // long, the base64 Decimal as text).
    expect(await mappingOf(dynamic)).toEqual({
      properties: { id: { type: "long" }, name: text, seen: { type: "long" }, price: text },
    });
    expect(await doc(dynamic, "s1")).toEqual({ id: 7, name: "first", seen: 1_700_000_000_123, price: "BNI=" });
  });

  test("a malformed document is skipped with behavior.on.malformed.documents=ignore; the task runs on", async () => {
    const topic = `search-malformed-${run}`;
    const mapping = await fetch(`${search.url}/${topic}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mappings: { properties: { n: { type: "integer" } } } }),
    });
    expect(mapping.status).toBe(200);
    await produce(topic, [
      { key: "bad", value: { n: "not a number" } },
      { key: "good", value: { n: 5 } },
    ]);
    await createSink("malformed", topic, { "behavior.on.malformed.documents": "ignore" });
    await committed("malformed", 2);
    expect(await doc(topic, "bad")).toBeNull();
    expect(await doc(topic, "good")).toEqual({ n: 5 });
    const status = await api.get("/connectors/malformed/status");
    expect(status.body.tasks[0].state).toBe("RUNNING");
  });

  test("with a dead letter queue, a refused document goes to it as read (errant record reporter)", async () => {
    const topic = `search-errant-${run}`;
    await fetch(`${search.url}/${topic}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mappings: { properties: { n: { type: "integer" } } } }),
    });
    await produce(topic, [
      { key: "good", value: { n: 1 } },
      { key: "bad", value: { n: "not a number" } },
    ]);
    await createSink("errant", topic, {
      "behavior.on.malformed.documents": "warn",
      "errors.tolerance": "all",
      "errors.deadletterqueue.topic.name": `${topic}-dlq`,
      "errors.deadletterqueue.topic.replication.factor": "1",
      "errors.deadletterqueue.context.headers.enable": "true",
    });
    await committed("errant", 2);
    const dead = await worker.connect.broker.fetch(`${topic}-dlq`, 0, 0);
    expect(dead.map((r) => decoder.decode(r.key!))).toEqual(["bad"]);
    const header = (name: string) =>
      decoder.decode(dead[0]!.headers.find((h) => h.key === `__connect.errors.${name}`)!.value!);
    expect(header("offset")).toBe("1");
    expect(header("stage")).toBe("TASK_PUT");
    expect(header("exception.class.name")).toBe(
      "io.confluent.connect.elasticsearch.ElasticsearchClient$ReportingException",
    );
    expect(header("exception.message")).toStartWith("Indexing failed: mapper_parsing_exception");
    expect(await doc(topic, "good")).toEqual({ n: 1 });
  });

  test("with behavior.on.malformed.documents=fail the task fails and names the record", async () => {
    const topic = `search-malformed-fail-${run}`;
    await fetch(`${search.url}/${topic}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mappings: { properties: { n: { type: "integer" } } } }),
    });
    await produce(topic, [{ key: "bad", value: { n: "not a number" } }]);
    const created = await api.post("/connectors", {
      name: "malformed-fail",
      config: {
        "connector.class": "ElasticsearchSink",
        topics: topic,
        "connection.url": search.url,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
      },
    });
    expect(created.status).toBe(201);
    const failed = await waitFor("the task to fail", async () => {
      const task = (await api.get("/connectors/malformed-fail/status")).body.tasks?.[0];
      return task?.state === "FAILED" ? task : undefined;
    });
    expect(failed.trace).toContain(`record from topic=${topic} partition=0 offset=0`);
    expect(failed.trace).toContain("mapper_parsing_exception");
  });
});
