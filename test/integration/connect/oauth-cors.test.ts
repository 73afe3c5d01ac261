// OAuth bearer tokens and CORS on a standalone worker's REST API over real HTTP (embedded broker): the
// registry's Confluent Platform settings, unprefixed in the worker's file as Confluent's Connect takes
// them, beside Kafka Connect's Basic authentication extension; Kafka Connect's access.control.* CORS
// with preflights answered before authentication.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { startOidcProvider, type OidcProvider } from "../../fixtures/oidc-provider.ts";

const PASSWORD = "connect-Oauth-55";
const dir = mkdtempSync(join(tmpdir(), "sluice-connect-oauth-"));
let provider: OidcProvider;
let worker: TestConnect;

beforeAll(async () => {
  provider = startOidcProvider();
  const users = join(dir, "users.properties");
  writeFileSync(users, `operator=${PASSWORD}\nviewer=${PASSWORD}\n`);
  worker = await startTestConnect("embedded", {
    "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
    "rest.basic.auth.users.file": users,
    "rest.basic.auth.read.only.users": "viewer",
    "rest.servlet.initializor.classes": "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
    "oauthbearer.jwks.endpoint.url": provider.jwksUrl,
    "oauthbearer.expected.issuer": provider.issuer,
    "oauthbearer.expected.audience": "connect",
    "oauthbearer.sub.claim.name": "client_id",
    "access.control.allow.origin": "https://*.example.com",
    "access.control.allow.methods": "GET,POST,PUT,DELETE",
  });
});

afterAll(async () => {
  await worker?.stop();
  removeConnectDir(worker);
  provider?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(worker.url + path, { headers });
const bearer = (claims = {}) => ({
  authorization: `Bearer ${provider.sign({ aud: "connect", client_id: "etl-pipeline", ...claims })}`,
});

test("valid RS256 and ES256 tokens are served; the principal comes from oauthbearer.sub.claim.name", async () => {
  expect((await get("/connectors", bearer())).status).toBe(200);
  expect((await get("/connectors", bearer({ alg: "ES256" }))).status).toBe(200);
  const who = await (await get("/sluice/permissions", bearer())).json();
  expect(who).toMatchObject({ user: "etl-pipeline", readOnly: false });
});

test("no credentials, an expired token, a wrong audience, an unknown key: 401 with a Bearer challenge", async () => {
  const none = await get("/connectors");
  expect(none.status).toBe(401);
  expect(none.headers.get("www-authenticate")).toContain('Basic realm="KafkaConnect"');
  expect(none.headers.get("www-authenticate")).toContain('Bearer realm="KafkaConnect"');
  for (const claims of [
    { expiresIn: -300 },
    { aud: "registry" },
    { unpublishedKey: true },
    { iss: "https://elsewhere" },
    { client_id: undefined },
  ]) {
    const reply = await get("/connectors", bearer(claims));
    expect(reply.status).toBe(401);
    expect(await reply.json()).toEqual({ error_code: 401, message: "Unauthorized" });
    expect(reply.headers.get("www-authenticate")).toBe('Bearer realm="KafkaConnect",error="invalid_token"');
  }
});

test("the Basic extension's users still get in, its read-only users still only read", async () => {
  const basic = (user: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString("base64")}` });
  expect((await get("/connectors", basic("operator"))).status).toBe(200);
  const write = await fetch(`${worker.url}/connectors/x/pause`, { method: "PUT", headers: basic("viewer") });
  expect(write.status).toBe(403);
  const wrong = await get("/connectors", { authorization: `Basic ${Buffer.from("operator:nope").toString("base64")}` });
  expect(wrong.status).toBe(401);
  expect(await wrong.json()).toEqual({ error_code: 401, message: "User cannot access the resource." });
});

test("CORS: a preflight of an origin matching https://*.example.com is answered before authentication", async () => {
  const reply = await fetch(`${worker.url}/connectors`, {
    method: "OPTIONS",
    headers: {
      origin: "https://ui.example.com",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    },
  });
  expect(reply.status).toBe(200);
  expect(reply.headers.get("access-control-allow-origin")).toBe("https://ui.example.com");
  expect(reply.headers.get("access-control-allow-methods")).toBe("GET,POST,PUT,DELETE");
  const actual = await get("/connectors", { origin: "https://ui.example.com", ...bearer() });
  expect(actual.headers.get("access-control-allow-origin")).toBe("https://ui.example.com");
});

test("CORS: other origins get no CORS headers, and their preflight goes on to authentication", async () => {
  const pre = await fetch(`${worker.url}/connectors`, {
    method: "OPTIONS",
    headers: { origin: "https://example.org", "access-control-request-method": "POST" },
  });
  expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  expect(pre.status).toBe(401);
  const actual = await get("/connectors", { origin: "http://ui.example.com", ...bearer() });
  expect(actual.status).toBe(200);
  expect(actual.headers.get("access-control-allow-origin")).toBeNull();
});
