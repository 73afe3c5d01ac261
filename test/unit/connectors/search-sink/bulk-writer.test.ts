// Bulk requests against a fake server: per-item outcomes, retries of what the server could not take,
// failover to the next URL, Basic auth, malformed-document policy, and flush waiting for everything.
import { afterEach, describe, expect, test } from "bun:test";
import { logger } from "#src/platform/log.ts";
import { BulkClient, retryWaitMs } from "#src/connectors/search-sink/bulk-client.ts";
import { bulkItems, itemOutcome } from "#src/connectors/search-sink/bulk-response.ts";
import { BulkWriter, type BulkWriterConfig } from "#src/connectors/search-sink/bulk-writer.ts";
import type { ErrantRecordReporter } from "#src/connect/api/connector.ts";
import type { SinkRecord } from "#src/connect/api/records.ts";
import { freePort } from "../../../fixtures/wait.ts";

type Reply = (actions: unknown[][], request: Request) => Response;

/** A fake _bulk endpoint: answers each request with `reply` and keeps what it was sent. */
function fakeServer(reply: Reply) {
  const requests: { actions: unknown[][]; authorization: string | null }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const lines = (await request.text())
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      // Group metadata lines with the document line that follows them (none for a delete).
      const actions: unknown[][] = [];
      for (const line of lines) {
        if ("index" in line || "update" in line || "delete" in line) actions.push([line]);
        else actions.at(-1)!.push(line);
      }
      requests.push({ actions, authorization: request.headers.get("authorization") });
      return reply(actions, request);
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}`, requests };
}
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

const ok = (actions: unknown[][]) =>
  Response.json({ errors: false, items: actions.map(() => ({ index: { status: 201 } })) });
/** Only its identity matters to the writer: it is what the errant record reporter is handed. */
const recordOf = (id: string) => ({ topic: "t", key: id }) as unknown as SinkRecord;
const action = (id: string) => `{"index":{"_index":"t","_id":"${id}"}}\n{"n":1}`;

const writerConfig = (changes: Partial<BulkWriterConfig> = {}): BulkWriterConfig => ({
  batchSize: 2,
  bulkSizeBytes: 1 << 20,
  maxInFlightRequests: 2,
  maxBufferedRecords: 100,
  lingerMs: 5,
  maxRetries: 3,
  retryBackoffMs: 1,
  malformedDocuments: "fail",
  ...changes,
});
const log = logger("bulk-writer-test");

describe("bulk responses", () => {
  test("item outcomes", () => {
    expect(itemOutcome({ status: 201 })).toBe("written");
    expect(itemOutcome({ status: 409, error: { type: "version_conflict_engine_exception", reason: "" } })).toBe(
      "outdated",
    );
    expect(itemOutcome({ status: 429, error: { type: "es_rejected_execution_exception", reason: "" } })).toBe("retry");
    expect(itemOutcome({ status: 400, error: { type: "mapper_parsing_exception", reason: "" } })).toBe("malformed");
    expect(itemOutcome({ status: 403, error: { type: "cluster_block_exception", reason: "" } })).toBe("failed");
  });
  test("items are read in request order and must match the request", () => {
    expect(
      bulkItems(
        {
          items: [
            { delete: { status: 404, result: "not_found" } },
            { index: { status: 400, error: { type: "x", reason: "y" } } },
          ],
        },
        2,
      ),
    ).toEqual([{ status: 404 }, { status: 400, error: { type: "x", reason: "y" } }]);
    expect(() => bulkItems({ items: [] }, 1)).toThrow("unexpected bulk response");
  });
  test("retry waits grow from the base, with jitter", () => {
    expect(retryWaitMs(0, 0)).toBe(0);
    for (let attempt = 0; attempt < 5; attempt++) {
      const wait = retryWaitMs(attempt, 100);
      expect(wait).toBeGreaterThanOrEqual(100);
      expect(wait).toBeLessThanOrEqual(100 * 2 ** attempt);
    }
  });
});

describe("BulkWriter", () => {
  test("batches by batch.size and flush sends the rest", async () => {
    const server = fakeServer(ok);
    const writer = new BulkWriter(
      writerConfig({ lingerMs: 60_000 }),
      new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
      log,
    );
    for (const id of ["a", "b", "c"]) await writer.add(action(id), id, recordOf(id));
    await writer.flush(5000);
    expect(server.requests.map((r) => r.actions.length)).toEqual([2, 1]);
  });

  test("fails over to the next URL and sends Basic credentials", async () => {
    const server = fakeServer(ok);
    const dead = `http://127.0.0.1:${freePort()}`;
    const writer = new BulkWriter(
      writerConfig(),
      new BulkClient({ urls: [dead, server.url], auth: { username: "u", password: "p" }, requestTimeoutMs: 5000 }),
      log,
    );
    await writer.add(action("a"), "a", recordOf("a"));
    await writer.flush(5000);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.authorization).toBe(`Basic ${btoa("u:p")}`);
  });

  test("retries a whole request on 429/5xx and only the rejected items of a partial failure", async () => {
    let calls = 0;
    const server = fakeServer((actions) => {
      calls++;
      if (calls === 1) return new Response("busy", { status: 503 });
      if (calls === 2)
        return Response.json({
          errors: true,
          items: actions.map((_, i) =>
            i === 0
              ? { index: { status: 201 } }
              : { index: { status: 429, error: { type: "es_rejected_execution_exception", reason: "queue full" } } },
          ),
        });
      return ok(actions);
    });
    const writer = new BulkWriter(
      writerConfig(),
      new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
      log,
    );
    await writer.add(action("a"), "a", recordOf("a"));
    await writer.add(action("b"), "b", recordOf("b"));
    await writer.flush(5000);
    const ids = server.requests.map((r) => r.actions.map((a) => (a[0] as { index: { _id: string } }).index._id));
    expect(ids).toEqual([["a", "b"], ["a", "b"], ["b"]]);
  });

  test("gives up after max.retries and fails the next flush", async () => {
    const server = fakeServer(() => new Response("down", { status: 500 }));
    const writer = new BulkWriter(
      writerConfig({ maxRetries: 2 }),
      new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
      log,
    );
    await writer.add(action("a"), "a", recordOf("a"));
    await expect(writer.flush(5000)).rejects.toThrow("Bulk request failed after 3 attempts");
    expect(server.requests).toHaveLength(3);
  });

  const malformed = (actions: unknown[][]) =>
    Response.json({
      errors: true,
      items: actions.map(() => ({
        index: { status: 400, error: { type: "mapper_parsing_exception", reason: "failed to parse field [n]" } },
      })),
    });

  test("malformed documents are skipped with ignore/warn", async () => {
    for (const behavior of ["ignore", "warn"] as const) {
      const server = fakeServer(malformed);
      const writer = new BulkWriter(
        writerConfig({ malformedDocuments: behavior }),
        new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
        log,
      );
      await writer.add(action("a"), "a", recordOf("a"));
      await writer.flush(5000);
      expect(server.requests).toHaveLength(1);
    }
  });

  test("a malformed document fails with fail, naming the record and the reason", async () => {
    const server = fakeServer(malformed);
    const writer = new BulkWriter(
      writerConfig(),
      new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
      log,
    );
    await writer.add(action("a"), "record from topic=t partition=0 offset=0", recordOf("a"));
    await expect(writer.flush(5000)).rejects.toThrow(
      "Indexing record from topic=t partition=0 offset=0 failed: mapper_parsing_exception: failed to parse field [n]",
    );
  });

  test("a refused document goes to the errant record reporter, then the malformed-document policy applies", async () => {
    for (const behavior of ["ignore", "fail"] as const) {
      const server = fakeServer(malformed);
      const reported: { record: SinkRecord; error: Error }[] = [];
      const reporter: ErrantRecordReporter = { report: async (record, error) => void reported.push({ record, error }) };
      const writer = new BulkWriter(
        writerConfig({ malformedDocuments: behavior }),
        new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
        log,
        reporter,
      );
      const record = recordOf("a");
      await writer.add(action("a"), "a", record);
      if (behavior === "fail") await expect(writer.flush(5000)).rejects.toThrow("mapper_parsing_exception");
      else await writer.flush(5000);
      expect(reported).toHaveLength(1);
      expect(reported[0]!.record).toBe(record);
      expect(reported[0]!.error.name).toBe("io.confluent.connect.elasticsearch.ElasticsearchClient$ReportingException");
      expect(reported[0]!.error.message).toBe("Indexing failed: mapper_parsing_exception: failed to parse field [n]");
    }
  });

  test("a refused request (401) fails without retries", async () => {
    const server = fakeServer(() => new Response("unauthorized", { status: 401 }));
    const writer = new BulkWriter(
      writerConfig(),
      new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 }),
      log,
    );
    await writer.add(action("a"), "a", recordOf("a"));
    await expect(writer.flush(5000)).rejects.toThrow("failed with 401");
    expect(server.requests).toHaveLength(1);
  });

  test("flush waits for requests in flight", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = fakeServer(ok);
    const client = new BulkClient({ urls: [server.url], auth: undefined, requestTimeoutMs: 5000 });
    const slow = Object.assign(Object.create(client) as BulkClient, {
      bulk: async (actions: readonly string[]) => {
        await gate;
        return client.bulk(actions);
      },
    });
    const writer = new BulkWriter(writerConfig(), slow, log);
    await writer.add(action("a"), "a", recordOf("a"));
    let flushed = false;
    const flush = writer.flush(5000).then(() => (flushed = true));
    await Bun.sleep(50); // gives a wrongly non-waiting flush the chance to resolve
    expect(flushed).toBe(false);
    release();
    await flush;
    expect(server.requests).toHaveLength(1);
  });
});
