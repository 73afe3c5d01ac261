// CORS on a registry over real HTTP (embedded broker) with OAuth on, as browser tools use it: preflights
// answered before authentication, Access-Control-Allow-Origin on actual answers (401s included) for
// allowed origins only, and a page of another origin in headless Chromium registering a schema with a
// bearer token while a page of an origin not allowed cannot read the answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { openBrowser, type BrowserSession } from "../../fixtures/browser.ts";
import { startOidcProvider, type OidcProvider } from "../../fixtures/oidc-provider.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

let provider: OidcProvider;
let place: RegistryPlace;
let registry: TestRegistry;
let pages: Server<undefined>;
let other: Server<undefined>;
let browser: BrowserSession | undefined;
let allowedOrigin: string;

const PAGE = "<!doctype html><title>tool</title><p>a browser tool</p>";

beforeAll(async () => {
  provider = startOidcProvider();
  // Two origins serving a page: one the registry allows, one it does not.
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
  });
  other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
  });
  allowedOrigin = `http://127.0.0.1:${pages.port}`;
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, {
    "rest.servlet.initializor.classes": "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
    "oauthbearer.jwks.endpoint.url": provider.jwksUrl,
    "access.control.allow.origin": `https://tools.example.com,${allowedOrigin}`,
    "access.control.allow.methods": "GET,POST,PUT,DELETE,OPTIONS",
    "access.control.allow.headers": "Authorization,Content-Type,Accept",
  });
});

afterAll(async () => {
  await browser?.close();
  await registry?.stop();
  pages?.stop(true);
  other?.stop(true);
  provider?.stop();
  if (place) removePlace(place);
});

const preflight = (origin: string, method: string, headers: string) =>
  fetch(`${registry.url}/subjects/orders-value/versions`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
  });

test("a preflight from an allowed origin is answered without credentials, with the allowed methods and headers", async () => {
  const reply = await preflight("https://tools.example.com", "POST", "authorization,content-type");
  expect(reply.status).toBe(200);
  expect(Object.fromEntries(reply.headers)).toMatchObject({
    "access-control-allow-origin": "https://tools.example.com",
    "access-control-allow-methods": "GET,POST,PUT,DELETE,OPTIONS",
    "access-control-allow-headers": "Authorization,Content-Type,Accept",
    "access-control-allow-credentials": "true",
    "access-control-max-age": "1800",
  });
});

test("with CORS on, OPTIONS requests need no credentials (access.control.skip.options): one not answered as a preflight is the API's", async () => {
  const reply = await fetch(`${registry.url}/subjects`, {
    method: "OPTIONS",
    headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
  });
  expect(reply.status).toBe(405);
  expect(reply.headers.get("access-control-allow-origin")).toBeNull();
});

test("an origin not allowed gets no CORS headers, on a preflight or an actual request", async () => {
  const pre = await preflight("https://evil.example", "POST", "authorization");
  expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  const actual = await fetch(`${registry.url}/subjects`, {
    headers: { origin: "https://evil.example", authorization: `Bearer ${provider.sign()}` },
  });
  expect(actual.status).toBe(200);
  expect(actual.headers.get("access-control-allow-origin")).toBeNull();
});

test("actual requests from an allowed origin carry Access-Control-Allow-Origin, a 401 too (so a page can read it)", async () => {
  const ok = await fetch(`${registry.url}/subjects`, {
    headers: { origin: "https://tools.example.com", authorization: `Bearer ${provider.sign()}` },
  });
  expect(ok.status).toBe(200);
  expect(ok.headers.get("access-control-allow-origin")).toBe("https://tools.example.com");
  expect(ok.headers.get("vary")).toContain("Origin");
  const refused = await fetch(`${registry.url}/subjects`, { headers: { origin: "https://tools.example.com" } });
  expect(refused.status).toBe(401);
  expect(refused.headers.get("access-control-allow-origin")).toBe("https://tools.example.com");
});

test("headless Chromium: a page of an allowed origin registers a schema cross-origin with a bearer token; another origin's page cannot", async () => {
  browser = await openBrowser();
  const register = (token: string, url: string) =>
    `(async () => {
      try {
        const r = await fetch(${JSON.stringify(`${url}/subjects/browser-value/versions`)}, {
          method: "POST",
          headers: { "content-type": "application/vnd.schemaregistry.v1+json", authorization: ${JSON.stringify(`Bearer ${token}`)} },
          body: JSON.stringify({ schema: '"string"' }),
        });
        return { status: r.status, body: await r.text() };
      } catch (e) { return { error: String(e) }; }
    })()`;
  const page = await browser.page();
  await page.goto(`${allowedOrigin}/tool.html`);
  const allowed = await page.evaluate(register(provider.sign({ sub: "browser-user" }), registry.url));
  expect(allowed).toMatchObject({ status: 200 });
  expect(JSON.parse((allowed as { body: string }).body)).toMatchObject({ id: 1, guid: expect.any(String) });

  const stranger = await browser.page();
  await stranger.goto(`http://127.0.0.1:${other.port}/tool.html`);
  const refused = (await stranger.evaluate(register(provider.sign({ sub: "browser-user" }), registry.url))) as {
    error?: string;
  };
  expect(refused.error).toContain("TypeError");
});
