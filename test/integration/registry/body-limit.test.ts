// A flood of requests at and just above size.limit.filter.max.request.body.size, over real HTTP on the
// embedded broker: each gets its own answer (processed, or 413 in Confluent's shape, declared or
// chunked) and a normal request made meanwhile is served.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { jsonCall } from "../../fixtures/http.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

const LIMIT = 8192;
const FLOOD = 50;
const V1 = { "content-type": "application/vnd.schemaregistry.v1+json" };

let place: RegistryPlace;
let registry: TestRegistry;

/** A registration body of exactly `bytes` bytes: the schema, then JSON whitespace. */
function bodyOf(bytes: number, schema: string): string {
  const json = JSON.stringify({ schema });
  return json + " ".repeat(bytes - Buffer.byteLength(json));
}

const post = (path: string, body: string) => jsonCall(registry.url + path, "POST", body, V1);

/** The same, streamed: chunked, with no Content-Length to refuse it by. */
async function postChunked(path: string, body: string): Promise<{ status: number; text: string }> {
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(body));
      controller.close();
    },
  });
  const response = await fetch(registry.url + path, { method: "POST", body: stream, headers: V1 });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, { "size.limit.filter.max.request.body.size": String(LIMIT) });
});

afterAll(async () => {
  await registry?.stop();
  if (place) removePlace(place);
});

test(`${FLOOD} bodies at the limit and ${FLOOD} one byte above it, concurrently, with a normal request meanwhile`, async () => {
  const atLimit = bodyOf(LIMIT, '"string"');
  const invalidAtLimit = bodyOf(LIMIT, "{not a schema");
  const above = bodyOf(LIMIT + 1, '"string"');
  expect(Buffer.byteLength(atLimit)).toBe(LIMIT);

  const flood = [
    ...Array.from({ length: FLOOD }, (_, i) =>
      post("/subjects/flood-value/versions", i % 5 === 0 ? invalidAtLimit : atLimit).then((r) => ({
        kind: i % 5 === 0 ? "invalid" : "at",
        reply: r,
      })),
    ),
    ...Array.from({ length: FLOOD }, () =>
      post("/subjects/flood-value/versions", above).then((r) => ({ kind: "above", reply: r })),
    ),
  ];
  const chunked = Array.from({ length: 10 }, () => postChunked("/subjects/flood-value/versions", above));
  // Far above (over twice the limit) Bun itself refuses the body before the app sees it: a bare 413.
  const farAbove = Array.from({ length: 10 }, () =>
    post("/subjects/flood-value/versions", bodyOf(LIMIT * 3, '"string"')),
  );
  const normal = post("/subjects/normal-value/versions", JSON.stringify({ schema: '"long"' }));
  const answers = await Promise.all(flood);
  const served = await normal;

  for (const reply of await Promise.all(chunked)) {
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text)).toEqual({ error_code: 413, message: "Request entity too large" });
  }
  for (const reply of await Promise.all(farAbove)) expect(reply.status).toBe(413);

  expect(served.status).toBe(200);
  const ids = new Set<number>();
  for (const { kind, reply } of answers) {
    if (kind === "at") {
      expect(reply.status).toBe(200);
      ids.add(reply.body.id);
    } else if (kind === "invalid") {
      expect(reply.status).toBe(422);
      expect(reply.body.error_code).toBe(42201);
    } else {
      expect(reply.status).toBe(413);
      expect(reply.body).toEqual({ error_code: 413, message: "Request entity too large" });
    }
  }
  // Every accepted registration of the one schema got the one id.
  expect(ids.size).toBe(1);
  expect((await jsonCall(registry.url + "/subjects/flood-value/versions", "GET", undefined, V1)).body).toEqual([1]);
});

test("the registry still serves after the flood", async () => {
  const reply = await jsonCall(registry.url + "/subjects", "GET", undefined, V1);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual(["flood-value", "normal-value"]);
});
