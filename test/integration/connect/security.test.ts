// The worker's REST API over HTTPS (ssl.* and listeners.https.ssl.*) with the Basic authentication
// extension, on the embedded broker: real TLS handshakes, and no secret in what it logs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certificateAuthority } from "../../fixtures/certificates.ts";
import { removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { captureLogs } from "../../fixtures/logs.ts";
import { freePort } from "../../fixtures/wait.ts";

const KEY_PASSWORD = "key-Secret-93";
const PASSWORD = "connect-Secret-27";
const WRONG = "wrong-Secret-64";

const dir = mkdtempSync(join(tmpdir(), "sluice-connect-tls-"));
const ca = certificateAuthority("Connect Test CA");
const server = ca.issue("localhost", "server");
const client = ca.issue("operator", "client");
const stranger = certificateAuthority("Other CA").issue("mallory", "client");
const file = (name: string, content: string) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};
// A PEM key store whose private key is encrypted with ssl.key.password.
const encryptedKey = createPrivateKey(server.key)
  .export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: KEY_PASSWORD })
  .toString();
const keystore = file("worker.pem", encryptedKey + server.cert);
const truststore = file("ca.pem", ca.cert);
const logs = captureLogs();
let requested: TestConnect;
let required: TestConnect;

beforeAll(async () => {
  const hashed = await Bun.password.hash(PASSWORD, { algorithm: "bcrypt", cost: 4 });
  // Users named through a JAAS file, as Kafka Connect's KAFKA_OPTS=-Djava.security.auth.login.config=... does.
  const users = file("users.properties", `operator=${hashed}\n`);
  const jaas = file(
    "connect-jaas.conf",
    `KafkaConnect {\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n  file="${users}";\n};\n`,
  );
  requested = await startTestConnect("embedded", {
    listeners: `https://127.0.0.1:${freePort()}`,
    "ssl.keystore.location": keystore,
    "ssl.keystore.type": "PEM",
    "ssl.key.password": KEY_PASSWORD,
    "ssl.truststore.location": truststore,
    "ssl.truststore.type": "PEM",
    "ssl.client.auth": "requested",
    "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
    "java.security.auth.login.config": jaas,
  });
  // listeners.https.* settings replace the plain ssl.* ones for the listeners (here: no key store at all).
  required = await startTestConnect("embedded", {
    listeners: `https://127.0.0.1:${freePort()}`,
    "listeners.https.ssl.keystore.location": keystore,
    "listeners.https.ssl.keystore.type": "PEM",
    "listeners.https.ssl.key.password": KEY_PASSWORD,
    "listeners.https.ssl.truststore.location": truststore,
    "listeners.https.ssl.truststore.type": "PEM",
    "listeners.https.ssl.client.auth": "required",
    "rest.extension.classes": "BasicAuthSecurityRestExtension",
    "rest.basic.auth.users.file": users,
  });
});

afterAll(async () => {
  await requested?.stop();
  await required?.stop();
  logs.stop();
  removeConnectDir(requested);
  removeConnectDir(required);
  rmSync(dir, { recursive: true, force: true });
});

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});
const call = (
  worker: TestConnect,
  path: string,
  options: { cert?: { cert: string; key: string }; headers?: Record<string, string> } = {},
) => fetch(worker.url + path, { headers: options.headers, tls: { ca: ca.cert, ...options.cert } });

test("HTTPS and the right password: 200", async () => {
  expect(requested.url.startsWith("https://")).toBe(true);
  const response = await call(requested, "/connectors", { cert: client, headers: basic("operator", PASSWORD) });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual([]);
});

test("401 without or with wrong credentials, in Connect's error shape", async () => {
  for (const headers of [{}, basic("operator", WRONG), basic("nobody", PASSWORD)]) {
    for (const path of ["/", "/connectors"]) {
      const response = await call(requested, path, { cert: client, headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Basic realm="KafkaConnect"');
      expect(await response.json()).toEqual({ error_code: 401, message: "User cannot access the resource." });
    }
  }
});

test("ssl.client.auth=requested accepts a client with a certificate and one without", async () => {
  expect((await call(requested, "/", { headers: basic("operator", PASSWORD) })).status).toBe(200);
  expect((await call(requested, "/", { cert: client, headers: basic("operator", PASSWORD) })).status).toBe(200);
});

test("listeners.https.ssl.client.auth=required refuses a client without a certificate and one from another CA", async () => {
  expect((await call(required, "/connectors", { cert: client, headers: basic("operator", PASSWORD) })).status).toBe(
    200,
  );
  await expect(call(required, "/", { headers: basic("operator", PASSWORD) })).rejects.toThrow();
  await expect(call(required, "/", { cert: stranger, headers: basic("operator", PASSWORD) })).rejects.toThrow();
});

test("no password, key password or credentials header in the logs", () => {
  const text = logs.text();
  expect(text).toContain("connect worker ready");
  expect(text).toContain("request failed authentication");
  for (const secret of [
    KEY_PASSWORD,
    PASSWORD,
    WRONG,
    basic("operator", PASSWORD).authorization.slice(6),
    basic("operator", WRONG).authorization.slice(6),
  ]) {
    expect(text).not.toContain(secret);
  }
});
