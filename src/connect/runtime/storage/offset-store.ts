// Source offsets: per connector, source partition → source offset, as Kafka Connect stores them
// (keyed `["<connector>", {partition}]`). Writes are durable before they resolve.
//
// The standalone file is always written in Kafka Connect's own format (FileOffsetBackingStore's
// Java-serialized map of JSON bytes), so one file serves Kafka Connect and Sluice alike and a user can
// move either way. Files of earlier Sluice versions (one JSON object) are still read.
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ensureWritableDir, writeFileAtomic } from "../../../platform/files.ts";
import { ConfigError } from "../../../platform/settings.ts";
import { decodeByteMap, encodeByteMap, isJavaSerialized } from "./java-byte-map.ts";

export interface OffsetEntry {
  partition: Record<string, unknown>;
  offset: Record<string, unknown> | null;
}

export interface OffsetStore {
  get(connector: string, partition: Record<string, unknown>): Record<string, unknown> | null;
  all(connector: string): OffsetEntry[];
  /** Stores the offsets (null deletes one) durably. */
  set(connector: string, entries: OffsetEntry[]): Promise<void>;
  /**
   * Offsets an exactly-once task wrote to this store's topic itself, in the transaction of its records,
   * once that committed: remembered without being written again.
   */
  stored?(connector: string, entries: OffsetEntry[]): void;
  /**
   * Distributed mode: makes a connector's `offsets.storage.topic` (undefined: none) its own offsets topic
   * (KIP-618), read before the worker's; `topicFor` then names it.
   */
  useTopic?(connector: string, topic: string | undefined): Promise<void>;
  /** The topic a connector's offsets are written to (distributed mode). */
  topicFor?(connector: string): string;
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
    let content: Uint8Array | undefined;
    try {
      await ensureWritableDir(dirname(file));
      content = await readFile(file).catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return undefined;
        throw err;
      });
      if (content === undefined) await writeFileAtomic(file, encodeByteMap([]));
    } catch (err) {
      throw new ConfigError(setting, file, `a file Sluice can create and write (${(err as Error).message})`);
    }
    try {
      return new FileOffsetStore(file, content ? parseOffsets(content) : new Map());
    } catch (err) {
      throw new Error(
        `unreadable source offsets file ${file} (${(err as Error).message}): it is neither Kafka Connect's offsets file nor Sluice's; restore it, or delete it to start every source connector from the beginning`,
      );
    }
  }

  get(connector: string, partition: Record<string, unknown>): Record<string, unknown> | null {
    return this.offsets.get(keyOf(connector, partition)) ?? null;
  }

  /** The connectors the file has offsets of. */
  connectors(): string[] {
    return [...new Set([...this.offsets.keys()].map((key) => (JSON.parse(key) as [string])[0]))];
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
    await writeFileAtomic(
      this.file,
      encodeByteMap(
        [...this.offsets].map(([key, offset]) => [encoder.encode(key), encoder.encode(JSON.stringify(offset))]),
      ),
    );
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Offsets by keyOf from Kafka Connect's file (JSON key and value bytes) or an earlier Sluice's (one JSON object). */
function parseOffsets(content: Uint8Array): Map<string, Record<string, unknown>> {
  if (!isJavaSerialized(content))
    return new Map(Object.entries(JSON.parse(decoder.decode(content)) as Record<string, Record<string, unknown>>));
  const offsets = new Map<string, Record<string, unknown>>();
  for (const [key, value] of decodeByteMap(content)) {
    if (key === null || value === null) continue; // a deleted offset
    const [connector, partition] = JSON.parse(decoder.decode(key)) as [string, Record<string, unknown>];
    if (typeof connector !== "string" || partition === null || typeof partition !== "object")
      throw new Error(`a key that is not ["<connector>", {partition}]: ${decoder.decode(key)}`);
    offsets.set(keyOf(connector, partition), JSON.parse(decoder.decode(value)) as Record<string, unknown>);
  }
  return offsets;
}
