// A bounded map that forgets the least recently used entry, and a table of in-flight look-ups so
// concurrent identical requests share one call.

export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  /** The most recently used key: using it again changes no order (hot reads repeat one key). */
  private newest?: K;
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined && key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  clear(): void {
    this.map.clear();
    this.newest = undefined;
  }

  /** The keys, least recently used first (reading them does not count as use). */
  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  get size(): number {
    return this.map.size;
  }

  /** Cached value, else the one in-flight call for `key`, else a new call whose result is cached. */
  async getOrLoad(key: K, inFlight: Map<K, Promise<V>>, load: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const pending = inFlight.get(key);
    if (pending) return pending;
    const call = load().then(
      (value) => {
        this.set(key, value);
        inFlight.delete(key);
        return value;
      },
      (err: unknown) => {
        inFlight.delete(key);
        throw err;
      },
    );
    inFlight.set(key, call);
    return call;
  }
}
