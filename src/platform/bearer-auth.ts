// OAuth bearer tokens on the REST APIs, by Confluent Platform's server-side OAuth settings (7.7+):
// `rest.servlet.initializor.classes` naming its OAuth handler turns it on, `oauthbearer.*` say which
// tokens are good. The registry and a worker take the same names, as Confluent's Connect does.
import { logger } from "./log.ts";
import { pathMatches, type Refusal, type RequestGuard } from "./basic-auth.ts";
import { type JwtVerifier, TokenRejected, type JwtPolicy } from "./jwt.ts";
import { ConfigError, type ParsedSettings, type Setting } from "./settings.ts";
import { clientTls } from "./tls.ts";

const log = logger("bearer-auth");

/** Confluent's handlers that validate IdP tokens: 7.7's, and 8.x's multi-protocol one (as cp-ansible sets it). */
const OAUTH_HANDLERS = [
  "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
  "io.confluent.common.security.jetty.initializer.AuthenticationHandler",
];

export const oauthSettings: Setting[] = [
  {
    name: "rest.servlet.initializor.classes",
    type: "list",
    default: [],
    importance: "low",
    doc: `Confluent's servlet initializers; \`${OAUTH_HANDLERS[0]}\` (or 8.x's \`${OAUTH_HANDLERS[1]}\`) turns on OAuth: requests need an \`Authorization: Bearer\` JWT checked against oauthbearer.jwks.endpoint.url. With Basic authentication on too, either credential is taken.`,
  },
  {
    name: "oauthbearer.jwks.endpoint.url",
    type: "string",
    default: "",
    importance: "medium",
    doc: "The identity provider's JWKS (RS256 and P-256 ES256 keys); required with OAuth. An https URL is checked against ssl.truststore.location when set.",
  },
  {
    name: "oauthbearer.expected.issuer",
    type: "string",
    default: "",
    importance: "medium",
    doc: "The iss a token must carry; empty: any.",
  },
  {
    name: "oauthbearer.expected.audience",
    type: "list",
    default: [],
    importance: "medium",
    doc: "Audiences of which a token's aud must name one; empty: any.",
  },
  {
    name: "oauthbearer.sub.claim.name",
    type: "string",
    default: "sub",
    importance: "low",
    doc: "The claim naming a token's principal (the user permissions are granted to).",
  },
  {
    name: "oauthbearer.groups.claim.name",
    type: "string",
    default: "groups",
    importance: "low",
    doc: "The claim listing a token's groups (a list, or one string).",
  },
  {
    name: "oauthbearer.jwks.endpoint.refresh.ms",
    type: "long",
    default: 3600000,
    min: 1000,
    importance: "low",
    doc: "How long the JWKS keys are used before they are fetched again. A token signed by a key not among them fetches them at once (each key id at most once a minute, at most 5 such fetches a minute).",
  },
  {
    name: "oauthbearer.clock.skew.seconds",
    type: "int",
    default: 30,
    min: 0,
    importance: "low",
    doc: "How far the provider's clock may be from this one when exp and nbf are checked.",
  },
];

/** The token policy of the OAuth settings; undefined when OAuth is off. */
export function oauthPolicy(settings: ParsedSettings): JwtPolicy | undefined {
  const handlers = settings.list("rest.servlet.initializor.classes");
  const unknown = handlers.filter((c) => !OAUTH_HANDLERS.includes(c));
  if (unknown.length > 0)
    throw new ConfigError(
      "rest.servlet.initializor.classes",
      unknown.join(","),
      `the only initializers are ${OAUTH_HANDLERS.join(" and ")}`,
    );
  if (handlers.length === 0) return undefined;
  const jwksUrl = settings.optionalString("oauthbearer.jwks.endpoint.url");
  if (!jwksUrl || !/^https?:\/\//i.test(jwksUrl))
    throw new ConfigError(
      "oauthbearer.jwks.endpoint.url",
      jwksUrl ?? "",
      "OAuth needs the identity provider's JWKS URL (http:// or https://)",
    );
  const truststore = settings.optionalString("ssl.truststore.location");
  const ca = truststore
    ? clientTls({
        "ssl.truststore.location": truststore,
        "ssl.truststore.type": settings.string("ssl.truststore.type"),
        "ssl.truststore.password": settings.string("ssl.truststore.password"),
      }).ca
    : undefined;
  return {
    jwksUrl,
    issuer: settings.optionalString("oauthbearer.expected.issuer"),
    audiences: settings.list("oauthbearer.expected.audience"),
    subClaim: settings.string("oauthbearer.sub.claim.name"),
    groupsClaim: settings.string("oauthbearer.groups.claim.name"),
    clockSkewSeconds: settings.int("oauthbearer.clock.skew.seconds"),
    refreshMs: settings.int("oauthbearer.jwks.endpoint.refresh.ms"),
    ...(ca ? { ca } : {}),
  };
}

export interface BearerAuthOptions {
  verifier: JwtVerifier;
  realm: string;
  /** Groups of which a token needs one; `*` or `**`: any valid token (as authentication.roles for users). */
  roles: string[];
  skipPaths: string[];
  refuse: Refusal;
  /** Told of each request let through: by whom and in which groups, or undefined on a skip path. */
  admitted?: (request: Request, user: string | undefined, groups: string[]) => void;
  /**
   * The guard of requests without a bearer token (Basic authentication enabled beside OAuth); its
   * 401s also name the Bearer scheme. Without it, such requests get 401.
   */
  otherwise?: RequestGuard;
}

const BEARER = /^bearer\s+(\S+)\s*$/i;

/** The guard taking `Authorization: Bearer` JWTs; the token never reaches a log. */
export function bearerAuthGuard(options: BearerAuthOptions): RequestGuard {
  const realm = options.realm.replace(/["\\]/g, "");
  const challenge = `Bearer realm="${realm}"`;
  const anyGroup = options.roles.length === 1 && (options.roles[0] === "*" || options.roles[0] === "**");
  const withChallenge = (response: Response): Response => {
    response.headers.append("www-authenticate", challenge);
    return response;
  };
  return async (request) => {
    const path = new URL(request.url).pathname;
    const token = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
    if (token === undefined || options.skipPaths.some((spec) => pathMatches(spec, path))) {
      if (options.otherwise) {
        const refused = await options.otherwise(request);
        return refused?.status === 401 ? withChallenge(refused) : refused;
      }
      if (options.skipPaths.some((spec) => pathMatches(spec, path))) {
        options.admitted?.(request, undefined, []);
        return undefined;
      }
      return options.refuse(request, 401, { "www-authenticate": challenge });
    }
    let verified;
    try {
      verified = await options.verifier.verify(token);
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err;
      log.debug({ method: request.method, path, reason: err.message }, "bearer token refused");
      // Confluent's handler writes it so (RFC 6750's error, no space after the comma).
      return options.refuse(request, 401, { "www-authenticate": `${challenge},error="invalid_token"` });
    }
    if (!anyGroup && !verified.groups.some((g) => options.roles.includes(g))) return options.refuse(request, 403, {});
    options.admitted?.(request, verified.principal, verified.groups);
    return undefined;
  };
}
