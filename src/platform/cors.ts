// Cross-origin requests from browsers, as the originals' Jetty CrossOriginFilter answers them (the
// registry's rest-utils and Kafka Connect both install it when access.control.allow.origin is set):
// a preflight is answered before authentication, other requests from an allowed origin get
// Access-Control-Allow-Origin, and an origin not allowed gets no CORS header at all.
import type { ParsedSettings, Setting } from "./settings.ts";

export const corsSettings: Setting[] = [
  {
    name: "access.control.allow.origin",
    type: "string",
    default: "",
    importance: "low",
    doc: "Origins browsers may call this API from (CORS), comma-separated: `*` any, an exact origin (`https://ui.example.com`), or a pattern with `*` (`https://*.example.com`). Empty: no CORS headers.",
  },
  {
    name: "access.control.allow.methods",
    type: "string",
    default: "",
    importance: "low",
    doc: "Methods a preflight allows, comma-separated (empty: Jetty's GET,POST,HEAD).",
  },
];

/** rest-utils' further settings (Kafka Connect has only the two above; Sluice's worker takes these too). */
export const corsHeaderSettings: Setting[] = [
  {
    name: "access.control.allow.headers",
    type: "string",
    default: "",
    importance: "low",
    doc: "Request headers a preflight allows, comma-separated, `*` for any (empty: Jetty's X-Requested-With,Content-Type,Accept,Origin; add Authorization for credentials sent from a page).",
  },
  {
    name: "access.control.expose.headers",
    type: "string",
    default: "",
    importance: "low",
    doc: "Response headers a page may read (Access-Control-Expose-Headers), comma-separated.",
  },
];

export interface CorsOptions {
  allowOrigin: string;
  allowMethods?: string;
  allowHeaders?: string;
  exposeHeaders?: string;
}

// Jetty's defaults, which the originals keep when a setting is empty.
const DEFAULT_METHODS = "GET,POST,HEAD";
const DEFAULT_HEADERS = "X-Requested-With,Content-Type,Accept,Origin";
const PREFLIGHT_MAX_AGE_SECONDS = "1800";

const csv = (text: string | undefined, fallback: string) =>
  (text?.trim() ? text : fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export interface CorsPolicy {
  /** The answer to a preflight from an allowed origin; undefined for any other request. */
  preflight(request: Request): Response | undefined;
  /** Adds the headers an allowed origin's actual request gets. */
  decorate(request: Request, response: Response): Response;
}

/** The policy of the settings; undefined when access.control.allow.origin is empty (CORS off, as in the originals). */
export function corsPolicy(options: CorsOptions): CorsPolicy | undefined {
  const origins = csv(options.allowOrigin, "");
  if (origins.length === 0) return undefined;
  const anyOrigin = origins.includes("*");
  // Jetty: a `*` in an entry matches any run of characters (dots literal); other entries match exactly.
  const matchers = origins.map((o) =>
    o.includes("*") ? new RegExp(`^${o.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`) : o,
  );
  const methods = csv(options.allowMethods, DEFAULT_METHODS);
  const headers = csv(options.allowHeaders, DEFAULT_HEADERS);
  const anyHeader = headers.includes("*");
  const exposed = csv(options.exposeHeaders, "");

  // The Origin header may list several origins (space-separated); one allowed is enough.
  const allowed = (origin: string) =>
    anyOrigin ||
    origin.split(" ").some((o) => o !== "" && matchers.some((m) => (typeof m === "string" ? m === o : m.test(o))));
  const originOf = (request: Request): string | undefined => {
    const origin = request.headers.get("origin");
    return origin !== null && origin.trim() !== "" && allowed(origin) ? origin : undefined;
  };
  const common = (origin: string, set: (name: string, value: string) => void) => {
    set("access-control-allow-origin", origin);
    set("access-control-allow-credentials", "true");
  };
  return {
    preflight(request) {
      if (request.method !== "OPTIONS") return undefined;
      const method = request.headers.get("access-control-request-method");
      const origin = method === null ? undefined : originOf(request);
      if (origin === undefined) return undefined;
      const response = new Response(null, { status: 200 });
      const set = (name: string, value: string) => response.headers.set(name, value);
      const requested = csv(request.headers.get("access-control-request-headers") ?? "", "");
      // A method or header not allowed: answered without CORS headers, so the browser refuses.
      if (!methods.includes(method!)) return response;
      if (!anyHeader && !requested.every((h) => headers.some((a) => a.toLowerCase() === h.toLowerCase())))
        return response;
      common(origin, set);
      if (!anyOrigin) response.headers.append("vary", "Origin");
      set("access-control-max-age", PREFLIGHT_MAX_AGE_SECONDS);
      set("access-control-allow-methods", methods.join(","));
      set("access-control-allow-headers", (anyHeader ? requested : headers).join(","));
      return response;
    },
    decorate(request, response) {
      const origin = originOf(request);
      if (origin === undefined) return response;
      // A fetched (forwarded) response's headers cannot be changed: copy it first.
      let out = response;
      try {
        common(origin, (name, value) => out.headers.set(name, value));
      } catch {
        out = new Response(response.body, response);
        common(origin, (name, value) => out.headers.set(name, value));
      }
      if (!anyOrigin) out.headers.append("vary", "Origin");
      if (exposed.length > 0) out.headers.set("access-control-expose-headers", exposed.join(","));
      return out;
    },
  };
}

/** The policy of a service's corsSettings and corsHeaderSettings. */
export function corsFromSettings(settings: ParsedSettings): CorsPolicy | undefined {
  return corsPolicy({
    allowOrigin: settings.string("access.control.allow.origin"),
    allowMethods: settings.string("access.control.allow.methods"),
    allowHeaders: settings.string("access.control.allow.headers"),
    exposeHeaders: settings.string("access.control.expose.headers"),
  });
}

type Handler = (request: Request) => Response | Promise<Response>;

/** The handler with CORS in front: preflights answered before anything else (authentication included). */
export function withCors(handler: Handler, policy: CorsPolicy | undefined): Handler {
  if (!policy) return handler;
  return async (request) => policy.preflight(request) ?? policy.decorate(request, await handler(request));
}
