import { expect, test } from "bun:test";
import { href, parseHash } from "#src/console/hash-route.ts";

test("routes survive subject names with slashes, colons and spaces", () => {
  const link = href(["subjects", ":.ctx:orders/v a"], { v: 2, diff: "", q: undefined });
  expect(link).toBe("#/subjects/%3A.ctx%3Aorders%2Fv%20a?v=2");
  const route = parseHash(link);
  expect(route.path).toEqual(["subjects", ":.ctx:orders/v a"]);
  expect(route.query.get("v")).toBe("2");
  expect(parseHash("").path).toEqual([]);
});
