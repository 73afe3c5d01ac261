// The JWT checks against a real OpenID Connect provider's JWKS (test/fixtures/oidc-provider.ts), with
// the verifier's clock moved by the test: key refresh, stale keys while refreshing, kid-less tokens,
// keys that cannot check a token, an https JWKS trusted through the trust store, and the settings.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { oauthPolicy, oauthSettings } from "#src/platform/bearer-auth.ts";
import { JwtVerifier, TokenRejected, type JwtPolicy } from "#src/platform/jwt.ts";
import { SettingsDefinition } from "#src/platform/settings.ts";
import { storeSettings } from "#src/platform/tls.ts";
import { registrySettingsDefinition } from "#src/registry/settings.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { certificateAuthority } from "../../fixtures/certificates.ts";
import { startOidcProvider } from "../../fixtures/oidc-provider.ts";
import { waitFor } from "../../fixtures/wait.ts";

const provider = startOidcProvider();
const dir = mkdtempSync(join(tmpdir(), "sluice-jwt-"));
afterAll(() => {
  provider.stop();
  rmSync(dir, { recursive: true, force: true });
});

const policy = (over: Partial<JwtPolicy> = {}): JwtPolicy => ({
  jwksUrl: provider.jwksUrl,
  audiences: [],
  subClaim: "sub",
  groupsClaim: "groups",
  clockSkewSeconds: 30,
  refreshMs: 60_000,
  ...over,
});
const fetches = () => provider.requests.get("/jwks") ?? 0;
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => "accepted",
    (err: unknown) => (err instanceof TokenRejected ? err.message : `not a TokenRejected: ${String(err)}`),
  );

describe("JwtVerifier", () => {
  test("keys are fetched once, used until refreshMs has passed, then fetched again", async () => {
    let now = Date.now();
    const verifier = new JwtVerifier(policy(), () => now);
    const before = fetches();
    expect(await verifier.verify(provider.sign({ sub: "a", groups: ["g1", "g2"] }))).toEqual({
      principal: "a",
      groups: ["g1", "g2"],
    });
    await verifier.verify(provider.sign({ alg: "ES256" }));
    expect(fetches()).toBe(before + 1);
    now += 60_000;
    // The stale keys still check this token while the new ones come.
    await verifier.verify(provider.sign());
    await waitFor("the JWKS fetched again", async () => fetches() === before + 2 || undefined);
  });

  test("while the provider is down, the keys already fetched go on checking tokens", async () => {
    const idp = startOidcProvider();
    let now = Date.now();
    const verifier = new JwtVerifier(policy({ jwksUrl: idp.jwksUrl }), () => now);
    const later = idp.sign({ sub: "b" });
    expect((await verifier.verify(idp.sign())).principal).toBe("alice");
    idp.stop();
    now += 60_000;
    expect((await verifier.verify(later)).principal).toBe("b");
    expect((await verifier.verify(later)).principal).toBe("b");
  });

  test("a token without a kid is checked against the JWKS keys of its algorithm", async () => {
    const verifier = new JwtVerifier(policy());
    // The header is signed too: changed, the signature no longer matches, but a key of ES256 was tried.
    const [, payload, signature] = provider.sign({ alg: "ES256" }).split(".");
    const header = Buffer.from(JSON.stringify({ alg: "ES256", typ: "JWT" })).toString("base64url");
    expect(await rejection(verifier.verify(`${header}.${payload}.${signature}`))).toBe("the signature does not match");
  });

  test("a header naming another algorithm than its key's, HS256, or none is refused", async () => {
    const verifier = new JwtVerifier(policy());
    const [rsHeader, payload, signature] = provider.sign().split(".");
    const kid = JSON.parse(Buffer.from(rsHeader!, "base64url").toString()).kid;
    const swapped = Buffer.from(JSON.stringify({ alg: "ES256", kid })).toString("base64url");
    expect(await rejection(verifier.verify(`${swapped}.${payload}.${signature}`))).toBe(`the JWKS has no key ${kid}`);
    const hs = Buffer.from(JSON.stringify({ alg: "HS256", kid })).toString("base64url");
    expect(await rejection(verifier.verify(`${hs}.${payload}.${signature}`))).toBe(
      "algorithm HS256 is not accepted (RS256 or ES256)",
    );
  });

  test("exp is required; numbers only; the principal claim is configurable; groups may be one string", async () => {
    const verifier = new JwtVerifier(policy({ subClaim: "preferred_username", groupsClaim: "roles" }));
    expect(await verifier.verify(provider.sign({ preferred_username: "bob", roles: "admins" }))).toEqual({
      principal: "bob",
      groups: ["admins"],
    });
    expect(await rejection(verifier.verify(provider.sign({ exp: undefined, preferred_username: "bob" })))).toBe(
      "the token has no exp claim",
    );
    expect(await rejection(verifier.verify(provider.sign({ nbf: "soon", preferred_username: "bob" })))).toBe(
      "the nbf claim is not a number",
    );
    expect(await rejection(verifier.verify(provider.sign()))).toBe("the token has no preferred_username claim");
  });

  test("a JWKS that cannot be fetched refuses tokens (and is asked again for the next one)", async () => {
    const verifier = new JwtVerifier(policy({ jwksUrl: `${provider.url}/missing` }));
    expect(await rejection(verifier.verify(provider.sign()))).toBe("the identity provider's keys cannot be fetched");
    expect(await rejection(verifier.verify(provider.sign()))).toBe("the identity provider's keys cannot be fetched");
    expect(provider.requests.get("/missing")).toBe(2);
  });

  test("an https JWKS is trusted through ssl.truststore.location", async () => {
    const ca = certificateAuthority("IdP CA");
    const secure = startOidcProvider({ tls: ca.issue("localhost", "server") });
    try {
      const truststore = join(dir, "idp-ca.pem");
      writeFileSync(truststore, ca.cert);
      const definition = new SettingsDefinition([...oauthSettings, ...storeSettings]);
      const settings = (extra: Record<string, string>) =>
        definition.parse({
          "rest.servlet.initializor.classes":
            "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
          "oauthbearer.jwks.endpoint.url": secure.jwksUrl,
          ...extra,
        }).values;
      const trusted = new JwtVerifier(
        oauthPolicy(settings({ "ssl.truststore.location": truststore, "ssl.truststore.type": "PEM" }))!,
      );
      expect((await trusted.verify(secure.sign())).principal).toBe("alice");
      const untrusted = new JwtVerifier(oauthPolicy(settings({}))!);
      expect(await rejection(untrusted.verify(secure.sign()))).toBe("the identity provider's keys cannot be fetched");
    } finally {
      secure.stop();
    }
  });
});

