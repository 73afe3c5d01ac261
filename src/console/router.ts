// A tiny hash router: hash routes need nothing of the server, and a page is a link.
import { useEffect, useState } from "preact/hooks";
import { href, parseHash, type Route } from "./hash-route.ts";

export { href, type Route };

export function navigate(path: string[], query?: Record<string, string | number | undefined>): void {
  location.hash = href(path, query);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseHash(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}
