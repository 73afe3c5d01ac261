// Debezium's file signal channel (signal.enabled.channels=file): one signal a line, as JSON
// `{"id", "type", "data"}`, in signal.file. As Debezium's, every read takes all the lines there are and
// empties the file, so a signal is acted on once; a line that is no signal is a warning, and gone too.
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import type { Logger } from "../../../platform/log.ts";
import { signalOf, type Signal, type SignalChannel } from "./signal.ts";

export const DEFAULT_SIGNAL_FILE = "file-signals.txt";

export class FileSignalChannel implements SignalChannel {
  readonly name = "file";
  private readonly path: string;

  /** `file`: signal.file, relative to the worker's working directory as Debezium's is. */
  constructor(
    file: string,
    private readonly log: Logger,
  ) {
    this.path = resolve(file);
    log.info(
      { file: this.path },
      `File signal channel is active, reading signals from '${this.path}'. Only who may configure connectors should be able to write it; the worker empties it after each read.`,
    );
  }

  async read(): Promise<Signal[]> {
    const lines = await this.take();
    const signals: Signal[] = [];
    for (const line of lines) {
      if (line.trim() === "") continue;
      const signal = parseLine(line);
      if (typeof signal === "string") {
        this.log.warn({ line: line.slice(0, 1000) }, `Skipped signal due to a parse error: ${signal}`);
        continue;
      }
      this.log.info({ id: signal.id, type: signal.type, data: signal.data }, "Processing signal");
      signals.push(signal);
    }
    return signals;
  }

  async close(): Promise<void> {}

  /**
   * The file's whole lines, removed from it. A line still being written (no newline and no complete JSON
   * yet, or appended between the read and the truncation) stays in the file for the next read.
   */
  private async take(): Promise<string[]> {
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(this.path, "r+");
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "ENOENT" || code === "EISDIR") return [];
      throw err;
    }
    try {
      const content = await file.readFile();
      const end = complete(content) ? content.length : content.lastIndexOf(0x0a) + 1;
      if (end === 0) return [];
      const taken = content.subarray(0, end);
      // Whatever came after what was read (or after its last newline) is kept, at the file's start.
      const rest = Buffer.concat([content.subarray(end), await readFrom(file, content.length)]);
      await file.truncate(0);
      if (rest.length > 0) await file.write(rest, 0, rest.length, 0);
      return taken.toString("utf8").split("\n");
    } finally {
      await file.close();
    }
  }
}

/** Whether the text after the last newline is empty or a complete JSON value (a last line without newline). */
function complete(content: Buffer): boolean {
  const tail = content.subarray(content.lastIndexOf(0x0a) + 1).toString("utf8");
  if (tail.trim() === "") return true;
  try {
    JSON.parse(tail);
    return true;
  } catch {
    return false;
  }
}

async function readFrom(file: Awaited<ReturnType<typeof open>>, position: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (;;) {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return Buffer.concat(chunks);
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}

/** One line of the file: its signal, or what is wrong with it. */
export function parseLine(line: string): Signal | string {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return signalOf(json, "file");
}
