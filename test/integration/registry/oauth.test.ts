// OAuth bearer tokens on a registry over real HTTP (embedded broker), by Confluent Platform's settings,
// against a real OpenID Connect provider's JWKS: RS256 and ES256 tokens, every refusal (no token,
// expired, not yet valid, wrong issuer or audience, unknown key), clock skew, key rotation, permissions
// of a token's principal and groups from the auth file, Basic credentials beside tokens, and no token
// in the log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonCall } from "../../fixtures/http.ts";
import { karapaceUser } from "../../fixtures/karapace-auth.ts";
import { captureLogs } from "../../fixtures/logs.ts";
import { startOidcProvider, type OidcProvider, type TokenClaims } from "../../fixtures/oidc-provider.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

const PASSWORD = "oauth-Secret-41";
const AUDIENCE = "schema-registry";
const dir = mkdtempSync(join(tmpdir(), "sluice-registry-oauth-"));
const authFile = {
  users: [karapaceUser("basic-admin", PASSWORD)],
  permissions: [
    { username: "basic-admin", operation: "Write", resource: "Config:" },
    { username: "basic-admin", operation: "Write", resource: "Subject:.*" },
    { username: "alice", operation: "Write", resource: "Subject:.*" },
    { username: "viewer", operation: "Read", resource: "Subject:.*" },
    // A group of the token's groups claim grants what a username does.
    { group: "schema-admins", operation: "Write", resource: "Subject:.*" },
    { group: "schema-admins", operation: "Write", resource: "Config:" },
  ],
};

let provider: OidcProvider;
let place: RegistryPlace;
let registry: TestRegistry;
const logs = captureLogs();

const token = (claims: TokenClaims = {}) => provider.sign({ aud: AUDIENCE, ...claims });
const bearer = (t: string) => ({
  authorization: `Bearer ${t}`,
  "content-type": "application/vnd.schemaregistry.v1+json",
});
const call = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
  jsonCall(registry.url + path, method, body, headers);
const record = (name: string) => ({
  schema: JSON.stringify({ type: "record", name, fields: [{ name: "id", type: "long" }] }),
});
const unauthorized = { error_code: 401, message: "Unauthorized" };

beforeAll(async () => {
  provider = startOidcProvider();
  writeFileSync(join(dir, "auth.json"), JSON.stringify(authFile));
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, {
    "authentication.permissions.file": join(dir, "auth.json"),
    "authentication.skip.paths": "/",
    "rest.servlet.initializor.classes": "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
    "oauthbearer.jwks.endpoint.url": provider.jwksUrl,
    "oauthbearer.expected.issuer": provider.issuer,
    "oauthbearer.expected.audience": `other-service,${AUDIENCE}`,
    "oauthbearer.sub.claim.name": "sub",
    "oauthbearer.groups.claim.name": "groups",
  });
});

afterAll(async () => {
  logs.stop();
  await registry?.stop();
  provider?.stop();
  if (place) removePlace(place);
  rmSync(dir, { recursive: true, force: true });
});

describe("valid tokens", () => {
  test("an RS256 token of a principal with Write registers and reads", async () => {
    const t = token({ sub: "alice" });
    const reply = await call(bearer(t), "POST", "/subjects/orders-value/versions", record("orders"));
    expect(reply.status).toBe(200);
    expect((await call(bearer(t), "GET", "/subjects/orders-value/versions")).body).toEqual([1]);
  });

  test("an ES256 token is taken as well", async () => {
    expect((await call(bearer(token({ sub: "alice", alg: "ES256" })), "GET", "/subjects")).body).toEqual([
      "orders-value",
    ]);
  });

  test("a read-only principal reads but a write is 403 in Confluent's RBAC shape", async () => {
    const t = token({ sub: "viewer" });
    expect((await call(bearer(t), "GET", "/subjects/orders-value/versions/1")).status).toBe(200);
    const write = await call(bearer(t), "POST", "/subjects/orders-value/versions", record("orders2"));
    expect(write.status).toBe(403);
    expect(write.body).toEqual({
      error_code: 40301,
      message: "User is denied operation Write on Subject: orders-value",
    });
    const permissions = await call(bearer(t), "GET", "/v1/sluice/permissions");
    expect(permissions.body).toMatchObject({ user: "viewer", readOnly: true });
  });

  test("a principal with no entry of its own gets its groups' permissions", async () => {
    const admin = token({ sub: "carol", groups: ["staff", "schema-admins"] });
    expect((await call(bearer(admin), "PUT", "/config", { compatibility: "FULL" })).status).toBe(200);
    expect((await call(bearer(admin), "GET", "/v1/sluice/permissions")).body).toMatchObject({
      user: "carol",
      readOnly: false,
    });
    const stranger = await call(
      bearer(token({ sub: "carol", groups: ["staff"] })),
      "GET",
      "/subjects/orders-value/versions",
    );
    expect(stranger.status).toBe(403);
  });

  test("the audience may be any of the expected ones, in a list", async () => {
    expect((await call(bearer(token({ sub: "alice", aud: ["x", "other-service"] })), "GET", "/subjects")).status).toBe(
      200,
    );
  });

  test("exp and nbf within the clock skew (30 s by default) are accepted", async () => {
    expect((await call(bearer(token({ sub: "alice", expiresIn: -10 })), "GET", "/subjects")).status).toBe(200);
    expect((await call(bearer(token({ sub: "alice", notBefore: 10 })), "GET", "/subjects")).status).toBe(200);
  });
});

