// Subject aliases applied to request URLs as Confluent's alias filter applies them (its test cases' paths).
import { describe, expect, test } from "bun:test";
import { aliasedUrl } from "#src/registry/http/aliases.ts";

const configs: Record<string, { alias: string; aliasForDeks?: string }> = {
  myAlias: { alias: "mySubject" },
  "slash/in/middle": { alias: "mySubject2" },
  "dek-registry": { alias: "regular", aliasForDeks: "forDeks" },
  dekAlias: { alias: "mySubject3", aliasForDeks: "myDekSubject3" },
  ":.prod:a": { alias: "b" },
};
const aliasOf = (subject: string, forDeks: boolean) => {
  const c = configs[subject];
  if (!c) return undefined;
  const alias = (forDeks && c.aliasForDeks) || c.alias;
  return subject.startsWith(":.prod:") ? `:.prod:${alias}` : alias;
};
const rewrite = (pathAndQuery: string) => {
  const url = aliasedUrl(new URL(`http://r${pathAndQuery}`), aliasOf);
  return url && decodeURIComponent(url.pathname + url.search);
};

describe("subject aliases", () => {
  test("a subject after `subjects` is replaced by its alias; paths without one are left alone", () => {
    expect(rewrite("/subjects/myAlias/versions")).toBe("/subjects/mySubject/versions");
    expect(rewrite("/subjects/myAlias/")).toBe("/subjects/mySubject/");
    expect(rewrite("/subjects/slash%2Fin%2Fmiddle/versions/1")).toBe("/subjects/mySubject2/versions/1");
    expect(rewrite("/compatibility/subjects/myAlias/versions/latest")).toBe(
      "/compatibility/subjects/mySubject/versions/latest",
    );
    // An unqualified alias is in the aliased subject's context.
    expect(rewrite("/subjects/:.prod:a/versions")).toBe("/subjects/:.prod:b/versions");
    expect(rewrite("/subjects/other/versions")).toBeUndefined();
    expect(rewrite("/subjects")).toBeUndefined();
    expect(rewrite("/")).toBeUndefined();
    // Only the segment right after `subjects`: a subject named `subjects` does not make `versions` one.
    expect(rewrite("/subjects/subjects/versions")).toBeUndefined();
  });

  test("config and mode are the alias subject's own: not replaced", () => {
    expect(rewrite("/config/myAlias")).toBeUndefined();
    expect(rewrite("/mode/myAlias")).toBeUndefined();
  });

  test("schemas by id follow the alias of `subject`", () => {
    expect(rewrite("/schemas/ids/1?subject=myAlias")).toBe("/schemas/ids/1?subject=mySubject");
    expect(rewrite("/schemas/ids/1/versions?subject=myAlias")).toBe("/schemas/ids/1/versions?subject=mySubject");
    expect(rewrite("/schemas/ids/1")).toBeUndefined();
  });

  test("DEK routes take aliasForDeks first; other routes the alias, whatever the subject is called", () => {
    expect(rewrite("/dek-registry/v1/keks/k/deks/dekAlias")).toBe("/dek-registry/v1/keks/k/deks/myDekSubject3");
    expect(rewrite("/dek-registry/v1/keks/k/deks/myAlias/versions")).toBe(
      "/dek-registry/v1/keks/k/deks/mySubject/versions",
    );
    expect(rewrite("/subjects/dek-registry/versions")).toBe("/subjects/regular/versions");
  });
});