describe("OAuth settings", () => {
  const cp77 = {
    "rest.servlet.initializor.classes": "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
    "oauthbearer.jwks.endpoint.url": "https://idp.example.com/keys",
    "oauthbearer.expected.issuer": "https://idp.example.com",
    "oauthbearer.expected.audience": "schema-registry,api://default",
    "oauthbearer.sub.claim.name": "client_id",
    "oauthbearer.groups.claim.name": "groups",
    "oauthbearer.jwks.endpoint.refresh.ms": "600000",
    "oauthbearer.clock.skew.seconds": "60",
    "access.control.allow.origin": "*",
    "access.control.allow.methods": "GET,POST",
  };

  test("Confluent Platform's server-side OAuth and CORS settings are known to both services (no 'Unknown setting' warning)", () => {
    expect(
      registrySettingsDefinition.parse({
        ...cp77,
        "access.control.allow.headers": "Authorization",
        "access.control.expose.headers": "Location",
        "access.control.skip.options": "true",
      }).unknown,
    ).toEqual([]);
    const { values, unknown } = workerSettings.parse(cp77);
    expect(unknown).toEqual([]);
    expect(oauthPolicy(values)).toEqual({
      jwksUrl: "https://idp.example.com/keys",
      issuer: "https://idp.example.com",
      audiences: ["schema-registry", "api://default"],
      subClaim: "client_id",
      groupsClaim: "groups",
      clockSkewSeconds: 60,
      refreshMs: 600000,
    });
  });

  test("off without an initializer; an unknown initializer or a missing JWKS URL is a configuration error", () => {
    expect(oauthPolicy(registrySettingsDefinition.parse({}).values)).toBeUndefined();
    expect(() =>
      oauthPolicy(
        registrySettingsDefinition.parse({ "rest.servlet.initializor.classes": "com.example.Custom" }).values,
      ),
    ).toThrow("the only initializers are");
    expect(() =>
      oauthPolicy(
        registrySettingsDefinition.parse({
          "rest.servlet.initializor.classes": cp77["rest.servlet.initializor.classes"],
        }).values,
      ),
    ).toThrow("oauthbearer.jwks.endpoint.url");
  });
});
