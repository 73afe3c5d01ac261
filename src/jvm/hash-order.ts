// Iteration order of java.util.HashMap/HashSet with String or Integer keys. Confluent's schema diffs
// walk names and tags through HashMaps and HashSets, so the order of the differences they report
// (and, where the JSON Schema loader combines keywords, the order of subschemas) is the hash-table
// order; Kafka prints configs copied into a HashMap. Simulating the table (hashCode, bucket
// spreading, resizes that keep bucket order) reproduces it.

/** Java's String.hashCode over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** hashCode of the boxed key: String's, or Integer's (the value itself). */
function javaHashCode(key: string | number): number {
  return typeof key === "string" ? javaStringHash(key) : key | 0;
}

/**
 * How `new HashMap<>(map)` and `new HashSet<>(collection)` size their table. JDK 19 changed it:
 * since, ceil(n / 0.75) (a HashSet copy sized for at least 12 keys); before, (int) (n / 0.75f) + 1
 * (a HashSet copy at least 16). They differ when n is 12, 24, 48, ….
 */
export type CopySizing = "jdk19+" | "jdk17";

function copyCapacity(n: number, forHashSet: boolean, sizing: CopySizing): number | undefined {
  if (sizing === "jdk19+") {
    const wanted = forHashSet ? Math.max(n, 12) : n;
    return wanted > 0 ? Math.ceil(wanted / 0.75) : undefined;
  }
  const floatSized = Math.trunc(Math.fround(Math.fround(n / 0.75) + 1)); // float arithmetic, as Java's
  if (forHashSet) return Math.max(floatSized, 16);
  return n > 0 ? floatSized : undefined;
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
export class JavaHashKeys<K extends string | number = string> {
  private table: K[][] | null = null;
  private threshold: number;
  private count = 0;
  private readonly present = new Set<K>();

  /** `initialCapacity` as given to `new HashMap<>(n)`; omit for `new HashMap<>()`. */
  constructor(initialCapacity?: number) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
  }

  /** `new HashMap<>(map)` / `new HashSet<>(collection)` copies, sized as the JDK does (19 and later unless said). */
  static copyOf<K extends string | number>(
    keys: Iterable<K>,
    forHashSet: boolean,
    sizing: CopySizing = "jdk19+",
  ): JavaHashKeys<K> {
    const list = [...keys];
    const set = new JavaHashKeys<K>(copyCapacity(list.length, forHashSet, sizing));
    set.addAll(list);
    return set;
  }

  /** `new HashSet<>()` with `keys` added in order. */
  static of<K extends string | number>(keys: Iterable<K>): JavaHashKeys<K> {
    const set = new JavaHashKeys<K>();
    set.addAll(keys);
    return set;
  }

  has(key: K): boolean {
    return this.present.has(key);
  }

  get size(): number {
    return this.count;
  }

  add(key: K): void {
    if (this.present.has(key)) return;
    if (this.table === null) this.resize();
    const table = this.table as K[][];
    const bin = table[this.index(key, table.length)];
    bin.push(key);
    this.present.add(key);
    // putVal treeifies a bin that had 8 nodes; below 64 buckets treeifyBin resizes instead.
    if (bin.length > TREEIFY_THRESHOLD && table.length < MIN_TREEIFY_CAPACITY) this.resize();
    if (++this.count > this.threshold) this.resize();
  }

  addAll(keys: Iterable<K>): void {
    for (const k of keys) this.add(k);
  }

  keys(): K[] {
    return this.table === null ? [] : this.table.flat();
  }

  [Symbol.iterator](): Iterator<K> {
    return this.keys()[Symbol.iterator]();
  }

  private index(key: K, length: number): number {
    const h = javaHashCode(key);
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
    const table: K[][] = Array.from({ length: capacity }, () => []);
    // Splitting a bin keeps the relative order of its keys, as iterating the old table does.
    if (old !== null) for (const bin of old) for (const k of bin) table[this.index(k, capacity)].push(k);
    this.table = table;
  }
}
