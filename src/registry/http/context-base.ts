// Context base URLs (`http://host:8081/contexts/.prod`), as Confluent's ContextFilter rewrites them
// before any resource: the path loses its `/contexts/{context}` head and every subject in it (after
// `subjects`, `deks`, or a leading `config`/`mode`) is qualified with the context; `/config` and `/mode`
// alone become the context's (`/config/:.prod:`); `/schemas/ids/…` reads in the context (`subject=:.prod:`),
// and `/subjects` and `/schemas` list it (`subjectPrefix=:.prod:`). Routes, permissions, cached reads and
// forwarding to the leader all see the rewritten request only.
import type { RequestGuard } from "../../platform/basic-auth.ts";
import { CONTEXT_WILDCARD, DEFAULT_CONTEXT } from "../contexts.ts";
import { errors } from "../errors.ts";
import { decodePathSegment } from "./path-params.ts";
import { errorResponse, replyType } from "./respond.ts";

const PREFIX = "/contexts/";

/** `.prod`, `prod`, `:.prod:` → `:.prod:`; the default context → ""; a colon inside is 400. */
export function contextQualifier(context: string): string {
  let name = context;
  if (name.startsWith(":")) name = name.slice(1);
  if (name.endsWith(":")) name = name.slice(0, -1);
  if (name.includes(":")) throw errors.badRequest(`Context name '${name}' cannot contain a colon`);
  if (!name.startsWith(".")) name = `.${name}`;
  return name === DEFAULT_CONTEXT ? "" : `:${name}:`;
}

/** Whether a (raw) path segment or query value already names its context. */
function qualified(value: string): boolean {
  let decoded = value;
  try {
    decoded = decodePathSegment(value);
  } catch {
    // as given
  }
  return decoded.startsWith(":.") || decoded.startsWith(CONTEXT_WILDCARD);
}

/** The URL a request under `/contexts/{context}/` stands for; undefined for any other path. Throws 400. */
export function contextBaseUrl(url: URL): URL | undefined {
  if (!url.pathname.startsWith(PREFIX)) return undefined;
  // Segments as Java's split gives them: without the leading "" and trailing empties.
  const segments = url.pathname.slice(1).split("/");
  while (segments.length > 0 && segments[segments.length - 1] === "") segments.pop();
  let context = DEFAULT_CONTEXT;
  let qualifier: string | undefined;
  const q = () => (qualifier ??= contextQualifier(context));
  const out: string[] = [];
  let contextNext = false;
  let subjectNext = false;
  let rootConfigOrMode = false;
  for (const segment of segments) {
    const first = out.join("") === "";
    if (contextNext) {
      // Decoded (Confluent's filter reads it raw, so `%3A.prod%3A` would name another context).
      context = decodePathSegment(segment);
      qualifier = undefined;
      contextNext = false;
      continue;
    }
    if (first && segment === "contexts") {
      contextNext = true;
      continue;
    }
    if (subjectNext) {
      out.push(qualified(segment) ? segment : q() + segment);
      subjectNext = false;
      continue;
    }
    const root = first && (segment === "config" || segment === "mode");
    if (segment === "subjects" || segment === "deks" || root) {
      subjectNext = true;
      rootConfigOrMode ||= root;
    }
    out.push(segment);
  }
  if (rootConfigOrMode && subjectNext) {
    if (q() !== "") out.push(q()); // `/config` alone: the context's
  } else if (contextNext) {
    out.push("contexts"); // `/contexts/`: the list
  } else if (out.join("") === "" && context !== DEFAULT_CONTEXT) {
    out.push("contexts", q()); // `/contexts/.prod` itself
  }
  const rewritten = new URL(url);
  rewritten.pathname = `/${out.join("/")}`;
  const path = out.join("/");
  const params = rewritten.searchParams;
  if (path.startsWith("schemas/ids")) {
    const subject = params.get("subject") ?? "";
    if (!qualified(subject)) params.set("subject", q() + subject);
  } else if (path === "schemas" || path === "subjects") {
    const prefixes = params.getAll("subjectPrefix");
    params.delete("subjectPrefix");
    for (const prefix of prefixes.length > 0 ? prefixes : [""])
      params.append("subjectPrefix", qualified(prefix) ? prefix : q() + prefix);
  }
  return rewritten;
}

/** `next` for requests as Confluent's resources see them: a context base URL's rewritten first. */
export function withContextBase(
  next: (request: Request) => Response | Promise<Response>,
  guard?: RequestGuard,
): (request: Request) => Response | Promise<Response> {
  return async (request) => {
    // Most requests (every cached read) are not under /contexts/: spare them the URL parsing.
    if (!request.url.includes(PREFIX)) return next(request);
    let rewritten: URL | undefined;
    try {
      rewritten = contextBaseUrl(new URL(request.url));
    } catch (err) {
      // Confluent's filter runs behind authentication: an anonymous caller learns nothing from it.
      const refused = await guard?.(request);
      return refused ?? errorResponse(err, replyType(request.headers.get("accept")));
    }
    return next(rewritten ? new Request(rewritten.href, request) : request);
  };
}
