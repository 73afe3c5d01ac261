// The bearer guard on its own, with tokens of a real OpenID Connect provider: roles as groups, skip
// paths, and the hand-over to the Basic guard for requests without a token.
import { afterAll, expect, test } from "bun:test";
import { basicAuthGuard, type Refusal } from "#src/platform/basic-auth.ts";
import { bearerAuthGuard } from "#src/platform/bearer-auth.ts";
import { JwtVerifier } from "#src/platform/jwt.ts";
import { startOidcProvider } from "../../fixtures/oidc-provider.ts";

const provider = startOidcProvider();
afterAll(() => provider.stop());

const refuse: Refusal = (_request, status, headers) => new Response(String(status), { status, headers });
const verifier = new JwtVerifier({
  jwksUrl: provider.jwksUrl,
  audiences: [],
  subClaim: "sub",
  groupsClaim: "groups",
  clockSkewSeconds: 30,
  refreshMs: 3_600_000,
});
const request = (path: string, authorization?: string) =>
  new Request(`http://registry${path}`, { headers: authorization ? { authorization } : {} });

test("with roles other than * a token needs one of them among its groups (403 otherwise)", async () => {
  const admitted: [string | undefined, string[]][] = [];
  const guard = bearerAuthGuard({
    verifier,
    realm: "R",
    roles: ["admins", "developers"],
    skipPaths: ["/"],
    refuse,
    admitted: (_r, user, groups) => admitted.push([user, groups]),
  });
  expect(
    await guard(request("/subjects", `Bearer ${provider.sign({ sub: "dev", groups: ["developers"] })}`)),
  ).toBeUndefined();
  expect((await guard(request("/subjects", `Bearer ${provider.sign({ sub: "x", groups: ["staff"] })}`)))!.status).toBe(
    403,
  );
  // Skip paths need no token.
  expect(await guard(request("/"))).toBeUndefined();
  expect(admitted).toEqual([
    ["dev", ["developers"]],
    [undefined, []],
  ]);
  const none = (await guard(request("/subjects")))!;
  expect(none.status).toBe(401);
  expect(none.headers.get("www-authenticate")).toBe('Bearer realm="R"');
});

test("requests without a token go to the Basic guard, whose 401 names both schemes", async () => {
  const basic = basicAuthGuard({
    realm: "R",
    users: new Map([["ann", { credential: "pw", roles: [] }]]),
    roles: ["*"],
    skipPaths: [],
    refuse,
  });
  const guard = bearerAuthGuard({ verifier, realm: "R", roles: ["*"], skipPaths: [], refuse, otherwise: basic });
  expect(await guard(request("/subjects", `Basic ${Buffer.from("ann:pw").toString("base64")}`))).toBeUndefined();
  const wrong = (await guard(request("/subjects", `Basic ${Buffer.from("ann:no").toString("base64")}`)))!;
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="R", Bearer realm="R"');
  const bad = (await guard(request("/subjects", "Bearer x.y.z")))!;
  expect(bad.headers.get("www-authenticate")).toBe('Bearer realm="R",error="invalid_token"');
});
