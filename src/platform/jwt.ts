// Bearer JWTs checked against an identity provider's JWKS, as Kafka's OAUTHBEARER validator and
// Confluent's REST OAuth handler check them: RS256 or ES256 signatures, exp and nbf with a clock
// skew, the expected issuer and audience, and a principal claim. node:crypto does the cryptography.
import { createPublicKey, verify, type JsonWebKeyInput, type KeyObject } from "node:crypto";
import { logger } from "./log.ts";

const log = logger("jwt");

export interface JwtPolicy {
  jwksUrl: string;
  /** Must equal the token's iss; undefined: any issuer. */
  issuer?: string;
  /** The token's aud must name one of these; empty: any audience. */
  audiences: string[];
  /** The claim naming the principal (Kafka's sasl.oauthbearer.sub.claim.name). */
  subClaim: string;
  /** The claim listing the principal's groups. */
  groupsClaim: string;
  clockSkewSeconds: number;
  /** How long fetched keys are used before the JWKS is fetched again. */
  refreshMs: number;
  /** CAs trusted for an https JWKS URL (else the system's). */
  ca?: string[];
}

export interface VerifiedToken {
  principal: string;
  groups: string[];
}

/** Why a token was refused; the message names the check, never the token. */
export class TokenRejected extends Error {
  override name = "TokenRejected";
}

type Algorithm = "RS256" | "ES256";

interface PublicJwk {
  kid?: string;
  alg?: string;
  key: KeyObject;
  /** Which of our algorithms the key can check. */
  fits: Algorithm;
}

/**
 * A token naming a key the JWKS lacks fetches the JWKS again (the provider rotated its keys), but a
 * kid at most once a minute and all kids together at most UNKNOWN_KID_FETCHES times a minute, so
 * forged tokens cannot turn into a flood of fetches.
 */
const UNKNOWN_KID_WINDOW_MS = 60_000;
const UNKNOWN_KID_FETCHES = 5;
const REMEMBERED_KIDS = 64;
const FETCH_TIMEOUT_MS = 10_000;
/** After a failed refresh, the keys known are used this long before the next try. */
const RETRY_AFTER_FAILURE_MS = 10_000;

const decodePart = (part: string, what: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw new TokenRejected(`the token's ${what} is not a JSON object`);
};

/** The JWK's key if it is an RSA or P-256 signing key; others (encryption keys, other curves) are skipped. */
function publicJwk(jwk: Record<string, unknown>): PublicJwk | undefined {
  if (jwk.use !== undefined && jwk.use !== "sig") return undefined;
  const fits: Algorithm | undefined =
    jwk.kty === "RSA" ? "RS256" : jwk.kty === "EC" && jwk.crv === "P-256" ? "ES256" : undefined;
  if (!fits || (jwk.alg !== undefined && jwk.alg !== fits)) return undefined;
  try {
    const { kid, alg, use: _use, key_ops: _ops, ...material } = jwk;
    return {
      kid: typeof kid === "string" ? kid : undefined,
      alg: typeof alg === "string" ? alg : undefined,
      key: createPublicKey({ key: material, format: "jwk" } as JsonWebKeyInput),
      fits,
    };
  } catch {
    return undefined;
  }
}

const numericClaim = (payload: Record<string, unknown>, name: string): number | undefined => {
  const value = payload[name];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value))
    throw new TokenRejected(`the ${name} claim is not a number`);
  return value;
};

/** A verifier holding the provider's keys: fetched on first use, again after refreshMs, and on an unknown kid (rate-limited). */
export class JwtVerifier {
  private keys: PublicJwk[] = [];
  private fetchedAt = 0;
  /** Unknown kids fetched for, and when; and the times of those fetches in the last window. */
  private unknownKids = new Map<string, number>();
  private unknownKidFetches: number[] = [];
  private fetching: Promise<void> | undefined;

