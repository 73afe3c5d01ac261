// Serves the console at /ui/ on a service's listeners: the page and its bundle, /ui/config.json (where
// the page finds each API) and /ui/proxy/<service>/ (the other service, for a page that talks only to
// its own origin). Everything else goes to the service's own handler.
import type { RequestGuard } from "../platform/basic-auth.ts";
import type { ForwardingTls } from "../platform/tls.ts";
import { ownEntry } from "../platform/own.ts";
import { consoleAssets } from "./assets.ts";

export type ConsoleService = "registry" | "connect";

export interface ConsoleOptions {
  /** console.enabled: off, /ui/ is the service's own 404. */
  enabled: boolean;
  /** The service whose listeners serve the page (its API is at the page's own root). */
  service: ConsoleService;
  /** The other service's base URL (a setting, or the other half of `sluice dev`), read per request. */
  peer?: () => string | undefined;
  /** The service's authentication: the page is shown to those who may call its API. */
  guard?: RequestGuard;
  /** Client TLS for reaching the peer over HTTPS (the service's own certificates). */
  tls?: ForwardingTls;
  /**
   * Bearer tokens are the only credential (OAuth without Basic), which a browser cannot be asked for:
   * the page, its bundle and config.json, which hold no data, are served to anyone, and the page asks
   * for a token to send with its calls.
   */
  tokenLogin?: boolean;
}

type Handler = (request: Request) => Response | Promise<Response>;

const PREFIX = "/ui/";
const other = (service: ConsoleService): ConsoleService => (service === "registry" ? "connect" : "registry");

/** What /ui/config.json says: each API's base path as the page calls it, null where there is none. */
export function consoleConfig(
  options: Pick<ConsoleOptions, "service" | "peer" | "tokenLogin">,
): Record<ConsoleService, string | null> & { service: ConsoleService; tokenLogin?: true } {
  const peer = options.peer?.() ? `${PREFIX}proxy/${other(options.service)}` : null;
  const config = {
    service: options.service,
    [options.service]: "",
    [other(options.service)]: peer,
  } as unknown as Record<ConsoleService, string | null> & { service: ConsoleService; tokenLogin?: true };
  if (options.tokenLogin) config.tokenLogin = true;
  return config;
}

/** A listener URL as a client on this machine reaches it (0.0.0.0 and [::] listen everywhere). */
export function reachable(url: string): string {
  return url.replace(/^(https?:\/\/)(0\.0\.0\.0|\[::\]|)(?=[:/]|$)/i, "$1127.0.0.1").replace(/\/+$/, "");
}

export function withConsole(handler: Handler, options: ConsoleOptions): Handler {
  if (!options.enabled) return handler;
  return async (request) => {
    const url = new URL(request.url);
    const path = url.pathname;
    // Relative, so that behind a proxy serving this under a path the browser stays below that path.
    if (path === "/ui") return new Response(null, { status: 302, headers: { location: "ui/" } });
    if (!path.startsWith(PREFIX)) return handler(request);
    const rest = path.slice(PREFIX.length);
    const proxied = rest.startsWith(`proxy/${other(options.service)}/`) || rest === `proxy/${other(options.service)}`;
    if (proxied || !options.tokenLogin) {
      const refused = await options.guard?.(request);
      if (refused) return refused;
    }
    if (rest === "config.json")
      return Response.json(consoleConfig(options), { headers: { "cache-control": "no-store" } });
    if (proxied)
      return proxy(request, rest.slice(`proxy/${other(options.service)}`.length) || "/", url.search, options);
    const assets = await consoleAssets();
    const name = rest === "" ? "index.html" : rest;
    const asset = ownEntry(assets, name);
    if (!asset || (request.method !== "GET" && request.method !== "HEAD")) return handler(request);
    // The page is small and names its hashed files: those are kept, the page itself is asked again.
    const cache = rest === "" || rest === "index.html" ? "no-cache" : "public, max-age=31536000, immutable";
    return new Response(asset.body, {
      headers: { "content-type": asset.type, "cache-control": cache, "x-content-type-options": "nosniff" },
    });
  };
}

const FORWARDED_HEADERS = ["authorization", "content-type", "accept"];

/** Forwards to the other service with the user's credentials, so its permissions apply; 502 when it does not answer. */
async function proxy(request: Request, path: string, search: string, options: ConsoleOptions): Promise<Response> {
  const base = options.peer?.();
  const target = other(options.service);
  if (!base) return failure(404, `this ${options.service} knows no ${target} URL (console.${target}.url)`);
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  try {
    const response = await fetch(`${reachable(base)}${path}${search}`, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
      ...(options.tls ? { tls: options.tls } : {}),
    });
    const out = new Headers();
    for (const name of ["content-type", "www-authenticate", "location"]) {
      const value = response.headers.get(name);
      if (value !== null) out.set(name, value);
    }
    return new Response(response.body, { status: response.status, headers: out });
  } catch (err) {
    return failure(502, `${target} at ${base} cannot be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Both services' error shape. */
function failure(status: number, message: string): Response {
  return Response.json({ error_code: status, message }, { status });
}
