// The per-transform cache of derived schemas.
import type { Schema } from "../api/data/index.ts";

/**
 * Derived schemas by input schema, least recently used evicted (Kafka wraps an LRUCache of 16 in a
 * SynchronizedCache). Looked up by identity first, then by Schema.equals as Kafka's hash map does.
 */
export class SchemaCache<V = Schema> {
  private readonly entries = new Map<Schema, V>();

  constructor(private readonly capacity = 16) {}

  get(key: Schema): V | undefined {
    let found: Schema | undefined = this.entries.has(key) ? key : undefined;
    if (found === undefined) for (const k of this.entries.keys()) if (k.equals(key)) found = k;
    if (found === undefined) return undefined;
    const value = this.entries.get(found) as V;
    // Re-insert to mark as most recently used.
    this.entries.delete(found);
    this.entries.set(found, value);
    return value;
  }

  put(key: Schema, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as Schema);
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
