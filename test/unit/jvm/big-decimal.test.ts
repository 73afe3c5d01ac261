import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BigDecimal } from "#src/jvm/big-decimal.ts";

describe("BigDecimal", () => {
  test("toString as java.math.BigDecimal (its Javadoc's examples and more)", () => {
    const cases: [bigint, number, string][] = [
      [123n, 0, "123"],
      [-123n, 0, "-123"],
      [123n, -1, "1.23E+3"],
      [123n, -3, "1.23E+5"],
      [123n, 1, "12.3"],
      [123n, 5, "0.00123"],
      [123n, 10, "1.23E-8"],
      [-123n, 12, "-1.23E-10"],
      [0n, 0, "0"],
      [0n, 2, "0.00"],
      [0n, 6, "0.000000"],
      [0n, 7, "0E-7"],
      [0n, -2, "0E+2"],
      [1n, 6, "0.000001"],
      [1n, 7, "1E-7"],
      [5n, -1, "5E+1"],
    ];
    for (const [unscaled, scale, text] of cases) expect(new BigDecimal(unscaled, scale).toString()).toBe(text);
    expect(new BigDecimal(123n, -3).toPlainString()).toBe("123000");
    expect(new BigDecimal(-123n, 10).toPlainString()).toBe("-0.0000000123");
  });

  test("parse keeps the scale of the text", () => {
    const cases: [string, bigint, number][] = [
      ["1.50", 150n, 2],
      ["-0.0", 0n, 1],
      ["1E+3", 1n, -3],
      ["1.5e-3", 15n, 4],
      [".5", 5n, 1],
      ["5.", 5n, 0],
      ["+007", 7n, 0],
    ];
    for (const [text, unscaled, scale] of cases) {
      const d = BigDecimal.parse(text);
      expect([d.unscaled, d.scale]).toEqual([unscaled, scale]);
    }
    for (const bad of ["", ".", "1e", "abc", "1.2.3", "--1"]) expect(() => BigDecimal.parse(bad)).toThrow(SyntaxError);
  });

  test("toString and parse are inverse (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
        fc.integer({ min: -50, max: 50 }),
        (unscaled, scale) => {
          const d = new BigDecimal(unscaled, scale);
          return BigDecimal.parse(d.toString()).equals(d) && BigDecimal.parse(d.toPlainString()).compareTo(d) === 0;
        },
      ),
    );
  });

  test("equality counts the scale, compareTo does not", () => {
    expect(new BigDecimal(10n, 1).equals(new BigDecimal(1n, 0))).toBe(false);
    expect(new BigDecimal(10n, 1).compareTo(new BigDecimal(1n, 0))).toBe(0);
    expect(new BigDecimal(-1n, 0).compareTo(new BigDecimal(1n, 5))).toBe(-1);
  });

  test("setScale rounds only when asked", () => {
    const d = BigDecimal.parse("2.345");
    expect(d.setScale(5).toString()).toBe("2.34500");
    expect(() => d.setScale(2)).toThrow("Rounding necessary");
    expect(d.setScale(2, "HALF_UP").toString()).toBe("2.35");
    expect(d.setScale(2, "HALF_EVEN").toString()).toBe("2.34");
    expect(BigDecimal.parse("2.355").setScale(2, "HALF_EVEN").toString()).toBe("2.36");
    expect(BigDecimal.parse("-2.345").setScale(2, "HALF_UP").toString()).toBe("-2.35");
    expect(BigDecimal.parse("-2.341").setScale(2, "FLOOR").toString()).toBe("-2.35");
    expect(BigDecimal.parse("-2.349").setScale(2, "CEILING").toString()).toBe("-2.34");
    expect(BigDecimal.parse("2.341").setScale(2, "UP").toString()).toBe("2.35");
    expect(BigDecimal.parse("2.349").setScale(2, "DOWN").toString()).toBe("2.34");
    expect(BigDecimal.parse("2.345").setScale(2, "HALF_DOWN").toString()).toBe("2.34");
  });

  test("fromNumber as BigDecimal.valueOf(double)", () => {
    expect(BigDecimal.fromNumber(1).toString()).toBe("1.0");
    expect(BigDecimal.fromNumber(0.1).toString()).toBe("0.1");
    expect(BigDecimal.fromNumber(1e7).toString()).toBe("1.0E+7");
    expect(BigDecimal.fromNumber(-1.5e-5).toString()).toBe("-0.000015");
    expect(() => BigDecimal.fromNumber(NaN)).toThrow(RangeError);
    expect(BigDecimal.parse("-12.50").precision()).toBe(4);
    expect(BigDecimal.parse("-12.50").signum()).toBe(-1);
    expect(BigDecimal.parse("12.5").toNumber()).toBe(12.5);
  });
});
