// The permission decision (Karapace's auth file semantics), the permission each route needs, and the
// per-request access built on the users the guard admitted.
import { describe, expect, test } from "bun:test";
import { permissionAccess, requiredPermission } from "#src/registry/http/access.ts";
import { RegistryError } from "#src/registry/errors.ts";
import {
  allows,
  CONFIG_RESOURCE,
  resourcePattern,
  subjectResource,
  type Operation,
  type Permission,
} from "#src/registry/permissions.ts";

const grant = (username: string, operation: Operation, resource: string): Permission => ({
  username,
  operation,
  resource: resourcePattern(resource),
});

const permissions = [
  grant("admin", "Write", "Config:"),
  grant("admin", "Write", "Subject:.*"),
  grant("reader", "Read", "Subject:.*"),
  grant("orders", "Write", "Subject:orders-.*"),
  grant("orders", "Read", "Config:"),
  grant("exact", "Read", "Subject:s1$"),
  grant("prefix", "Read", "Subject:s1"),
];

describe("allows", () => {
  test("Write implies Read; Read does not give Write", () => {
    expect(allows(permissions, "orders", "Read", subjectResource("orders-value"))).toBe(true);
    expect(allows(permissions, "orders", "Write", subjectResource("orders-value"))).toBe(true);
    expect(allows(permissions, "reader", "Read", subjectResource("anything"))).toBe(true);
    expect(allows(permissions, "reader", "Write", subjectResource("anything"))).toBe(false);
  });

  test("a pattern matches from the start, as Python's re.match: `$` makes it whole", () => {
    expect(allows(permissions, "orders", "Write", subjectResource("payments-value"))).toBe(false);
    expect(allows(permissions, "orders", "Write", subjectResource("x-orders-value"))).toBe(false);
    expect(allows(permissions, "prefix", "Read", subjectResource("s10"))).toBe(true);
    expect(allows(permissions, "exact", "Read", subjectResource("s1"))).toBe(true);
    expect(allows(permissions, "exact", "Read", subjectResource("s10"))).toBe(false);
  });

  test("Config: is its own resource; a subject pattern does not reach it", () => {
    expect(allows(permissions, "admin", "Write", CONFIG_RESOURCE)).toBe(true);
    expect(allows(permissions, "orders", "Read", CONFIG_RESOURCE)).toBe(true);
    expect(allows(permissions, "orders", "Write", CONFIG_RESOURCE)).toBe(false);
    expect(allows(permissions, "reader", "Read", CONFIG_RESOURCE)).toBe(false);
  });

  test("no entry, no access: unknown users and other users' entries", () => {
    expect(allows(permissions, "nobody", "Read", subjectResource("orders-value"))).toBe(false);
    expect(allows([], "admin", "Read", CONFIG_RESOURCE)).toBe(false);
  });

  test("a group's entry grants its members: the groups of a bearer token's principal", () => {
    const p: Permission[] = [
      { group: "schema-admins", operation: "Write", resource: resourcePattern("Subject:.*") },
      grant("viewers", "Read", "Subject:.*"),
    ];
    expect(allows(p, "carol", "Write", subjectResource("x"), ["staff", "schema-admins"])).toBe(true);
    expect(allows(p, "carol", "Read", subjectResource("x"), ["staff"])).toBe(false);
    // A username entry is not a group's: a principal in a group named like a user gets nothing from it.
    expect(allows(p, "carol", "Read", subjectResource("x"), ["viewers"])).toBe(false);
  });

  test("alternations stay anchored", () => {
    const p = [grant("u", "Read", "Subject:a|Subject:b")];
    expect(allows(p, "u", "Read", subjectResource("b"))).toBe(true);
    expect(allows(p, "u", "Read", "xSubject:b")).toBe(false);
  });
});

