// HTTP Basic authentication of the REST APIs against a users file, as the originals' JAAS
// PropertyFileLoginModules read it: Java properties lines `user: credential[,role...]`.
import { principalOf } from "./listeners.ts";
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import unixCrypt from "unix-crypt-td-js";
import { logger } from "./log.ts";
import { parseProperties } from "./properties.ts";
import { ConfigError } from "./settings.ts";

const log = logger("basic-auth");

export interface User {
  credential: string;
  roles: string[];
}

/**
 * The users of a file. Jetty's format splits roles off after the first comma; Kafka Connect's
 * takes the whole value as the password (`withRoles` false).
 */
export function parseUsers(text: string, withRoles: boolean): Map<string, User> {
  const users = new Map<string, User>();
  for (const [name, value] of Object.entries(parseProperties(text))) {
    const [credential, ...roles] = withRoles ? value.split(",").map((v) => v.trim()) : [value];
    users.set(name, { credential: credential!, roles: roles.filter(Boolean) });
  }
  return users;
}

/** The `file` option of a JAAS login config section (`Name { module flag file="..."; };`). */
export function jaasUsersFile(text: string, section: string): string | undefined {
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  const escaped = section.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const body = new RegExp(`(?:^|[\\s;}])${escaped}\\s*\\{([\\s\\S]*?)\\}\\s*;`).exec(withoutComments)?.[1];
  return body === undefined ? undefined : /\bfile\s*=\s*"([^"]*)"/.exec(body)?.[1];
}

/**
 * Reads the users file, named directly or through a JAAS config's section. A file with no users is
 * refused: Kafka Connect would let everyone in, which is never what a secured worker wants.
 */
export function loadUsers(
  source: { file?: string; jaasConfig?: string; section: string; fileSetting: string },
  withRoles: boolean,
): Map<string, User> {
  let path = source.file;
  if (!path && source.jaasConfig) {
    const jaas = readFileSync(source.jaasConfig, "utf8");
    path = jaasUsersFile(jaas, source.section);
    if (!path)
      throw new ConfigError(
        "java.security.auth.login.config",
        source.jaasConfig,
        `no section ${source.section} with a file="..." option`,
      );
  }
  if (!path)
    throw new ConfigError(
      source.fileSetting,
      "",
      "basic authentication needs a users file (or java.security.auth.login.config)",
    );
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(
      source.fileSetting,
      path,
      `cannot read the users file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  const users = parseUsers(text, withRoles);
  if (users.size === 0) throw new ConfigError(source.fileSetting, path, "the users file has no users");
  return users;
}

const sameText = (a: string, b: string) => {
  // Digests first: equal lengths for timingSafeEqual, and no early exit on the first difference.
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
};

/** Jetty's reversible OBF: form: 4 base-36 digits per byte (`U` + 4 digits for a char above 0xFF). */
function deobfuscate(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    if (text[i] === "U") {
      i++;
      const code = parseInt(text.slice(i, i + 4), 36);
      bytes.push(code >> 8, code & 0xff);
    } else {
      const l = parseInt(text.slice(i, i + 4), 36);
      bytes.push((Math.floor(l / 256) + (l % 256) - 254) / 2);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Whether `password` matches a stored credential: plain, OBF:, MD5:, CRYPT:, or a bcrypt/argon2 hash. */
export async function verifyPassword(credential: string, password: string): Promise<boolean> {
  if (credential.startsWith("MD5:"))
    return sameText(credential.slice(4).toLowerCase(), createHash("md5").update(password).digest("hex"));
  if (credential.startsWith("CRYPT:")) {
    const hash = credential.slice(6);
    return sameText(hash, unixCrypt(password, hash.slice(0, 2)));
  }
  if (credential.startsWith("OBF:")) return sameText(deobfuscate(credential.slice(4)), password);
  if (/^\$(2[aby]|argon2i|argon2d|argon2id)\$/.test(credential)) return Bun.password.verify(password, credential);
  return sameText(credential, password);
}

/** Answers a request in the service's own error shape. */
export type Refusal = (request: Request, status: 401 | 403, headers: Record<string, string>) => Response;

export interface BasicAuthOptions<U extends User = User> {
  realm: string;
  users: Map<string, U>;
  /** Roles of which a user needs one; `*` or `**`: any authenticated user (Confluent's authentication.roles). */
  roles: string[];
  /** Paths served without authentication, as servlet path specs: `/exact`, `/prefix/*`, `*.ext`. */
  skipPaths: string[];
  refuse: Refusal;
  /** Checks a user's password; by default against its credential in the formats of `verifyPassword`. */
  verify?: (user: U, password: string) => Promise<boolean>;
  /** Told of each request let through: by whom, or undefined on a skip path. */
  admitted?: (request: Request, user: string | undefined) => void;
  /**
   * A verified client certificate names the user (its CN) when no Basic credentials come with the
   * request. Off where the originals want Basic credentials whatever the certificate.
   */
  certificateUsers?: boolean;
}

/** Answers a request that may not go on; undefined lets it through. */
export type RequestGuard = (request: Request) => Promise<Response | undefined>;

/** Whether a servlet path spec (`/exact`, `/prefix/*`, `*.ext`) covers the path. */
export function pathMatches(spec: string, path: string): boolean {
  if (spec.endsWith("/*")) return path === spec.slice(0, -2) || path.startsWith(spec.slice(0, -1));
  if (spec.startsWith("*.")) return path.endsWith(spec.slice(1));
  return path === spec;
}

function credentials(header: string | null): { user: string; password: string } | undefined {
  const match = /^basic\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon > 0 ? { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : undefined;
}

/** Hashes are slow by design: a credential verified once is remembered (as a digest) for the next requests. */
const VERIFIED_LIMIT = 1000;

export function basicAuthGuard<U extends User>(options: BasicAuthOptions<U>): RequestGuard {
  const challenge = { "www-authenticate": `Basic realm="${options.realm.replace(/["\\]/g, "")}"` };
  const anyUser = options.roles.length === 1 && (options.roles[0] === "*" || options.roles[0] === "**");
  const verified = new Set<string>();
  const verify = options.verify ?? ((user: U, password: string) => verifyPassword(user.credential, password));
  const accepted = async (given: { user: string; password: string }, user: U): Promise<boolean> => {
    const key = createHash("sha256").update(`${given.user}\0${given.password}`).digest("base64");
    if (verified.has(key)) return true;
    if (!(await verify(user, given.password))) return false;
    if (verified.size >= VERIFIED_LIMIT) verified.clear();
    verified.add(key);
    return true;
  };
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (options.skipPaths.some((spec) => pathMatches(spec, path))) {
      options.admitted?.(request, undefined);
      return undefined;
    }
    const given = credentials(request.headers.get("authorization"));
    // A verified client certificate can be a credential of its own: its subject's CN is the user, who
    // needs no password but the roles (or permissions) any user needs.
    const principal = given || !options.certificateUsers ? undefined : principalOf(request);
    if (principal !== undefined) {
      const roles = options.users.get(principal)?.roles ?? [];
      if (!anyUser && !roles.some((r) => options.roles.includes(r))) return options.refuse(request, 403, {});
      options.admitted?.(request, principal);
      return undefined;
    }
    const user = given && options.users.get(given.user);
    if (!given || !user || !(await accepted(given, user))) {
      log.debug({ method: request.method, path }, "request failed authentication");
      return options.refuse(request, 401, challenge);
    }
    if (!anyUser && !user.roles.some((r) => options.roles.includes(r))) return options.refuse(request, 403, {});
    options.admitted?.(request, given.user);
    return undefined;
  };
}
