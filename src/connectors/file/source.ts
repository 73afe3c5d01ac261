// org.apache.kafka.connect.file.FileStreamSourceConnector: each line of a file becomes a record. Lines
// end at \n, \r\n or a lone \r, as Kafka's task splits them. The offset `position` counts UTF-16 code
// units (Kafka's task counts the Java chars it decoded), so offsets read the same as Kafka Connect's;
// a restart converts it back to a byte position by decoding the file up to it. The file is read as a
// stream, as Kafka's task reads it: to its end, then again once it has grown. Its size as stat reports
// it is never trusted (/proc files report 0), and reads are asynchronous, so a file without end or
// without newlines never holds up the event loop.
import { open, type FileHandle } from "node:fs/promises";
import { SettingsDefinition } from "../../platform/settings.ts";
import { Schema } from "../../connect/api/data/index.ts";
import { SourceConnector, SourceTask, ConnectException, type ExactlyOnceSupport } from "../../connect/api/connector.ts";
import { sourceRecord, type SourceRecord } from "../../connect/api/records.ts";
import { VERSION } from "../../platform/version.ts";

const fileSourceSettings = new SettingsDefinition([
  {
    name: "file",
    type: "string",
    importance: "high",
    doc: "Source filename. If not specified, the standard input will be used",
  },
  {
    name: "topic",
    type: "string",
    required: true,
    importance: "high",
    doc: "The topic to publish data to",
    validate: (v) => (v === "" ? "String must be non-empty" : undefined),
  },
  {
    name: "batch.size",
    type: "int",
    default: 2000,
    importance: "low",
    doc: "The maximum number of records the source task can read from the file each time it is polled",
  },
]);

export class FileStreamSourceConnector extends SourceConnector {
  static readonly className = "org.apache.kafka.connect.file.FileStreamSourceConnector";
  private props: Record<string, string> = {};
  version(): string {
    return VERSION;
  }
  start(props: Record<string, string>): void {
    fileSourceSettings.parse(props); // fails the connector with the setting's problem
    this.props = props;
  }
  taskClass() {
    return FileStreamSourceTask;
  }
  taskConfigs(): Record<string, string>[] {
    // One file, one reader: always a single task, as Kafka's.
    return [{ ...this.props }];
  }
  stop(): void {}
  config(): SettingsDefinition {
    return fileSourceSettings;
  }
  /**
   * Its offset is the position in the file: a task that starts over from it reads the same lines again.
   * Standard input (no file) cannot be read again.
   */
  override exactlyOnceSupport(props: Record<string, string>): ExactlyOnceSupport {
    return props.file?.trim() ? "SUPPORTED" : "UNSUPPORTED";
  }
  /** Offsets are checked as Kafka's connector checks them (null resets anything). */
  override alterOffsets(
    _config: Record<string, string>,
    offsets: Map<Record<string, unknown>, Record<string, unknown> | null>,
  ): boolean {
    for (const [partition, offset] of offsets) {
      if (offset === null || offset === undefined) continue;
      if (!("position" in offset))
        throw new ConnectException("Offset objects should either be null or contain the key 'position'");
      const position = offset.position;
      if (typeof position !== "number" || !Number.isInteger(position))
        throw new ConnectException("The value for the 'position' key in the offset is expected to be a Long value");
      if (position < 0)
        throw new ConnectException("The value for the 'position' key in the offset should be a non-negative value");
      if (partition === null || typeof partition !== "object")
        throw new ConnectException("Partition objects cannot be null");
      if (!("filename" in partition)) throw new ConnectException("Partition objects should contain the key 'filename'");
    }
    return true;
  }
}

const POLL_WAIT_MS = 100;
const LF = 10;
const CR = 13;

/** UTF-16 code units of a UTF-8 byte: 1 per lead byte, 2 for a 4-byte lead (a surrogate pair). */
const unitsOfByte = (b: number) => (b < 0x80 || (b >= 0xc0 && b < 0xf0) ? 1 : b >= 0xf0 ? 2 : 0);

