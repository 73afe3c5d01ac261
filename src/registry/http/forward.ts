// Writes that reach a follower go to the leader as the same REST call (Confluent's RestService
// forwarding): method, path, query, body and the headers that matter to the leader.
import { logger } from "../../platform/log.ts";
import type { ForwardingTls } from "../../platform/tls.ts";
import { errors, type ForwardToLeader } from "../errors.ts";

const log = logger("registry-forward");
const FORWARDED_HEADERS = ["content-type", "accept", "authorization", "x-request-id"];
const FORWARD_TIMEOUT_MS = 30_000;

export async function forwardToLeader(
  target: ForwardToLeader,
  request: Request,
  body: unknown,
  tls?: ForwardingTls,
): Promise<Response> {
  const incoming = new URL(request.url);
  const url = new URL(incoming.pathname + incoming.search, target.url);
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      body: body === undefined || body === null ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      ...(tls ? { tls } : {}),
    });
  } catch (err) {
    log.warn(
      { url: url.toString(), err: err instanceof Error ? err.message : String(err) },
      "forwarding to the leader failed",
    );
    throw errors.forwarding(
      `Error while forwarding ${request.method} ${incoming.pathname} request to the leader at ${target.url}`,
    );
  }
  // The leader's answer, errors included, goes back as it is.
  return new Response(await response.arrayBuffer(), {
    status: response.status,
    headers: { "content-type": response.headers.get("content-type") ?? "application/vnd.schemaregistry.v1+json" },
  });
}
