// Schemaless maps as transforms see them: a Map or a plain object (JSON's shape). Read either shape,
// write back the shape given.
import { isPlainObject } from "../api/data/index.ts";

export type SchemalessMap = Map<unknown, unknown> | Record<string, unknown>;

export function isMapValue(value: unknown): value is SchemalessMap {
  return value instanceof Map || isPlainObject(value);
}

/** `map.get(key)` with Java's null for a missing key. */
export function mapGet(map: SchemalessMap, key: string): unknown {
  if (map instanceof Map) return map.get(key) ?? null;
  return Object.hasOwn(map, key) ? (map[key] ?? null) : null;
}

/** A mutable copy, in insertion order. */
export function mapCopy(map: SchemalessMap): Map<unknown, unknown> {
  return new Map(map instanceof Map ? map : Object.entries(map));
}

/** `entries` in the same shape as `like` (a Map stays a Map, a plain object stays an object). */
export function mapLike(entries: Map<unknown, unknown>, like: SchemalessMap): SchemalessMap {
  if (like instanceof Map) return entries;
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, String(k), { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
