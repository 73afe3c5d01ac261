// Context base URLs rewritten as Confluent's ContextFilter rewrites them (its test cases' paths).
import { describe, expect, test } from "bun:test";
import { contextBaseUrl } from "#src/registry/http/context-base.ts";
import { RegistryError } from "#src/registry/errors.ts";

const rewrite = (pathAndQuery: string) => {
  const url = contextBaseUrl(new URL(`http://r${pathAndQuery}`));
  return url && decodeURIComponent(url.pathname + url.search);
};

describe("context base URLs", () => {
  test("paths outside /contexts/ are left alone", () => {
    expect(rewrite("/subjects/foo/versions")).toBeUndefined();
    expect(rewrite("/contexts")).toBeUndefined();
    expect(rewrite("/other/config/test")).toBeUndefined();
  });

  test("subjects after `subjects` and `deks` are qualified with the context unless already qualified", () => {
    expect(rewrite("/contexts/.test-ctx/subjects/test-subject/versions")).toBe(
      "/subjects/:.test-ctx:test-subject/versions",
    );
    expect(rewrite("/contexts/test-ctx/subjects/test-subject/versions/1")).toBe(
      "/subjects/:.test-ctx:test-subject/versions/1",
    );
    expect(rewrite("/contexts/:.test-ctx:/subjects/s/")).toBe("/subjects/:.test-ctx:s");
    expect(rewrite("/contexts/.ctx/subjects/:.ctx:s/versions")).toBe("/subjects/:.ctx:s/versions");
    expect(rewrite("/contexts/.ctx/subjects/%3A.ctx%3As/versions")).toBe("/subjects/:.ctx:s/versions");
    expect(rewrite("/contexts/.ctx/subjects/:*:s")).toBe("/subjects/:*:s");
    expect(rewrite("/contexts/.ctx/subjects/subjects/versions")).toBe("/subjects/:.ctx:subjects/versions");
    expect(rewrite("/contexts/.ctx/subjects/contexts/versions")).toBe("/subjects/:.ctx:contexts/versions");
    expect(rewrite("/contexts/.ctx/compatibility/subjects/s/versions/latest")).toBe(
      "/compatibility/subjects/:.ctx:s/versions/latest",
    );
    expect(rewrite("/contexts/.ctx/dek-registry/v1/keks/k/deks/s")).toBe("/dek-registry/v1/keks/k/deks/:.ctx:s");
    expect(rewrite("/contexts/.ctx/dek-registry/v1/keks/k")).toBe("/dek-registry/v1/keks/k");
    // The default context qualifies nothing.
    expect(rewrite("/contexts/:.:/subjects/s/versions")).toBe("/subjects/s/versions");
  });

  test("/config and /mode alone are the context's; with a subject, the subject's in the context", () => {
    expect(rewrite("/contexts/.ctx/config")).toBe("/config/:.ctx:");
    expect(rewrite("/contexts/.ctx/mode")).toBe("/mode/:.ctx:");
    expect(rewrite("/contexts/.ctx/config/s")).toBe("/config/:.ctx:s");
    expect(rewrite("/contexts/.ctx/mode/s?recursive=true")).toBe("/mode/:.ctx:s?recursive=true");
    expect(rewrite("/contexts/:.:/mode")).toBe("/mode");
  });

  test("ids are read in the context; lists are of the context's subjects", () => {
    expect(rewrite("/contexts/.ctx/schemas/ids/1")).toBe("/schemas/ids/1?subject=:.ctx:");
    expect(rewrite("/contexts/.ctx/schemas/ids/1/versions?subject=s")).toBe("/schemas/ids/1/versions?subject=:.ctx:s");
    expect(rewrite("/contexts/.ctx/schemas/ids/1?subject=:.other:s")).toBe("/schemas/ids/1?subject=:.other:s");
    expect(rewrite("/contexts/.ctx/subjects")).toBe("/subjects?subjectPrefix=:.ctx:");
    expect(rewrite("/contexts/.ctx/subjects?subjectPrefix=or&deleted=true")).toBe(
      "/subjects?deleted=true&subjectPrefix=:.ctx:or",
    );
    expect(rewrite("/contexts/.ctx/schemas?latestOnly=true")).toBe("/schemas?latestOnly=true&subjectPrefix=:.ctx:");
    expect(rewrite("/contexts/:.:/schemas?subjectPrefix=:*:")).toBe("/schemas?subjectPrefix=:*:");
    expect(rewrite("/contexts/.ctx/schemas/guids/abc")).toBe("/schemas/guids/abc");
  });

  test("a context alone names the context; /contexts/ the list; a colon inside a context name is 400", () => {
    expect(rewrite("/contexts/.foo")).toBe("/contexts/:.foo:");
    expect(rewrite("/contexts/%3A.foo%3A")).toBe("/contexts/:.foo:");
    expect(rewrite("/contexts/")).toBe("/contexts");
    let refused: unknown;
    try {
      rewrite("/contexts/foo:bar/subjects");
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(RegistryError);
    expect((refused as RegistryError).errorCode).toBe(400);
    expect((refused as RegistryError).message).toBe("Context name 'foo:bar' cannot contain a colon");
  });
});
