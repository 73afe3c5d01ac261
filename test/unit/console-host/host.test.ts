// The console's serving: the page and its bundle, /ui/config.json, the proxy to the other service (a
// real server on a free port), the service's authentication in front, and console.enabled=false.
import { afterAll, expect, test } from "bun:test";
import { consoleConfig, reachable, withConsole } from "#src/console-host/host.ts";

const own = (request: Request) => Response.json({ own: new URL(request.url).pathname }, { status: 404 });
const seen: { method: string; path: string; auth: string | null; body: string }[] = [];
const peer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    seen.push({
      method: request.method,
      path: url.pathname + url.search,
      auth: request.headers.get("authorization"),
      body: await request.text(),
    });
    return url.pathname === "/denied"
      ? Response.json({ error_code: 403, message: "User cannot access the resource." }, { status: 403 })
      : Response.json({ ok: true });
  },
});
afterAll(() => peer.stop(true));
const peerUrl = `http://127.0.0.1:${peer.port}`;
const call = (handler: ReturnType<typeof withConsole>, path: string, init?: RequestInit) =>
  Promise.resolve(handler(new Request(`http://registry.test${path}`, init)));

test("config.json: the serving service at its root, the other through the proxy or null", () => {
  expect(consoleConfig({ service: "registry", peer: () => peerUrl })).toEqual({
    service: "registry",
    registry: "",
    connect: "/ui/proxy/connect",
  });
  expect(consoleConfig({ service: "connect", peer: () => undefined })).toEqual({
    service: "connect",
    connect: "",
    registry: null,
  });
  expect(reachable("http://0.0.0.0:8083/")).toBe("http://127.0.0.1:8083");
  expect(reachable("https://[::]:8081")).toBe("https://127.0.0.1:8081");
});

test("the page names its bundle, which is served with long caching; other paths are the service's", async () => {
  const handler = withConsole(own, { enabled: true, service: "registry" });
  const page = await call(handler, "/ui/");
  expect(page.headers.get("content-type")).toStartWith("text/html");
  const html = await page.text();
  const script = /src="([^"]+\.js)"/.exec(html)![1]!;
  const js = await call(handler, `/ui/${script}`);
  expect(js.headers.get("cache-control")).toContain("immutable");
  expect((await js.text()).length).toBeGreaterThan(1000);
  // Relative: a proxy serving the console under /tools/ keeps the browser there (/tools/ui/).
  expect((await call(handler, "/ui")).headers.get("location")).toBe("ui/");
  expect(await (await call(handler, "/subjects")).json()).toEqual({ own: "/subjects" });
  expect(await (await call(handler, "/ui/nothing.js")).json()).toEqual({ own: "/ui/nothing.js" });
  // Names of Object's own members are no assets either.
  for (const name of ["__proto__", "constructor", "toString"])
    expect(await (await call(handler, `/ui/${name}`)).json()).toEqual({ own: `/ui/${name}` });
});

test("the proxy forwards method, path, query, body and credentials; the target's refusal comes back as it is", async () => {
  const handler = withConsole(own, { enabled: true, service: "registry", peer: () => peerUrl });
  const response = await call(handler, "/ui/proxy/connect/connectors/a%2Fb/config?x=1", {
    method: "PUT",
    body: '{"k":"v"}',
    headers: { authorization: "Basic dTpw", "content-type": "application/json" },
  });
  expect(await response.json()).toEqual({ ok: true });
  expect(seen.at(-1)).toEqual({
    method: "PUT",
    path: "/connectors/a%2Fb/config?x=1",
    auth: "Basic dTpw",
    body: '{"k":"v"}',
  });
  const denied = await call(handler, "/ui/proxy/connect/denied");
  expect(denied.status).toBe(403);
  expect(await denied.json()).toEqual({ error_code: 403, message: "User cannot access the resource." });
  // Only the other service is proxied.
  expect(await (await call(handler, "/ui/proxy/registry/subjects")).json()).toEqual({
    own: "/ui/proxy/registry/subjects",
  });
});

test("an unreachable target is a 502 in the services' error shape; no target URL a 404", async () => {
  const down = withConsole(own, { enabled: true, service: "connect", peer: () => "http://127.0.0.1:1" });
  const response = await call(down, "/ui/proxy/registry/subjects");
  expect(response.status).toBe(502);
  expect(((await response.json()) as { error_code: number; message: string }).message).toStartWith(
    "registry at http://127.0.0.1:1 cannot be reached",
  );
  const none = await call(withConsole(own, { enabled: true, service: "connect" }), "/ui/proxy/registry/subjects");
  expect(none.status).toBe(404);
});

test("the service's authentication guards the page; console.enabled=false leaves /ui/ to the service (404)", async () => {
  const guard = async (request: Request) =>
    request.headers.get("authorization")
      ? undefined
      : new Response("no", { status: 401, headers: { "www-authenticate": 'Basic realm="x"' } });
  const guarded = withConsole(own, { enabled: true, service: "registry", guard });
  expect((await call(guarded, "/ui/config.json")).status).toBe(401);
  expect((await call(guarded, "/ui/config.json", { headers: { authorization: "Basic dTpw" } })).status).toBe(200);
  const off = withConsole(own, { enabled: false, service: "registry", peer: () => peerUrl });
  expect((await call(off, "/ui/")).status).toBe(404);
  expect((await call(off, "/ui/proxy/connect/connectors")).status).toBe(404);
});