describe("refusals: 401 in Confluent's shape with a Bearer challenge", () => {
  const refused = async (headers: Record<string, string>, error?: string) => {
    const reply = await call(headers, "GET", "/subjects");
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(unauthorized);
    const challenges = reply.headers.get("www-authenticate");
    expect(challenges).toContain(
      error ? `Bearer realm="SchemaRegistry-Props",error="${error}"` : `Bearer realm="SchemaRegistry-Props"`,
    );
    return challenges;
  };

  test("no credentials: both schemes are named, Basic for browsers", async () => {
    const challenges = await refused({});
    expect(challenges).toContain('Basic realm="SchemaRegistry-Props"');
  });

  test("expired, not yet valid beyond the skew, wrong issuer, wrong audience, no audience", async () => {
    await refused(bearer(token({ sub: "alice", expiresIn: -120 })), "invalid_token");
    await refused(bearer(token({ sub: "alice", notBefore: 120 })), "invalid_token");
    await refused(bearer(token({ sub: "alice", iss: "https://evil.example" })), "invalid_token");
    await refused(bearer(token({ sub: "alice", aud: "another-api" })), "invalid_token");
    await refused(bearer(provider.sign({ sub: "alice" })), "invalid_token");
  });

  test("signed by a key the JWKS does not publish, forged, unsigned, or not a JWT", async () => {
    await refused(bearer(token({ sub: "alice", unpublishedKey: true })), "invalid_token");
    const [header, , signature] = token({ sub: "viewer" }).split(".");
    const forgedPayload = Buffer.from(
      JSON.stringify({ sub: "alice", iss: provider.issuer, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 }),
    ).toString("base64url");
    await refused(bearer(`${header}.${forgedPayload}.${signature}`), "invalid_token");
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    await refused(bearer(`${none}.${forgedPayload}.`), "invalid_token");
    await refused(bearer("not-a-jwt"), "invalid_token");
  });

  test("a token without the principal claim", async () => {
    await refused(bearer(provider.sign({ aud: AUDIENCE, sub: undefined })), "invalid_token");
  });

  test("skip paths stay open; the root answers without a token", async () => {
    expect((await call({}, "GET", "/")).status).toBe(200);
  });
});

test("Basic credentials of the auth file work beside tokens", async () => {
  const basic = { authorization: `Basic ${Buffer.from(`basic-admin:${PASSWORD}`).toString("base64")}` };
  expect((await call(basic, "GET", "/config")).status).toBe(200);
  const wrong = await call(
    { authorization: `Basic ${Buffer.from("basic-admin:nope").toString("base64")}` },
    "GET",
    "/config",
  );
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get("www-authenticate")).toContain("Bearer");
});

test("keys rotated at the provider are picked up on the first token of a new key; unknown keys cost at most 5 fetches a minute", async () => {
  const before = provider.requests.get("/jwks") ?? 0;
  provider.rotate();
  expect((await call(bearer(token({ sub: "alice" })), "GET", "/subjects")).status).toBe(200);
  expect((await call(bearer(token({ sub: "alice", alg: "ES256" })), "GET", "/subjects")).status).toBe(200);
  const afterRotation = provider.requests.get("/jwks") ?? 0;
  expect(afterRotation).toBe(before + 1);
  // A flood of forged key ids: a few fetches, then none (two were spent above, on rotation and on the unpublished key).
  for (let i = 0; i < 12; i++)
    expect((await call(bearer(token({ sub: "alice", unpublishedKey: true })), "GET", "/subjects")).status).toBe(401);
  expect(provider.requests.get("/jwks")! - before).toBeLessThanOrEqual(5);
});

test("no token reaches the log", () => {
  const text = logs.text();
  expect(text).toContain("bearer token refused");
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
});
