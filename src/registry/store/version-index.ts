// Schema versions by a key (id, text hash). Nearly every key has one version, so that one is stored
// as it is, and a list only for the rare shared key: one Set per schema would be two more objects
// per schema kept for the life of the process.
export class VersionIndex<K, V> {
  private readonly entries = new Map<K, V | V[]>();

  add(key: K, value: V): void {
    const held = this.entries.get(key);
    if (held === undefined) this.entries.set(key, value);
    else if (Array.isArray(held)) held.push(value);
    else this.entries.set(key, [held, value]);
  }

  delete(key: K, value: V): void {
    const held = this.entries.get(key);
    if (held === value) this.entries.delete(key);
    else if (Array.isArray(held)) {
      const rest = held.filter((v) => v !== value);
      if (rest.length === 1) this.entries.set(key, rest[0]!);
      else this.entries.set(key, rest);
    }
  }

  get(key: K): readonly V[] {
    const held = this.entries.get(key);
    return held === undefined ? [] : Array.isArray(held) ? held : [held];
  }
}
