// Source offsets: per connector, source partition → source offset, as Kafka Connect stores them
// (keyed `["<connector>", {partition}]`). Writes are durable before they resolve.
import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "../../common/files.ts";

export interface OffsetEntry {
  partition: Record<string, unknown>;
  offset: Record<string, unknown> | null;
}

export interface OffsetStore {
  get(connector: string, partition: Record<string, unknown>): Record<string, unknown> | null;
  all(connector: string): OffsetEntry[];
  /** Stores the offsets (null deletes one) durably. */
  set(connector: string, entries: OffsetEntry[]): Promise<void>;
  /** Catches up with offsets other workers wrote (distributed mode), before a task starts. */
  refresh?(): Promise<void>;
}

const keyOf = (connector: string, partition: Record<string, unknown>) => JSON.stringify([connector, partition]);

/** Offsets in memory, optionally backed by a file (standalone's offset.storage.file.filename). */
export class FileOffsetStore implements OffsetStore {
  private readonly offsets = new Map<string, Record<string, unknown>>();

  constructor(private readonly file?: string) {
    if (file && existsSync(file)) {
      const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
      for (const [key, value] of Object.entries(stored)) this.offsets.set(key, value);
    }
  }

  get(connector: string, partition: Record<string, unknown>): Record<string, unknown> | null {
    return this.offsets.get(keyOf(connector, partition)) ?? null;
  }

  all(connector: string): OffsetEntry[] {
    const out: OffsetEntry[] = [];
    for (const [key, offset] of this.offsets) {
      const [name, partition] = JSON.parse(key) as [string, Record<string, unknown>];
      if (name === connector) out.push({ partition, offset });
    }
    return out;
  }

  async set(connector: string, entries: OffsetEntry[]): Promise<void> {
    for (const { partition, offset } of entries) {
      if (offset === null) this.offsets.delete(keyOf(connector, partition));
      else this.offsets.set(keyOf(connector, partition), offset);
    }
    if (this.file) await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.offsets)));
  }
}
