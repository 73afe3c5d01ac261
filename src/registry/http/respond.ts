// Confluent's content types and error bodies. One place maps every error to HTTP.
import { RegistryError, errors } from "../errors.ts";
import { logger } from "../../platform/log.ts";
import { jsonNestingDepth, jsonSyntaxProblem, MAX_NESTING_DEPTH } from "../../jvm/json-text.ts";

const log = logger("registry-http");

export const V1 = "application/vnd.schemaregistry.v1+json";
const PRODUCES = [V1, "application/vnd.schemaregistry+json", "application/json"];
const CONSUMES = new Set([...PRODUCES, "application/octet-stream"]);

// Clients send the same Accept header on every request: the last answer is kept.
let lastAccept = "";
let lastType = V1;

/** The reply content type: the client's preferred one we produce, else v1 (Confluent's default). */
export function replyType(accept: string | null): string {
  if (!accept) return V1;
  if (accept === lastAccept) return lastType;
  lastType = negotiate(accept);
  lastAccept = accept;
  return lastType;
}

function negotiate(accept: string): string {
  let best = V1;
  let bestQ = -1;
  for (const part of accept.split(",")) {
    const [type, ...params] = part.trim().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.split("=")[1] ?? 1);
    const t = type!.trim().toLowerCase();
    const candidate = t === "*/*" || t === "application/*" ? V1 : PRODUCES.find((p) => p === t);
    // Ties go to the earlier entry of PRODUCES (the server's preference).
    if (candidate && (q > bestQ || (q === bestQ && PRODUCES.indexOf(candidate) < PRODUCES.indexOf(best)))) {
      best = candidate;
      bestQ = q;
    }
  }
  return best;
}

export function json(body: unknown, status = 200, type = V1): Response {
  return text(JSON.stringify(body), status, type);
}

// One Headers per content type (a handful): Response copies it, in about half the time it takes to
// build headers from an object.
const headersOf = new Map<string, Headers>();

export function text(body: string, status = 200, type = V1): Response {
  let headers = headersOf.get(type);
  if (!headers) headersOf.set(type, (headers = new Headers({ "content-type": type })));
  return new Response(body, { status, headers });
}

export function errorResponse(error: unknown, type = V1): Response {
  if (error instanceof RegistryError)
    return json({ error_code: error.errorCode, message: error.message }, error.status, type);
  log.error({ err: error instanceof Error ? error.stack : String(error) }, "unhandled error");
  const internal = errors.internal();
  return json({ error_code: internal.errorCode, message: internal.message }, internal.status, type);
}

/**
 * Reads a JSON request body as Confluent's Jersey stack does: the three JSON media types and
 * octet-stream (also what a missing Content-Type means) are accepted, others get 415; malformed
 * JSON, or JSON nested deeper than Jackson reads, gets 400 with Jackson's message; an empty body 422.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const contentType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType && !CONSUMES.has(contentType)) throw errors.unsupportedMediaType();
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) throw errors.tooLarge();
  const body = await request.text();
  if (Buffer.byteLength(body) > limit) throw errors.tooLarge();
  if (body.trim() === "") throw new RegistryError(422, 422, "Request body is missing");
  // Jackson's StreamReadConstraints, which Confluent's JSON bodies are read under.
  const depth = jsonNestingDepth(body, MAX_NESTING_DEPTH);
  if (depth > MAX_NESTING_DEPTH)
    throw errors.badRequest(`Document nesting depth (${depth}) exceeds the maximum allowed (${MAX_NESTING_DEPTH})`);
  try {
    return JSON.parse(body);
  } catch {
    throw errors.badRequest(jsonSyntaxProblem(body));
  }
}
