import { describe, expect, test } from "bun:test";
import { JavaPattern, JavaReplacement } from "#src/jvm/java-regex.ts";
import { JavaRegexError, javaRegExp } from "#src/jvm/java-regex-translation.ts";
import { compileJavaPattern } from "#src/schema/jsonschema/regex.ts";

const finds = (pattern: string, input: string) => javaRegExp(pattern).test(input);

describe("Java regex → RegExp", () => {
  test("leading inline flags, several groups of them", () => {
    expect(finds("(?i)^abc$", "ABC")).toBe(true);
    expect(finds("(?i)(?s)^a.c$", "A\nC")).toBe(true);
    expect(finds("(?m)^b$", "a\nb\nc")).toBe(true);
    expect(finds("(?ud)x", "x")).toBe(true);
    expect(() => javaRegExp("(?U)x")).toThrow(JavaRegexError);
  });

  test("anchors \\A \\z \\Z, outside classes only", () => {
    expect(finds("\\Aab\\z", "ab")).toBe(true);
    expect(finds("\\Aab\\z", "ab\n")).toBe(false);
    expect(finds("ab\\Z", "ab\n")).toBe(true);
    expect(finds("ab\\Z", "ab\nc")).toBe(false);
  });

  test("\\Q…\\E quotes; \\h is horizontal white space, in classes too", () => {
    expect(finds("^\\Qa.b*c\\E$", "a.b*c")).toBe(true);
    expect(finds("^\\Qa.b*c\\E$", "axbbc")).toBe(false);
    expect(finds("^\\Q-/(\\E$", "-/(")).toBe(true);
    expect(finds("^a\\hb$", "a\u00a0b")).toBe(true);
    expect(finds("^[\\hx]+$", "x\u3000x")).toBe(true);
  });

  test("possessive quantifiers match greedily; a '+' inside a class stays", () => {
    expect(finds("^a*+b$", "aab")).toBe(true);
    expect(finds("^a{2}+$", "aa")).toBe(true);
    expect(finds("^[a*+]+$", "+*a")).toBe(true);
  });

  test("(?x): white space and # comments are not part of the pattern; escaped ones and \\Q…\\E are", () => {
    expect(finds("(?x) ^ a b # letters\n c $", "abc")).toBe(true);
    expect(finds("(?x)^ [ a b ]+ $", "abba")).toBe(true);
    expect(finds("(?x)^a\\ b\\#$", "a b#")).toBe(true);
    expect(finds("(?x)^\\Qa b\\E$", "a b")).toBe(true);
    expect(finds("(?x)^a b$", "a b")).toBe(false);
  });

  test("code points, as Java matches them: one '.' for an astral character", () => {
    expect(finds("^.$", "😀")).toBe(true);
    expect(finds("^[^a]$", "😀")).toBe(true);
    expect(javaRegExp("^.$").flags).toContain("u");
  });

  test("escapes only a non-Unicode RegExp accepts still compile; \\p{…} needs a Unicode one", () => {
    expect(finds("^a\\-b$", "a-b")).toBe(true);
    expect(javaRegExp("^a\\-b$").flags).not.toContain("u");
    expect(finds("^\\p{Lu}+$", "ÀB")).toBe(true);
    expect(finds("^\\pL+$", "ab")).toBe(true);
    expect(() => javaRegExp("\\p{javaLowerCase}")).toThrow(JavaRegexError);
    expect(() => javaRegExp("a\\")).toThrow(JavaRegexError);
    expect(() => javaRegExp("(a")).toThrow("near index 0\n(a");
  });

  test("JavaPattern matches the whole input with the same translation", () => {
    const p = JavaPattern.compile("(?i)orders\\..*");
    expect(p.matches("ORDERS.eu")).toBe(true);
    expect(p.matches("x.orders.eu")).toBe(false);
    expect(JavaPattern.compile("^.$").matches("😀")).toBe(true);
    const named = JavaPattern.compile("(?x) (?<db> [^.]+ ) \\. (?<table> .+ )");
    expect(named.replaceFirst("shop.orders", JavaReplacement.compile("${table}_${db}", named))).toBe("orders_shop");
  });
});

describe("JSON Schema patterns", () => {
  test("compiled once, null when Java-only or invalid", () => {
    expect(compileJavaPattern("(?i)^abc$")?.test("ABC")).toBe(true);
    expect(compileJavaPattern("^[a-z]+$")).toBe(compileJavaPattern("^[a-z]+$"));
    expect(compileJavaPattern("(a")).toBeNull();
    expect(compileJavaPattern("\\p{IsLatin}")).toBeNull();
  });
});
