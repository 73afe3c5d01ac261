// Jetty CrossOriginFilter's semantics, which both originals install: origins matched exactly or by `*`
// patterns, preflights answered with the allowed methods and headers, nothing for other origins.
import { describe, expect, test } from "bun:test";
import { corsPolicy, withCors } from "#src/platform/cors.ts";

const preflight = (origin: string, method = "PUT", headers?: string) =>
  new Request("http://registry:8081/subjects", {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      ...(headers ? { "access-control-request-headers": headers } : {}),
    },
  });
const get = (origin?: string) => new Request("http://registry:8081/subjects", { headers: origin ? { origin } : {} });

describe("corsPolicy", () => {
  test("empty access.control.allow.origin: CORS off", () => {
    expect(corsPolicy({ allowOrigin: "" })).toBeUndefined();
    expect(corsPolicy({ allowOrigin: " , " })).toBeUndefined();
  });

  test("a comma list matches origins exactly; a `*` in an entry matches any run of characters, dots literal", () => {
    const policy = corsPolicy({
      allowOrigin: "https://ui.example.com, https://*.corp.example, http://localhost:*",
      allowMethods: "GET,PUT",
    })!;
    const allowed = (origin: string) =>
      policy.decorate(get(origin), new Response("x")).headers.get("access-control-allow-origin");
    expect(allowed("https://ui.example.com")).toBe("https://ui.example.com");
    expect(allowed("https://ui.example.com.evil.test")).toBeNull();
    expect(allowed("http://ui.example.com")).toBeNull();
    expect(allowed("https://a.b.corp.example")).toBe("https://a.b.corp.example");
    expect(allowed("https://a.corpXexample")).toBeNull();
    expect(allowed("http://localhost:3000")).toBe("http://localhost:3000");
    // Several origins in one header: one allowed is enough, and the header is echoed.
    expect(allowed("https://other.test https://ui.example.com")).toBe("https://other.test https://ui.example.com");
  });

  test("`*` allows any origin, echoed (not `*`, since credentials are allowed) and without Vary", () => {
    const policy = corsPolicy({ allowOrigin: "*" })!;
    const response = policy.decorate(get("https://anywhere.test"), new Response("x"));
    expect(response.headers.get("access-control-allow-origin")).toBe("https://anywhere.test");
    expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    expect(response.headers.get("vary")).toBeNull();
  });

  test("a preflight gets 200 with the allowed methods, Jetty's default headers and max age", () => {
    const policy = corsPolicy({ allowOrigin: "https://ui.example.com", allowMethods: "GET,POST,PUT,DELETE" })!;
    const response = policy.preflight(preflight("https://ui.example.com", "PUT", "content-type"))!;
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "access-control-allow-origin": "https://ui.example.com",
      "access-control-allow-methods": "GET,POST,PUT,DELETE",
      "access-control-allow-headers": "X-Requested-With,Content-Type,Accept,Origin",
      "access-control-allow-credentials": "true",
      "access-control-max-age": "1800",
      vary: "Origin",
    });
  });

  test("a preflight for a method or header not allowed is answered without CORS headers", () => {
    const policy = corsPolicy({ allowOrigin: "https://ui.example.com" })!;
    // Jetty's default methods: GET,POST,HEAD.
    const method = policy.preflight(preflight("https://ui.example.com", "DELETE"))!;
    expect(method.status).toBe(200);
    expect(method.headers.get("access-control-allow-origin")).toBeNull();
    const header = policy.preflight(preflight("https://ui.example.com", "POST", "authorization"))!;
    expect(header.headers.get("access-control-allow-origin")).toBeNull();
    const withAuth = corsPolicy({ allowOrigin: "https://ui.example.com", allowHeaders: "Authorization,Content-Type" })!;
    expect(
      withAuth
        .preflight(preflight("https://ui.example.com", "POST", "Authorization, content-type"))!
        .headers.get("access-control-allow-headers"),
    ).toBe("Authorization,Content-Type");
    const anyHeader = corsPolicy({ allowOrigin: "https://ui.example.com", allowHeaders: "*" })!;
    expect(
      anyHeader
        .preflight(preflight("https://ui.example.com", "POST", "x-a,x-b"))!
        .headers.get("access-control-allow-headers"),
    ).toBe("x-a,x-b");
  });

  test("requests that are not preflights from allowed origins are left to the service", () => {
    const policy = corsPolicy({ allowOrigin: "https://ui.example.com" })!;
    expect(policy.preflight(preflight("https://evil.test"))).toBeUndefined();
    expect(
      policy.preflight(new Request("http://r/", { method: "OPTIONS", headers: { origin: "https://ui.example.com" } })),
    ).toBeUndefined();
    expect(policy.preflight(get("https://ui.example.com"))).toBeUndefined();
  });

  test("exposed headers are named on actual responses", () => {
    const policy = corsPolicy({ allowOrigin: "*", exposeHeaders: "Location, X-Total" })!;
    expect(policy.decorate(get("https://a.test"), new Response("x")).headers.get("access-control-expose-headers")).toBe(
      "Location,X-Total",
    );
  });
});

describe("withCors", () => {
  test("answers preflights before the handler and decorates its responses, immutable ones too", async () => {
    let calls = 0;
    const forwarded = await fetch("data:text/plain,hi");
    const handler = withCors(
      async () => {
        calls++;
        return forwarded;
      },
      corsPolicy({ allowOrigin: "https://ui.example.com" }),
    );
    expect((await handler(preflight("https://ui.example.com", "GET"))).status).toBe(200);
    expect(calls).toBe(0);
    const response = await handler(get("https://ui.example.com"));
    expect(calls).toBe(1);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://ui.example.com");
    expect(await response.text()).toBe("hi");
  });
});
