// Committed consumer positions, one JSON file per group, replaced atomically on every commit. Reads see
// only positions whose commit has completed (the file is written before the in-memory view changes).
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../platform/files.ts";
import { Mutex } from "./mutex.ts";

/** topic → partition → next offset to read */
type GroupState = Record<string, Record<string, number>>;

interface GroupFile {
  group: string;
  topics: GroupState;
}

export class GroupOffsets {
  private readonly durable = new Map<string, GroupState>();
  private readonly locks = new Map<string, Mutex>();

  constructor(private readonly dir: string) {}

  async committed(group: string, topic: string): Promise<Map<number, number>> {
    const state = await this.load(group);
    return new Map(Object.entries(state[topic] ?? {}).map(([p, o]) => [Number(p), o]));
  }

  /** Merges `positions` into the group's topic entry and resolves once that is on disk. */
  commit(group: string, topic: string, positions: { partition: number; offset: number }[]): Promise<void> {
    let lock = this.locks.get(group);
    if (!lock) this.locks.set(group, (lock = new Mutex()));
    return lock.run(async () => {
      const current = await this.load(group);
      const next: GroupState = { ...current, [topic]: { ...current[topic] } };
      for (const { partition, offset } of positions) next[topic][String(partition)] = offset;
      const file: GroupFile = { group, topics: next };
      await writeFileAtomic(this.fileOf(group), `${JSON.stringify(file, null, 2)}\n`);
      this.durable.set(group, next);
    });
  }

  /** Waits for commits in flight. */
  async flush(): Promise<void> {
    await Promise.all([...this.locks.values()].map((lock) => lock.run(async () => undefined)));
  }

  private async load(group: string): Promise<GroupState> {
    const cached = this.durable.get(group);
    if (cached) return cached;
    let state: GroupState = {};
    const file = this.fileOf(group);
    let text: string | undefined;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    if (text !== undefined) {
      try {
        state = (JSON.parse(text) as GroupFile).topics;
        if (typeof state !== "object" || state === null) throw new Error("no topics");
      } catch (err) {
        // Not "no positions": a group that forgot them would re-read or skip records.
        throw new Error(
          `malformed committed offsets file ${file} (${(err as Error).message}); restore it or delete it to reset the group`,
        );
      }
    }
    // Another call may have loaded (or committed) while we read; keep the first.
    const raced = this.durable.get(group);
    if (raced) return raced;
    this.durable.set(group, state);
    return state;
  }

  private fileOf(group: string): string {
    const encoded = encodeURIComponent(group);
    // File names are limited to 255 bytes; very long group ids get a hashed name (the id is inside).
    if (encoded.length <= 200) return join(this.dir, `${encoded}.json`);
    const digest = createHash("sha256").update(group).digest("hex").slice(0, 32);
    return join(this.dir, `${encoded.slice(0, 160)}~${digest}.json`);
  }
}
