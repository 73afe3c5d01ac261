// Per-user permissions on the REST routes, as Karapace checks them: the permission a route needs is
// checked once the router has matched it (unknown paths keep their 404/405), on the same decoded
// subject the handler gets (./path-params.ts).
import { errors } from "../errors.ts";
import {
  allows,
  CONFIG_RESOURCE,
  grantedTo,
  subjectResource,
  type Operation,
  type Permission,
} from "../permissions.ts";
import { DEK_ROUTES, dekPermissions } from "./dek-access.ts";

export interface RegistryAccess {
  /** Throws 403 unless the request's user holds the permission its route needs. */
  check(request: Request, route: string, params: Record<string, string> | undefined): void;
  /** Which subjects the request's user may read (lists are filtered, ids need one of their subjects). */
  readable(request: Request): (subject: string) => boolean;
  /** Whether the request's user may do `operation` on `resource` (checks a route makes on its body, filtered lists). */
  may(request: Request, operation: Operation, resource: string): boolean;
  /** Whether the request's user holds any Write permission (the console hides write buttons otherwise). */
  writesAnything(request: Request): boolean;
}

/**
 * Global config and mode, and the exporters, need `Config:`; a route on a subject needs `Subject:<subject>` (a subject
 * of a context by its qualified name, `Subject::.ctx:orders`): Read for GETs, the lookup
 * (POST /subjects/{s}) and compatibility tests, Write for the rest; deleting a context needs Write on
 * `Subject::.ctx:`. Other routes (`/`, `/v1/metadata/*`, `/contexts`, whose list is filtered to
 * contexts with a readable subject) need no permission of their own.
 */
export function requiredPermission(
  method: string,
  route: string,
  params: Record<string, string> | undefined,
): { operation: Operation; resource: string } | undefined {
  const reads =
    method === "GET" ||
    method === "HEAD" ||
    (method === "POST" && (route === "/subjects/:subject" || route.startsWith("/compatibility/")));
  const operation: Operation = reads ? "Read" : "Write";
  // Exporters copy any subject to another registry: they are the registry's own settings, as global config is.
  if (route === "/config" || route === "/mode" || route === "/exporters" || route.startsWith("/exporters/"))
    return { operation, resource: CONFIG_RESOURCE };
  // Elysia gives routes without parameters no params object.
  if (params?.subject !== undefined) return { operation, resource: subjectResource(params.subject) };
  // A context is named as its subjects are, `:.ctx:`: who may write `Subject::.ctx:…` may delete it.
  if (params?.context !== undefined) return { operation, resource: subjectResource(params.context) };
  return undefined;
}

/** "Subject:orders-value" as Confluent's denial names it: "Subject: orders-value" (and "Kek: k1"). */
export const named = (resource: string) =>
  resource === CONFIG_RESOURCE ? "Config" : resource.replace(/^(Subject|Kek):/, "$1: ");

/**
 * Access by Karapace-style permissions of the users the guard recorded per request (and their groups,
 * for a bearer token's principal): a request on a skip path (recorded without a user) is open; one the
 * guard never admitted is refused everything.
 */
export function permissionAccess(
  permissions: readonly Permission[],
  userOf: WeakMap<Request, string | undefined>,
  groupsOf: (request: Request) => readonly string[] = () => [],
): RegistryAccess {
  const may = (request: Request, operation: Operation, resource: string): boolean => {
    if (!userOf.has(request)) return false;
    const user = userOf.get(request);
    return user === undefined || allows(permissions, user, operation, resource, groupsOf(request));
  };
  return {
    check(request, route, params) {
      const needs = route.startsWith(DEK_ROUTES)
        ? dekPermissions(request.method, route, params)
        : [requiredPermission(request.method, route, params)];
      for (const needed of needs) {
        if (needed && !may(request, needed.operation, needed.resource))
          throw errors.forbidden(needed.operation, named(needed.resource));
      }
    },
    readable: (request) => (subject) => may(request, "Read", subjectResource(subject)),
    may,
    writesAnything(request) {
      if (!userOf.has(request)) return false;
      const user = userOf.get(request);
      return (
        user === undefined || permissions.some((p) => grantedTo(p, user, groupsOf(request)) && p.operation === "Write")
      );
    },
  };
}
