// What the exporters' topics hold, rebuilt by applying their records in offset order: one map per
// topic, by exporter name. Pure: the logs feed it records; the service and the runner read it.
import type { Bytes } from "../../broker/broker.ts";
import type { LogState } from "../store/topic-log.ts";
import { decodeKey } from "./records.ts";

export interface Named<V> {
  value: V;
  /** The key bytes as read: a later write or tombstone of this exporter reuses them. */
  key: Bytes;
}

export class NamedState<V> implements LogState {
  private readonly entries = new Map<string, Named<V>>();
  /** Bumped on every applied record: the runner looks again when it moves. */
  generation = 0;

  constructor(private readonly decode: (name: string, value: Bytes) => V | undefined) {}

  apply(key: Bytes | null, value: Bytes | null): boolean {
    const name = decodeKey(key);
    if (name === undefined || !key) return false;
    this.generation++;
    if (value === null) {
      this.entries.delete(name);
      return true;
    }
    const decoded = this.decode(name, value);
    if (decoded === undefined) return false;
    this.entries.set(name, { value: decoded, key: key.slice() });
    return true;
  }

  get(name: string): Named<V> | undefined {
    return this.entries.get(name);
  }

  names(): string[] {
    return [...this.entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  get size(): number {
    return this.entries.size;
  }
}
