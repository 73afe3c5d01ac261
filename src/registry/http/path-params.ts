// Path parameters as Confluent's Jersey decodes them, taken from the raw request path so that every
// route and the permission check see the same value. Jersey decodes each run of %XX octets as UTF-8
// with malformed bytes replaced by U+FFFD (Charset.decode), so `%FF` names the subject "\uFFFD"; a
// '%' without two hex digits after it is a malformed URI, which Jetty answers 400 before Jersey.
import { errors } from "../errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** One raw path segment decoded; 400 when a '%' is not followed by two hex digits. */
export function decodePathSegment(raw: string): string {
  if (!raw.includes("%")) return raw;
  if (/%(?![0-9a-fA-F]{2})/.test(raw))
    throw errors.badRequest(`Malformed percent-encoding in the path segment '${raw}'`);
  return raw.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) =>
    utf8.decode(Uint8Array.from(run.slice(1).split("%"), (hex) => parseInt(hex, 16))),
  );
}

/** The parameters of `route` (e.g. "/subjects/:subject/versions/:version") decoded from the raw `pathname`. */
export function routeParams(route: string, pathname: string): Record<string, string> {
  const names = route.split("/");
  const segments = pathname.split("/");
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    if (name.startsWith(":")) params[name.slice(1)] = decodePathSegment(segments[i] ?? "");
  });
  return params;
}
