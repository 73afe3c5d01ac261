// Java's Double.toString and Float.toString (JDK 19+), the text Jackson writes for double and float JSON
// numbers. Both the registry (Avro canonical forms) and connect (converters, toString of values) print
// numbers this way, so it lives here, below both. And Double.parseDouble and Integer.parseInt (with its
// byte, short and long siblings), which read Avro's string defaults and Connect's Avro parameters, Cast's
// strings and Debezium's column defaults.
import { javaTrim } from "./java-strings.ts";

/** Java's NumberFormatException; the message is Java's. */
export class JavaNumberFormatError extends Error {}

const JAVA_FLOAT_LITERAL = /^([+-]?)(?:(NaN|Infinity)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?)$/;

/**
 * Java's Double.parseDouble: the text is trimmed as String.trim does, then read as an optional sign and
 * NaN, Infinity or a decimal literal with an optional f/F/d/D suffix (not after NaN or Infinity).
 * Java's hexadecimal form (`0x1.8p1`) is not read. Throws JavaNumberFormatError with Java's message,
 * which quotes the trimmed text.
 */
export function javaParseDouble(text: string): number {
  const t = javaTrim(text);
  const m = JAVA_FLOAT_LITERAL.exec(t);
  if (m === null) {
    if (t === "") throw new JavaNumberFormatError("empty String");
    // Java's digit scan stops at a second point before it looks at anything else.
    if (/^[+-]?\d*\.\d*\./.test(t)) throw new JavaNumberFormatError("multiple points");
    throw new JavaNumberFormatError(`For input string: "${t}"`);
  }
  const magnitude = m[2] === "NaN" ? NaN : Number(m[2] ?? m[3]);
  return m[1] === "-" ? -magnitude : magnitude;
}

/**
 * Java's Byte.parseByte / Short.parseShort / Integer.parseInt / Long.parseLong (width 8/16/32/64), radix
 * 10: an optional sign and ASCII digits, in the type's range. Throws JavaNumberFormatError otherwise.
 */
export function javaParseInteger(text: string, width: 8 | 16 | 32 | 64): bigint {
  if (!/^[+-]?\d+$/.test(text)) throw new JavaNumberFormatError(`For input string: "${text}"`);
  const n = BigInt(text);
  if (BigInt.asIntN(width, n) !== n) throw new JavaNumberFormatError(`For input string: "${text}"`);
  return n;
}

/**
 * Java's Double.toString as of JDK 19+ (shortest digits that round-trip; ties to the even digit).
 * Plain notation in [1e-3, 1e7), else `d.dddE<n>`; always at least one fraction digit. NaN and the
 * infinities print as Java does; callers decide how to quote them.
 */
