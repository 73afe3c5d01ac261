// Kafka client security settings by Kafka's names (security.protocol, sasl.*, ssl.*), read once for
// every Kafka client: the registry's under `kafkastore.`, a connect worker's at its top level. The
// result is plain data (it travels to task threads); the OAuth logins it describes run in login.ts.
import { systemProperty } from "../jvm/system-properties.ts";
import { ConfigError } from "../platform/settings.ts";
import type { AwsCredentials } from "../platform/aws-sigv4.ts";
import { clientTls, type ClientTls } from "../platform/tls.ts";

export interface ClientSecurity {
  ssl?: ClientTls;
  sasl?: PasswordSasl | OAuthSasl;
}

export interface PasswordSasl {
  mechanism: "plain" | "scram-sha-256" | "scram-sha-512";
  username: string;
  password: string;
}

/** SASL/OAUTHBEARER: the token comes from a login that is refreshed before it expires. */
export interface OAuthSasl {
  mechanism: "oauthbearer";
  login: OAuthLogin;
  /** SASL extensions sent with the token (JAAS options extension_<name>, e.g. Confluent Cloud's logicalCluster). */
  extensions?: Record<string, string>;
}

export type OAuthLogin = ClientCredentialsLogin | FileTokenLogin | MskIamLogin | UnsecuredLogin;

/** When a token is replaced (Kafka's sasl.login.refresh.*), as fractions of its lifetime and seconds. */
export interface TokenRefresh {
  windowFactor: number;
  windowJitter: number;
  minPeriodSeconds: number;
  bufferSeconds: number;
}

/** Kafka's OAuthBearerLoginCallbackHandler with its client_credentials retriever. */
export interface ClientCredentialsLogin {
  kind: "client-credentials";
  /** Where the settings came from, for messages: `kafkastore.`, `` … */
  prefix: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  /** sasl.oauthbearer.header.urlencode: the id and secret URL-encoded in the Basic header (RFC 6749). */
  urlencodeHeader: boolean;
  /** TLS to an https token endpoint, from the JAAS options' ssl.* (as Kafka reads them); else the system CAs. */
  tls?: ClientTls;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  /** sasl.oauthbearer.sub.claim.name: the claim a token must carry, as Kafka's client checks it. */
  subClaim: string;
  refresh: TokenRefresh;
}

/** Kafka's FileJwtRetriever (a file: token endpoint URL): a JWT another process keeps fresh in a file. */
export interface FileTokenLogin {
  kind: "file";
  prefix: string;
  path: string;
  subClaim: string;
  refresh: TokenRefresh;
}

/**
 * Kafka's default OAUTHBEARER login (OAuthBearerUnsecuredLoginCallbackHandler, no handler set): an
 * unsigned JWT (alg none) with the claims of the JAAS options, for development brokers that accept them.
 */
export interface UnsecuredLogin {
  kind: "unsecured";
  prefix: string;
  claims: Record<string, string | number | string[]>;
  principalClaim: string;
  lifetimeSeconds: number;
  refresh: TokenRefresh;
}

/** Amazon MSK's IAMOAuthBearerLoginCallbackHandler: SigV4-presigned URLs from the AWS credentials. */
export interface MskIamLogin {
  kind: "aws-msk-iam";
  prefix: string;
  /** The JAAS option awsProfileName: tried first, then the role, then AWS's default sources. */
  profile?: string;
  /** The JAAS options awsRoleArn, awsRoleSessionName, awsRoleExternalId, awsStsRegion, awsRole*Key*: a role assumed through STS. */
  role?: AssumedRole;
  refresh: TokenRefresh;
}

export interface AssumedRole {
  arn: string;
  sessionName: string;
  externalId?: string;
  /** `aws-global` (sts.amazonaws.com) unless awsStsRegion names one. */
  stsRegion: string;
  /** awsRoleAccessKeyId/awsRoleSecretAccessKey/awsRoleSessionToken; else AWS's default sources. */
  credentials?: AwsCredentials;
}

const PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"];
const PASSWORD_MECHANISMS: Record<string, PasswordSasl["mechanism"]> = {
  PLAIN: "plain",
  "SCRAM-SHA-256": "scram-sha-256",
  "SCRAM-SHA-512": "scram-sha-512",
};
const MECHANISMS = [...Object.keys(PASSWORD_MECHANISMS), "OAUTHBEARER"];

const OAUTH_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
/** Kafka's login handler (3.4+ name) and the name it had in 3.1–3.3. */
const KAFKA_OAUTH_HANDLERS = [
  "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
  "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
];
const MSK_IAM_HANDLER = "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler";
const UNSECURED_HANDLER =
  "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredLoginCallbackHandler";
const RETRIEVERS = "org.apache.kafka.common.security.oauthbearer.";

/** Kafka's client security settings: what a prefix (`producer.`, `producer.override.`) may set for a client. */
function isSecuritySetting(name: string): boolean {
  return name === "security.protocol" || name.startsWith("sasl.") || name.startsWith("ssl.");
}

/**
 * The security settings of `props` (under no prefix), overridden by those under each of `prefixes`, as
 * a Connect worker's clients take its `producer.`/`consumer.` settings and a connector's clients its
 * `producer.override.` ones. Prefixes that disagree on a setting are refused: Sluice's tasks have one
 * Kafka client, for producing and consuming alike.
 */
export function overriddenSecurity(
  props: Record<string, string>,
  overrides: Record<string, string>,
  prefixes: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(props)) if (isSecuritySetting(name)) out[name] = value;
  const given = new Map<string, { prefix: string; value: string }>();
  for (const prefix of prefixes) {
    for (const [key, value] of Object.entries(overrides)) {
      if (!key.startsWith(prefix) || !isSecuritySetting(key.slice(prefix.length))) continue;
      const name = key.slice(prefix.length);
      const earlier = given.get(name);
      if (earlier && earlier.value !== value) {
        throw new ConfigError(
          key,
          isSecret(name) ? "(not shown: it holds a secret)" : value,
          `differs from ${earlier.prefix}${name}; Sluice's tasks have one Kafka client for producing and consuming, which needs one value`,
        );
      }
      given.set(name, { prefix, value });
      out[name] = value;
    }
  }
  return out;
}

/** Whether any security setting is given under one of the prefixes. */
export function hasSecurityOverride(overrides: Record<string, string>, prefixes: string[]): boolean {
  return Object.keys(overrides).some((key) =>
    prefixes.some((p) => key.startsWith(p) && isSecuritySetting(key.slice(p.length))),
  );
}

/**
 * Where a login gets its tokens is the worker's to say: a connector (created over REST) that could point
 * its clients' login at any URL, file or handler would make the worker fetch or read it for the connector.
 */
export const LOGIN_SOURCE_SETTINGS = [
  "sasl.oauthbearer.token.endpoint.url",
  "sasl.login.callback.handler.class",
  "sasl.oauthbearer.jwt.retriever.class",
  "sasl.login.class",
];

/** Kafka 4's allow-list of token endpoints (empty by default), a JVM system property. */
export const ALLOWED_TOKEN_URLS_PROPERTY = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

/**
 * Why a connector's own Kafka client may not be given `name` = `value`, or undefined when it may: a token
 * endpoint listed in ALLOWED_TOKEN_URLS_PROPERTY (in KAFKA_OPTS, as Kafka 4's clients read it) is allowed.
 */
