// The OAUTHBEARER login's token requests on their own (no broker): an HTTPS token endpoint trusted
// through the JAAS options' ssl.truststore.* (as Kafka reads them) and not trusted without them, retries
// of a failing endpoint within sasl.login.retry.backoff.max.ms, and a token from a file: URL.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientSecurity, type OAuthLogin } from "#src/broker/client-security.ts";
import { tokenLogin } from "#src/broker/login.ts";
import { certificateAuthority } from "../../fixtures/certificates.ts";
import { startOidcProvider } from "../../fixtures/oidc-provider.ts";

const MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
const HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";
const dir = mkdtempSync(join(tmpdir(), "sluice-token-endpoint-"));
const ca = certificateAuthority("IdP CA");
const oidc = startOidcProvider({ tls: ca.issue("127.0.0.1", "server") });
oidc.addClient("app", "app-secret", { aud: "kafka" });
afterAll(() => {
  oidc.stop();
  rmSync(dir, { recursive: true, force: true });
});

function login(props: Record<string, string>): OAuthLogin {
  const security = clientSecurity({
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": HANDLER,
    ...props,
  });
  if (security?.sasl?.mechanism !== "oauthbearer") throw new Error("expected an OAuth login");
  return security.sasl.login;
}

const payload = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

test("an https token endpoint trusted through the JAAS options' trust store; without it the endpoint is not trusted", async () => {
  writeFileSync(join(dir, "idp-ca.pem"), ca.cert);
  const trusted = login({
    "sasl.oauthbearer.token.endpoint.url": oidc.tokenUrl,
    "sasl.jaas.config": `${MODULE} required clientId="app" clientSecret="app-secret" scope="kafka" ssl.truststore.location="${join(dir, "idp-ca.pem")}" ssl.truststore.type="PEM";`,
  });
  const claims = payload(await tokenLogin(trusted).token());
  expect(claims).toMatchObject({ sub: "app", aud: "kafka", scope: "kafka" });
  const untrusted = login({
    "sasl.oauthbearer.token.endpoint.url": oidc.tokenUrl,
    "sasl.login.retry.backoff.max.ms": "200",
    "sasl.jaas.config": `${MODULE} required clientId="app" clientSecret="app-secret";`,
  });
  await expect(tokenLogin(untrusted).token()).rejects.toThrow(
    `could not reach the OAuth token endpoint ${oidc.tokenUrl}`,
  );
});

test("a failing endpoint (5xx) is asked again with back-off until sasl.login.retry.backoff.max.ms", async () => {
  let calls = 0;
  const flaky = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      return ++calls < 3
        ? new Response("busy", { status: 503 })
        : Response.json({ access_token: oidc.sign({ sub: "app" }), token_type: "Bearer" });
    },
  });
  try {
    const retried = login({
      "sasl.oauthbearer.token.endpoint.url": `http://127.0.0.1:${flaky.port}/token`,
      "sasl.login.retry.backoff.ms": "50",
      "sasl.jaas.config": `${MODULE} required clientId="app" clientSecret="x";`,
    });
    expect(payload(await tokenLogin(retried).token()).sub).toBe("app");
    expect(calls).toBe(3);
    const giveUp = login({
      "sasl.oauthbearer.token.endpoint.url": `http://127.0.0.1:${flaky.port}/token?again`,
      "sasl.login.retry.backoff.ms": "50",
      "sasl.login.retry.backoff.max.ms": "120",
      "sasl.jaas.config": `${MODULE} required clientId="app" clientSecret="x";`,
    });
    calls = -100;
    await expect(tokenLogin(giveUp).token()).rejects.toThrow("answered 503");
    expect(calls).toBeGreaterThan(-100 + 1);
  } finally {
    flaky.stop(true);
  }
});

test("a file: token endpoint: the JWT in the file; a file without one is refused", async () => {
  const file = join(dir, "token.jwt");
  writeFileSync(file, `${oidc.sign({ sub: "from-file", expiresIn: 3600 })}\n`);
  const fromFile = login({
    "sasl.oauthbearer.token.endpoint.url": `file://${file}`,
    "sasl.jaas.config": `${MODULE} required;`,
  });
  expect(payload(await tokenLogin(fromFile).token()).sub).toBe("from-file");
  writeFileSync(file, "not a token");
  const broken = login({
    "sasl.oauthbearer.token.endpoint.url": `file://${file}`,
    "sasl.login.refresh.buffer.seconds": "1",
    "sasl.jaas.config": `${MODULE} required;`,
  });
  await expect(tokenLogin(broken).token()).rejects.toThrow(`the token in ${file} is not a JWT`);
});
