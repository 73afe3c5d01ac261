// Routes as the location's hash holds them: #/a/b?x=1 → path ["a", "b"], query x=1.

export interface Route {
  path: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, "");
  const q = text.indexOf("?");
  const pathText = q < 0 ? text : text.slice(0, q);
  const path = pathText
    .split("/")
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
  return { path, query: new URLSearchParams(q < 0 ? "" : text.slice(q + 1)) };
}

/** A link to a route: each segment encoded (subject names hold slashes and colons). */
export function href(path: string[], query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const search = params.toString();
  return `#/${path.map((s) => encodeURIComponent(s)).join("/")}${search ? `?${search}` : ""}`;
}
