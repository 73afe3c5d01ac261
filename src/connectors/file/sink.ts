// org.apache.kafka.connect.file.FileStreamSinkConnector: each record's value is appended as a line;
// flush() fsyncs, so offsets are committed only for lines that are on disk.
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { SettingsDefinition } from "../../platform/settings.ts";
import { javaToString } from "../../connect/api/data/index.ts";
import { ConnectException, SinkConnector, SinkTask } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import { VERSION } from "../../platform/version.ts";

const fileSinkSettings = new SettingsDefinition([
  {
    name: "file",
    type: "string",
    importance: "high",
    doc: "Destination filename. If not specified, the standard output will be used",
  },
]);

export class FileStreamSinkConnector extends SinkConnector {
  static readonly className = "org.apache.kafka.connect.file.FileStreamSinkConnector";
  private props: Record<string, string> = {};
  version(): string {
    return VERSION;
  }
  start(props: Record<string, string>): void {
    this.props = props;
  }
  taskClass() {
    return FileStreamSinkTask;
  }
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.props }));
  }
  stop(): void {}
  config(): SettingsDefinition {
    return fileSinkSettings;
  }
  /** Nothing outside Connect to alter: the consumer group's offsets are all there is. */
  override alterOffsets(): boolean {
    return true;
  }
}

export class FileStreamSinkTask extends SinkTask {
  static readonly className = "org.apache.kafka.connect.file.FileStreamSinkTask";
  private fd: number | undefined;

  version(): string {
    return VERSION;
  }

  start(props: Record<string, string>): void {
    const file = fileSinkSettings.parse(props).values.string("file");
    if (!file) throw new ConnectException("Writing to standard output is not supported; set 'file'");
    try {
      this.fd = openSync(file, "a");
    } catch (err) {
      throw new ConnectException(`Couldn't find or create file '${file}' for FileStreamSinkTask`, err);
    }
  }

  put(records: SinkRecord[]): void {
    if (records.length === 0 || this.fd === undefined) return;
    const text = records.map((r) => `${javaToString(r.value, r.valueSchema)}\n`).join("");
    writeSync(this.fd, text);
  }

  override flush(): void {
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  stop(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
