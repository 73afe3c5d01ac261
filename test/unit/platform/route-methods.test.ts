import { expect, test } from "bun:test";
import { routeMethods } from "#src/platform/route-methods.ts";

const routes = [
  { method: "GET", path: "/subjects/:subject/versions" },
  { method: "POST", path: "/subjects/:subject/versions" },
  { method: "GET", path: "/connectors/:connector/topics" },
  { method: "PUT", path: "/connectors/:connector/topics/reset" },
  { method: "GET", path: "/" },
];

test("the methods registered for the path that matches, parameters one segment each", () => {
  const methods = routeMethods(routes);
  expect(methods("/subjects/orders-value/versions")).toEqual(["GET", "POST"]);
  expect(methods("/connectors/c/topics/reset")).toEqual(["PUT"]);
  expect(methods("/")).toEqual(["GET"]);
});

test("no resource at the path: undefined (404, not 405)", () => {
  const methods = routeMethods(routes);
  expect(methods("/subjects/a/b/versions")).toBeUndefined();
  expect(methods("/subjects//versions")).toBeUndefined();
  expect(methods("/nothing")).toBeUndefined();
});