export function javaDoubleToString(d: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (!Number.isFinite(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d === 0) return Object.is(d, -0) ? "-0.0" : "0.0";
  // toExponential() without digits is ECMAScript's shortest round-trip form, the digits Java picks,
  // except that Java weighs 2-digit forms against a 1-digit one and takes the nearest (4.9E-324).
  const a = Math.abs(d);
  let text = a.toExponential();
  if (text.indexOf(".") < 0) {
    const two = a.toExponential(1);
    if (Number(two) === a) text = two;
  }
  const e = text.indexOf("e");
  const digits = text
    .slice(0, e)
    .replace(".", "")
    .replace(/(.)0+$/, "$1");
  return layout(d < 0, digits, Number(text.slice(e + 1)));
}

/** Java's Float.toString (JDK 19+) for a value that is (or is first rounded to) a float32. */
export function javaFloatToString(value: number): string {
  const f = Math.fround(value);
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "Infinity" : "-Infinity";
  if (f === 0) return Object.is(f, -0) ? "-0.0" : "0.0";
  const a = Math.abs(f);
  const [digits, exp10] = quickFloatDigits(a) ?? shortestFloatDigits(a);
  return layout(f < 0, digits, exp10);
}

/** `digits` = d1 d2 d3..., value = d1.d2d3... × 10^exp10. */
function layout(negative: boolean, digits: string, exp10: number): string {
  let text: string;
  if (exp10 >= -3 && exp10 < 7) {
    if (exp10 >= 0) {
      const whole = digits.length > exp10 + 1 ? digits.slice(0, exp10 + 1) : digits.padEnd(exp10 + 1, "0");
      text = whole + "." + (digits.slice(exp10 + 1) || "0");
    } else text = "0." + "0".repeat(-exp10 - 1) + digits;
  } else text = digits[0] + "." + (digits.slice(1) || "0") + "E" + exp10;
  return negative ? "-" + text : text;
}

const F32 = new DataView(new ArrayBuffer(4));
const MIN_NORMAL_FLOAT = 2 ** -126;

/**
 * The common case without big integers: the nearest p-digit decimal for the smallest p that rounds
 * back to f, found by rounding f's (17-digit) double form. Gives up (undefined) wherever that shortcut
 * could pick another decimal than Java: subnormals, powers of two (lopsided rounding interval), f about
 * halfway between two p-digit decimals, or a candidate about on the rounding interval's edge.
 */
function quickFloatDigits(f: number): [string, number] | undefined {
  if (f < MIN_NORMAL_FLOAT) return undefined;
  if (Number.isInteger(f) && f < 2 ** 24) {
    // Every shorter decimal is at least 1 away, beyond the half gap (≤ 0.5).
    const text = String(f);
    return [text.replace(/(.)0+$/, "$1"), text.length - 1];
  }
  F32.setFloat32(0, f);
  const bits = F32.getUint32(0);
  if ((bits & 0x7fffff) === 0) return undefined;
  const halfGap = 2 ** ((bits >>> 23) - 127 - 24);
  const text = f.toExponential();
  const e = text.indexOf("e");
  const all = text.slice(0, e).replace(".", "");
  const exp10 = Number(text.slice(e + 1));
  // The nearest decimal of `precision` digits; "halfway" when f is (about) halfway between two.
  const nearest = (precision: number): [string, number] | "halfway" => {
    if (all.length <= precision) return [all, exp10];
    const rest = all.slice(precision);
    if (rest.startsWith("49999") || rest.startsWith("50000") || rest === "5") return "halfway";
    const head = all.slice(0, precision);
    if (rest < "5") return [head, exp10];
    const up = String(Number(head) + 1);
    return up.length > precision ? [up, exp10 + 1] : [up, exp10];
  };
  // Whether the nearest decimal of `precision` digits rounds to f; undefined when too close to call.
  const fits = (precision: number): boolean | undefined => {
    const candidate = nearest(precision);
    // Halfway, both neighbours are half a unit away: no fit if that is beyond the half gap, else
    // it is Java's even-digit rule, which the exact search applies.
    if (candidate === "halfway") return 0.5 * 10 ** (exp10 - precision + 1) > halfGap * (1 + 1e-9) ? false : undefined;
    const distance = Math.abs(Number(`${candidate[0]}e${candidate[1] - candidate[0].length + 1}`) - f);
    if (Math.abs(distance - halfGap) < f * 1e-12) return undefined;
    return distance < halfGap;
  };
  // Fitting is monotonic in the precision (more digits are never farther), so search for the least.
  let low = 1;
  let high = 9;
  while (low < high) {
    const mid = (low + high) >> 1;
    const ok = fits(mid);
    if (ok === undefined) return undefined;
    if (ok) high = mid;
    else low = mid + 1;
  }
  const found = nearest(low);
  if (found === "halfway" || fits(low) !== true) return undefined;
  return [found[0].replace(/(.)0+$/, "$1"), found[1]];
}

/**
 * The shortest decimal that rounds to float `f` (> 0), nearest to it when several have that length
 * and the even one on a tie: the rule JDK 19+ Float.toString follows. Decided with exact integers,
 * since a double round trip cannot judge candidates lying on a float's rounding boundary.
 */
function shortestFloatDigits(f: number): [string, number] {
  F32.setFloat32(0, f);
  const bits = F32.getUint32(0);
  const biased = (bits >>> 23) & 0xff;
  const fraction = bits & 0x7fffff;
  const m = BigInt(biased === 0 ? fraction : fraction | 0x800000);
  const e2 = (biased === 0 ? 1 : biased) - 150;
  // The rounding interval is [f - below/2, f + above/2]; narrower below at a power of two.
  const lowerHalfGapIsSmaller = fraction === 0 && biased > 1;
  const closedInterval = m % 2n === 0n;
  for (let precision = 1; precision <= 9; precision++) {
    const text = f.toExponential(precision - 1);
    const e = text.indexOf("e");
    const exp10 = Number(text.slice(e + 1));
    const k = exp10 - (precision - 1);
    const nearest = BigInt(text.slice(0, e).replace(".", ""));
    // Scale f, its gaps and the candidates by 2^s2 × 10^s10 so that all of them are integers.
    const s2 = BigInt(Math.max(0, 2 - e2));
    const s10 = BigInt(Math.max(0, -k));
    const gap = 2n ** (BigInt(e2) + s2) * 10n ** s10;
    const value = m * gap;
    const halfAbove = gap / 2n;
    const halfBelow = lowerHalfGapIsSmaller ? gap / 4n : halfAbove;
    const unit = 10n ** (BigInt(k) + s10) * 2n ** s2;
    let best: bigint | undefined;
    let bestDistance = 0n;
    for (const candidate of [nearest - 1n, nearest, nearest + 1n]) {
      if (candidate <= 0n) continue;
      const scaled = candidate * unit;
      const distance = scaled >= value ? scaled - value : value - scaled;
      const limit = scaled >= value ? halfAbove : halfBelow;
      if (distance > limit || (distance === limit && !closedInterval)) continue;
      if (best === undefined || distance < bestDistance || (distance === bestDistance && candidate % 2n === 0n)) {
        best = candidate;
        bestDistance = distance;
      }
    }
    // A 1-digit form is weighed against the 2-digit ones (Java takes the nearest: 1.4E-45), so the
    // search goes on to precision 2, whose candidates include it.
    if (best !== undefined && precision > 1) {
      const digits = best.toString();
      return [digits.replace(/0+$/, ""), k + digits.length - 1];
    }
  }
  throw new Error(`no decimal form found for float ${f}`);
}
