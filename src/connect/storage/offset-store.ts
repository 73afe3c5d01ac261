// Source offsets: per connector, source partition → source offset, as Kafka Connect stores them
// (keyed `["<connector>", {partition}]`). Writes are durable before they resolve.
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ensureWritableDir, writeFileAtomic } from "../../common/files.ts";
import { ConfigError } from "../../common/settings.ts";

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

/** Offsets in memory, backed by a file (standalone's offset.storage.file.filename). */
export class FileOffsetStore implements OffsetStore {
  private constructor(
    private readonly file: string,
    private readonly offsets: Map<string, Record<string, unknown>>,
  ) {}

  /**
   * Loads `file`, creating it and its directory now: a place that cannot be written fails start-up,
   * naming `setting` (where the path came from), instead of every offset flush later.
   */
  static async open(file: string, setting: string): Promise<FileOffsetStore> {
    let text: string | undefined;
    try {
      await ensureWritableDir(dirname(file));
      text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return undefined;
        throw err;
      });
      if (text === undefined) await writeFileAtomic(file, "{}");
    } catch (err) {
      throw new ConfigError(setting, file, `a file Sluice can create and write (${(err as Error).message})`);
    }
    let stored: Record<string, Record<string, unknown>>;
    try {
      stored = JSON.parse(text ?? "{}") as Record<string, Record<string, unknown>>;
    } catch (err) {
      throw new Error(
        `malformed source offsets file ${file} (${(err as Error).message}); restore it, or delete it to start every source connector from the beginning`,
      );
    }
    return new FileOffsetStore(file, new Map(Object.entries(stored)));
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
    await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.offsets)));
  }
}
