// What Confluent 8 clients use of the REST API, over HTTP on the embedded broker: DELETE /mode and its
// `recursive` flag, and clients whose base URL is a context's (`http://host:8081/contexts/.prod`).
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
});
