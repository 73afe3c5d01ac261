// dist/sluice registry started on a properties file with Confluent Platform 7.7's server-side OAuth
// settings and rest-utils' CORS settings, as a user upgrading from Confluent would write it: no setting
// is reported unknown, requests need a valid bearer token, and a browser's preflight is answered.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOidcProvider, type OidcProvider } from "../../fixtures/oidc-provider.ts";
import { startSluice, type SluiceProcess } from "../../fixtures/sluice-process.ts";
import { freePort } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-oauth-binary-"));
const port = freePort();
const url = `http://127.0.0.1:${port}`;
let provider: OidcProvider;
let sluice: SluiceProcess;

beforeAll(async () => {
  provider = startOidcProvider();
  writeFileSync(
    join(dir, "schema-registry.properties"),
    [
      `listeners=${url}`,
      `data.dir=${join(dir, "data")}`,
      "kafkastore.topic.replication.factor=1",
      "rest.servlet.initializor.classes=io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
      `oauthbearer.jwks.endpoint.url=${provider.jwksUrl}`,
      `oauthbearer.expected.issuer=${provider.issuer}`,
      "oauthbearer.expected.audience=schema-registry",
      "oauthbearer.sub.claim.name=sub",
      "oauthbearer.groups.claim.name=groups",
      "authentication.skip.paths=/",
      "access.control.allow.origin=https://schema-ui.example.com",
      "access.control.allow.methods=GET,POST,PUT,DELETE",
      "access.control.allow.headers=Authorization,Content-Type",
      "",
    ].join("\n"),
  );
  sluice = await startSluice(["registry", "schema-registry.properties"], { cwd: dir, readyUrl: `${url}/` });
}, 300_000);

afterAll(async () => {
  await sluice?.stop();
  provider?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("requests need a valid token; a preflight is answered without one", async () => {
  expect((await fetch(`${url}/subjects`)).status).toBe(401);
  expect(
    (await fetch(`${url}/subjects`, { headers: { authorization: `Bearer ${provider.sign({ aud: "other" })}` } }))
      .status,
  ).toBe(401);
  expect(
    (
      await fetch(`${url}/subjects`, {
        headers: { authorization: `Bearer ${provider.sign({ aud: "schema-registry" })}` },
      })
    ).status,
  ).toBe(200);
  const preflight = await fetch(`${url}/subjects/x/versions`, {
    method: "OPTIONS",
    headers: {
      origin: "https://schema-ui.example.com",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization",
    },
  });
  expect(preflight.status).toBe(200);
  expect(preflight.headers.get("access-control-allow-origin")).toBe("https://schema-ui.example.com");
});

test("no setting of the file is reported unknown", async () => {
  await sluice.stop();
  const output = (await new Response(sluice.proc.stdout).text()) + (await new Response(sluice.proc.stderr).text());
  expect(output).not.toContain("Unknown setting");
});
