// Path parameters decoded as Jersey decodes @PathParam values.
import { describe, expect, test } from "bun:test";
import { RegistryError } from "#src/registry/errors.ts";
import { decodePathSegment, routeParams } from "#src/registry/http/path-params.ts";

describe("decodePathSegment", () => {
  test("valid escapes decode as UTF-8; '+' and other characters stay as they are", () => {
    expect(decodePathSegment("orders-value")).toBe("orders-value");
    expect(decodePathSegment("a%2Fb")).toBe("a/b");
    expect(decodePathSegment("%E2%82%AC+x")).toBe("€+x");
    expect(decodePathSegment("caf%c3%a9")).toBe("café");
  });

  test("bytes that are not UTF-8 become U+FFFD, as Java's Charset.decode replaces them", () => {
    expect(decodePathSegment("%FF")).toBe("\uFFFD");
    expect(decodePathSegment("a%FFb")).toBe("a\uFFFDb");
    expect(decodePathSegment("%E2%82")).toBe("\uFFFD");
    expect(decodePathSegment("%EF%BF%BD")).toBe("\uFFFD");
  });

  test("a '%' without two hex digits is a 400", () => {
    for (const raw of ["%", "a%", "%F", "%ZZ", "%%41", "%G0"]) {
      let thrown: unknown;
      try {
        decodePathSegment(raw);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(RegistryError);
      expect((thrown as RegistryError).status).toBe(400);
    }
  });
});

describe("routeParams", () => {
  test("each named segment of the route, decoded from the raw path", () => {
    expect(routeParams("/subjects/:subject/versions/:version", "/subjects/%FF/versions/latest")).toEqual({
      subject: "\uFFFD",
      version: "latest",
    });
    expect(routeParams("/mode/:subject", "/mode/a%2Fb")).toEqual({ subject: "a/b" });
    expect(routeParams("/config", "/config")).toEqual({});
  });
});
