// The worker's REST HTTPS and Basic authentication, from Kafka Connect's settings: ssl.* (or
// listeners.https.ssl.*) and the BasicAuthSecurityRestExtension; OAuth bearer tokens by Confluent
// Platform's settings (the registry's names, unprefixed, as Confluent's Connect takes them).
import type { TLSOptions } from "bun";
import { basicAuthGuard, loadUsers, type RequestGuard } from "../../platform/basic-auth.ts";
import { bearerAuthGuard, oauthPolicy } from "../../platform/bearer-auth.ts";
import { JwtVerifier } from "../../platform/jwt.ts";
import { ConfigError, type ParsedSettings } from "../../platform/settings.ts";
import { serverTls, type ClientAuth } from "../../platform/tls.ts";
import { workerSettings } from "./worker/worker-config.ts";

const BASIC_AUTH_EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension";
const HTTPS_PREFIX = "listeners.https.";

/** Kafka's all-or-nothing rule: any listeners.https.* setting means only those configure the listeners. */
function listenerTlsSettings(
  settings: ParsedSettings,
  workerConfig: Record<string, string>,
): { values: ParsedSettings; prefix: string } {
  const prefixed = Object.entries(workerConfig).filter(([key]) => key.startsWith(HTTPS_PREFIX));
  if (prefixed.length === 0) return { values: settings, prefix: "" };
  try {
    return {
      values: workerSettings.parse(Object.fromEntries(prefixed.map(([k, v]) => [k.slice(HTTPS_PREFIX.length), v])))
        .values,
      prefix: HTTPS_PREFIX,
    };
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(HTTPS_PREFIX + err.setting, err.value, err.allowed);
    throw err;
  }
}

/** Who the guard admitted a request as, and whether that user may only read. */
export interface ConnectUsers {
  userOf(request: Request): string | undefined;
  isReadOnly(request: Request): boolean;
}

const refusal = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error_code: status, message }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

function basicAuth(settings: ParsedSettings): ({ guard: RequestGuard } & ConnectUsers) | undefined {
  const extensions = settings.list("rest.extension.classes");
  const unknown = extensions.filter((c) => c !== BASIC_AUTH_EXTENSION && c !== "BasicAuthSecurityRestExtension");
  if (unknown.length > 0)
    throw new ConfigError(
      "rest.extension.classes",
      unknown.join(","),
      `the only REST extension is ${BASIC_AUTH_EXTENSION}`,
    );
  if (extensions.length === 0) return undefined;
  const users = loadUsers(
    {
      file: settings.optionalString("rest.basic.auth.users.file"),
      jaasConfig: settings.optionalString("java.security.auth.login.config"),
      section: "KafkaConnect",
      fileSetting: "rest.basic.auth.users.file",
    },
    false,
  );
  const readOnly = new Set(settings.list("rest.basic.auth.read.only.users"));
  const strangers = [...readOnly].filter((user) => !users.has(user));
  if (strangers.length > 0)
    throw new ConfigError("rest.basic.auth.read.only.users", strangers.join(","), "users of the users file");
  const admitted = new WeakMap<Request, string | undefined>();
  const authenticate = basicAuthGuard({
    realm: "KafkaConnect",
    users,
    roles: ["**"],
    skipPaths: [],
    // Kafka's filter message, in Connect's JSON error shape (Kafka sends the bare text as JSON).
    refuse: (_request, status, headers) => refusal(status, "User cannot access the resource.", headers),
    admitted: (request, user) => admitted.set(request, user),
  });
  const guard: RequestGuard = async (request) => {
    const refused = await authenticate(request);
    if (refused) return refused;
    const user = admitted.get(request);
    if (user !== undefined && readOnly.has(user) && request.method !== "GET" && request.method !== "HEAD") {
      return refusal(403, `User ${user} may only read (rest.basic.auth.read.only.users).`);
    }
    return undefined;
  };
  return {
    guard,
    userOf: (request) => admitted.get(request),
    isReadOnly: (request) => readOnly.has(admitted.get(request) ?? ""),
  };
}

/** `tokenLogin`: bearer tokens are the only credential (OAuth without Basic), so the console asks for a token. */
export function connectSecurity(
  settings: ParsedSettings,
  workerConfig: Record<string, string>,
): { tls?: TLSOptions; guard?: RequestGuard; users?: ConnectUsers; tokenLogin?: boolean } {
  const https = settings.list("listeners").some((l) => l.toLowerCase().startsWith("https:"));
  let tls: TLSOptions | undefined;
  if (https) {
    const { values, prefix } = listenerTlsSettings(settings, workerConfig);
    tls = serverTls(values, values.string("ssl.client.auth") as ClientAuth, prefix);
  }
  const basic = basicAuth(settings);
  const oauth = bearerAuth(settings, basic);
  const auth = oauth ?? basic;
  return { tls, guard: auth?.guard, users: auth, tokenLogin: oauth !== undefined && basic === undefined };
}

/**
 * With OAuth on, bearer tokens are taken first; requests without one go to the Basic extension when
 * it is on too, and get 401 otherwise. A token's principal may do everything, as a Basic user may.
 */
function bearerAuth(
  settings: ParsedSettings,
  basic: ReturnType<typeof basicAuth>,
): ({ guard: RequestGuard } & ConnectUsers) | undefined {
  const policy = oauthPolicy(settings);
  if (!policy) return undefined;
  const principals = new WeakMap<Request, string>();
  const guard = bearerAuthGuard({
    verifier: new JwtVerifier(policy),
    realm: "KafkaConnect",
    roles: ["**"],
    skipPaths: [],
    // Jetty's reason phrase in Connect's JSON error shape (a token is refused by the security handler, not Kafka's filter).
    refuse: (_request, status, headers) => refusal(status, status === 401 ? "Unauthorized" : "Forbidden", headers),
    admitted: (request, user) => user !== undefined && principals.set(request, user),
    otherwise: basic?.guard,
  });
  return {
    guard,
    userOf: (request) => principals.get(request) ?? basic?.userOf(request),
    isReadOnly: (request) => !principals.has(request) && (basic?.isReadOnly(request) ?? false),
  };
}
