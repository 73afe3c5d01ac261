// Small durable-file helpers. Durability on POSIX needs the data fsynced *and* the directory entry
// fsynced after a create or rename, or a crash can forget the file even though its bytes were synced.
import { constants } from "node:fs";
import { access, mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

let tempCounter = 0;

/** Reads exactly `length` bytes at `position`; throws when the file is shorter. */
export async function readExactly(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of file at ${position + done}`);
    done += bytesRead;
  }
  return buf;
}

/** Writes all of `data` at `position` (pwrite; loops over short writes). */
export async function writeFully(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}

export async function fsyncDir(path: string): Promise<void> {
  const dir = await open(path, "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Whether `name` is a temp file writeFileAtomic left beside `target` (a file name) when interrupted. */
export function isAtomicWriteLeftover(name: string, target: string): boolean {
  return name.startsWith(`.${target}.tmp-`);
}

/** Replaces `path` with `data` so that a crash leaves either the old or the new content, never a mix. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${++tempCounter}`);
  const handle = await open(temp, "w");
  try {
    await writeFully(handle, typeof data === "string" ? new TextEncoder().encode(data) : data, 0);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temp, path);
  await fsyncDir(dirname(path));
}

/** Opens a file for positional reads and writes, creating it (and syncing its directory) if missing. */
export async function openReadWrite(path: string): Promise<FileHandle> {
  try {
    return await open(path, "r+");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  // "a+" would create too, but O_APPEND makes positional writes ignore their position on Linux.
  const created = await open(path, "wx+");
  await created.sync();
  await fsyncDir(dirname(path));
  return created;
}

/** Creates `dir` (and its parents) if missing and checks that this process may create files in it. */
export async function ensureWritableDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await access(dir, constants.W_OK);
}
