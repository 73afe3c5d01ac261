// The registry over HTTPS with client certificates and Basic authentication, on the embedded broker:
// real TLS handshakes with certificates made for the test, and no secret in what it logs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certificateAuthority, pkcs12 } from "../../fixtures/certificates.ts";
import { captureLogs } from "../../fixtures/logs.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { freePort } from "../../fixtures/wait.ts";

const KEYSTORE_PASSWORD = "keystore-Secret-81";
const PASSWORD = "alice-Secret-42";
const WRONG = "wrong-Secret-17";

const dir = mkdtempSync(join(tmpdir(), "sluice-registry-tls-"));
const ca = certificateAuthority("Registry Test CA");
const client = ca.issue("alice", "client");
const stranger = certificateAuthority("Other CA").issue("mallory", "client");
const file = (name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};
const logs = captureLogs();
const places: RegistryPlace[] = [];
let required: TestRegistry;
let requested: TestRegistry;

async function start(clientAuth: string): Promise<TestRegistry> {
  const place = await registryPlace("embedded");
  places.push(place);
  return startTestRegistry(place, {
    listeners: `https://127.0.0.1:${freePort()}`,
    "ssl.keystore.location": file(
      "registry.p12",
      pkcs12(ca.issue("localhost", "server"), [ca.cert], KEYSTORE_PASSWORD),
    ),
    "ssl.keystore.password": KEYSTORE_PASSWORD,
    "ssl.keystore.type": "PKCS12",
    "ssl.truststore.location": file("ca.pem", ca.cert),
    "ssl.truststore.type": "PEM",
    "ssl.client.authentication": clientAuth,
    "authentication.method": "BASIC",
    "authentication.roles": "admin",
    "authentication.skip.paths": "/",
    "authentication.users.file": file(
      "users",
      `alice: MD5:${createHash("md5").update(PASSWORD).digest("hex")},admin\nbob: ${PASSWORD},reader\n`,
    ),
  });
}

beforeAll(async () => {
  required = await start("REQUIRED");
  requested = await start("REQUESTED");
});

afterAll(async () => {
  await required?.stop();
  await requested?.stop();
  logs.stop();
  places.forEach(removePlace);
  rmSync(dir, { recursive: true, force: true });
});

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});
const call = (
  registry: TestRegistry,
  path: string,
  options: {
    cert?: { cert: string; key: string };
    headers?: Record<string, string>;
    method?: string;
    body?: unknown;
  } = {},
) =>
  fetch(registry.url + path, {
    method: options.method ?? "GET",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json", ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    tls: { ca: ca.cert, ...options.cert },
  });

test("HTTPS with a client certificate and the right password", async () => {
  expect(required.url.startsWith("https://")).toBe(true);
  const registered = await call(required, "/subjects/secure-value/versions", {
    cert: client,
    headers: basic("alice", PASSWORD),
    method: "POST",
    body: { schema: '"string"' },
  });
  expect(registered.status).toBe(200);
  expect(await registered.json()).toEqual({ guid: expect.any(String), id: 1 });
  const subjects = await call(required, "/subjects", { cert: client, headers: basic("alice", PASSWORD) });
  expect(await subjects.json()).toEqual(["secure-value"]);
});

test("401 in Confluent's shape without or with wrong credentials; 403 without the role", async () => {
  // GET /schemas/ids/{id} is answered in front of the router (http/cached-reads.ts): the same guard.
  for (const [path, headers] of [
    ["/subjects", {}],
    ["/subjects", basic("alice", WRONG)],
    ["/subjects", basic("nobody", PASSWORD)],
    ["/schemas/ids/1", {}],
  ] as const) {
    const response = await call(required, path, { cert: client, headers });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="SchemaRegistry-Props"');
    expect(await response.json()).toEqual({ error_code: 401, message: "Unauthorized" });
  }
  const forbidden = await call(required, "/subjects", { cert: client, headers: basic("bob", PASSWORD) });
  expect(forbidden.status).toBe(403);
  expect(await forbidden.json()).toEqual({ error_code: 403, message: "Forbidden" });
});

test("authentication.skip.paths leaves GET / open", async () => {
  const root = await call(required, "/", { cert: client });
  expect(root.status).toBe(200);
});

test("REQUIRED refuses a client without a certificate and one from another CA", async () => {
  await expect(call(required, "/", {})).rejects.toThrow();
  await expect(call(required, "/", { cert: stranger })).rejects.toThrow();
});

test("REQUESTED accepts a client with a certificate and one without", async () => {
  expect((await call(requested, "/subjects", { cert: client, headers: basic("alice", PASSWORD) })).status).toBe(200);
  expect((await call(requested, "/subjects", { headers: basic("alice", PASSWORD) })).status).toBe(200);
});

test("plain HTTP to an HTTPS listener gets no answer", async () => {
  await expect(fetch(required.url.replace("https:", "http:") + "/")).rejects.toThrow();
});

test("no password, key store password or credentials header in the logs", () => {
  const text = logs.text();
  expect(text).toContain("schema registry ready");
  expect(text).toContain("request failed authentication");
  for (const secret of [
    KEYSTORE_PASSWORD,
    PASSWORD,
    WRONG,
    basic("alice", PASSWORD).authorization.slice(6),
    basic("alice", WRONG).authorization.slice(6),
  ]) {
    expect(text).not.toContain(secret);
  }
});
