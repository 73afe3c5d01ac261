import { describe, expect, test } from "bun:test";
import {
  HttpMetrics,
  metricsResponse,
  newRegistry,
  routeMatcher,
  sampledGauge,
  UNMATCHED,
} from "#src/platform/metrics.ts";

const ROUTES = [
  { method: "GET", path: "/" },
  { method: "GET", path: "/schemas/ids/:id" },
  { method: "GET", path: "/schemas/types" },
  { method: "GET", path: "/subjects/:subject/versions" },
  { method: "POST", path: "/subjects/:subject/versions" },
  { method: "GET", path: "/subjects/:subject/versions/:version" },
  { method: "DELETE", path: "/subjects/:subject" },
  { method: "GET", path: "/connectors/:connector/tasks/:task/status" },
];

describe("route templates", () => {
  const routeOf = routeMatcher(ROUTES);

  test("a path maps to the template of its route, never to the raw path", () => {
    expect(routeOf("GET", "/subjects/orders-value/versions")).toBe("/subjects/:subject/versions");
    expect(routeOf("POST", "/subjects/a%2Fb/versions")).toBe("/subjects/:subject/versions");
    expect(routeOf("GET", "/subjects/s/versions/latest")).toBe("/subjects/:subject/versions/:version");
    expect(routeOf("GET", "/connectors/c/tasks/0/status")).toBe("/connectors/:connector/tasks/:task/status");
    expect(routeOf("GET", "/")).toBe("/");
  });

  test("static segments win over parameters, whatever the declaration order", () => {
    expect(routeOf("GET", "/schemas/types")).toBe("/schemas/types");
    expect(routeMatcher([...ROUTES].reverse())("GET", "/schemas/types")).toBe("/schemas/types");
    expect(routeOf("GET", "/schemas/ids/7")).toBe("/schemas/ids/:id");
  });

  test("a trailing slash is ignored; a path served only for another method keeps its template", () => {
    expect(routeOf("GET", "/subjects/s/versions/")).toBe("/subjects/:subject/versions");
    expect(routeOf("GET", "/subjects/s")).toBe("/subjects/:subject");
  });

  test("unknown paths share one label", () => {
    expect(routeOf("GET", "/nope")).toBe(UNMATCHED);
    expect(routeOf("GET", "/subjects/s/versions/1/extra/more")).toBe(UNMATCHED);
  });
});

describe("HTTP metrics", () => {
  const statusFor = (path: string) => (path.endsWith("/missing/versions") ? 404 : path === "/boom" ? -1 : 200);
  const app = {
    routes: ROUTES,
    fetch: (request: Request) => {
      const status = statusFor(new URL(request.url).pathname);
      if (status < 0) throw new Error("boom");
      return new Response("{}", { status });
    },
  };

  test("requests are counted by method, route template and status, and timed by route", async () => {
    const registry = newRegistry();
    const fetch = new HttpMetrics(registry).instrument(app);
    await fetch(new Request("http://localhost/subjects/a/versions"));
    await fetch(new Request("http://localhost/subjects/b/versions"));
    expect((await fetch(new Request("http://localhost/subjects/missing/versions"))).status).toBe(404);
    await fetch(new Request("http://localhost/subjects/a/versions", { method: "POST", body: "{}" }));
    await fetch(new Request("http://localhost/nope", { method: "PROPFIND" }));
    const text = await registry.metrics();
    expect(text).toContain(
      'sluice_http_requests_total{method="GET",route="/subjects/:subject/versions",status="200"} 2',
    );
    expect(text).toContain(
      'sluice_http_requests_total{method="GET",route="/subjects/:subject/versions",status="404"} 1',
    );
    expect(text).toContain(
      'sluice_http_requests_total{method="POST",route="/subjects/:subject/versions",status="200"} 1',
    );
    expect(text).toContain('sluice_http_requests_total{method="OTHER",route="unmatched",status="200"} 1');
    expect(text).toContain(
      'sluice_http_request_duration_seconds_count{method="GET",route="/subjects/:subject/versions"} 3',
    );
    expect(text).toContain(
      'sluice_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/subjects/:subject/versions"} 1',
    );
    expect(text).not.toContain("/subjects/a/");
  });

  test("an app that throws is counted as a 500 and its error passes through", async () => {
    const registry = newRegistry();
    const fetch = new HttpMetrics(registry).instrument({
      ...app,
      routes: [...ROUTES, { method: "GET", path: "/boom" }],
    });
    await expect(fetch(new Request("http://localhost/boom"))).rejects.toThrow("boom");
    expect(await registry.metrics()).toContain('sluice_http_requests_total{method="GET",route="/boom",status="500"} 1');
  });
});

describe("HTTP metrics recorded in front of the app", () => {
  test("a route's recorder counts into the same series as the instrumented app; buckets are cumulative", async () => {
    const registry = newRegistry();
    const metrics = new HttpMetrics(registry);
    const fetch = metrics.instrument({ routes: ROUTES, fetch: () => new Response("{}") });
    const record = metrics.recorder("GET", "/schemas/ids/:id");
    await fetch(new Request("http://localhost/schemas/ids/1"));
    record(200, performance.now());
    record(404, performance.now() - 20_000); // 20 s: above every bucket but +Inf
    const text = await registry.metrics();
    expect(text).toContain('sluice_http_requests_total{method="GET",route="/schemas/ids/:id",status="200"} 2');
    expect(text).toContain('sluice_http_requests_total{method="GET",route="/schemas/ids/:id",status="404"} 1');
    expect(text).toContain(
      'sluice_http_request_duration_seconds_bucket{le="10",method="GET",route="/schemas/ids/:id"} 2',
    );
    expect(text).toContain(
      'sluice_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/schemas/ids/:id"} 3',
    );
    expect(text).toContain('sluice_http_request_duration_seconds_count{method="GET",route="/schemas/ids/:id"} 3');
    expect(text).toContain("# TYPE sluice_http_request_duration_seconds histogram");
  });
});

describe("registry and exposition", () => {
  test("process metrics are there from the start; sampled gauges are read at scrape time", async () => {
    const registry = newRegistry();
    let value = 1;
    sampledGauge(registry, "sluice_test_value", "A test value.", () => value);
    expect(await registry.metrics()).toContain("sluice_test_value 1\n");
    value = 5;
    const text = await registry.metrics();
    expect(text).toContain("sluice_test_value 5\n");
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]\d*$/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_start_time_seconds 1\d{9}$/m);
  });

  test("GET /metrics answers Prometheus text format 0.0.4", async () => {
    const response = await metricsResponse(newRegistry());
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    expect(await response.text()).toContain("# TYPE process_cpu_seconds_total counter");
  });
});