export class FileStreamSourceTask extends SourceTask {
  static readonly className = "org.apache.kafka.connect.file.FileStreamSourceTask";
  private file = "";
  private topic = "";
  private batchSize = 2000;
  /** The offset: UTF-16 code units of the lines taken so far. */
  private position = 0;
  /** Bytes of the file taken as lines so far (where `pending` starts). */
  private bytePosition = 0;
  private handle: FileHandle | undefined;
  private pending = Buffer.alloc(0);
  private stopped = false;

  version(): string {
    return VERSION;
  }

  start(props: Record<string, string>): void {
    const settings = fileSourceSettings.parse(props).values;
    this.file = settings.string("file");
    if (!this.file) throw new ConnectException("Reading from standard input is not supported; set 'file'");
    this.topic = settings.string("topic");
    this.batchSize = Math.max(1, settings.int("batch.size")); // Kafka returns a batch once it has batch.size lines, so at least one
    const offset = this.context.offsetStorageReader.offset({ filename: this.file });
    const stored = offset?.position;
    this.position = typeof stored === "number" ? stored : typeof stored === "bigint" ? Number(stored) : 0;
    this.bytePosition = -1; // found when the file is opened
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.handle === undefined) {
      try {
        this.handle = await open(this.file, "r");
      } catch {
        await Bun.sleep(POLL_WAIT_MS); // the file may not exist yet: poll again shortly
        return null;
      }
      if (this.bytePosition < 0) {
        this.bytePosition = await this.byteOffsetOf(this.handle, this.position);
        if (this.bytePosition < 0) this.position = this.bytePosition = 0; // shorter than the offset: replaced, start over
      }
    }
    const handle = this.handle;
    const records: SourceRecord[] = [];
    const chunk = Buffer.allocUnsafe(64 * 1024);
    while (records.length < this.batchSize && !this.stopped) {
      const line = this.nextLine();
      if (line !== undefined) {
        records.push(
          sourceRecord({
            sourcePartition: { filename: this.file },
            sourceOffset: { position: this.position },
            topic: this.topic,
            valueSchema: Schema.STRING_SCHEMA,
            value: line,
            timestamp: Date.now(),
          }),
        );
        continue;
      }
      // No complete line buffered: read on from where the buffer ends; nothing more is the end for now.
      const { bytesRead: n } = await handle.read(chunk, 0, chunk.length, this.bytePosition + this.pending.length);
      if (n === 0 || this.stopped) break;
      this.pending =
        this.pending.length === 0
          ? Buffer.from(chunk.subarray(0, n))
          : Buffer.concat([this.pending, chunk.subarray(0, n)]);
    }
    if (records.length === 0) {
      await Bun.sleep(POLL_WAIT_MS); // nothing new: wait for the file to grow (as Kafka's task does)
      return null;
    }
    return records;
  }

  /** The next complete line from the buffer (the positions move past it), or undefined. */
  private nextLine(): string | undefined {
    const pending = this.pending;
    // UTF-8 continuation bytes are never CR or LF, so byte searches find the terminators.
    const lf = pending.indexOf(LF);
    const cr = (lf < 0 ? pending : pending.subarray(0, lf)).indexOf(CR);
    const end = cr >= 0 ? cr : lf;
    if (end < 0) return undefined;
    let next = end + 1;
    if (pending[end] === CR) {
      if (end + 1 >= pending.length) return undefined; // \r last: it may be the start of \r\n
      if (pending[end + 1] === LF) next = end + 2;
    }
    const line = pending.toString("utf8", 0, end);
    this.position += line.length + (next - end);
    this.bytePosition += next;
    this.pending = pending.subarray(next);
    return line;
  }

  /** The byte offset after the first `units` UTF-16 code units of the file; -1 if it is shorter. */
  private async byteOffsetOf(handle: FileHandle, units: number): Promise<number> {
    if (units <= 0) return 0;
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let bytes = 0;
    let counted = 0;
    for (;;) {
      const { bytesRead: n } = await handle.read(chunk, 0, chunk.length, bytes);
      if (n === 0) return counted === units ? bytes : -1;
      for (let i = 0; i < n; i++) {
        const u = unitsOfByte(chunk[i]!);
        if (u > 0 && counted >= units) return bytes + i;
        counted += u;
      }
      bytes += n;
    }
  }

  stop(): void {
    this.stopped = true;
    // A read under way finishes on the open handle; it is closed once that settles.
    void this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
