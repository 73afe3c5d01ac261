// SASL/OAUTHBEARER logins: the token a Kafka connection presents, fetched when first needed and
// replaced once past its refresh time (Kafka's sasl.login.refresh.* schedule), so that a connection
// that re-authenticates (KIP-368, when the broker's session ends) presents a fresh one. One login per
// distinct configuration in a process: the registry's, the worker's and its internal clients share it.
import { readFile } from "node:fs/promises";
import type {
  ClientCredentialsLogin,
  FileTokenLogin,
  OAuthLogin,
  TokenRefresh,
  UnsecuredLogin,
} from "./client-security.ts";
import { mskIamToken } from "./msk-iam.ts";
import { LoginError, type ExpiringToken } from "./token.ts";
import { logger } from "../platform/log.ts";

export { LoginError, type ExpiringToken };

const log = logger("kafka-login");

/** The token of one login, shared by every connection that authenticates with it. */
export class TokenLogin {
  private current?: ExpiringToken;
  private refreshAtMs = 0;
  private pending?: Promise<ExpiringToken>;

  constructor(
    private readonly retrieve: () => Promise<ExpiringToken>,
    private readonly refresh: TokenRefresh,
    private readonly what: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The token to present: the current one until its refresh time, then a new one. A refresh that fails
   * while the current token is still valid keeps it (and is tried again on the next call).
   */
  async token(): Promise<string> {
    const now = this.now();
    if (this.current && now < this.refreshAtMs) return this.current.value;
    try {
      return (await this.renew()).value;
    } catch (err) {
      if (this.current && this.now() < this.current.expiresAtMs) {
        log.warn(
          { login: this.what, err: (err as Error).message },
          "could not refresh the Kafka login token; the current one is still valid",
        );
        return this.current.value;
      }
      throw err;
    }
  }

  private renew(): Promise<ExpiringToken> {
    this.pending ??= this.retrieve()
      .then((token) => {
        this.current = token;
        this.refreshAtMs = refreshTime(this.now(), token.expiresAtMs, this.refresh);
        log.debug(
          {
            login: this.what,
            expiresAt: new Date(token.expiresAtMs).toISOString(),
            refreshAt: new Date(this.refreshAtMs).toISOString(),
          },
          "new Kafka login token",
        );
        return token;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}

/**
 * When to replace a token that expires at `expiresAtMs`, as Kafka's refreshing login decides: at the
 * window factor of its remaining life plus up to the jitter, but not sooner than the minimum period nor
 * later than the buffer before expiry; a token too short-lived for both is replaced half-way.
 */
export function refreshTime(
  nowMs: number,
  expiresAtMs: number,
  refresh: TokenRefresh,
  random: () => number = Math.random,
): number {
  const remaining = expiresAtMs - nowMs;
  if (remaining <= 0) return nowMs;
  if (1000 * (refresh.minPeriodSeconds + refresh.bufferSeconds) > remaining) return nowMs + Math.floor(remaining / 2);
  let at = nowMs + Math.floor(remaining * (refresh.windowFactor + refresh.windowJitter * random()));
  at = Math.max(at, nowMs + 1000 * refresh.minPeriodSeconds);
  return Math.min(at, expiresAtMs - 1000 * refresh.bufferSeconds);
}

const logins = new Map<string, TokenLogin>();

/** The process's login for this configuration. */
export function tokenLogin(login: OAuthLogin): TokenLogin {
  const key = JSON.stringify(login);
  let found = logins.get(key);
  if (!found) {
    const where =
      login.kind === "aws-msk-iam"
        ? "Amazon MSK IAM"
        : login.kind === "file"
          ? `token file ${login.path}`
          : login.kind === "unsecured"
            ? "unsecured login"
            : `token endpoint ${login.tokenUrl}`;
    const retrieve =
      login.kind === "client-credentials"
        ? () => clientCredentialsToken(login)
        : login.kind === "file"
          ? () => fileToken(login)
          : login.kind === "unsecured"
            ? async () => unsecuredToken(login)
            : () => mskIamToken(login);
    logins.set(key, (found = new TokenLogin(retrieve, login.refresh, where)));
  }
  return found;
}

/** The client_credentials grant (RFC 6749 4.4) as Kafka's ClientCredentialsJwtRetriever sends it, with its retries. */
async function clientCredentialsToken(login: ClientCredentialsLogin): Promise<ExpiringToken> {
  const encode = (s: string) => (login.urlencodeHeader ? encodeURIComponent(s) : s);
  const headers = {
    accept: "application/json",
    authorization: `Basic ${Buffer.from(`${encode(login.clientId)}:${encode(login.clientSecret)}`).toString("base64")}`,
    "cache-control": "no-cache",
    "content-type": "application/x-www-form-urlencoded",
  };
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    ...(login.scope ? { scope: login.scope } : {}),
  }).toString();
  const tls = login.tls
    ? {
        tls: {
          ca: login.tls.ca,
          cert: login.tls.cert,
          key: login.tls.key,
          ...(login.tls.checkHostname ? {} : { checkServerIdentity: () => undefined }),
        },
      }
    : {};
  // fetch has one deadline for a request: the connect and read timeouts together (10 s and 30 s unset).
  const timeoutMs = (login.connectTimeoutMs ?? 10000) + (login.readTimeoutMs ?? 30000);
  const end = Date.now() + login.retryBackoffMaxMs;
  for (let attempt = 1; ; attempt++) {
    let failure: LoginError;
    try {
      const response = await fetch(login.tokenUrl, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
        ...tls,
      });
      const text = await response.text();
      if (response.ok)
        return checkedJwt(accessToken(text, login.tokenUrl), login.subClaim, `the token from ${login.tokenUrl}`);
      failure = new LoginError(
        `the OAuth token endpoint ${login.tokenUrl} answered ${response.status}${oauthError(text)}${response.status === 401 || response.status === 400 ? ` (check the client id and secret: ${login.prefix}sasl.oauthbearer.client.credentials.client.id/.secret or the JAAS clientId/clientSecret)` : ""}`,
      );
      // As Kafka: a 4xx answer will not change by asking again.
      if (response.status >= 400 && response.status < 500) throw failure;
    } catch (err) {
      if (err instanceof LoginError) throw err;
      failure = new LoginError(
        `could not reach the OAuth token endpoint ${login.tokenUrl}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const waitMs = Math.min(login.retryBackoffMs * 2 ** (attempt - 1), end - Date.now());
    if (waitMs <= 0) throw failure;
    log.warn(
      { tokenUrl: login.tokenUrl, attempt, retryInMs: waitMs, err: failure.message },
      "OAuth token request failed; retrying",
    );
    await Bun.sleep(waitMs); // back-off between attempts, as sasl.login.retry.backoff.ms says
  }
}

/**
 * An OAuth error answer's error and error_description (RFC 6749 5.2), and nothing else of the body: the
 * message reaches task traces over REST, and a URL that is no token endpoint must not be read through it.
 */
function oauthError(body: string): string {
  try {
    const { error, error_description: description } = JSON.parse(body) as {
      error?: unknown;
      error_description?: unknown;
    };
    if (typeof error !== "string") return "";
    return `: ${error}${typeof description === "string" ? ` (${description.slice(0, 200)})` : ""}`;
  } catch {
    return "";
  }
}

function accessToken(body: string, url: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new LoginError(`the OAuth token endpoint ${url} did not answer JSON`);
  }
  const token = (parsed as { access_token?: unknown } | null)?.access_token;
  if (typeof token !== "string" || !token.trim())
    throw new LoginError(`the OAuth token endpoint ${url} answered no access_token`);
  return token.trim();
}

/** A token from a file (Kafka's FileJwtRetriever): read again at each refresh. */
async function fileToken(login: FileTokenLogin): Promise<ExpiringToken> {
  let text: string;
  try {
    text = await readFile(login.path, "utf8");
  } catch (err) {
    throw new LoginError(
      `cannot read the token file ${login.path} (${login.prefix}sasl.oauthbearer.token.endpoint.url): ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  return checkedJwt(text.trim(), login.subClaim, `the token in ${login.path}`);
}

/** An unsigned JWT (alg none) as Kafka's unsecured login makes one: its claims, iat now, exp a lifetime later. */
export function unsecuredToken(login: UnsecuredLogin, nowMs = Date.now()): ExpiringToken {
  const iat = nowMs / 1000;
  const claims = { ...login.claims, iat, exp: iat + login.lifetimeSeconds };
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return { value: `${part({ alg: "none" })}.${part(claims)}.`, expiresAtMs: nowMs + login.lifetimeSeconds * 1000 };
}

/** What Kafka's client checks of a JWT before using it: three parts, an exp, a subject; exp gives its lifetime. */
export function checkedJwt(token: string, subClaim: string, what: string): ExpiringToken {
  const parts = token.split(".");
  if (parts.length !== 3) throw new LoginError(`${what} is not a JWT (three dot-separated parts)`);
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new LoginError(`${what} is not a JWT: its payload is not JSON`);
  }
  if (typeof claims.exp !== "number") throw new LoginError(`${what} has no exp claim`);
  const subject = claims[subClaim];
  if (typeof subject !== "string" || !subject.trim())
    throw new LoginError(`${what} has no ${subClaim} claim (sasl.oauthbearer.sub.claim.name)`);
  return { value: token, expiresAtMs: claims.exp * 1000 };
}
