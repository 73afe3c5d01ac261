// Iteration order of java.util.HashMap/HashSet with String keys. Confluent's JSON Schema diff walks
// property names through HashMaps and HashSets, so the order of the differences it reports (and,
// where the loader combines keywords, the order of subschemas) is the hash-table order. Simulating
// the table (String.hashCode, bucket spreading, resizes that keep bucket order) reproduces it.

/** Java's String.hashCode over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** HashMap.tableSizeFor: the next power of two (at least 1). */
function tableSizeFor(cap: number): number {
  let n = 1;
  while (n < cap) n *= 2;
  return n;
}

const TREEIFY_THRESHOLD = 8;
const MIN_TREEIFY_CAPACITY = 64;

/** A java.util.HashMap key set, as far as iteration order goes (bins never become trees here). */
export class JavaHashKeys {
  private table: string[][] | null = null;
  private threshold: number;
  private count = 0;
  private readonly present = new Set<string>();

  /** `initialCapacity` as given to `new HashMap<>(n)`; omit for `new HashMap<>()`. */
  constructor(initialCapacity?: number) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
  }

  /**
   * `new HashMap<>(map)` / `new HashSet<>(collection)` copies, with the capacity Java 21 picks
   * (JDK 19 changed the pre-sizing to ceil(n / 0.75); HashSet copies size for at least 12).
   */
  static copyOf(keys: Iterable<string>, forHashSet: boolean): JavaHashKeys {
    const list = [...keys];
    const n = forHashSet ? Math.max(list.length, 12) : list.length;
    const set = new JavaHashKeys(n > 0 ? Math.ceil(n / 0.75) : undefined);
    for (const k of list) set.add(k);
    return set;
  }

  static of(keys: Iterable<string>): JavaHashKeys {
    const set = new JavaHashKeys();
    for (const k of keys) set.add(k);
    return set;
  }

  has(key: string): boolean {
    return this.present.has(key);
  }

  get size(): number {
    return this.count;
  }

  add(key: string): void {
    if (this.present.has(key)) return;
    if (this.table === null) this.resize();
    const table = this.table as string[][];
    const bin = table[this.index(key, table.length)];
    bin.push(key);
    this.present.add(key);
    // putVal treeifies a bin that had 8 nodes; below 64 buckets treeifyBin resizes instead.
    if (bin.length > TREEIFY_THRESHOLD && table.length < MIN_TREEIFY_CAPACITY) this.resize();
    if (++this.count > this.threshold) this.resize();
  }

  addAll(keys: Iterable<string>): void {
    for (const k of keys) this.add(k);
  }

  keys(): string[] {
    return this.table === null ? [] : this.table.flat();
  }

  [Symbol.iterator](): Iterator<string> {
    return this.keys()[Symbol.iterator]();
  }

  private index(key: string, length: number): number {
    const h = javaStringHash(key);
    return (h ^ (h >>> 16)) & (length - 1);
  }

  private resize(): void {
    const old = this.table;
    let capacity: number;
    if (old === null) {
      capacity = this.threshold > 0 ? this.threshold : 16;
    } else {
      capacity = old.length * 2;
    }
    this.threshold = capacity * 0.75;
    const table: string[][] = Array.from({ length: capacity }, () => []);
    // Splitting a bin keeps the relative order of its keys, as iterating the old table does.
    if (old !== null) for (const bin of old) for (const k of bin) table[this.index(k, capacity)].push(k);
    this.table = table;
  }
}