export function connectorLoginRefusal(name: string, value: string, env = process.env): string | undefined {
  if (!LOGIN_SOURCE_SETTINGS.includes(name)) return undefined;
  // Kafka's own OAuth login reads only the token endpoint, which is judged on its own.
  if (name === "sasl.login.callback.handler.class" && KAFKA_OAUTH_HANDLERS.includes(value)) return undefined;
  const allowed = (systemProperty(ALLOWED_TOKEN_URLS_PROPERTY, env) ?? "")
    .split(",")
    .map((url) => url.trim())
    .filter(Boolean);
  if (name === "sasl.oauthbearer.token.endpoint.url") {
    if (allowed.includes(value)) return undefined;
    return `a connector's Kafka login may use only the token endpoints the worker allows, and ${value} is not one (list it as -D${ALLOWED_TOKEN_URLS_PROPERTY}=… in the worker's KAFKA_OPTS, as Kafka 4 requires)`;
  }
  return `a connector may not choose how its Kafka logins get their tokens (${name}): that is the worker's (set it in the worker's config; a connector may name a token endpoint the worker allows in -D${ALLOWED_TOKEN_URLS_PROPERTY}=…)`;
}

function isSecret(name: string): boolean {
  return (
    name === "sasl.jaas.config" ||
    name.endsWith(".password") ||
    name.endsWith("client.secret") ||
    name === "ssl.keystore.key"
  );
}

/** The security of a client from its settings; undefined for PLAINTEXT. */
export function clientSecurity(props: Record<string, string>, prefix = ""): ClientSecurity | undefined {
  const get = (name: string) => props[prefix + name]?.trim() || undefined;
  const protocol = (get("security.protocol") ?? "PLAINTEXT").toUpperCase();
  if (!PROTOCOLS.includes(protocol))
    throw new ConfigError(`${prefix}security.protocol`, protocol, PROTOCOLS.join(", "));
  const out: ClientSecurity = {};
  if (protocol.startsWith("SASL_")) out.sasl = saslOf(props, prefix);
  if (protocol === "SSL" || protocol === "SASL_SSL") out.ssl = clientTls(props, prefix);
  return out.ssl || out.sasl ? out : undefined;
}

function saslOf(props: Record<string, string>, prefix: string): PasswordSasl | OAuthSasl {
  const get = (name: string) => props[prefix + name]?.trim() || undefined;
  const given = get("sasl.mechanism");
  const mechanism = (given ?? "GSSAPI").toUpperCase();
  if (mechanism === "GSSAPI") {
    const unset = given ? "" : " (Kafka's default when sasl.mechanism is not set)";
    throw new ConfigError(
      `${prefix}sasl.mechanism`,
      mechanism,
      `GSSAPI${unset} is Kerberos, which Sluice does not support; set ${prefix}sasl.mechanism to one of ${MECHANISMS.join(", ")}`,
    );
  }
  if (mechanism === "AWS_MSK_IAM") {
    throw new ConfigError(
      `${prefix}sasl.mechanism`,
      mechanism,
      `Amazon MSK's own mechanism is not supported; MSK takes IAM over OAUTHBEARER: sasl.mechanism=OAUTHBEARER with sasl.login.callback.handler.class=${MSK_IAM_HANDLER}`,
    );
  }
  if (mechanism === "OAUTHBEARER") {
    const login = oauthLogin(props, prefix);
    const extensions =
      login.kind === "aws-msk-iam"
        ? {}
        : saslExtensions(
            jaasOptions(get("sasl.jaas.config")!),
            login.kind === "unsecured" ? "unsecuredLoginExtension_" : "extension_",
            prefix,
          );
    return { mechanism: "oauthbearer", login, ...(Object.keys(extensions).length > 0 ? { extensions } : {}) };
  }
  if (!PASSWORD_MECHANISMS[mechanism])
    throw new ConfigError(`${prefix}sasl.mechanism`, mechanism, MECHANISMS.join(", "));
  const jaas = get("sasl.jaas.config");
  if (!jaas) throw new ConfigError(`${prefix}sasl.jaas.config`, "", 'a login module with username="…" password="…"');
  const [username, password] = [jaasOption(jaas, "username"), jaasOption(jaas, "password")];
  if (username === undefined || password === undefined)
    throw new ConfigError(
      `${prefix}sasl.jaas.config`,
      "(not shown: it holds a password)",
      'username="…" and password="…" options',
    );
  return { mechanism: PASSWORD_MECHANISMS[mechanism]!, username, password };
}

