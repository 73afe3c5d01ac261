// The input of the FileStreamSource benchmarks: ~100-byte lines, numbered so that a lost, repeated or
// reordered line shows.
import { closeSync, openSync, statSync, writeSync } from "node:fs";

const FILLER = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(3);

/** Line `i` without its newline: 99 characters. */
export function lineText(i: number): string {
  const head = `line ${String(i).padStart(9, "0")} `;
  return head + FILLER.slice(0, 99 - head.length);
}

/** Writes `lines` numbered lines to `file` in 1 MB writes; returns its size in bytes. */
export function writeLines(file: string, lines: number): number {
  const fd = openSync(file, "w");
  let chunk = "";
  for (let i = 0; i < lines; i++) {
    chunk += lineText(i) + "\n";
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = "";
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  return statSync(file).size;
}
