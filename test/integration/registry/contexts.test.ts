// Schema contexts and the newer read endpoints, on real Kafka and on the embedded broker: qualified
// subjects, ids per context, CONTEXT records in Confluent's layout, /contexts, /v1/metadata, lookups
// by id in a subject's context, subjectPrefix ranges, and ids kept per context across a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decoder } from "#src/broker/broker.ts";
import { VERSION } from "#src/platform/version.ts";
import {
  client,
  registryPlace,
  startTestRegistry,
  type BrokerKind,
  type RegistryPlace,
  type TestRegistry,
  registryForTests,
} from "../../fixtures/registry.ts";

const record = (name: string, fields: object[] = []) => ({
  type: "record",
  name,
  fields: [{ name: "id", type: "long" }, ...fields],
});
const q = encodeURIComponent;

describe.each(["kafka", "embedded"] as BrokerKind[])("contexts on %s", (kind) => {
  const reg = registryForTests(kind);

  test("ids are allocated per context; a schema shared across subjects shares its id only within a context", async () => {
    const a = await reg.api.register("orders", record("A"));
    const b = await reg.api.register("users", record("B"));
    expect([a.body.id, b.body.id]).toEqual([1, 2]);
    // The same schema in another context is a new id there, counted from 1.
    const prodA = await reg.api.register(":.prod:orders", record("A"));
    expect(prodA.status).toBe(200);
    expect(prodA.body.id).toBe(1);
    const prodB = await reg.api.register(":.prod:users", record("B"));
    expect(prodB.body.id).toBe(2);
    // Shared within the context.
    expect((await reg.api.register(":.prod:orders-copy", record("B"))).body.id).toBe(2);
    // `:.:orders` is the default context's `orders`.
    expect((await reg.api.register(":.:orders", record("A"))).body.id).toBe(1);
    expect((await reg.api.get(`/subjects/${q(":.:orders")}/versions`)).body).toEqual([1]);
    expect((await reg.api.get(`/subjects/${q(":.prod:orders")}/versions/1`)).body).toEqual({
      guid: expect.any(String),
      subject: ":.prod:orders",
      version: 1,
      id: 1,
      schema: JSON.stringify(record("A")),
    });
  });

  test("GET /contexts: the default first, then the contexts in order; offset and limit", async () => {
    await reg.api.register(":.alpha:x", record("X"));
    expect((await reg.api.get("/contexts")).body).toEqual([".", ".alpha", ".prod"]);
    expect((await reg.api.get("/contexts?offset=1&limit=1")).body).toEqual([".alpha"]);
    expect((await reg.api.get("/contexts?contextPrefix=.p")).body).toEqual([".prod"]);
  });

  test("GET /schemas/ids/{id}: the default context, or the subject's", async () => {
    const B = JSON.stringify(record("B"));
    const C = JSON.stringify(record("C"));
    // Id 3 exists only in .prod.
    expect((await reg.api.register(":.prod:c", record("C"))).body.id).toBe(3);
    expect((await reg.api.get("/schemas/ids/3")).body).toEqual({ error_code: 40403, message: "Schema 3 not found" });
    expect((await reg.api.get(`/schemas/ids/3?subject=${q(":.prod:c")}`)).body).toEqual({
      guid: expect.any(String),
      subject: ":.prod:c",
      version: 1,
      schema: C,
    });
    // A context alone: any holder in it.
    expect((await reg.api.get(`/schemas/ids/3?subject=${q(":.prod:")}`)).body).toEqual({
      guid: expect.any(String),
      subject: ":.prod:c",
      version: 1,
      schema: C,
    });
    // A qualified subject that does not hold the id: 404.
    expect((await reg.api.get(`/schemas/ids/3?subject=${q(":.prod:users")}`)).status).toBe(404);
    // An unqualified subject is tried in each context.
    expect((await reg.api.get("/schemas/ids/3?subject=c")).body).toEqual({
      guid: expect.any(String),
      subject: ":.prod:c",
      version: 1,
      schema: C,
    });
    // An unqualified subject found nowhere falls back to the default context.
    expect((await reg.api.get("/schemas/ids/2?subject=nothing")).body).toEqual({
      guid: expect.any(String),
      subject: "users",
      version: 1,
      schema: B,
    });
    expect((await reg.api.get("/schemas/ids/2")).body).toEqual({ guid: expect.any(String), schema: B });
    // fetchMaxId: the highest id of the schema's context.
    expect((await reg.api.get("/schemas/ids/2?fetchMaxId=true")).body).toEqual({
      guid: expect.any(String),
      schema: B,
      maxId: 2,
    });
    expect((await reg.api.get(`/schemas/ids/1?subject=${q(":.prod:orders")}&fetchMaxId=true`)).body.maxId).toBe(3);
    expect((await reg.api.get(`/schemas/ids/3/schema?subject=${q(":.prod:c")}`)).body).toEqual(record("C"));
  });

  test("ids/{id}/versions and /subjects in the subject's context", async () => {
    expect((await reg.api.get("/schemas/ids/2/versions")).body).toEqual([{ subject: "users", version: 1 }]);
    expect((await reg.api.get(`/schemas/ids/2/versions?subject=${q(":.prod:users")}`)).body).toEqual([
      { subject: ":.prod:orders-copy", version: 1 },
      { subject: ":.prod:users", version: 1 },
    ]);
    expect((await reg.api.get(`/schemas/ids/2/subjects?subject=${q(":.prod:")}&limit=1`)).body).toEqual([
      ":.prod:orders-copy",
    ]);
  });

  test("subjectPrefix on /subjects (default :*:, every context) and /schemas (default: the default context)", async () => {
    expect((await reg.api.get("/subjects")).body).toEqual([
      ":.alpha:x",
      ":.prod:c",
      ":.prod:orders",
      ":.prod:orders-copy",
      ":.prod:users",
      "orders",
      "users",
    ]);
    expect((await reg.api.get(`/subjects?subjectPrefix=${q(":.prod:o")}`)).body).toEqual([
      ":.prod:orders",
      ":.prod:orders-copy",
    ]);
    expect((await reg.api.get(`/subjects?subjectPrefix=${q(":*:orders")}`)).body).toEqual([
      ":.prod:orders",
      ":.prod:orders-copy",
      "orders",
    ]);
    expect((await reg.api.get("/subjects?subjectPrefix=o")).body).toEqual(["orders"]);
    expect((await reg.api.get("/schemas")).body.map((s: { subject: string }) => s.subject)).toEqual([
      "orders",
      "users",
    ]);
    expect(
      (await reg.api.get(`/schemas?subjectPrefix=${q(":.prod:")}&latestOnly=true&offset=1&limit=2`)).body.map(
        (s: { subject: string }) => s.subject,
      ),
    ).toEqual([":.prod:orders", ":.prod:orders-copy"]);
  });

  test("references resolve in the referring subject's context", async () => {
    const ref = { type: "record", name: "Ref", fields: [{ name: "v", type: "int" }] };
    expect((await reg.api.register(":.refs:ref", ref)).status).toBe(200);
    const holder = { type: "record", name: "Holder", fields: [{ name: "r", type: "Ref" }] };
    const reply = await reg.api.register(":.refs:holder", holder, {
      references: [{ name: "Ref", subject: "ref", version: 1 }],
    });
    expect(reply.status).toBe(200);
    // The same reference from the default context finds no `ref` there.
    const outside = await reg.api.register("holder", holder, {
      references: [{ name: "Ref", subject: "ref", version: 1 }],
    });
    expect(outside.status).toBe(422);
    expect((await reg.api.get(`/subjects/${q(":.refs:ref")}/versions/1/referencedby`)).body).toEqual([reply.body.id]);
    // format=resolved writes the referenced type out.
    const resolved = await reg.api.get(`/schemas/ids/${reply.body.id}?subject=${q(":.refs:holder")}&format=resolved`);
    expect(JSON.parse(resolved.body.schema).fields[0].type).toEqual(ref);
  });

  test("config and mode at context level apply to the context's subjects", async () => {
    expect((await reg.api.put(`/config/${q(":.strict:")}`, { compatibility: "FULL" })).body).toEqual({
      compatibility: "FULL",
    });
    await reg.api.register(":.strict:s", record("S"));
    expect((await reg.api.get(`/config/${q(":.strict:s")}?defaultToGlobal=true`)).body.compatibilityLevel).toBe("FULL");
    // Adding a field without a default is not FULL compatible.
    const incompatible = await reg.api.register(":.strict:s", record("S", [{ name: "n", type: "string" }]));
    expect(incompatible.status).toBe(409);
    // The same change in the default context passes under the global BACKWARD... with a default.
    expect((await reg.api.put(`/mode/${q(":.strict:")}`, { mode: "READONLY" })).status).toBe(200);
    const readonly = await reg.api.register(":.strict:s", record("S", [{ name: "n", type: "string", default: "" }]));
    expect(readonly.body.error_code).toBe(42205);
    // `:.:` names the global config.
    expect((await reg.api.get(`/config/${q(":.:")}`)).body.compatibilityLevel).toBe("BACKWARD");
  });

  test("DELETE /contexts/{context}: 42211 while it holds subjects, 204 once empty", async () => {
    expect((await reg.api.delete(`/contexts/${q(":.alpha:")}`)).body).toEqual({
      error_code: 42211,
      message: "The specified context ':.alpha:' is not empty.",
    });
    await reg.api.delete(`/subjects/${q(":.alpha:x")}`);
    await reg.api.delete(`/subjects/${q(":.alpha:x")}?permanent=true`);
    const reply = await fetch(`${reg.sr.url}/contexts/${q(":.alpha:")}`, { method: "DELETE" });
    expect(reply.status).toBe(204);
    expect((await reg.api.get("/contexts")).body).toEqual([".", ".prod", ".refs", ".strict"]);
  });

  test("bad input: Confluent's 4xx", async () => {
    expect((await reg.api.register(":.prod:__GLOBAL", record("G"))).body.error_code).toBe(42208);
    expect((await reg.api.register(":.__GLOBAL:s", record("G"))).body.error_code).toBe(42208);
    // An empty subject names the default context alone (Confluent: any holder there).
    expect((await reg.api.get("/schemas/ids/1?subject=")).body.subject).toBe("orders");
    expect((await reg.api.get("/contexts?limit=x")).status).toBe(404);
  });

  test("GET /v1/metadata/id and /version", async () => {
    const id = await reg.api.get("/v1/metadata/id");
    expect(id.status).toBe(200);
    expect(id.body).toEqual({
      scope: {
        path: [],
        clusters: { "kafka-cluster": expect.any(String), "schema-registry-cluster": "schema-registry" },
      },
    });
    expect(id.body.scope.clusters["kafka-cluster"].length).toBeGreaterThan(0);
    // The same id again (the embedded broker keeps its own).
    expect((await reg.api.get("/v1/metadata/id")).body).toEqual(id.body);
    expect((await reg.api.get("/v1/metadata/version")).body).toEqual({
      version: VERSION,
      commitId: expect.any(String),
    });
  });

  test("deletedOnly on a subject's versions and on /subjects", async () => {
    await reg.api.register(":.prod:del", record("D1"));
    await reg.api.register(":.prod:del", record("D1", [{ name: "x", type: "int", default: 0 }]));
    expect((await reg.api.get(`/subjects/${q(":.prod:del")}/versions?deletedOnly=true`)).body).toEqual([]);
    await reg.api.delete(`/subjects/${q(":.prod:del")}/versions/1`);
    expect((await reg.api.get(`/subjects/${q(":.prod:del")}/versions?deletedOnly=true`)).body).toEqual([1]);
    await reg.api.delete(`/subjects/${q(":.prod:del")}`);
    expect((await reg.api.get(`/subjects?deletedOnly=true&subjectPrefix=${q(":.prod:")}`)).body).toEqual([
      ":.prod:del",
    ]);
  });

  test("records in Confluent's layout; ids per context survive a restart", async () => {
    const records = await reg.sr.registry.broker.fetch(reg.place.topic, 0, 0, { maxBytes: 10_000_000 });
    const text = (b: Uint8Array | null) => (b === null ? null : decoder.decode(b));
    const pairs = records.map((r) => [text(r.key), text(r.value)]);
    // Written out by hand from Confluent's ContextKey/ContextValue (keytype, tenant, context, magic; NON_EMPTY values).
    expect(pairs).toContainEqual([
      '{"keytype":"CONTEXT","tenant":"default","context":".prod","magic":0}',
      '{"tenant":"default","context":".prod"}',
    ]);
    expect(pairs).toContainEqual(['{"keytype":"CONTEXT","tenant":"default","context":".alpha","magic":0}', null]);
    expect(pairs).toContainEqual([
      '{"keytype":"SCHEMA","subject":":.prod:orders","version":1,"magic":1}',
      `{"subject":":.prod:orders","version":1,"id":1,"schema":${JSON.stringify(JSON.stringify(record("A")))},"deleted":false}`,
    ]);
    await reg.restart();
    expect((await reg.api.get("/contexts")).body).toEqual([".", ".prod", ".refs", ".strict"]);
    expect((await reg.api.register(":.prod:after", record("After"))).body.id).toBe(6);
    expect((await reg.api.register("after", record("After"))).body.id).toBe(3);
  }, 60_000);
});

describe("contexts through a follower on kafka", () => {
  let place: RegistryPlace;
  let leader: TestRegistry;
  let follower: TestRegistry;

  beforeAll(async () => {
    place = await registryPlace("kafka");
    leader = await startTestRegistry(place);
    follower = await startTestRegistry(place, { "leader.eligibility": "false" });
  }, 120_000);
  afterAll(async () => {
    await follower?.stop();
    await leader?.stop();
  }, 60_000);

  test("a registration in a context through a follower is written by the leader, with the context's id", async () => {
    const viaFollower = client(follower.url);
    expect((await viaFollower.register("plain", record("P"))).body.id).toBe(1);
    const reply = await viaFollower.register(":.fwd:s", record("F"));
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(1);
    const viaLeader = client(leader.url);
    expect((await viaLeader.get("/contexts")).body).toEqual([".", ".fwd"]);
    expect((await viaLeader.get(`/schemas/ids/1?subject=${q(":.fwd:s")}`)).body).toEqual({
      guid: expect.any(String),
      subject: ":.fwd:s",
      version: 1,
      schema: JSON.stringify(record("F")),
    });
    expect(leader.registry.cluster.isLeader).toBe(true);
  });
});
