// An arbitrary-precision decimal (unscaled integer × 10^-scale) that behaves like java.math.BigDecimal
// where Connect data can observe it: scale is significant for equality, and toString() prints what Java
// prints, so Decimal values written as JSON numbers match the JVM byte for byte.

import { javaDoubleToString } from "./java-numbers.ts";

export type RoundingMode = "UNNECESSARY" | "UP" | "DOWN" | "CEILING" | "FLOOR" | "HALF_UP" | "HALF_DOWN" | "HALF_EVEN";

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

export class BigDecimal {
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
  ) {
    if (!Number.isInteger(scale)) throw new RangeError(`BigDecimal scale must be an integer, got ${scale}`);
  }

  /** Parses Java's BigDecimal(String) syntax: `-12.340`, `1E+3`, `.5`; the scale follows the text. */
  static parse(text: string): BigDecimal {
    const m = DECIMAL_TEXT.exec(text);
    if (!m || (m[2] === "" && (m[3] ?? "") === ""))
      throw new SyntaxError(`Not a decimal number: ${JSON.stringify(text)}`);
    const fraction = m[3] ?? "";
    const unscaled = BigInt((m[2] || "0") + fraction);
    const exponent = m[4] === undefined ? 0 : Number(m[4]);
    return new BigDecimal(m[1] === "-" ? -unscaled : unscaled, fraction.length - exponent);
  }

  /** Like Java's BigDecimal.valueOf(double): the scale comes from the shortest decimal form of `n`. */
  static fromNumber(n: number): BigDecimal {
    if (!Number.isFinite(n)) throw new RangeError(`Cannot convert ${n} to a BigDecimal`);
    return BigDecimal.parse(javaDoubleToString(n));
  }

  static fromBigInt(value: bigint, scale = 0): BigDecimal {
    return new BigDecimal(value, scale);
  }

  signum(): -1 | 0 | 1 {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  /** Number of digits of the unscaled value (1 for zero), as Java's precision(). */
  precision(): number {
    return (this.unscaled < 0n ? -this.unscaled : this.unscaled).toString().length;
  }

  negate(): BigDecimal {
    return new BigDecimal(-this.unscaled, this.scale);
  }

  /** Same value at another scale; like Java, rounding must be asked for, or it fails. */
  setScale(newScale: number, rounding: RoundingMode = "UNNECESSARY"): BigDecimal {
    if (newScale === this.scale) return this;
    if (newScale > this.scale) return new BigDecimal(this.unscaled * 10n ** BigInt(newScale - this.scale), newScale);
    const divisor = 10n ** BigInt(this.scale - newScale);
    const quotient = this.unscaled / divisor;
    const remainder = this.unscaled % divisor;
    if (remainder === 0n) return new BigDecimal(quotient, newScale);
    const sign = this.unscaled < 0n ? -1n : 1n;
    const twice = (remainder < 0n ? -remainder : remainder) * 2n;
    let away: boolean;
    switch (rounding) {
      case "UNNECESSARY":
        throw new RangeError("Rounding necessary");
      case "UP":
        away = true;
        break;
      case "DOWN":
        away = false;
        break;
      case "CEILING":
        away = sign > 0n;
        break;
      case "FLOOR":
        away = sign < 0n;
        break;
      case "HALF_UP":
        away = twice >= divisor;
        break;
      case "HALF_DOWN":
        away = twice > divisor;
        break;
      case "HALF_EVEN":
        away = twice > divisor || (twice === divisor && quotient % 2n !== 0n);
        break;
    }
    return new BigDecimal(away ? quotient + sign : quotient, newScale);
  }

  /** Numeric comparison, ignoring scale (Java's compareTo). */
  compareTo(other: BigDecimal): -1 | 0 | 1 {
    const scale = Math.max(this.scale, other.scale);
    const a = this.unscaled * 10n ** BigInt(scale - this.scale);
    const b = other.unscaled * 10n ** BigInt(scale - other.scale);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  /** Java's equals: same unscaled value and same scale (so 1.0 is not 1.00). */
  equals(other: unknown): boolean {
    return other instanceof BigDecimal && other.unscaled === this.unscaled && other.scale === this.scale;
  }

  toNumber(): number {
    return Number(this.toString());
  }

  /** Java's BigDecimal.toString(): plain unless the scale is negative or the value is below 1E-6. */
  toString(): string {
    const negative = this.unscaled < 0n;
    const coefficient = (negative ? -this.unscaled : this.unscaled).toString();
    const adjusted = -this.scale + (coefficient.length - 1);
    let text: string;
    if (this.scale >= 0 && adjusted >= -6) text = plain(coefficient, this.scale);
    else {
      const fraction = coefficient.length > 1 ? "." + coefficient.slice(1) : "";
      text = coefficient[0] + fraction + "E" + (adjusted > 0 ? "+" : "") + adjusted;
    }
    return negative ? "-" + text : text;
  }

  /** Java's toPlainString(): never an exponent. */
  toPlainString(): string {
    const negative = this.unscaled < 0n;
    const coefficient = (negative ? -this.unscaled : this.unscaled).toString();
    const text =
      this.scale < 0
        ? this.unscaled === 0n
          ? "0"
          : coefficient + "0".repeat(-this.scale)
        : plain(coefficient, this.scale);
    return negative ? "-" + text : text;
  }
}

function plain(coefficient: string, scale: number): string {
  if (scale === 0) return coefficient;
  if (coefficient.length > scale)
    return coefficient.slice(0, coefficient.length - scale) + "." + coefficient.slice(coefficient.length - scale);
  return "0." + "0".repeat(scale - coefficient.length) + coefficient;
}
