import { describe, expect, test } from "bun:test";
import { normalizeNumberText } from "#src/jvm/decimal-format.ts";

describe("NumberUtils.createNumber + DecimalFormat", () => {
  test("numbers as Java's NumberUtils + DecimalFormat print them", () => {
    expect(normalizeNumberText("0x1F")).toBe("31");
    expect(normalizeNumberText("010")).toBe("8");
    expect(normalizeNumberText("1.50")).toBe("1.5");
    expect(normalizeNumberText("2.0")).toBe("2");
    expect(normalizeNumberText("1.23456")).toBe("1.235");
    expect(normalizeNumberText("0.0625")).toBe("0.062");
    expect(normalizeNumberText("1e3")).toBe("1000");
    expect(normalizeNumberText("-5")).toBe("-5");
    expect(normalizeNumberText("99999999999999999999")).toBe("99999999999999999999");
    expect(normalizeNumberText("inf")).toBe("inf");
  });
});
