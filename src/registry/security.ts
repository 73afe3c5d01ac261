// The registry's HTTPS and Basic authentication, from Confluent's rest-utils settings.
import type { TLSOptions } from "bun";
import { basicAuthGuard, loadUsers, type RequestGuard } from "../common/basic-auth.ts";
import type { ParsedSettings } from "../common/settings.ts";
import { serverTls, type ClientAuth } from "../common/tls.ts";
import { RegistryError } from "./errors.ts";
import { errorResponse, replyType } from "./http/respond.ts";

/** rest-utils: ssl.client.authentication when set, else the deprecated boolean ssl.client.auth. */
function clientAuth(settings: ParsedSettings): ClientAuth {
  const mode = settings.optionalString("ssl.client.authentication");
  if (mode) return mode.toLowerCase() as ClientAuth;
  return settings.boolean("ssl.client.auth") ? "required" : "none";
}

export function registrySecurity(settings: ParsedSettings): { tls?: TLSOptions; guard?: RequestGuard } {
  const https = settings.list("listeners").some((l) => l.toLowerCase().startsWith("https:"));
  const tls = https ? serverTls(settings, clientAuth(settings)) : undefined;
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
  const guard = basicAuthGuard({
    realm,
    users,
    roles: settings.list("authentication.roles"),
    skipPaths: settings.list("authentication.skip.paths"),
    // Jetty's JSON error body: the status and its reason phrase.
    refuse: (request, status, headers) => {
      const response = errorResponse(new RegistryError(status, status, status === 401 ? "Unauthorized" : "Forbidden"), replyType(request.headers.get("accept")));
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
      return response;
    },
  });
  return { tls, guard };
}
