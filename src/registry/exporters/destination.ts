// The destination registry of an exporter, reached over its REST API with Confluent's client settings
// (the exporter's `config`): schema.registry.url (several: fail-over), basic.auth.* (USER_INFO, or URL
// user info), bearer.auth.* (STATIC_TOKEN, or OAUTHBEARER's client_credentials grant) and
// schema.registry.ssl.* (trust store, client key store).
import { tokenLogin, type TokenLogin } from "../../broker/login.ts";
import { clientTls } from "../../platform/tls.ts";

const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
const TIMEOUT_MS = 30_000;

/** A destination's error answer, or that it could not be reached (status 0). */
export class DestinationError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly errorCode: number,
  ) {
    super(message);
    this.name = "DestinationError";
  }
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

export class DestinationRegistry {
  private readonly urls: string[];
  private readonly basic?: string;
  private readonly login?: TokenLogin;
  private readonly staticToken?: string;
  private readonly tls?: { ca?: string[]; cert?: string; key?: string; checkServerIdentity?: () => undefined };

  constructor(config: Record<string, string>) {
    const parsed = (config["schema.registry.url"] ?? "")
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean)
      .map((u) => new URL(u));
    this.urls = parsed.map((u) => `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`);
    const fromUrl = parsed.find((u) => u.username);
    const userInfo =
      config["basic.auth.credentials.source"] === "USER_INFO"
        ? config["basic.auth.user.info"]
        : fromUrl
          ? `${decodeURIComponent(fromUrl.username)}:${decodeURIComponent(fromUrl.password)}`
          : undefined;
    if (userInfo) this.basic = `Basic ${Buffer.from(userInfo).toString("base64")}`;
    if (config["bearer.auth.credentials.source"] === "STATIC_TOKEN") this.staticToken = config["bearer.auth.token"];
    if (config["bearer.auth.credentials.source"] === "OAUTHBEARER")
      this.login = tokenLogin({
        kind: "client-credentials",
        prefix: "bearer.auth.",
        tokenUrl: config["bearer.auth.issuer.endpoint.url"]!,
        clientId: config["bearer.auth.client.id"]!,
        clientSecret: config["bearer.auth.client.secret"]!,
        ...(config["bearer.auth.scope"] ? { scope: config["bearer.auth.scope"] } : {}),
        urlencodeHeader: false,
        retryBackoffMs: 100,
        retryBackoffMaxMs: 10_000,
        subClaim: config["bearer.auth.sub.claim.name"] ?? "sub",
        refresh: { windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300 },
      });
    const ssl = clientTls(config, "schema.registry.");
    if (ssl.ca || ssl.cert)
      this.tls = {
        ca: ssl.ca,
        cert: ssl.cert,
        key: ssl.key,
        ...(ssl.checkHostname ? {} : { checkServerIdentity: () => undefined }),
      };
  }

  /** Where the exporter writes, for messages (no user info). */
  get where(): string {
    return this.urls.join(",");
  }

  /** The answer of the first URL that answers; 4xx answers are returned, 5xx and unreachable ones tried on the next. */
  async call<T = unknown>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer<T>> {
    const authorization = this.login
      ? `Bearer ${await this.login.token()}`
      : this.staticToken
        ? `Bearer ${this.staticToken}`
        : this.basic;
    let last: DestinationError | undefined;
    for (const base of this.urls) {
      let res: Response;
      try {
        res = await fetch(base + path, {
          method,
          headers: {
            accept: CONTENT_TYPE,
            "content-type": CONTENT_TYPE,
            ...(authorization ? { authorization } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS),
          ...(this.tls ? { tls: this.tls } : {}),
        });
      } catch (err) {
        last = new DestinationError(
          `destination registry ${base} unreachable: ${err instanceof Error ? err.message : String(err)}`,
          0,
          0,
        );
        continue;
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: kept as text
      }
      if (res.status < 500) return { status: res.status, body: parsed as T };
      last = failure(method, path, res.status, parsed);
    }
    throw last ?? new DestinationError("no destination schema.registry.url", 0, 0);
  }

  /** `call`, with any answer but 2xx (and the codes in `allowed`) thrown as a DestinationError. */
  async expect<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    allowed: number[] = [],
    signal?: AbortSignal,
  ): Promise<Answer<T>> {
    const answer = await this.call<T>(method, path, body, signal);
    const code = errorCode(answer.body);
    if (answer.status >= 300 && !allowed.includes(code ?? answer.status))
      throw failure(method, path, answer.status, answer.body);
    return answer;
  }
}

export function errorCode(body: unknown): number | undefined {
  const code = (body as { error_code?: unknown } | undefined)?.error_code;
  return typeof code === "number" ? code : undefined;
}

function failure(method: string, path: string, status: number, body: unknown): DestinationError {
  const message = (body as { message?: unknown } | undefined)?.message;
  return new DestinationError(
    `${method} ${path} on the destination answered ${status}${typeof message === "string" ? `: ${message}` : ""}`,
    status,
    errorCode(body) ?? status,
  );
}
