// The OAUTHBEARER login's schedule (Kafka's sasl.login.refresh.* rules) and its token handling.
import { expect, test } from "bun:test";
import {
  checkedJwt,
  LoginError,
  refreshTime,
  TokenLogin,
  unsecuredToken,
  type ExpiringToken,
} from "#src/broker/login.ts";

const defaults = { windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300 };
const HOUR = 3600_000;

test("a token is replaced at the window factor of its life plus jitter, within the minimum period and the buffer", () => {
  expect(refreshTime(0, HOUR, defaults, () => 0)).toBe(0.8 * HOUR);
  expect(refreshTime(0, HOUR, defaults, () => 1)).toBe(0.85 * HOUR);
  // The buffer wins over a late window: never closer to expiry than 300 s.
  expect(refreshTime(0, HOUR, { ...defaults, windowFactor: 1, windowJitter: 0.25 }, () => 1)).toBe(HOUR - 300_000);
  // The minimum period wins over an early window.
  expect(refreshTime(0, 600_000, { ...defaults, windowFactor: 0.5, bufferSeconds: 0 }, () => 0)).toBe(300_000);
  expect(refreshTime(0, 100_000, { ...defaults, windowFactor: 0.5, bufferSeconds: 0 }, () => 0)).toBe(60_000);
  // Too short for both: half-way.
  expect(refreshTime(1000, 11_000, defaults)).toBe(6000);
  expect(refreshTime(5000, 4000, defaults)).toBe(5000);
});

test("the login hands out one token until its refresh time, then fetches one; concurrent callers share a fetch", async () => {
  let now = 0;
  let fetches = 0;
  const login = new TokenLogin(
    async () => ({ value: `t${++fetches}`, expiresAtMs: now + 10_000 }),
    defaults,
    "test",
    () => now,
  );
  expect(await Promise.all([login.token(), login.token(), login.token()])).toEqual(["t1", "t1", "t1"]);
  expect(fetches).toBe(1);
  now = 4000;
  expect(await login.token()).toBe("t1");
  now = 5000; // half of 10 s: min period + buffer exceed the lifetime
  expect(await login.token()).toBe("t2");
  expect(fetches).toBe(2);
});

test("a failed refresh keeps a still-valid token; once it has expired the failure is the caller's", async () => {
  let now = 0;
  let fail = false;
  const login = new TokenLogin(
    async (): Promise<ExpiringToken> => {
      if (fail) throw new LoginError("the OAuth token endpoint answered 503");
      return { value: "good", expiresAtMs: now + 10_000 };
    },
    defaults,
    "test",
    () => now,
  );
  expect(await login.token()).toBe("good");
  fail = true;
  now = 6000;
  expect(await login.token()).toBe("good");
  now = 10_001;
  await expect(login.token()).rejects.toThrow("503");
  fail = false;
  expect(await login.token()).toBe("good");
});

test("what Kafka's client checks of a JWT: three parts, exp, the subject claim", () => {
  const jwt = (claims: object) =>
    `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;
  expect(checkedJwt(jwt({ sub: "a", exp: 100 }), "sub", "t")).toEqual({
    value: jwt({ sub: "a", exp: 100 }),
    expiresAtMs: 100_000,
  });
  expect(() => checkedJwt("opaque-token", "sub", "the token")).toThrow("not a JWT");
  expect(() => checkedJwt(jwt({ sub: "a" }), "sub", "the token")).toThrow("exp");
  expect(() => checkedJwt(jwt({ sub: "a", exp: 1 }), "client_id", "the token")).toThrow("client_id");
});

test("an unsecured token: alg none, no signature, the configured claims with iat and exp", () => {
  const token = unsecuredToken(
    {
      kind: "unsecured",
      prefix: "",
      claims: { sub: "alice", scope: ["a"] },
      principalClaim: "sub",
      lifetimeSeconds: 60,
      refresh: defaults,
    },
    1_700_000_000_500,
  );
  const [header, payload, signature] = token.value.split(".");
  expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toEqual({ alg: "none" });
  expect(JSON.parse(Buffer.from(payload!, "base64url").toString())).toEqual({
    sub: "alice",
    scope: ["a"],
    iat: 1_700_000_000.5,
    exp: 1_700_000_060.5,
  });
  expect(signature).toBe("");
  expect(token.expiresAtMs).toBe(1_700_000_060_500);
});