describe("requiredPermission", () => {
  const cases: [string, string, Operation][] = [
    ["GET", "/subjects/:subject/versions", "Read"],
    ["GET", "/subjects/:subject/versions/:version", "Read"],
    ["GET", "/subjects/:subject/versions/:version/referencedby", "Read"],
    ["POST", "/subjects/:subject", "Read"],
    ["POST", "/compatibility/subjects/:subject/versions/:version", "Read"],
    ["GET", "/config/:subject", "Read"],
    ["POST", "/subjects/:subject/versions", "Write"],
    ["DELETE", "/subjects/:subject", "Write"],
    ["DELETE", "/subjects/:subject/versions/:version", "Write"],
    ["PUT", "/config/:subject", "Write"],
    ["DELETE", "/mode/:subject", "Write"],
  ];
  test.each(cases)("%s %s needs %s on the subject", (method, route, operation) => {
    expect(requiredPermission(method, route, { subject: "orders-value", version: "1" })).toEqual({
      operation,
      resource: "Subject:orders-value",
    });
  });

  test("global config and mode need Config:", () => {
    expect(requiredPermission("GET", "/config", {})).toEqual({ operation: "Read", resource: "Config:" });
    expect(requiredPermission("PUT", "/mode", {})).toEqual({ operation: "Write", resource: "Config:" });
    expect(requiredPermission("DELETE", "/config", {})).toEqual({ operation: "Write", resource: "Config:" });
  });

  test("the exporters need Config: (Read to look, Write to change), whatever subjects they export", () => {
    expect(requiredPermission("GET", "/exporters", undefined)).toEqual({ operation: "Read", resource: "Config:" });
    expect(requiredPermission("POST", "/exporters", undefined)).toEqual({ operation: "Write", resource: "Config:" });
    expect(requiredPermission("GET", "/exporters/:name/status", { name: "e" })).toEqual({
      operation: "Read",
      resource: "Config:",
    });
    for (const route of ["/exporters/:name", "/exporters/:name/pause", "/exporters/:name/config"])
      expect(requiredPermission("PUT", route, { name: "e" })).toEqual({ operation: "Write", resource: "Config:" });
    expect(requiredPermission("DELETE", "/exporters/:name", { name: "e" })).toEqual({
      operation: "Write",
      resource: "Config:",
    });
  });

  test("lists, ids and service routes need no permission of their own", () => {
    for (const route of ["/", "/subjects", "/schemas", "/schemas/ids/:id", "/schemas/types", "/health", "/metrics"]) {
      expect(requiredPermission("GET", route, route.includes(":id") ? { id: "1" } : {})).toBeUndefined();
    }
  });
});

describe("permissionAccess", () => {
  const userOf = new WeakMap<Request, string | undefined>();
  const access = permissionAccess(permissions, userOf);
  const request = (method: string, user?: string, admitted = true) => {
    const r = new Request("http://localhost/", { method });
    if (admitted) userOf.set(r, user);
    return r;
  };
  const denial = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return err instanceof RegistryError
        ? { status: err.status, error_code: err.errorCode, message: err.message }
        : err;
    }
    return undefined;
  };

  test("403 with Confluent's 40301 naming the operation and resource", () => {
    expect(
      denial(() => access.check(request("POST", "orders"), "/subjects/:subject/versions", { subject: "orders-value" })),
    ).toBeUndefined();
    expect(
      denial(() =>
        access.check(request("POST", "orders"), "/subjects/:subject/versions", { subject: "payments-value" }),
      ),
    ).toEqual({
      status: 403,
      error_code: 40301,
      message: "User is denied operation Write on Subject: payments-value",
    });
    expect(denial(() => access.check(request("PUT", "orders"), "/config", {}))).toEqual({
      status: 403,
      error_code: 40301,
      message: "User is denied operation Write on Config",
    });
  });

  test("readable subjects follow the user's Read permissions", () => {
    const readable = access.readable(request("GET", "orders"));
    expect(["orders-key", "payments-value", "orders-value"].filter(readable)).toEqual(["orders-key", "orders-value"]);
  });

  test("a skip-path request (admitted without a user) is open; one never admitted is refused", () => {
    expect(
      denial(() => access.check(request("DELETE", undefined), "/subjects/:subject", { subject: "x" })),
    ).toBeUndefined();
    expect(access.readable(request("GET", undefined))("x")).toBe(true);
    expect(
      denial(() => access.check(request("GET", undefined, false), "/subjects/:subject/versions", { subject: "x" })),
    ).toMatchObject({ status: 403 });
    expect(access.readable(request("GET", undefined, false))("x")).toBe(false);
  });
});
