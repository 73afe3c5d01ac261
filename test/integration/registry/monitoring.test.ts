// GET /metrics and GET /health on a registry over the embedded broker: requests counted under their
// route template, store figures following registrations and deletions, health following the store.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { scrape, valueOf } from "../../fixtures/prometheus.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";

const record = (name: string) => ({ type: "record", name, fields: [{ name: "id", type: "long" }] });

describe("registry monitoring", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place);
    api = client(sr.url);
  });
  afterAll(async () => {
    await sr?.stop();
    removePlace(place);
  });

  test("GET /metrics answers the text format with the store figures of an empty registry", async () => {
    const response = await fetch(`${sr.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const text = await response.text();
    expect(text).toContain("# TYPE sluice_http_requests_total counter");
    expect(text).toContain("# TYPE sluice_http_request_duration_seconds histogram");
    const metrics = await scrape(sr.url);
    expect(valueOf(metrics, "sluice_registry_schemas")).toBe(0);
    expect(valueOf(metrics, "sluice_registry_subjects")).toBe(0);
    expect(valueOf(metrics, "sluice_registry_max_schema_id")).toBe(0);
    // A single instance elects itself.
    await waitFor(
      "this instance to lead",
      async () => valueOf(await scrape(sr.url), "sluice_registry_leader") === 1 || undefined,
    );
  });

  test("registrations and deletions move the schema and subject counts", async () => {
    const a = await api.register("orders-value", record("Order"));
    expect((await api.register("payments-value", record("Order"))).body.id).toBe(a.body.id);
    const b = await api.register("payments-value", {
      ...record("Order"),
      fields: [...record("Order").fields, { name: "note", type: "string", default: "" }],
    });
    expect(b.status).toBe(200);
    let metrics = await scrape(sr.url);
    expect(valueOf(metrics, "sluice_registry_schemas")).toBe(2);
    expect(valueOf(metrics, "sluice_registry_subjects")).toBe(2);
    expect(valueOf(metrics, "sluice_registry_max_schema_id")).toBe(b.body.id);
    // A soft-deleted subject no longer counts; its schema is still used by the other subject.
    expect((await api.delete("/subjects/orders-value")).status).toBe(200);
    metrics = await scrape(sr.url);
    expect(valueOf(metrics, "sluice_registry_subjects")).toBe(1);
    expect(valueOf(metrics, "sluice_registry_schemas")).toBe(2);
    expect(valueOf(metrics, "sluice_registry_max_schema_id")).toBe(b.body.id);
    expect(
      valueOf(metrics, "sluice_http_requests_total", {
        method: "POST",
        route: "/subjects/:subject/versions",
        status: "200",
      }),
    ).toBe(3);
    expect(
      valueOf(metrics, "sluice_http_requests_total", { method: "DELETE", route: "/subjects/:subject", status: "200" }),
    ).toBe(1);
    // Reads by id are counted whether answered in front of the router (no query) or through it.
    expect((await api.get(`/schemas/ids/${b.body.id}`)).status).toBe(200);
    expect((await api.get(`/schemas/ids/${b.body.id}?format=resolved`)).status).toBe(200);
    expect((await api.get("/schemas/ids/9999")).status).toBe(404);
    metrics = await scrape(sr.url);
    expect(
      valueOf(metrics, "sluice_http_requests_total", { method: "GET", route: "/schemas/ids/:id", status: "200" }),
    ).toBe(2);
    expect(
      valueOf(metrics, "sluice_http_requests_total", { method: "GET", route: "/schemas/ids/:id", status: "404" }),
    ).toBe(1);
    expect(
      valueOf(metrics, "sluice_http_request_duration_seconds_count", { method: "GET", route: "/schemas/ids/:id" }),
    ).toBe(3);
  });

  test("errors are counted under the route template with their status, never under the raw path", async () => {
    expect((await api.get("/subjects/no-such-subject/versions")).status).toBe(404);
    expect((await api.get("/subjects/other-missing/versions")).status).toBe(404);
    expect((await api.put("/subjects", {})).status).toBe(405);
    expect((await api.get("/no/such/path")).status).toBe(404);
    const metrics = await scrape(sr.url);
    expect(
      valueOf(metrics, "sluice_http_requests_total", {
        method: "GET",
        route: "/subjects/:subject/versions",
        status: "404",
      }),
    ).toBe(2);
    expect(valueOf(metrics, "sluice_http_requests_total", { method: "PUT", route: "/subjects", status: "405" })).toBe(
      1,
    );
    expect(valueOf(metrics, "sluice_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(
      1,
    );
    expect(
      valueOf(metrics, "sluice_http_request_duration_seconds_count", {
        method: "GET",
        route: "/subjects/:subject/versions",
      }),
    ).toBe(2);
    expect(metrics.some((s) => Object.values(s.labels).some((v) => v.includes("no-such-subject")))).toBe(false);
  });

  test("GET /health is healthy once the schemas topic was read; GET / stays Confluent's {}", async () => {
    const health = await api.get("/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: "healthy",
      message: "Schema registry has read the schemas topic and is ready to handle requests.",
    });
    expect((await api.get("/")).body).toEqual({});
  });
});

describe("registry health when the store cannot be read", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;

  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place);
  });
  afterAll(async () => {
    await sr?.stop().catch(() => undefined); // its broker was closed under it
    removePlace(place);
  });

  test("GET /health answers 503 unhealthy, with the reason, once the broker is gone", async () => {
    expect((await fetch(`${sr.url}/health`)).status).toBe(200);
    await sr.registry.broker.close();
    const health = await waitFor("health to turn unhealthy", async () => {
      const r = await fetch(`${sr.url}/health`);
      return r.status === 503 ? ((await r.json()) as { status: string; message: string }) : undefined;
    });
    expect(health.status).toBe("unhealthy");
    expect(health.message).toContain("cannot read the schemas topic");
  });
});
