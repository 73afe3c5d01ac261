// What Confluent 8 clients use of the REST API, over HTTP on the embedded broker: DELETE /mode and its
// `recursive` flag.
import { describe, expect, test } from "bun:test";
import { registryForTests } from "../../fixtures/registry.ts";

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
});
