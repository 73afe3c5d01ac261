// org.apache.kafka.connect.file.FileStreamSourceConnector: each line of a file becomes a record; the
// offset is the byte position after the line, so a restart continues where the last commit was.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { SettingsDefinition } from "../../common/settings.ts";
import { Schema } from "../../connect/data/index.ts";
import { SourceConnector, SourceTask, ConnectException } from "../../connect/plugins/connector.ts";
import { sourceRecord, type SourceRecord } from "../../connect/plugins/records.ts";
import { VERSION } from "../../version.ts";

export const fileSourceSettings = new SettingsDefinition([
  { name: "file", type: "string", default: "", importance: "high", doc: "Source filename. If not specified, the standard input will be used" },
  { name: "topic", type: "list", required: true, importance: "high", doc: "The topic to publish data to", validate: (v) => ((v as string[]).length === 1 ? undefined : "'topic' in FileStreamSourceConnector configuration requires definition of a single topic") },
  { name: "batch.size", type: "int", default: 2000, min: 1, importance: "low", doc: "The maximum number of records the source task can read from the file each time it is polled" },
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
}

const POLL_WAIT_MS = 100;

export class FileStreamSourceTask extends SourceTask {
  private file = "";
  private topic = "";
  private batchSize = 2000;
  private position = 0;
  private fd: number | undefined;
  private pending = Buffer.alloc(0);
  private stopped = false;

  version(): string {
    return VERSION;
  }

  start(props: Record<string, string>): void {
    const settings = fileSourceSettings.parse(props).values;
    this.file = settings.string("file");
    if (!this.file) throw new ConnectException("Reading from standard input is not supported; set 'file'");
    this.topic = settings.list("topic")[0]!;
    this.batchSize = settings.int("batch.size");
    const offset = this.context.offsetStorageReader.offset({ filename: this.file });
    const stored = offset?.position;
    this.position = typeof stored === "number" ? stored : typeof stored === "bigint" ? Number(stored) : 0;
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.file, "r");
      } catch {
        await Bun.sleep(POLL_WAIT_MS); // the file may not exist yet: poll again shortly
        return null;
      }
    }
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
      // No complete line buffered: read more. A file that shrank was replaced or truncated: start over.
      if (statSync(this.file).size < this.position + this.pending.length) {
        this.position = 0;
        this.pending = Buffer.alloc(0);
      }
      const n = readSync(this.fd, chunk, 0, chunk.length, this.position + this.pending.length);
      if (n === 0) break;
      this.pending = Buffer.concat([this.pending, chunk.subarray(0, n)]);
    }
    if (records.length === 0) {
      await Bun.sleep(POLL_WAIT_MS); // nothing new: wait for the file to grow (as Kafka's task does)
      return null;
    }
    return records;
  }

  /** The next complete line from the buffer (the position moves past it), or undefined. */
  private nextLine(): string | undefined {
    const newline = this.pending.indexOf(10);
    if (newline < 0) return undefined;
    let line = this.pending.subarray(0, newline);
    if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    this.position += newline + 1;
    this.pending = this.pending.subarray(newline + 1);
    return line.toString("utf8");
  }

  stop(): void {
    this.stopped = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
