// Number text through Apache Commons NumberUtils.createNumber and then a default
// java.text.DecimalFormat (no grouping, at most 3 fraction digits, HALF_EVEN), as Confluent's
// normalized Protobuf schema prints option values.

/** Java's Integer.decode-style integer text (sign, 0x/#, leading-zero octal) → BigInt; null if invalid. */
function decodeInteger(text: string): bigint | null {
  const m = /^([+-]?)(0[xX]|#|0(?=[0-9]))?([0-9A-Fa-f]+)$/.exec(text);
  if (!m) return null;
  const radix = m[2] === undefined ? 10 : m[2] === "0" ? 8 : 16;
  const digits = m[3];
  const valid = radix === 16 ? /^[0-9A-Fa-f]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  let v = 0n;
  for (const d of digits) v = v * BigInt(radix) + BigInt(parseInt(d, 16));
  return m[1] === "-" ? -v : v;
}

/** Exact decimal text of a finite double rounded HALF_EVEN to at most 3 fraction digits. */
function decimalFormat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "\u221e" : "-\u221e";
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const negative = hi >>> 31 === 1;
  const exponent = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exponent !== 0) mantissa |= 1n << 52n;
  const shift = (exponent === 0 ? 1 : exponent) - 1075;
  // scaled = |x| * 1000, rounded half-even to an integer.
  let scaled: bigint;
  if (shift >= 0) {
    scaled = (mantissa << BigInt(shift)) * 1000n;
  } else {
    const den = 1n << BigInt(-shift);
    const num = mantissa * 1000n;
    scaled = num / den;
    const rem = (num % den) * 2n;
    if (rem > den || (rem === den && scaled % 2n === 1n)) scaled += 1n;
  }
  const intPart = scaled / 1000n;
  const frac = (scaled % 1000n).toString().padStart(3, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${intPart}${frac ? `.${frac}` : ""}`;
}

/**
 * How Confluent's normalized form prints a numeric option or default: NumberUtils.createNumber
 * then DecimalFormat (no grouping, at most 3 fraction digits). Text that is not a Java number
 * (inf, nan, ...) is kept as written.
 */
export function normalizeNumberText(text: string): string {
  const t = text.trim();
  if (t === "" || t.startsWith("--")) return text;
  const last = t[t.length - 1];
  if (/[lL]$/.test(t)) {
    const v = decodeInteger(t.slice(0, -1));
    return v === null ? text : v.toString();
  }
  const isDecimal = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/.test(t) && !/^[+-]?\d+$/.test(t);
  if (isDecimal) {
    const body = /[fFdD]$/.test(t) ? t.slice(0, -1) : t;
    const d = Number(body);
    if (Number.isNaN(d)) return text;
    // createNumber prefers Float when the value fits one (Java widens it exactly to double).
    const f = Math.fround(d);
    const useFloat =
      last === "f" ||
      last === "F" ||
      (last !== "d" && last !== "D" && Number.isFinite(f) && !(f === 0 && !/^[+-]?[0.]*([eE].*)?$/.test(body)));
    return decimalFormat(useFloat ? f : d);
  }
  const v = decodeInteger(t);
  return v === null ? text : v.toString();
}
