// `sluice repair-log`: the knowing way out of a damaged partition log (see recovery.ts). The damaged file
// stays under a new name (a hard link: its bytes are neither copied nor changed) and the log is rewritten
// with every intact frame before and after the damage, offsets kept (gaps, as after compaction). A crash
// at any point leaves the old or the new log under the log's name. Takes the data directory's lock, so
// it refuses to run beside a Sluice using that directory.
import { link, open, rename, rm } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { Logger } from "../../platform/log.ts";
import { fsyncDir, writeFully } from "../../platform/files.ts";
import { BrokerError } from "../broker.ts";
import { DataDirLock } from "./data-dir-lock.ts";
import { findNextIntactFrame } from "./frame-reader.ts";
import { FRAME_HEADER_BYTES } from "./record-frame.ts";
import { scanLog } from "./recovery.ts";

export interface LogRepair {
  /** Intact records in the log now. */
  records: number;
  lastOffset: number;
  /** Byte ranges of the original file that held no intact frame; empty when the log was whole. */
  skipped: { from: number; to: number }[];
  /** Where the original file is kept, when it was replaced. */
  keptAs?: string;
}

/** Repairs `<dataDir>/topics/<topic>/<partition>.log` with the data directory locked. */
export async function repairPartitionLog(file: string, log: Logger): Promise<LogRepair> {
  const path = resolve(file);
  const topicsDir = dirname(dirname(path));
  if (!path.endsWith(".log") || basename(topicsDir) !== "topics") {
    throw new BrokerError(
      `${file} is not a partition log of a data directory (<data.dir>/topics/<topic>/<partition>.log)`,
      false,
    );
  }
  const lock = await DataDirLock.acquire(dirname(topicsDir), log);
  try {
    return await repairLog(path);
  } finally {
    await lock.release();
  }
}

async function repairLog(file: string): Promise<LogRepair> {
  const source = await open(file, "r");
  const temp = `${file}.repairing`;
  const out = await open(temp, "w");
  const repair: LogRepair = { records: 0, lastOffset: -1, skipped: [] };
  try {
    let outEnd = 0;
    for (let start = 0; ; ) {
      const scan = await scanLog(source, start, repair.lastOffset, async (frame) => {
        const length = FRAME_HEADER_BYTES + frame.bodyLength;
        await writeFully(out, frame.buf.subarray(frame.at, frame.at + length), outEnd);
        outEnd += length;
        repair.records++;
      });
      repair.lastOffset = scan.lastOffset;
      if (!scan.damage) break;
      const resumesAt = await findNextIntactFrame(source, scan.validEnd + 1, scan.size, scan.lastOffset);
      repair.skipped.push({ from: scan.validEnd, to: resumesAt ?? scan.size });
      if (resumesAt === undefined) break;
      start = resumesAt;
    }
    await out.sync();
  } finally {
    await out.close();
    await source.close();
  }
  if (repair.skipped.length === 0) {
    await rm(temp);
    return repair;
  }
  repair.keptAs = `${file}.damaged-${Date.now()}`;
  await link(file, repair.keptAs);
  await fsyncDir(dirname(file));
  await rename(temp, file);
  await fsyncDir(dirname(file));
  return repair;
}
