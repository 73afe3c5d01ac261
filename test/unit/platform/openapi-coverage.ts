// Which routes of an app its OpenAPI document misses or leaves undescribed (for the apps' unit tests).
import type { DocumentedRoute } from "#src/platform/openapi.ts";

type Operation = { summary?: string; responses?: Record<string, unknown> };

/** "METHOD /path" of each route not hidden that is absent, has no summary, or describes no response of its own. */
export function undocumentedRoutes(routes: readonly DocumentedRoute[], document: Record<string, unknown>): string[] {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return routes
    .filter((route) => !route.hooks?.detail?.hide)
    .filter((route) => {
      const operation = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
      return !operation?.summary || !operation.responses || "default" in operation.responses;
    })
    .map(
      (route) =>
        `${route.method} ${route.path} (document it with documented({ summary, responses }) or hide it with detail.hide)`,
    );
}
