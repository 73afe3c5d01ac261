// Schema types beyond Avro and references between subjects, through the REST API (embedded broker).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

describe("JSON Schema and references", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place);
    api = client(sr.url);
  }, 60_000);
  afterAll(async () => {
    await sr?.stop();
    removePlace(place);
  });

  const person = { type: "object", properties: { name: { type: "string" } }, additionalProperties: false };

  test("JSON Schema: register, schemaType in responses, identity, compatibility, invalid schemas", async () => {
    const first = await api.register("person-value", person, { schemaType: "JSON" });
    expect(first.status).toBe(200);
    const byId = (await api.get(`/schemas/ids/${first.body.id}`)).body;
    expect(byId).toEqual({ guid: expect.any(String), schemaType: "JSON", schema: JSON.stringify(person) });
    expect((await api.get("/subjects/person-value/versions/1")).body.schemaType).toBe("JSON");
    // Whitespace does not matter; key order does not matter under normalize.
    expect((await api.register("person-value", JSON.stringify(person, null, 2), { schemaType: "JSON" })).body).toEqual(
      first.body,
    );
    // Closed model: adding an optional property is backward compatible.
    const added = { ...person, properties: { ...person.properties, age: { type: "integer" } } };
    expect((await api.register("person-value", added, { schemaType: "JSON" })).status).toBe(200);
    // Narrowing a type is not.
    const narrowed = { ...added, properties: { ...added.properties, age: { type: "integer", maximum: 10 } } };
    const refused = await api.register("person-value", narrowed, { schemaType: "JSON" });
    expect(refused.status).toBe(409);
    const verbose = await api.post("/compatibility/subjects/person-value/versions/latest?verbose=true", {
      schemaType: "JSON",
      schema: JSON.stringify(narrowed),
    });
    expect(verbose.body.is_compatible).toBe(false);
    expect(verbose.body.messages[0]).toContain("MAXIMUM_ADDED");
    // A type change across formats is incompatible unless NONE.
    expect((await api.register("person-value", '"string"')).status).toBe(409);

    const invalid = await api.register(
      "bad-json",
      { type: "object", properties: { a: { type: 12 } } },
      { schemaType: "JSON" },
    );
    expect(invalid.status).toBe(422);
    expect(invalid.body.error_code).toBe(42201);
    expect((await api.register("bad-json", "{not json", { schemaType: "JSON" })).body.error_code).toBe(42201);
  });

  test("references: resolved, listed by referencedby, protected from deletion, missing ones refused", async () => {
    const address = { type: "object", properties: { city: { type: "string" } } };
    const a = await api.register("address", address, { schemaType: "JSON" });
    const customer = { type: "object", properties: { address: { $ref: "address.json" } } };
    const refs = [{ name: "address.json", subject: "address", version: 1 }];
    const c = await api.register("customer-value", customer, { schemaType: "JSON", references: refs });
    expect(c.status).toBe(200);
    expect((await api.get(`/schemas/ids/${c.body.id}`)).body.references).toEqual(refs);
    expect((await api.get("/subjects/customer-value/versions/1")).body.references).toEqual(refs);
    expect((await api.get("/subjects/address/versions/1/referencedby")).body).toEqual([c.body.id]);
    expect(a.body.id).not.toBe(c.body.id);

    const del = await api.delete("/subjects/address/versions/1");
    expect(del.status).toBe(422);
    expect(del.body.error_code).toBe(42206);
    expect((await api.delete("/subjects/address")).body.error_code).toBe(42206);

    const missing = await api.register("orphan-value", customer, {
      schemaType: "JSON",
      references: [{ name: "address.json", subject: "nowhere", version: 1 }],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error_code).toBe(42201);
    const unresolved = await api.register("orphan-value", customer, { schemaType: "JSON" });
    expect(unresolved.body.error_code).toBe(42201);
    expect((await api.get("/subjects")).body).not.toContain("orphan-value");

    // Avro: a named type from another subject.
    const money = { type: "record", name: "Money", namespace: "fin", fields: [{ name: "cents", type: "long" }] };
    await api.register("money", money);
    const order = { type: "record", name: "Order", namespace: "fin", fields: [{ name: "total", type: "fin.Money" }] };
    const o = await api.register("order-value", order, {
      references: [{ name: "fin.Money", subject: "money", version: 1 }],
    });
    expect(o.status).toBe(200);
    // As Java's Schema.toString: a type in the same namespace is named by its short name.
    expect((await api.get(`/schemas/ids/${o.body.id}`)).body.schema).toBe(
      '{"type":"record","name":"Order","namespace":"fin","fields":[{"name":"total","type":"Money"}]}',
    );
    expect((await api.register("order2-value", order)).body.error_code).toBe(42201);
  });
});
