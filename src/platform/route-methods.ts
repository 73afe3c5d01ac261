// The methods each path answers, read from the routes an Elysia app registered: a known path asked
// with another method is answered 405 (as Jersey does) without a second, hand-kept table of paths.

export type RouteMethods = (path: string) => string[] | undefined;

/** `routes` as Elysia lists them (`app.routes`): "/subjects/:subject" matches one path segment per parameter. */
export function routeMethods(routes: readonly { method: string; path: string }[]): RouteMethods {
  const byPattern = new Map<string, { pattern: RegExp; methods: string[] }>();
  for (const { method, path } of routes) {
    const source = `^${path
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/")}$`;
    const entry = byPattern.get(source) ?? { pattern: new RegExp(source), methods: [] };
    entry.methods.push(method);
    byPattern.set(source, entry);
  }
  const entries = [...byPattern.values()];
  return (path) => {
    // Every route matching the path counts (a literal segment and a parameter may both match).
    const matching = entries.filter(({ pattern }) => pattern.test(path));
    return matching.length === 0 ? undefined : [...new Set(matching.flatMap((e) => e.methods))];
  };
}
