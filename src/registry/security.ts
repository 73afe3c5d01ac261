// The registry's HTTPS and Basic authentication, from Confluent's rest-utils settings, and per-user
// permissions from Karapace's auth file.
import type { TLSOptions } from "bun";
import { basicAuthGuard, loadUsers, type Refusal, type RequestGuard } from "../platform/basic-auth.ts";
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
  const response = errorResponse(new RegistryError(status, status, status === 401 ? "Unauthorized" : "Forbidden"), replyType(request.headers.get("accept")));
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
};

/**
 * Karapace's auth file in place of the users file: its users authenticate, its permissions decide
 * per request. Setting it is enough to turn Basic authentication on, as in Karapace.
 */
/** What the guards tell the routes: who each request was admitted as (GET /v1/sluice/permissions). */
export interface RegistrySecurity {
  tls?: TLSOptions;
  guard?: RequestGuard;
  access?: RegistryAccess;
  userOf?: (request: Request) => string | undefined;
}

function permissionsFileSecurity(settings: ParsedSettings, path: string): Required<Omit<RegistrySecurity, "tls">> {
  if (settings.optionalString("authentication.users.file")) {
    throw new ConfigError("authentication.permissions.file", path, "set either authentication.users.file or authentication.permissions.file, not both");
  }
  const { users, permissions } = loadAuthFile(path, "authentication.permissions.file");
  const userOf = new WeakMap<Request, string | undefined>();
  const guard = basicAuthGuard({
    realm: settings.string("authentication.realm"),
    users,
    // The file's permissions are the only authorization: roles do not apply.
    roles: ["*"],
    skipPaths: settings.list("authentication.skip.paths"),
    refuse,
    verify: verifyHashedPassword,
    admitted: (request, user) => userOf.set(request, user),
    // With permissions per user, a client certificate identifies its user as a password would.
    certificateUsers: true,
  });
  return { guard, access: permissionAccess(permissions, userOf), userOf: (request) => userOf.get(request) };
}

export function registrySecurity(settings: ParsedSettings): RegistrySecurity {
  const https = settings.list("listeners").some((l) => l.toLowerCase().startsWith("https:"));
  const tls = https ? serverTls(settings, clientAuth(settings)) : undefined;
  const permissionsFile = settings.optionalString("authentication.permissions.file");
  if (permissionsFile) return { tls, ...permissionsFileSecurity(settings, permissionsFile) };
  if (settings.string("authentication.method") !== "BASIC") return { tls };
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
  const userOf = new WeakMap<Request, string | undefined>();
  const guard = basicAuthGuard({
    realm,
    users,
    roles: settings.list("authentication.roles"),
    skipPaths: settings.list("authentication.skip.paths"),
    refuse,
    admitted: (request, user) => userOf.set(request, user),
  });
  return { tls, guard, userOf: (request) => userOf.get(request) };
}