function oauthLogin(props: Record<string, string>, prefix: string): OAuthLogin {
  const get = (name: string) => props[prefix + name]?.trim() || undefined;
  const jaas = get("sasl.jaas.config");
  const module = jaas?.split(/\s/)[0];
  if (!jaas || module !== OAUTH_MODULE) {
    throw new ConfigError(
      `${prefix}sasl.jaas.config`,
      module ?? "",
      `OAUTHBEARER needs the login module ${OAUTH_MODULE} required …;`,
    );
  }
  const options = jaasOptions(jaas);
  const refresh = tokenRefresh(props, prefix);
  const handler = get("sasl.login.callback.handler.class");
  if (handler === MSK_IAM_HANDLER) {
    return {
      kind: "aws-msk-iam",
      prefix,
      ...(options.awsProfileName ? { profile: options.awsProfileName } : {}),
      ...mskRole(options, prefix),
      refresh,
    };
  }
  if (handler === undefined || handler === UNSECURED_HANDLER) return unsecuredLogin(options, prefix, refresh);
  if (!KAFKA_OAUTH_HANDLERS.includes(handler)) {
    throw new ConfigError(
      `${prefix}sasl.login.callback.handler.class`,
      handler,
      `Sluice runs no Java classes; it has ${KAFKA_OAUTH_HANDLERS[0]} (client credentials or a token file) and ${MSK_IAM_HANDLER}`,
    );
  }
  const tokenUrl = get("sasl.oauthbearer.token.endpoint.url");
  if (!tokenUrl)
    throw new ConfigError(
      `${prefix}sasl.oauthbearer.token.endpoint.url`,
      "",
      "the OAuth provider's token endpoint (https://…), or file:… naming a file that holds a token",
    );
  let url: URL;
  try {
    url = new URL(tokenUrl);
  } catch {
    throw new ConfigError(`${prefix}sasl.oauthbearer.token.endpoint.url`, tokenUrl, "an http(s): or file: URL");
  }
  const retriever = get("sasl.oauthbearer.jwt.retriever.class") ?? `${RETRIEVERS}DefaultJwtRetriever`;
  const isFile = url.protocol === "file:";
  const wanted =
    retriever === `${RETRIEVERS}DefaultJwtRetriever`
      ? isFile
        ? "file"
        : "client-credentials"
      : retriever === `${RETRIEVERS}ClientCredentialsJwtRetriever`
        ? "client-credentials"
        : retriever === `${RETRIEVERS}FileJwtRetriever`
          ? "file"
          : undefined;
  if (!wanted) {
    throw new ConfigError(
      `${prefix}sasl.oauthbearer.jwt.retriever.class`,
      retriever,
      `Sluice has ${RETRIEVERS}DefaultJwtRetriever, ClientCredentialsJwtRetriever and FileJwtRetriever (the JWT bearer grant is not supported)`,
    );
  }
  const subClaim = get("sasl.oauthbearer.sub.claim.name") ?? "sub";
  if (wanted === "file") {
    if (!isFile)
      throw new ConfigError(
        `${prefix}sasl.oauthbearer.token.endpoint.url`,
        tokenUrl,
        "FileJwtRetriever reads a file: URL",
      );
    return { kind: "file", prefix, path: decodeURIComponent(url.pathname), subClaim, refresh };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new ConfigError(
      `${prefix}sasl.oauthbearer.token.endpoint.url`,
      tokenUrl,
      "an http(s): URL for the client credentials grant",
    );
  // KIP-1139 (Kafka 4.1): settings of their own, which win over the JAAS options of older Kafkas.
  const settingOrJaas = (setting: string, option: string) => (get(setting) ?? options[option]?.trim()) || undefined;
  const clientId = settingOrJaas("sasl.oauthbearer.client.credentials.client.id", "clientId");
  if (!clientId)
    throw new ConfigError(
      `${prefix}sasl.oauthbearer.client.credentials.client.id`,
      "",
      `the OAuth client's id (or the JAAS option clientId="…" in ${prefix}sasl.jaas.config)`,
    );
  const clientSecret = settingOrJaas("sasl.oauthbearer.client.credentials.client.secret", "clientSecret");
  if (!clientSecret)
    throw new ConfigError(
      `${prefix}sasl.oauthbearer.client.credentials.client.secret`,
      "",
      `the OAuth client's secret (or the JAAS option clientSecret="…" in ${prefix}sasl.jaas.config)`,
    );
  const scope = settingOrJaas("sasl.oauthbearer.scope", "scope");
  const tlsOptions = Object.fromEntries(Object.entries(options).filter(([name]) => name.startsWith("ssl.")));
  const tls =
    url.protocol === "https:" && Object.keys(tlsOptions).length > 0
      ? clientTls(
          Object.fromEntries(Object.entries(tlsOptions).map(([k, v]) => [`${prefix}sasl.jaas.config option ${k}`, v])),
          `${prefix}sasl.jaas.config option `,
        )
      : undefined;
  const connectTimeoutMs = optionalNumber(props, prefix, "sasl.login.connect.timeout.ms", 0, Number.MAX_SAFE_INTEGER);
  const readTimeoutMs = optionalNumber(props, prefix, "sasl.login.read.timeout.ms", 0, Number.MAX_SAFE_INTEGER);
  return {
    kind: "client-credentials",
    prefix,
    tokenUrl,
    clientId,
    clientSecret,
    ...(scope ? { scope } : {}),
    urlencodeHeader: booleanSetting(props, prefix, "sasl.oauthbearer.header.urlencode", false),
    ...(tls ? { tls } : {}),
    ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}),
    ...(readTimeoutMs !== undefined ? { readTimeoutMs } : {}),
    retryBackoffMs: optionalNumber(props, prefix, "sasl.login.retry.backoff.ms", 0, Number.MAX_SAFE_INTEGER) ?? 100,
    retryBackoffMaxMs:
      optionalNumber(props, prefix, "sasl.login.retry.backoff.max.ms", 0, Number.MAX_SAFE_INTEGER) ?? 10000,
    subClaim,
    refresh,
  };
}

