// Index creation and mapping before the first write, against a fake server: which calls are made, once
// per index, what schema.ignore leaves out, retries of a busy server, and refusals failing the task.
import { afterEach, describe, expect, test } from "bun:test";
import { logger } from "#src/platform/log.ts";
import { Schema, SchemaBuilder, Timestamp } from "#src/connect/api/data/index.ts";
import type { SinkRecord } from "#src/connect/api/records.ts";
import { BulkClient } from "#src/connectors/search-sink/bulk-client.ts";
import { Indices, type IndicesConfig } from "#src/connectors/search-sink/indices.ts";

interface Call {
  method: string;
  path: string;
  body: string;
}

/** A fake server keeping its indices (name → mapping); `override` may answer a call first. */
function fakeServer(indices: Map<string, Record<string, unknown>>, override?: (call: Call) => Response | undefined) {
  const calls: Call[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const call = { method: request.method, path: decodeURIComponent(url.pathname), body: await request.text() };
      calls.push(call);
      const answer = override?.(call);
      if (answer) return answer;
      const [, index, endpoint] = call.path.split("/");
      const mapping = indices.get(index!);
      if (endpoint === "_mapping") {
        if (mapping === undefined)
          return Response.json({ error: { type: "index_not_found_exception" } }, { status: 404 });
        if (call.method === "GET") return Response.json({ [index!]: { mappings: mapping } });
        indices.set(index!, JSON.parse(call.body) as Record<string, unknown>);
        return Response.json({ acknowledged: true });
      }
      if (call.method === "HEAD") return new Response(null, { status: mapping === undefined ? 404 : 200 });
      if (mapping !== undefined)
        return Response.json({ error: { type: "resource_already_exists_exception" } }, { status: 400 });
      indices.set(index!, {});
      return Response.json({ acknowledged: true, index });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}`, calls };
}
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

const valueSchema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("seen", Timestamp.SCHEMA).build();
const expectedMapping = { properties: { id: { type: "long" }, seen: { type: "date" } } };

function record(topic: string, schema: Schema | null = valueSchema): SinkRecord {
  return {
    topic,
    kafkaPartition: 0,
    kafkaOffset: 0,
    keySchema: null,
    key: "k",
    valueSchema: schema,
    value: {},
    timestamp: 0,
    timestampType: "CreateTime",
    headers: [],
    originalTopic: topic,
    originalKafkaPartition: 0,
    originalKafkaOffset: 0,
  };
}

function indices(url: string, changes: Partial<IndicesConfig> = {}): Indices {
  const config: IndicesConfig = { schemaIgnore: () => false, maxRetries: 2, retryBackoffMs: 1, ...changes };
  return new Indices(
    config,
    new BulkClient({ urls: [url], auth: undefined, requestTimeoutMs: 5000 }),
    logger("indices-test"),
  );
}

const summary = (calls: Call[]) => calls.map((c) => `${c.method} ${c.path}`);

describe("Indices.prepare", () => {
  test("a new index is created and mapped from the value schema, once per index", async () => {
    const state = new Map<string, Record<string, unknown>>();
    const server = fakeServer(state);
    const prepared = indices(server.url);
    await prepared.prepare(record("Orders"));
    await prepared.prepare(record("orders"));
    expect(summary(server.calls)).toEqual([
      "HEAD /orders",
      "PUT /orders",
      "GET /orders/_mapping",
      "PUT /orders/_mapping",
    ]);
    expect(state.get("orders")).toEqual(expectedMapping);
  });

  test("an index that exists with a mapping keeps it", async () => {
    const existing = { properties: { id: { type: "keyword" } } };
    const server = fakeServer(new Map([["orders", existing]]));
    await indices(server.url).prepare(record("orders"));
    expect(summary(server.calls)).toEqual(["HEAD /orders", "GET /orders/_mapping"]);
  });

  test("an existing index without a mapping gets one", async () => {
    const state = new Map([["orders", {}]]);
    const server = fakeServer(state);
    await indices(server.url).prepare(record("orders"));
    expect(summary(server.calls)).toEqual(["HEAD /orders", "GET /orders/_mapping", "PUT /orders/_mapping"]);
    expect(state.get("orders")).toEqual(expectedMapping);
  });

  test("schema.ignore (or topic.schema.ignore for the topic) only creates the index", async () => {
    const server = fakeServer(new Map());
    const prepared = indices(server.url, { schemaIgnore: (topic) => topic === "plain" });
    await prepared.prepare(record("plain"));
    await prepared.prepare(record("typed"));
    expect(summary(server.calls)).toEqual([
      "HEAD /plain",
      "PUT /plain",
      "HEAD /typed",
      "PUT /typed",
      "GET /typed/_mapping",
      "PUT /typed/_mapping",
    ]);
  });

  test("a record without a value schema leaves the index to dynamic mapping until one with a schema comes", async () => {
    const server = fakeServer(new Map());
    const prepared = indices(server.url);
    await prepared.prepare(record("orders", null));
    expect(summary(server.calls)).toEqual(["HEAD /orders", "PUT /orders"]);
    await prepared.prepare(record("orders"));
    expect(summary(server.calls).slice(2)).toEqual(["GET /orders/_mapping", "PUT /orders/_mapping"]);
  });

  test("an index created by someone else in between is fine", async () => {
    const server = fakeServer(new Map(), (call) =>
      call.method === "PUT" && call.path === "/orders"
        ? Response.json({ error: { type: "resource_already_exists_exception" } }, { status: 400 })
        : undefined,
    );
    await indices(server.url, { schemaIgnore: () => true }).prepare(record("orders"));
    expect(summary(server.calls)).toEqual(["HEAD /orders", "PUT /orders"]);
  });

  test("a busy server is asked again; after max.retries the task fails", async () => {
    let busy = 2;
    const server = fakeServer(new Map(), (call) =>
      call.method === "HEAD" && busy-- > 0 ? new Response(null, { status: 503 }) : undefined,
    );
    await indices(server.url, { schemaIgnore: () => true }).prepare(record("orders"));
    expect(summary(server.calls)).toEqual(["HEAD /orders", "HEAD /orders", "HEAD /orders", "PUT /orders"]);

    const down = fakeServer(new Map(), () => Response.json({ error: "busy" }, { status: 429 }));
    await expect(indices(down.url, { maxRetries: 1 }).prepare(record("orders"))).rejects.toThrow(
      "Failed to check whether index orders exists after 2 attempts",
    );
  });

  test("a refused mapping fails the task with the server's reason", async () => {
    const server = fakeServer(new Map(), (call) =>
      call.method === "PUT" && call.path.endsWith("/_mapping")
        ? Response.json({ error: { type: "mapper_parsing_exception", reason: "bad" } }, { status: 400 })
        : undefined,
    );
    await expect(indices(server.url).prepare(record("orders"))).rejects.toThrow(
      /Failed to create the mapping of index orders .*400.*mapper_parsing_exception/,
    );
  });
});
