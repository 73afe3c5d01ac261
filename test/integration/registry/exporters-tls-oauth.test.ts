// An exporter whose destination registry takes only HTTPS with a client certificate and OAuth bearer
// tokens (embedded brokers, a real OpenID Connect provider): the exporter's config carries Confluent's
// client settings (trust store, key store, OAUTHBEARER client credentials), none of them answered back.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certificateAuthority, pkcs12 } from "../../fixtures/certificates.ts";
import { jsonCall } from "../../fixtures/http.ts";
import { startOidcProvider, type OidcProvider } from "../../fixtures/oidc-provider.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const STORE_PASSWORD = "store-Secret-55";
const CLIENT_SECRET = "client-Secret-77";
const dir = mkdtempSync(join(tmpdir(), "sluice-exporter-tls-"));
const file = (name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};
const ca = certificateAuthority("Exporter Test CA");

let provider: OidcProvider;
const places: RegistryPlace[] = [];
let source: TestRegistry;
let destination: TestRegistry;

beforeAll(async () => {
  provider = startOidcProvider();
  provider.addClient("exporter", CLIENT_SECRET, { aud: "schema-registry" });
  places.push(await registryPlace("embedded"), await registryPlace("embedded"));
  source = await startTestRegistry(places[0]!, { "exporter.poll.interval.ms": "100" });
  destination = await startTestRegistry(places[1]!, {
    listeners: `https://127.0.0.1:${freePort()}`,
    "ssl.keystore.location": file("server.p12", pkcs12(ca.issue("localhost", "server"), [ca.cert], STORE_PASSWORD)),
    "ssl.keystore.password": STORE_PASSWORD,
    "ssl.keystore.type": "PKCS12",
    "ssl.truststore.location": file("ca.pem", ca.cert),
    "ssl.truststore.type": "PEM",
    "ssl.client.authentication": "REQUIRED",
    "rest.servlet.initializor.classes": "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
    "oauthbearer.jwks.endpoint.url": provider.jwksUrl,
    "oauthbearer.expected.issuer": provider.issuer,
    "oauthbearer.expected.audience": "schema-registry",
  });
}, 120_000);

afterAll(async () => {
  await source?.stop();
  await destination?.stop();
  provider?.stop();
  places.forEach(removePlace);
  rmSync(dir, { recursive: true, force: true });
});

test("schemas reach an HTTPS + mTLS + OAuth destination; the secrets are never answered", async () => {
  const src = client(source.url);
  const schema = JSON.stringify({ type: "record", name: "T", fields: [{ name: "a", type: "int" }] });
  expect((await src.register("t-value", schema)).status).toBe(200);
  const config = {
    "schema.registry.url": destination.url,
    "schema.registry.ssl.truststore.location": join(dir, "ca.pem"),
    "schema.registry.ssl.truststore.type": "PEM",
    "schema.registry.ssl.keystore.location": file(
      "exporter.p12",
      pkcs12(ca.issue("exporter", "client"), [ca.cert], STORE_PASSWORD),
    ),
    "schema.registry.ssl.keystore.type": "PKCS12",
    "schema.registry.ssl.keystore.password": STORE_PASSWORD,
    "bearer.auth.credentials.source": "OAUTHBEARER",
    "bearer.auth.issuer.endpoint.url": provider.tokenUrl,
    "bearer.auth.client.id": "exporter",
    "bearer.auth.client.secret": CLIENT_SECRET,
  };
  expect((await src.post("/exporters", { name: "secure", contextType: "NONE", config })).body).toEqual({
    name: "secure",
  });
  const status = await waitFor("the exporter running", async () => {
    const s = (await src.get("/exporters/secure/status")).body;
    if (s.state === "ERROR") throw new Error(s.trace);
    return s.state === "RUNNING" && s.offset > 0 && s;
  });
  expect(status.trace).toBeUndefined();

  // Read back from the destination with the registry's own client settings: a token and a certificate.
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  const token = (await (
    await fetch(provider.tokenUrl, {
      method: "POST",
      body: form,
      headers: {
        authorization: `Basic ${Buffer.from(`exporter:${CLIENT_SECRET}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
    })
  ).json()) as { access_token: string };
  const issued = ca.issue("reader", "client");
  const read = await fetch(`${destination.url}/subjects/t-value/versions/1`, {
    headers: { authorization: `Bearer ${token.access_token}` },
    tls: { ca: [ca.cert], cert: issued.cert, key: issued.key },
  });
  expect(read.status).toBe(200);
  const body = (await read.json()) as { id: number; schema: string };
  expect(body.id).toBe((await src.get("/subjects/t-value/versions/1")).body.id);

  const shown = JSON.stringify([
    (await src.get("/exporters/secure")).body,
    (await src.get("/exporters/secure/config")).body,
    (await jsonCall(`${source.url}/exporters/secure/status`, "GET", undefined, {})).body,
  ]);
  expect(shown).not.toContain(CLIENT_SECRET);
  expect(shown).not.toContain(STORE_PASSWORD);
  expect((await src.get("/exporters/secure/config")).body["bearer.auth.client.secret"]).toBe("[hidden]");
}, 120_000);