/** aws-msk-iam-auth's role options (its defaults: session aws-msk-iam-auth, the global STS endpoint). */
function mskRole(options: Record<string, string>, prefix: string): { role?: AssumedRole } {
  const arn = options.awsRoleArn?.trim();
  if (!arn) return {};
  const [accessKeyId, secretAccessKey, sessionToken] = [
    options.awsRoleAccessKeyId?.trim(),
    options.awsRoleSecretAccessKey?.trim(),
    options.awsRoleSessionToken?.trim(),
  ];
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError(`${prefix}sasl.jaas.config`, "awsRoleAccessKeyId/awsRoleSecretAccessKey", "both or neither");
  const role: AssumedRole = {
    arn,
    sessionName: options.awsRoleSessionName?.trim() || "aws-msk-iam-auth",
    stsRegion: options.awsStsRegion?.trim() || "aws-global",
    ...(options.awsRoleExternalId?.trim() ? { externalId: options.awsRoleExternalId.trim() } : {}),
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } }
      : {}),
  };
  return { role };
}

/** The unsecured login's claims from its JAAS options, as Kafka's handler reads them. */
function unsecuredLogin(options: Record<string, string>, prefix: string, refresh: TokenRefresh): UnsecuredLogin {
  const claims: UnsecuredLogin["claims"] = {};
  for (const [option, value] of Object.entries(options)) {
    const match = /^unsecuredLogin(String|Number|List)Claim_(.+)$/.exec(option);
    if (!match) continue;
    const [, type, name] = match as unknown as [string, string, string];
    if (name === "iat" || name === "exp")
      throw new ConfigError(
        `${prefix}sasl.jaas.config`,
        option,
        "iat and exp are set by the login (unsecuredLoginLifetimeSeconds)",
      );
    if (type === "String") claims[name] = value;
    else if (type === "Number") {
      const number = Number(value);
      if (!Number.isFinite(number))
        throw new ConfigError(`${prefix}sasl.jaas.config`, `${option}=${value}`, "a number");
      claims[name] = number;
    } else claims[name] = value.length > 1 ? value.slice(1).split(value[0]!).filter(Boolean) : []; // the first character separates
  }
  const principalClaim = options.unsecuredLoginPrincipalClaimName?.trim() || "sub";
  if (typeof claims[principalClaim] !== "string" || !(claims[principalClaim] as string).trim()) {
    throw new ConfigError(
      `${prefix}sasl.jaas.config`,
      "",
      `without sasl.login.callback.handler.class Kafka's unsecured login (unsigned tokens, for development) is used, and it needs unsecuredLoginStringClaim_${principalClaim}="…"; for an OAuth provider set ${KAFKA_OAUTH_HANDLERS[0]} with ${prefix}sasl.oauthbearer.token.endpoint.url, or ${MSK_IAM_HANDLER} for Amazon MSK`,
    );
  }
  const lifetime = options.unsecuredLoginLifetimeSeconds?.trim();
  const lifetimeSeconds = lifetime ? Number(lifetime) : 3600;
  if (!Number.isFinite(lifetimeSeconds) || lifetimeSeconds <= 0)
    throw new ConfigError(
      `${prefix}sasl.jaas.config`,
      `unsecuredLoginLifetimeSeconds=${lifetime}`,
      "a number of seconds above 0",
    );
  return { kind: "unsecured", prefix, claims, principalClaim, lifetimeSeconds, refresh };
}

