import { expect, test } from "bun:test";
import { mountedAt } from "#src/console/api.ts";

const config = { service: "registry" as const, registry: "", connect: "/ui/proxy/connect" };

test("served at /ui/, the base paths are as given", () => {
  expect(mountedAt(config, "/ui/")).toEqual(config);
  expect(mountedAt(config, "/ui/index.html")).toEqual(config);
});

test("served below a proxy's path, every base path is below it too; a missing service stays missing", () => {
  expect(mountedAt(config, "/tools/ui/")).toEqual({
    service: "registry",
    registry: "/tools",
    connect: "/tools/ui/proxy/connect",
  });
  expect(mountedAt({ service: "connect", registry: null, connect: "" }, "/a/b/ui/")).toEqual({
    service: "connect",
    registry: null,
    connect: "/a/b",
  });
});
