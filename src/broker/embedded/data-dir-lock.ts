// One process per data directory: `<dataDir>/.lock` holds the owner's pid. The lock file is created
// complete (written to a temp file, then hard-linked into place, which fails if it exists), so nobody
// ever sees an empty lock. A lock whose pid is not running is stale (crash, kill -9) and taken over.
import { link, readFile, realpath, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../platform/log.ts";
import { BrokerError } from "../broker.ts";
import { fsyncDir, writeFileAtomic } from "../../platform/files.ts";

/** Lock files held (or being taken) by brokers of this process. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class DataDirLock {
  private constructor(readonly file: string) {}

  static async acquire(dataDir: string, log: Logger): Promise<DataDirLock> {
    const file = join(await realpath(dataDir), ".lock");
    if (heldHere.has(file)) {
      throw new BrokerError(
        `data directory ${dataDir} is already in use by another embedded broker in this process`,
        false,
      );
    }
    // Reserved before any await, so two brokers of this process racing for the directory cannot both win.
    heldHere.add(file);
    try {
      await DataDirLock.take(file, dataDir, log);
    } catch (err) {
      heldHere.delete(file);
      throw err;
    }
    return new DataDirLock(file);
  }

  private static async take(file: string, dataDir: string, log: Logger): Promise<void> {
    const staged = `${file}.${process.pid}.${Date.now()}`;
    await writeFileAtomic(staged, `${process.pid}\n`);
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await link(staged, file);
          await fsyncDir(dataDir);
          return;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        }
        const owner = Number.parseInt(await readFile(file, "utf8").catch(() => ""), 10);
        // Our own pid in a lock we do not hold is a previous incarnation (containers reuse pid 1).
        if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)) {
          throw new BrokerError(
            `data directory ${dataDir} is in use by running process ${owner} (lock file ${file}); ` +
              "stop that process or use another data directory",
            false,
          );
        }
        log.warn(
          { lockFile: file, stalePid: owner },
          "taking over the stale lock of a process that is no longer running",
        );
        await rm(file, { force: true });
      }
      throw new BrokerError(`could not lock data directory ${dataDir}: lock file ${file} keeps reappearing`, true);
    } finally {
      await rm(staged, { force: true });
    }
  }

  async release(): Promise<void> {
    heldHere.delete(this.file);
    const owner = Number.parseInt(await readFile(this.file, "utf8").catch(() => ""), 10);
    if (owner === process.pid) await rm(this.file, { force: true });
  }
}
