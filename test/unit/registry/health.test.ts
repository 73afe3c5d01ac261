import { describe, expect, test } from "bun:test";
import { registryHealth } from "#src/registry/health.ts";

describe("registry health", () => {
  test("starting until the schemas topic was read to its end", () => {
    expect(registryHealth({ loaded: false })).toMatchObject({ status: "starting", httpStatus: 503 });
  });

  test("healthy once loaded and reading", () => {
    expect(registryHealth({ loaded: true })).toEqual({
      status: "healthy",
      message: "Schema registry has read the schemas topic and is ready to handle requests.",
      httpStatus: 200,
    });
  });

  test("unhealthy, with the reason, while the broker cannot be read", () => {
    const health = registryHealth({ loaded: true, lastReadError: "Connection refused" });
    expect(health).toMatchObject({ status: "unhealthy", httpStatus: 503 });
    expect(health.message).toContain("Connection refused");
  });
});
