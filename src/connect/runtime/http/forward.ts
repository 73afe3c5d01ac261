// Requests this worker cannot answer, sent on to the worker that can (Kafka's HerderRequestHandler).
import type { ForwardingTls } from "../../../platform/tls.ts";
import { logger } from "../../../platform/log.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import type { ForwardRequest } from "../herder/herder.ts";

const log = logger("connect-http");

/** Kafka Connect's herder request timeout, which also bounds a forwarded request. */
const FORWARD_TIMEOUT_MS = 90_000;

/**
 * Sends a request on to the worker that must handle it: `forward=true` on the first hop, `false` on
 * the second; a request that would need a third hop gets 409.
 */
export async function forward(
  target: ForwardRequest,
  request: Request,
  body: unknown,
  tls?: ForwardingTls,
): Promise<Response> {
  const incoming = new URL(request.url);
  const hop = incoming.searchParams.get("forward");
  if (hop === "false")
    throw connectErrors.conflict("Cannot complete request because of a conflicting operation (e.g. worker rebalance)");
  const url = new URL(incoming.pathname + incoming.search, target.url);
  url.searchParams.set("forward", hop === null ? "true" : "false");
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.delete("host");
  log.debug({ url: url.toString(), method: request.method }, "forwarding request");
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      body: body === undefined || body === null || request.method === "GET" ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      ...(tls ? { tls } : {}),
    });
  } catch (err) {
    if (err instanceof Error && err.name === "TimeoutError") throw new ConnectRestError(500, "Request timed out");
    throw new ConnectRestError(
      500,
      `IO Error trying to forward REST request: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
}
