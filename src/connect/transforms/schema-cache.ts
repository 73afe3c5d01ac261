// The per-transform cache of derived schemas.
import { LruCache } from "../../platform/lru.ts";
import type { Schema } from "../api/data/index.ts";

/**
 * Derived schemas by input schema, least recently used evicted (Kafka wraps an LRUCache of 16 in a
 * SynchronizedCache). Looked up by identity first, then by Schema.equals as Kafka's hash map does.
 */
export class SchemaCache<V = Schema> {
  private readonly entries: LruCache<Schema, V>;

  constructor(capacity = 16) {
    this.entries = new LruCache(capacity);
  }

  get(key: Schema): V | undefined {
    const same = this.entries.get(key);
    if (same !== undefined) return same;
    // The most recently used of equal keys.
    let found: Schema | undefined;
    for (const k of this.entries.keys()) if (k.equals(key)) found = k;
    return found === undefined ? undefined : this.entries.get(found);
  }

  put(key: Schema, value: V): void {
    this.entries.set(key, value);
  }

  getOrCompute(key: Schema, compute: (key: Schema) => V): V {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = compute(key);
    this.put(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
