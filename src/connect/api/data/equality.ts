// Deep equality of Connect values, as Java's Objects.deepEquals sees the equivalent JVM objects:
// bytes by content, lists and maps element-wise, BigDecimal with its scale, Date by instant.
// JS specifics: an INT64 held as number equals the same bigint; a plain object equals a Map with the
// same entries; NaN equals NaN (as Double.equals does).
import { BigDecimal } from "../../../jvm/big-decimal.ts";
import { isPlainObject } from "./java-format.ts";
import { isStruct } from "./struct-brand.ts";

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === "number" || typeof a === "bigint") return numbersEqual(a, b);
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => valuesEqual(v, b[i]));
  if (isStruct(a)) return a.equals(b);
  if (a instanceof BigDecimal) return a.equals(b);
  if (a instanceof Date)
    return (
      b instanceof Date && (a.getTime() === b.getTime() || (Number.isNaN(a.getTime()) && Number.isNaN(b.getTime())))
    );
  const left = entriesOf(a);
  const right = entriesOf(b);
  if (left && right) return mapsEqual(left, right);
  return false;
}

function numbersEqual(a: number | bigint, b: unknown): boolean {
  if (typeof b !== "number" && typeof b !== "bigint") return false;
  // biome-ignore lint/suspicious/noSelfCompare: NaN equals NaN here, as in Java's Double.equals.
  if (typeof a === typeof b) return a === b || (a !== a && b !== b);
  const [n, big] = (typeof a === "number" ? [a, b] : [b, a]) as [number, bigint];
  return Number.isInteger(n) && BigInt(n) === big;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function entriesOf(value: object): Map<unknown, unknown> | undefined {
  if (value instanceof Map) return value;
  if (isPlainObject(value)) return new Map(Object.entries(value));
  return undefined;
}

function mapsEqual(a: Map<unknown, unknown>, b: Map<unknown, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) {
    if (b.has(key)) {
      if (!valuesEqual(value, b.get(key))) return false;
      continue;
    }
    // Keys that are objects (structs, bytes, lists) or int64s held differently need a deep look-up.
    let found = false;
    for (const [otherKey, otherValue] of b) {
      if (valuesEqual(key, otherKey)) {
        if (!valuesEqual(value, otherValue)) return false;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}
