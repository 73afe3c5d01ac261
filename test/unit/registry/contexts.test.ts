import { describe, expect, test } from "bun:test";
import {
  compareQualified,
  contextOf,
  normalizeSubject,
  parseSubject,
  qualifyWithParent,
  subjectPrefixMatcher,
} from "#src/registry/contexts.ts";

describe("qualified subjects (Confluent's QualifiedSubject, default tenant)", () => {
  test("parses context and subject", () => {
    expect(parseSubject("orders")).toEqual({ context: ".", subject: "orders" });
    expect(parseSubject(":.prod:orders")).toEqual({ context: ".prod", subject: "orders" });
    expect(parseSubject(":.:orders")).toEqual({ context: ".", subject: "orders" });
    expect(parseSubject(":.prod:")).toEqual({ context: ".prod", subject: "" });
    expect(parseSubject(":.prod")).toEqual({ context: ".prod", subject: "" });
    expect(parseSubject(":*:orders")).toEqual({ context: "*", subject: "orders" });
    // Only ":." opens a context; other colons are part of the name.
    expect(parseSubject("::orders")).toEqual({ context: ".", subject: "::orders" });
    expect(parseSubject(":.a:b:c")).toEqual({ context: ".a", subject: "b:c" });
  });

  test("normalizes to the stored name", () => {
    expect(normalizeSubject(":.:orders")).toBe("orders");
    expect(normalizeSubject(":.prod")).toBe(":.prod:");
    expect(normalizeSubject(":.prod:orders")).toBe(":.prod:orders");
    expect(normalizeSubject("orders")).toBe("orders");
    expect(normalizeSubject(":.:")).toBe("");
    expect(contextOf(":.prod:orders")).toBe(".prod");
    expect(contextOf("orders")).toBe(".");
  });

  test("references are read in the referring subject's context", () => {
    expect(qualifyWithParent(":.prod:a", "b")).toBe(":.prod:b");
    expect(qualifyWithParent(":.prod:a", ":.other:b")).toBe(":.other:b");
    expect(qualifyWithParent("a", "b")).toBe("b");
    expect(qualifyWithParent("a", ":.other:b")).toBe(":.other:b");
  });

  test("the store's order: context first, then subject", () => {
    const names = ["z", ":.a:b", "a", ":.b:a", ":.a:a"];
    const sorted = [...names].sort((x, y) => compareQualified(parseSubject(x), parseSubject(y)));
    expect(sorted).toEqual(["a", "z", ":.a:a", ":.a:b", ":.b:a"]);
  });
});

describe("subjectPrefix as Confluent's range scan selects", () => {
  const subjects = [
    "orders",
    "orders-value",
    "users",
    ":.prod:orders",
    ":.prod:users",
    ":.prod2:orders",
    ":.staging:orders",
  ];
  const select = (prefix: string, contexts = new Set([".prod", ".prod2", ".staging"])) =>
    subjects.filter(subjectPrefixMatcher(prefix, contexts));

  test("a plain prefix selects the default context only", () => {
    expect(select("orders")).toEqual(["orders", "orders-value"]);
    expect(select("")).toEqual(["orders", "orders-value", "users"]);
  });

  test("a context prefix selects in that context", () => {
    expect(select(":.prod:")).toEqual([":.prod:orders", ":.prod:users"]);
    expect(select(":.prod:o")).toEqual([":.prod:orders"]);
    // Without the closing colon the range runs over context names starting with it.
    expect(select(":.prod")).toEqual([":.prod:orders", ":.prod:users", ":.prod2:orders"]);
  });

  test("the wildcard selects every context", () => {
    expect(select(":*:")).toEqual(subjects);
    expect(select(":*:orders")).toEqual([
      "orders",
      "orders-value",
      ":.prod:orders",
      ":.prod2:orders",
      ":.staging:orders",
    ]);
    // A context the registry has no CONTEXT record of is not among "each context".
    expect(select(":*:orders", new Set([".prod"]))).toEqual(["orders", "orders-value", ":.prod:orders"]);
  });
});