  constructor(
    readonly policy: JwtPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async verify(token: string): Promise<VerifiedToken> {
    const parts = token.split(".");
    if (parts.length !== 3) throw new TokenRejected("not a signed JWT (three dot-separated parts expected)");
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    const header = decodePart(headerPart, "header");
    const alg = header.alg;
    if (alg !== "RS256" && alg !== "ES256")
      throw new TokenRejected(`algorithm ${String(alg)} is not accepted (RS256 or ES256)`);
    const kid = typeof header.kid === "string" ? header.kid : undefined;
    const candidates = await this.keysFor(alg, kid);
    // The kid comes from the caller: shortened, as it reaches the log.
    if (candidates.length === 0)
      throw new TokenRejected(
        kid === undefined ? `the JWKS has no ${alg} key` : `the JWKS has no key ${kid.slice(0, 80)}`,
      );
    const data = Buffer.from(`${headerPart}.${payloadPart}`);
    const signature = Buffer.from(signaturePart, "base64url");
    // JOSE's ECDSA signatures are r||s, not DER.
    const checks = (k: PublicJwk) =>
      verify("sha256", data, alg === "ES256" ? { key: k.key, dsaEncoding: "ieee-p1363" } : k.key, signature);
    if (!candidates.some(checks)) throw new TokenRejected("the signature does not match");
    return this.claims(decodePart(payloadPart, "payload"));
  }

  private claims(payload: Record<string, unknown>): VerifiedToken {
    const { issuer, audiences, subClaim, groupsClaim, clockSkewSeconds } = this.policy;
    const now = this.now() / 1000;
    const exp = numericClaim(payload, "exp");
    if (exp === undefined) throw new TokenRejected("the token has no exp claim");
    if (now - clockSkewSeconds >= exp) throw new TokenRejected("the token has expired");
    const nbf = numericClaim(payload, "nbf");
    if (nbf !== undefined && now + clockSkewSeconds < nbf) throw new TokenRejected("the token is not valid yet (nbf)");
    if (issuer !== undefined && payload.iss !== issuer)
      throw new TokenRejected("the token's issuer is not the expected one");
    if (audiences.length > 0) {
      const aud = payload.aud;
      const given =
        typeof aud === "string"
          ? [aud]
          : Array.isArray(aud)
            ? aud.filter((a): a is string => typeof a === "string")
            : [];
      if (!given.some((a) => audiences.includes(a)))
        throw new TokenRejected("the token's audience is not an expected one");
    }
    const principal = payload[subClaim];
    if (typeof principal !== "string" || principal.trim() === "")
      throw new TokenRejected(`the token has no ${subClaim} claim`);
    const groups = payload[groupsClaim];
    return {
      principal,
      groups:
        typeof groups === "string"
          ? [groups]
          : Array.isArray(groups)
            ? groups.filter((g): g is string => typeof g === "string")
            : [],
    };
  }

  /** The keys that may have signed a token of `alg` (by kid when it names one). */
  private async keysFor(alg: Algorithm, kid: string | undefined): Promise<PublicJwk[]> {
    const matching = () => this.keys.filter((k) => k.fits === alg && (kid === undefined || k.kid === kid));
    const now = this.now();
    let fresh = false;
    if (this.fetchedAt === 0) {
      await this.fetchKeys();
      fresh = true;
    } else if (now - this.fetchedAt >= this.policy.refreshMs) {
      // Stale keys still serve while newer ones come, unless they cannot check this token.
      const refresh = this.fetchKeys();
      if (matching().length === 0) {
        await refresh;
        fresh = true;
      } else refresh.catch(() => undefined);
    }
    if (!fresh && matching().length === 0 && kid !== undefined && this.mayFetchFor(kid, now))
      await this.fetchKeys().catch(() => undefined);
    return matching();
  }

  private mayFetchFor(kid: string, now: number): boolean {
    this.unknownKidFetches = this.unknownKidFetches.filter((t) => now - t < UNKNOWN_KID_WINDOW_MS);
    const last = this.unknownKids.get(kid);
    if (
      (last !== undefined && now - last < UNKNOWN_KID_WINDOW_MS) ||
      this.unknownKidFetches.length >= UNKNOWN_KID_FETCHES
    )
      return false;
    if (this.unknownKids.size >= REMEMBERED_KIDS) this.unknownKids.clear();
    this.unknownKids.set(kid, now);
    this.unknownKidFetches.push(now);
    return true;
  }

  /**
   * One fetch at a time. A failed fetch keeps the keys already known (an outage of the provider locks
   * no one out), tried again after 10 s; with none known, on the next token.
   */
  private fetchKeys(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const response = await fetch(this.policy.jwksUrl, {
          signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
          ...(this.policy.ca ? { tls: { ca: this.policy.ca } } : {}),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = (await response.json()) as { keys?: unknown };
        if (!Array.isArray(body.keys)) throw new Error("no keys array");
        this.keys = body.keys.flatMap((k) =>
          typeof k === "object" && k !== null
            ? [publicJwk(k as Record<string, unknown>)].filter((j): j is PublicJwk => j !== undefined)
            : [],
        );
        this.fetchedAt = this.now();
        log.debug({ url: this.policy.jwksUrl, keys: this.keys.length }, "fetched the JWKS");
      } catch (err) {
        log.warn(
          { url: this.policy.jwksUrl, err: err instanceof Error ? err.message : String(err) },
          "cannot fetch the JWKS",
        );
        if (this.keys.length === 0) throw new TokenRejected("the identity provider's keys cannot be fetched");
        this.fetchedAt = Math.max(this.fetchedAt, this.now() - this.policy.refreshMs + RETRY_AFTER_FAILURE_MS);
      } finally {
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }
}
