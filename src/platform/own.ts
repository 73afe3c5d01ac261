// A table's own entry for a key that comes from outside (a request, a config, a record's schema): a
// plain object also "has" `constructor`, `__proto__`, `toString`…, which would be found and called.
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
