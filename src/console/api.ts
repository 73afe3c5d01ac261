// The console's only way out: the REST APIs of its own origin, at the base paths /ui/config.json gives
// (the other service through the serving process's proxy). The browser adds the user's Basic credentials;
// where the services take only bearer tokens, the token the user gave is sent (token.ts).
import { authorization, forgetToken } from "./token.ts";
export type Service = "registry" | "connect";

export interface ConsoleConfig {
  service: Service;
  registry: string | null;
  connect: string | null;
  /** The services take only bearer tokens: the page asks for one (see token.ts). */
  tokenLogin?: boolean;
}

/** A refused or failed call: the status and the service's own message (error_code/message bodies). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

let config: ConsoleConfig = { service: "registry", registry: "", connect: null };

/**
 * The config as seen from where the page was loaded: a reverse proxy that serves the console under a
 * path (`/tools/ui/`) serves its service's API under the same path (`/tools/subjects`), so every base
 * path is taken below it.
 */
export function mountedAt(given: ConsoleConfig, pathname: string): ConsoleConfig {
  const at = pathname.lastIndexOf("/ui/");
  const prefix = at > 0 ? pathname.slice(0, at) : "";
  const below = (base: string | null) => (base === null ? null : prefix + base);
  return { ...given, registry: below(given.registry), connect: below(given.connect) };
}

export function setConfig(next: ConsoleConfig): void {
  config = next;
}

/** The page a console opens on: its own service's (connectors on a connect worker's port). */
export function homeService(): Service {
  return config.service === "connect" || !has("registry") ? "connect" : "registry";
}

/** Whether this console can reach the service at all. */
export function has(service: Service): boolean {
  return config[service] !== null;
}

export function baseOf(service: Service): string {
  return config[service] ?? "";
}

export async function api<T>(
  service: Service,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const base = config[service];
  if (base === null) throw new ApiError(404, `this console has no ${service}`);
  const headers: Record<string, string> = { accept: "application/json", ...authorization() };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(base + path, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: "same-origin",
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    // An expired or refused token: the page asks for another.
    if (response.status === 401 && config.tokenLogin) forgetToken();
    const body = (json ?? {}) as { message?: string; error_code?: number };
    throw new ApiError(response.status, body.message ?? (text || response.statusText), body.error_code);
  }
  return json as T;
}

export const enc = encodeURIComponent;
