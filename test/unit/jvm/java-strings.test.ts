import { describe, expect, test } from "bun:test";
import { javaSplit, javaTrim } from "#src/jvm/java-strings.ts";

// Expected values are what java.lang.String returns for the same input.
describe("String.trim", () => {
  test("strips every char up to U+0020 from both ends, control chars too", () => {
    expect(javaTrim("  a b  ")).toBe("a b");
    expect(javaTrim("\u0000\t\n\u001f x \r\u0007")).toBe("x");
    expect(javaTrim(" \u0000 ")).toBe("");
    expect(javaTrim("")).toBe("");
  });

  test("keeps the Unicode spaces JavaScript's trim() strips", () => {
    expect(javaTrim("\u00a0x\u2003")).toBe("\u00a0x\u2003");
    expect(javaTrim("\ufeffx\u3000")).toBe("\ufeffx\u3000");
    expect(javaTrim("\u007fx")).toBe("\u007fx");
  });
});

describe("String.split with a literal separator", () => {
  test("trailing empty strings are removed, leading and inner ones kept", () => {
    expect(javaSplit("a:b", ":")).toEqual(["a", "b"]);
    expect(javaSplit("a::", ":")).toEqual(["a"]);
    expect(javaSplit(":a", ":")).toEqual(["", "a"]);
    expect(javaSplit("a::b", ":")).toEqual(["a", "", "b"]);
    expect(javaSplit("a.b.c", ".")).toEqual(["a", "b", "c"]);
  });

  test("only separators give no parts; the empty string gives itself", () => {
    expect(javaSplit(":", ":")).toEqual([]);
    expect(javaSplit(":::", ":")).toEqual([]);
    expect(javaSplit("", ":")).toEqual([""]);
    expect(javaSplit("abc", ":")).toEqual(["abc"]);
  });
});
