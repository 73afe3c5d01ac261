// The Confluent v1 REST API flows, on real Kafka and on the embedded broker.
import { describe, expect, test } from "bun:test";
import { type BrokerKind, registryForTests } from "../../fixtures/registry.ts";

const V1 = "application/vnd.schemaregistry.v1+json";
const user = (fields: object[] = []) => ({
  type: "record",
  name: "User",
  namespace: "com.example",
  fields: [{ name: "name", type: "string" }, ...fields],
});

describe.each(["kafka", "embedded"] as BrokerKind[])("registry API on %s", (kind) => {
  const reg = registryForTests(kind);

  test("GET / answers {} in the v1 content type", async () => {
    const r = await reg.api.get("/");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect(r.type).toBe(V1);
    expect((await reg.api.get("/subjects")).body).toEqual([]);
    expect((await reg.api.get("/schemas/types")).body).toEqual(["JSON", "PROTOBUF", "AVRO"]);
  });

  test("register, re-register, reuse ids across subjects, new id for a changed schema", async () => {
    const first = await reg.api.register("users-value", user());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ guid: expect.any(String), id: expect.any(Number) });
    const id1 = first.body.id;
    // Same schema with other whitespace and key order: same id, no new version.
    const spaced = `{ "namespace": "com.example", "name": "User", "type": "record", "fields": [ {"type": "string", "name": "name"} ] }`;
    expect((await reg.api.register("users-value", spaced)).body).toEqual({ guid: expect.any(String), id: id1 });
    expect((await reg.api.get("/subjects/users-value/versions")).body).toEqual([1]);
    // Same schema in another subject: same global id, that subject's own version 1.
    expect((await reg.api.register("other-value", user())).body).toEqual({ guid: expect.any(String), id: id1 });
    // A compatible change: new id, version 2.
    const second = await reg.api.register("users-value", user([{ name: "age", type: "int", default: 0 }]));
    expect(second.status).toBe(200);
    expect(second.body.id).toBeGreaterThan(id1);
    expect((await reg.api.get("/subjects/users-value/versions")).body).toEqual([1, 2]);
    expect((await reg.api.get("/subjects")).body).toEqual(["other-value", "users-value"]);

    const latest = await reg.api.get("/subjects/users-value/versions/latest");
    expect(latest.body).toEqual({
      guid: expect.any(String),
      subject: "users-value",
      version: 2,
      id: second.body.id,
      schema:
        '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"name","type":"string"},{"name":"age","type":"int","default":0}]}',
    });
    expect((await reg.api.get("/subjects/users-value/versions/-1")).body.version).toBe(2);
    expect((await reg.api.get("/subjects/users-value/versions/1/schema")).text).toBe(
      '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"name","type":"string"}]}',
    );
    const byId = await reg.api.get(`/schemas/ids/${id1}`);
    expect(byId.body).toEqual({
      guid: expect.any(String),
      schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"name","type":"string"}]}',
    });
    expect(byId.body.schemaType).toBeUndefined();
    expect((await reg.api.get(`/schemas/ids/${id1}/schema`)).text).toBe(byId.body.schema);
    expect((await reg.api.get(`/schemas/ids/${id1}/versions`)).body).toEqual([
      { subject: "other-value", version: 1 },
      { subject: "users-value", version: 1 },
    ]);
    expect((await reg.api.get(`/schemas/ids/${id1}/subjects`)).body).toEqual(["other-value", "users-value"]);
    expect((await reg.api.get(`/schemas?subjectPrefix=users`)).body.map((s: { version: number }) => s.version)).toEqual(
      [1, 2],
    );
    expect((await reg.api.get(`/schemas?latestOnly=true`)).body).toHaveLength(2);
    // Primitive schemas take their canonical form.
    const str = await reg.api.register("plain-value", { type: "string" });
    expect((await reg.api.get(`/schemas/ids/${str.body.id}`)).body).toEqual({
      guid: expect.any(String),
      schema: '"string"',
    });
  });

  test("lookup under a subject", async () => {
    await reg.api.register("lookup-value", user());
    const found = await reg.api.post("/subjects/lookup-value", { schema: JSON.stringify(user()) });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ subject: "lookup-value", version: 1, id: expect.any(Number) });
    const missing = await reg.api.post("/subjects/lookup-value", {
      schema: JSON.stringify(user([{ name: "x", type: "int" }])),
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe(40403);
    const noSubject = await reg.api.post("/subjects/nope-value", { schema: JSON.stringify(user()) });
    expect(noSubject.body).toEqual({ error_code: 40401, message: "Subject 'nope-value' not found." });
  });

  test("incompatible schemas get 409 and change nothing; compatibility endpoint explains", async () => {
    await reg.api.register("compat-value", user());
    const bad = await reg.api.register("compat-value", user([{ name: "age", type: "int" }]));
    expect(bad.status).toBe(409);
    expect(bad.body.error_code).toBe(409);
    expect(bad.body.message).toContain("Schema being registered is incompatible with an earlier schema");
    expect((await reg.api.get("/subjects/compat-value/versions")).body).toEqual([1]);

    const check = await reg.api.post("/compatibility/subjects/compat-value/versions/latest?verbose=true", {
      schema: JSON.stringify(user([{ name: "age", type: "int" }])),
    });
    expect(check.status).toBe(200);
    expect(check.body.is_compatible).toBe(false);
    expect(check.body.messages.join("\n")).toContain("READER_FIELD_MISSING_DEFAULT_VALUE");
    const ok = await reg.api.post("/compatibility/subjects/compat-value/versions", {
      schema: JSON.stringify(user([{ name: "age", type: "int", default: 1 }])),
    });
    expect(ok.body).toEqual({ is_compatible: true });
    const none = await reg.api.post("/compatibility/subjects/empty-value/versions/latest", { schema: '"string"' });
    expect(none.body).toEqual({ is_compatible: true });
    const missingVersion = await reg.api.post("/compatibility/subjects/compat-value/versions/7", {
      schema: '"string"',
    });
    expect(missingVersion.body.error_code).toBe(40402);

    // With NONE on the subject the same change registers.
    expect((await reg.api.put("/config/compat-value", { compatibility: "none" })).body).toEqual({
      compatibility: "NONE",
    });
    expect((await reg.api.register("compat-value", user([{ name: "age", type: "int" }]))).status).toBe(200);
  });

  test("config: global, per subject, defaultToGlobal, delete, invalid level", async () => {
    expect((await reg.api.get("/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
    const missing = await reg.api.get("/config/cfg-value");
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe(40408);
    expect((await reg.api.get("/config/cfg-value?defaultToGlobal=true")).body).toEqual({
      compatibilityLevel: "BACKWARD",
    });
    expect((await reg.api.put("/config/cfg-value", { compatibility: "FULL_TRANSITIVE" })).body).toEqual({
      compatibility: "FULL_TRANSITIVE",
    });
    expect((await reg.api.get("/config/cfg-value")).body).toEqual({ compatibilityLevel: "FULL_TRANSITIVE" });
    const invalid = await reg.api.put("/config", { compatibility: "SIDEWAYS" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error_code).toBe(42203);
    expect((await reg.api.put("/config", { compatibility: "FORWARD" })).body).toEqual({ compatibility: "FORWARD" });
    expect((await reg.api.get("/config")).body).toEqual({ compatibilityLevel: "FORWARD" });
    expect((await reg.api.delete("/config")).body).toEqual({ compatibilityLevel: "FORWARD" });
    expect((await reg.api.get("/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
    expect((await reg.api.delete("/config/cfg-value")).body).toEqual({ compatibilityLevel: "FULL_TRANSITIVE" });
    expect((await reg.api.delete("/config/cfg-value")).body.error_code).toBe(40401);
  });

  test("mode: READONLY refuses writes with 42205; IMPORT takes explicit ids and versions", async () => {
    expect((await reg.api.get("/mode")).body).toEqual({ mode: "READWRITE" });
    expect((await reg.api.put("/mode/ro-value", { mode: "READONLY" })).body).toEqual({ mode: "READONLY" });
    const refused = await reg.api.register("ro-value", user());
    expect(refused.status).toBe(422);
    expect(refused.body.error_code).toBe(42205);
    expect((await reg.api.get("/subjects")).body).not.toContain("ro-value");
    expect((await reg.api.put("/mode/ro-value", { mode: "sideways" })).body.error_code).toBe(42204);
    expect((await reg.api.delete("/mode/ro-value")).body).toEqual({ mode: "READONLY" });
    expect((await reg.api.get("/mode/ro-value")).body.error_code).toBe(40409);

    expect((await reg.api.put("/mode/import-value", { mode: "IMPORT" })).body).toEqual({ mode: "IMPORT" });
    const imported = await reg.api.register("import-value", user([{ name: "imported", type: "long", default: 0 }]), {
      id: 5000,
      version: 7,
    });
    expect(imported.body).toEqual({ guid: expect.any(String), id: 5000 });
    expect((await reg.api.get("/subjects/import-value/versions")).body).toEqual([7]);
    expect((await reg.api.get("/schemas/ids/5000")).status).toBe(200);
    const noId = await reg.api.register("import-value", '"int"');
    expect(noId.body.error_code).toBe(42205);
    await reg.api.put("/mode/import-value", { mode: "READWRITE" });
    const withId = await reg.api.register("import-value", '"int"', { id: 6000 });
    expect(withId.body.error_code).toBe(42205);
    // The allocator continues above imported ids.
    const next = await reg.api.register("after-import-value", { type: "fixed", name: "F", size: 3 });
    expect(next.body.id).toBeGreaterThan(5000);
  });

  test("soft and permanent deletes with Confluent's codes", async () => {
    await reg.api.register("del-value", user());
    await reg.api.register("del-value", user([{ name: "a", type: "int", default: 0 }]));
    expect((await reg.api.delete("/subjects/del-value/versions/2?permanent=true")).body.error_code).toBe(40407);
    expect((await reg.api.delete("/subjects/del-value/versions/2")).body).toBe(2);
    expect((await reg.api.delete("/subjects/del-value/versions/2")).body.error_code).toBe(40406);
    expect((await reg.api.get("/subjects/del-value/versions")).body).toEqual([1]);
    expect((await reg.api.get("/subjects/del-value/versions?deleted=true")).body).toEqual([1, 2]);
    expect((await reg.api.get("/subjects/del-value/versions/2")).body.error_code).toBe(40402);
    expect((await reg.api.get("/subjects/del-value/versions/2?deleted=true")).body.version).toBe(2);
    expect((await reg.api.delete("/subjects/del-value/versions/2?permanent=true")).body).toBe(2);
    expect((await reg.api.get("/subjects/del-value/versions?deleted=true")).body).toEqual([1]);

    expect((await reg.api.delete("/subjects/del-value?permanent=true")).body.error_code).toBe(40405);
    expect((await reg.api.delete("/subjects/del-value")).body).toEqual([1]);
    expect((await reg.api.delete("/subjects/del-value")).body.error_code).toBe(40404);
    expect((await reg.api.get("/subjects")).body).not.toContain("del-value");
    expect((await reg.api.get("/subjects?deleted=true")).body).toContain("del-value");
    expect((await reg.api.get("/subjects?deletedOnly=true")).body).toEqual(["del-value"]);
    expect((await reg.api.get("/subjects/del-value/versions")).body.error_code).toBe(40401);
    expect((await reg.api.delete("/subjects/del-value?permanent=true")).body).toEqual([1]);
    expect((await reg.api.get("/subjects?deleted=true")).body).not.toContain("del-value");
    expect((await reg.api.delete("/subjects/del-value")).body.error_code).toBe(40401);
    // Numbering restarts after a hard delete of the whole subject.
    await reg.api.register("del-value", '"string"');
    expect((await reg.api.get("/subjects/del-value/versions")).body).toEqual([1]);
  });

  test("bad input gets Confluent's status and code and changes nothing", async () => {
    const before = (await reg.api.get("/subjects")).body;
    const cases: [string, () => ReturnType<typeof reg.api.get>, number, number][] = [
      ["malformed JSON", () => reg.api.post("/subjects/bad-value/versions", "{not json"), 400, 400],
      [
        "wrong field type",
        () => reg.api.post("/subjects/bad-value/versions", { schema: { type: "string" } }),
        400,
        400,
      ],
      ["empty schema", () => reg.api.post("/subjects/bad-value/versions", { schema: "" }), 422, 42201],
      ["missing schema", () => reg.api.post("/subjects/bad-value/versions", {}), 422, 42201],
      ["empty body", () => reg.api.post("/subjects/bad-value/versions", ""), 422, 422],
      [
        "invalid Avro",
        () => reg.api.register("bad-value", { type: "record", name: "X", fields: [{ name: "a", type: "nope" }] }),
        422,
        42201,
      ],
      ["schema type", () => reg.api.register("bad-value", '"string"', { schemaType: "XML" }), 422, 42201],
      ["unknown subject", () => reg.api.get("/subjects/nope/versions"), 404, 40401],
      ["unknown version", () => reg.api.get("/subjects/users-value/versions/99"), 404, 40402],
      ["unknown id", () => reg.api.get("/schemas/ids/987654"), 404, 40403],
      ["version 0", () => reg.api.get("/subjects/users-value/versions/0"), 422, 42202],
      ["version abc", () => reg.api.get("/subjects/users-value/versions/abc"), 422, 42202],
      ["version -2", () => reg.api.delete("/subjects/users-value/versions/-2"), 422, 42202],
      [
        "content type",
        () => reg.api.post("/subjects/bad-value/versions", { schema: '"string"' }, { "content-type": "text/plain" }),
        415,
        415,
      ],
      [
        "too large",
        () => reg.api.register("bad-value", `{"type":"string","doc":"${"x".repeat(5 * 1048576)}"}`),
        413,
        413,
      ],
      ["unknown path", () => reg.api.get("/nothing/here"), 404, 404],
      ["wrong method", () => reg.api.put("/subjects", {}), 405, 405],
      ["id not a number", () => reg.api.get("/schemas/ids/abc"), 404, 404],
    ];
    for (const [name, call, status, code] of cases) {
      const r = await call();
      expect({ name, status: r.status, code: r.body?.error_code }).toEqual({ name, status, code });
      expect(typeof r.body.message).toBe("string");
    }
    // Unknown fields are ignored, as Confluent's Jackson mapping does.
    expect((await reg.api.register("extra-value", '"string"', { whatever: 1 })).status).toBe(200);
    expect((await reg.api.get("/subjects")).body).toEqual([...before, "extra-value"].sort());
  });

  test("restart: a new instance on the same storage serves the same ids, versions and config", async () => {
    const before = {
      subjects: (await reg.api.get("/subjects?deleted=true")).body,
      users: (await reg.api.get("/subjects/users-value/versions/latest")).body,
      config: (await reg.api.get("/config/compat-value")).body,
      schemas: (await reg.api.get("/schemas?deleted=true")).body,
    };
    await reg.restart();
    expect((await reg.api.get("/subjects?deleted=true")).body).toEqual(before.subjects);
    expect((await reg.api.get("/subjects/users-value/versions/latest")).body).toEqual(before.users);
    expect((await reg.api.get("/config/compat-value")).body).toEqual(before.config);
    expect((await reg.api.get("/schemas?deleted=true")).body).toEqual(before.schemas);
    // Ids continue after the highest one ever used.
    const maxId = Math.max(...before.schemas.map((s: { id: number }) => s.id));
    const fresh = await reg.api.register("fresh-value", { type: "enum", name: "E", symbols: ["A"] });
    expect(fresh.body.id).toBeGreaterThan(maxId);
  });
});
