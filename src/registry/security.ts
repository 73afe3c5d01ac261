// The registry's HTTPS and Basic authentication, from Confluent's rest-utils settings, OAuth bearer
// tokens from Confluent Platform's, and per-user (or per-group) permissions from Karapace's auth file.
import type { TLSOptions } from "bun";
import { basicAuthGuard, loadUsers, type Refusal, type RequestGuard } from "../platform/basic-auth.ts";
import { bearerAuthGuard, oauthPolicy } from "../platform/bearer-auth.ts";
import { JwtVerifier } from "../platform/jwt.ts";
import { ConfigError, type ParsedSettings } from "../platform/settings.ts";
import { serverTls, type ClientAuth } from "../platform/tls.ts";
import { loadAuthFile, verifyHashedPassword } from "./auth-file.ts";
import { RegistryError } from "./errors.ts";
import { permissionAccess, type RegistryAccess } from "./http/access.ts";
import { errorResponse, replyType } from "./http/respond.ts";

/** rest-utils: ssl.client.authentication when set, else the deprecated boolean ssl.client.auth. */
function clientAuth(settings: ParsedSettings): ClientAuth {
  const mode = settings.optionalString("ssl.client.authentication");
  if (mode) return mode.toLowerCase() as ClientAuth;
  return settings.boolean("ssl.client.auth") ? "required" : "none";
}

/** Jetty's JSON error body: the status and its reason phrase. */
const refuse: Refusal = (request, status, headers) => {
  const response = errorResponse(
    new RegistryError(status, status, status === 401 ? "Unauthorized" : "Forbidden"),
    replyType(request.headers.get("accept")),
  );
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
};

/** What the guards tell the routes: who each request was admitted as (GET /v1/sluice/permissions). */
export interface RegistrySecurity {
  tls?: TLSOptions;
  guard?: RequestGuard;
  access?: RegistryAccess;
  userOf?: (request: Request) => string | undefined;
  /** Bearer tokens are the only credential (OAuth without Basic): the console asks for a token. */
  tokenLogin?: boolean;
}

/** Who the guards admitted each request as (undefined: a skip path), and a token principal's groups. */
class Admissions {
  readonly users = new WeakMap<Request, string | undefined>();
  readonly groups = new WeakMap<Request, readonly string[]>();
  readonly admitted = (request: Request, user: string | undefined, groups: readonly string[] = []) => {
    this.users.set(request, user);
    this.groups.set(request, groups);
  };
  readonly userOf = (request: Request) => this.users.get(request);
  readonly groupsOf = (request: Request) => this.groups.get(request) ?? [];
}

/**
 * With OAuth on, bearer tokens are taken first; requests without one go to `basic` when Basic
 * authentication is on too, and get 401 otherwise. A token's groups are its roles.
 */
function withOAuth(
  settings: ParsedSettings,
  admissions: Admissions,
  basic: RequestGuard | undefined,
  roles: string[],
): RequestGuard | undefined {
  const policy = oauthPolicy(settings);
  if (!policy) return basic;
  return bearerAuthGuard({
    verifier: new JwtVerifier(policy),
    realm: settings.string("authentication.realm"),
    roles,
    skipPaths: settings.list("authentication.skip.paths"),
    refuse,
    admitted: admissions.admitted,
    otherwise: basic,
  });
}

/** rest-utils: with CORS on and access.control.skip.options, OPTIONS requests need no credentials. */
function skippingOptions(settings: ParsedSettings, guard: RequestGuard | undefined): RequestGuard | undefined {
  if (
    !guard ||
    !settings.optionalString("access.control.allow.origin")?.trim() ||
    !settings.boolean("access.control.skip.options")
  )
    return guard;
  return (request) => (request.method === "OPTIONS" ? Promise.resolve(undefined) : guard(request));
}

/**
 * Karapace's auth file in place of the users file: its users authenticate, its permissions decide
 * per request. Setting it is enough to turn Basic authentication on, as in Karapace; with OAuth on
 * too, token principals and their groups get the permissions the file grants them.
 */
function permissionsFileSecurity(
  settings: ParsedSettings,
  path: string,
): Required<Omit<RegistrySecurity, "tls" | "tokenLogin">> {
  if (settings.optionalString("authentication.users.file")) {
    throw new ConfigError(
      "authentication.permissions.file",
      path,
      "set either authentication.users.file or authentication.permissions.file, not both",
    );
  }
  const { users, permissions } = loadAuthFile(path, "authentication.permissions.file");
  const admissions = new Admissions();
  const basic = basicAuthGuard({
    realm: settings.string("authentication.realm"),
    users,
    // The file's permissions are the only authorization: roles do not apply.
    roles: ["*"],
    skipPaths: settings.list("authentication.skip.paths"),
    refuse,
    verify: verifyHashedPassword,
    admitted: admissions.admitted,
    // With permissions per user, a client certificate identifies its user as a password would.
    certificateUsers: true,
  });
  const guard = skippingOptions(settings, withOAuth(settings, admissions, basic, ["*"]))!;
  return {
    guard,
    access: permissionAccess(permissions, admissions.users, admissions.groupsOf),
    userOf: admissions.userOf,
  };
}

export function registrySecurity(settings: ParsedSettings): RegistrySecurity {
  const https = settings.list("listeners").some((l) => l.toLowerCase().startsWith("https:"));
  const tls = https ? serverTls(settings, clientAuth(settings)) : undefined;
  const permissionsFile = settings.optionalString("authentication.permissions.file");
  if (permissionsFile) return { tls, ...permissionsFileSecurity(settings, permissionsFile) };
  const admissions = new Admissions();
  const roles = settings.list("authentication.roles");
  const basic = basicSecurity(settings, admissions, roles);
  const guard = skippingOptions(settings, withOAuth(settings, admissions, basic, roles));
  return guard ? { tls, guard, userOf: admissions.userOf, tokenLogin: basic === undefined } : { tls };
}

function basicSecurity(settings: ParsedSettings, admissions: Admissions, roles: string[]): RequestGuard | undefined {
  if (settings.string("authentication.method") !== "BASIC") return undefined;
  const realm = settings.string("authentication.realm");
  const users = loadUsers(
    {
      file: settings.optionalString("authentication.users.file"),
      jaasConfig: settings.optionalString("java.security.auth.login.config"),
      section: realm,
      fileSetting: "authentication.users.file",
    },
    true,
  );
  return basicAuthGuard({
    realm,
    users,
    roles,
    skipPaths: settings.list("authentication.skip.paths"),
    refuse,
    admitted: admissions.admitted,
  });
}
