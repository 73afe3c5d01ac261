// What Confluent 8 clients use of the REST API, over HTTP on the embedded broker: DELETE /mode and its
// `recursive` flag, clients whose base URL is a context's (`http://host:8081/contexts/.prod`), and
// subject aliases, and `guid` in schema bodies.
import { describe, expect, test } from "bun:test";
import { client, registryForTests } from "../../fixtures/registry.ts";

const record = (name: string) => ({ type: "record", name, fields: [{ name: "id", type: "long" }] });

describe("Confluent 8 REST parity", () => {
  const reg = registryForTests("embedded");

  test("DELETE /mode answers the global mode it deleted; recursive answers {} where a scope had none", async () => {
    expect(await reg.api.delete("/mode")).toMatchObject({ status: 200, body: { mode: "READWRITE" } });
    await reg.api.put("/mode", { mode: "READONLY" });
    await reg.api.put("/mode/m-value", { mode: "IMPORT" });
    expect((await reg.api.delete("/mode")).body).toEqual({ mode: "READONLY" });
    expect((await reg.api.get("/mode")).body).toEqual({ mode: "READWRITE" });
    expect((await reg.api.get("/mode/m-value")).body).toEqual({ mode: "IMPORT" });
    expect((await reg.api.delete("/mode?recursive=true")).body).toEqual({ mode: "READWRITE" });
    expect((await reg.api.get("/mode/m-value")).body.error_code).toBe(40409);
    // A context without a mode of its own: 40401, or, recursive, no mode.
    expect((await reg.api.delete("/mode/:.prod:")).body).toEqual({
      error_code: 40401,
      message: "Subject ':.prod:' not found.",
    });
    expect(await reg.api.delete("/mode/:.prod:?recursive=true")).toMatchObject({ status: 200, body: {} });
  });

  test("a context base URL reads and writes the context's subjects, config, mode and ids", async () => {
    const prod = client(`${reg.sr.url}/contexts/.prod`);
    await reg.api.register("ctx-orders", record("Default"));
    const registered = await prod.register("ctx-orders", record("Prod"));
    expect(registered.status).toBe(200);
    expect((await reg.api.get(`/subjects/${encodeURIComponent(":.prod:ctx-orders")}/versions/1`)).body).toMatchObject({
      subject: ":.prod:ctx-orders",
      id: registered.body.id,
    });
    expect((await prod.get("/subjects/ctx-orders/versions/latest")).body).toMatchObject({
      subject: ":.prod:ctx-orders",
      schema: JSON.stringify(record("Prod")),
    });
    // Lists are the context's only; an id is read in the context.
    expect((await prod.get("/subjects")).body).toEqual([":.prod:ctx-orders"]);
    expect((await prod.get(`/schemas/ids/${registered.body.id}`)).body).toMatchObject({
      schema: JSON.stringify(record("Prod")),
    });
    expect((await prod.get(`/schemas/ids/${registered.body.id}/subjects`)).body).toEqual([":.prod:ctx-orders"]);
    expect((await prod.post("/subjects/ctx-orders", { schema: JSON.stringify(record("Prod")) })).body).toMatchObject({
      version: 1,
    });
    // /config and /mode alone are the context's own.
    expect((await prod.put("/config", { compatibility: "NONE" })).body).toEqual({ compatibility: "NONE" });
    expect((await reg.api.get(`/config/${encodeURIComponent(":.prod:")}`)).body).toMatchObject({
      compatibilityLevel: "NONE",
    });
    expect((await reg.api.get("/config")).body.compatibilityLevel).toBe("BACKWARD");
    expect((await prod.put("/mode/ctx-orders", { mode: "READONLY" })).body).toEqual({ mode: "READONLY" });
    expect((await reg.api.get(`/mode/${encodeURIComponent(":.prod:ctx-orders")}`)).body).toEqual({ mode: "READONLY" });
    expect((await prod.delete("/mode/ctx-orders")).body).toEqual({ mode: "READONLY" });
    expect((await prod.delete("/config")).body).toMatchObject({ compatibilityLevel: "NONE" });
    // A colon inside the context's name is Confluent's 400.
    expect((await client(`${reg.sr.url}/contexts/a:b`).get("/subjects")).body).toEqual({
      error_code: 400,
      message: "Context name 'a:b' cannot contain a colon",
    });
  });

  test("a subject whose config has an alias is read, registered, looked up and tested as its alias's subject", async () => {
    const v1 = await reg.api.register("al-orders", record("Orders"));
    expect((await reg.api.put("/config/al-view", { alias: "al-orders" })).body).toEqual({ alias: "al-orders" });
    // Reads of the alias are the target's.
    expect((await reg.api.get("/subjects/al-view/versions")).body).toEqual([1]);
    expect((await reg.api.get("/subjects/al-view/versions/latest")).body).toMatchObject({
      subject: "al-orders",
      id: v1.body.id,
    });
    expect((await reg.api.post("/subjects/al-view", { schema: JSON.stringify(record("Orders")) })).body).toMatchObject({
      subject: "al-orders",
      version: 1,
    });
    expect((await reg.api.get(`/schemas/ids/${v1.body.id}/versions?subject=al-view`)).status).toBe(200);
    expect(
      (await reg.api.post("/compatibility/subjects/al-view/versions/latest", { schema: '"string"' })).body,
    ).toEqual({ is_compatible: false });
    // A registration under the alias is a version of the target; the alias has none of its own.
    const v2 = await reg.api.register("al-view", {
      ...record("Orders"),
      fields: [...record("Orders").fields, { name: "note", type: "string", default: "" }],
    });
    expect(v2.status).toBe(200);
    expect((await reg.api.get("/subjects/al-orders/versions")).body).toEqual([1, 2]);
    expect((await reg.api.get("/subjects")).body).not.toContain("al-view");
    // The alias's own config and mode stay where the alias is set.
    expect((await reg.api.get("/config/al-view")).body).toEqual({ alias: "al-orders" });
    // In a context, an unqualified alias is the context's subject, also through a context base URL.
    await reg.api.register(":.prod:al-orders", record("ProdOrders"));
    await reg.api.put(`/config/${encodeURIComponent(":.prod:al-view")}`, { alias: "al-orders" });
    expect((await client(`${reg.sr.url}/contexts/.prod`).get("/subjects/al-view/versions/1")).body).toMatchObject({
      subject: ":.prod:al-orders",
      schema: JSON.stringify(record("ProdOrders")),
    });
    // Removing the alias ends it.
    await reg.api.put("/config/al-view", { alias: null });
    expect((await reg.api.get("/subjects/al-view/versions")).body.error_code).toBe(40401);
  });

  test("guid is in the registration reply and every schema body, the same after a restart", async () => {
    const text = JSON.stringify(record("Guided"));
    const hex = new Bun.CryptoHasher("md5").update(text).digest("hex");
    // Confluent's: the MD5 of the schema (here with no references or contract) as a UUID.
    const guid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const registered = await reg.api.register("guided-value", text);
    expect(registered.body).toEqual({ id: expect.any(Number), guid });
    const id = registered.body.id;
    const bodies = async () => [
      (await reg.api.get(`/schemas/ids/${id}`)).body.guid,
      (await reg.api.get(`/schemas/ids/${id}?subject=guided-value`)).body.guid,
      (await reg.api.get("/subjects/guided-value/versions/1")).body.guid,
      (await reg.api.post("/subjects/guided-value", { schema: text })).body.guid,
      (await reg.api.get("/schemas?subjectPrefix=guided")).body[0].guid,
      (await reg.api.get(`/schemas/guids/${guid}`)).body.guid,
      (await reg.api.register("guided-value", text)).body.guid,
    ];
    expect(await bodies()).toEqual(Array(7).fill(guid));
    await reg.restart();
    expect(await bodies()).toEqual(Array(7).fill(guid));
  });
});
