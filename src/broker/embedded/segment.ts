// The file behind a partition log at one point in time. Compaction replaces it with a new file; readers
// that started on the old one pin it (acquire/release) and it is closed only when the last one is done,
// so a fetch in progress keeps reading consistent data from the old (renamed-over) inode.
import type { FileHandle } from "node:fs/promises";
import type { SparseIndex } from "./sparse-index.ts";

export class Segment {
  private refs = 0;
  private retired = false;
  private closing = false;
  private markClosed!: () => void;
  /** Resolves once the file handle is closed (after retire() and the last release()). */
  readonly closed = new Promise<void>((resolve) => {
    this.markClosed = resolve;
  });

  constructor(
    readonly handle: FileHandle,
    readonly index: SparseIndex,
    /** End of the durable frames; appends go here. */
    public end: number,
    /** Frames in the file (live and superseded), for the dirty ratio. */
    public records: number,
  ) {}

  acquire(): this {
    this.refs++;
    return this;
  }

  release(): void {
    this.refs--;
    this.closeIfUnused();
  }

  /** No new readers will come; close as soon as the current ones are done. */
  retire(): void {
    this.retired = true;
    this.closeIfUnused();
  }

  private closeIfUnused(): void {
    if (!this.retired || this.refs > 0 || this.closing) return;
    this.closing = true;
    // A failing close() of a read-only-by-now handle loses nothing; still resolve so shutdown completes.
    this.handle.close().then(this.markClosed, this.markClosed);
  }
}
