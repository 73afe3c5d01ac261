// Subject aliases, as Confluent's alias filter applies them before any resource: a subject in the path
// after `subjects` or `deks`, and `subject=` of `/schemas/ids/…`, whose own config has an `alias` is
// replaced by the alias's subject (for DEK routes `aliasForDeks` first). Reads, registrations, lookups,
// compatibility tests and deletes all follow it; `/config/{s}` and `/mode/{s}` do not (they are where
// the alias is set). Routes, permissions and forwarding see the replaced subject only.
import { normalizeSubject } from "../contexts.ts";
import { decodePathSegment } from "./path-params.ts";

/** The subject a subject is an alias for (qualified), or undefined. */
export type AliasOf = (subject: string, forDeks: boolean) => string | undefined;

/** The URL with aliases replaced; undefined when nothing in it is an alias. */
export function aliasedUrl(url: URL, aliasOf: AliasOf): URL | undefined {
  const forDeks = url.pathname.startsWith("/dek-registry");
  const resolve = (raw: string): string | undefined => {
    let subject: string;
    try {
      subject = normalizeSubject(decodePathSegment(raw));
    } catch {
      return undefined; // a malformed segment is the router's 400
    }
    return subject === "" ? undefined : aliasOf(subject, forDeks);
  };
  let changed = false;
  const segments = url.pathname.split("/");
  let subjectNext = false;
  segments.forEach((segment, i) => {
    if (segment === "") return;
    if (subjectNext) {
      subjectNext = false;
      const target = resolve(segment);
      if (target !== undefined) {
        segments[i] = encodeURIComponent(target);
        changed = true;
      }
    } else subjectNext = segment === "subjects" || segment === "deks";
  });
  const rewritten = new URL(url);
  if (changed) rewritten.pathname = segments.join("/");
  if (url.pathname.startsWith("/schemas/ids")) {
    const subject = url.searchParams.get("subject");
    const target = subject ? resolve(encodeURIComponent(subject)) : undefined;
    if (target !== undefined) {
      rewritten.searchParams.set("subject", target);
      changed = true;
    }
  }
  return changed ? rewritten : undefined;
}

/** `next` for requests with aliased subjects replaced (./aliases.ts). */
export function withAliases(
  next: (request: Request) => Response | Promise<Response>,
  aliasOf: AliasOf,
): (request: Request) => Response | Promise<Response> {
  return (request) => {
    const url = request.url;
    // Most requests (every cached read) name no subject: spare them the URL parsing.
    if (!url.includes("/subjects/") && !url.includes("/deks/") && !url.includes("subject=")) return next(request);
    const rewritten = aliasedUrl(new URL(url), aliasOf);
    return next(rewritten ? new Request(rewritten.href, request) : request);
  };
}