/** SASL/OAUTHBEARER extensions from JAAS options: names of letters only, `auth` reserved (RFC 7628, as Kafka checks). */
function saslExtensions(options: Record<string, string>, optionPrefix: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [option, value] of Object.entries(options)) {
    if (!option.startsWith(optionPrefix)) continue;
    const name = option.slice(optionPrefix.length);
    if (!/^[A-Za-z]+$/.test(name) || name === "auth")
      throw new ConfigError(`${prefix}sasl.jaas.config`, option, "SASL extension names are letters only, and not auth");
    if (!/^[\x21-\x7E \t\r\n]+$/.test(value))
      throw new ConfigError(`${prefix}sasl.jaas.config`, option, "SASL extension values are printable ASCII");
    out[name] = value;
  }
  return out;
}

/** Kafka's sasl.login.refresh.* settings, with its defaults and ranges. */
function tokenRefresh(props: Record<string, string>, prefix: string): TokenRefresh {
  return {
    windowFactor: optionalNumber(props, prefix, "sasl.login.refresh.window.factor", 0.5, 1) ?? 0.8,
    windowJitter: optionalNumber(props, prefix, "sasl.login.refresh.window.jitter", 0, 0.25) ?? 0.05,
    minPeriodSeconds: optionalNumber(props, prefix, "sasl.login.refresh.min.period.seconds", 0, 900) ?? 60,
    bufferSeconds: optionalNumber(props, prefix, "sasl.login.refresh.buffer.seconds", 0, 3600) ?? 300,
  };
}

function optionalNumber(
  props: Record<string, string>,
  prefix: string,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = props[prefix + name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new ConfigError(`${prefix}${name}`, raw, `a number from ${min} to ${max}`);
  return value;
}

function booleanSetting(props: Record<string, string>, prefix: string, name: string, fallback: boolean): boolean {
  const raw = props[prefix + name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw !== "true" && raw !== "false") throw new ConfigError(`${prefix}${name}`, raw, "true or false");
  return raw === "true";
}

/** An option of a JAAS login module line: name="value" (quotes optional). */
function jaasOption(jaas: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s;]+))`).exec(jaas);
  return match ? (match[1] ?? match[2])!.replace(/\\(.)/g, "$1") : undefined;
}

/** Every option of a JAAS login module line (after `<module> required`). */
function jaasOptions(jaas: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of jaas.matchAll(/(?:^|\s)([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/g))
    out[match[1]!] = (match[2] ?? match[3])!.replace(/\\(.)/g, "$1");
  return out;
}
