// TimestampRouter: topic = topic.format with ${topic} and ${timestamp} (the record timestamp formatted
// by timestamp.format, a SimpleDateFormat pattern, in UTC). A record without a timestamp is an error.
import { SettingsDefinition } from "../../platform/settings.ts";
import { DataException } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { recordToString } from "./record-text.ts";
import { SimpleDateFormat } from "../../jvm/simple-date-format.ts";
import { parseSettings } from "./transform-settings.ts";

/** A SimpleDateFormat pattern check for settings. */
function dateFormatProblem(value: unknown): string | undefined {
  try {
    new SimpleDateFormat(String(value));
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

const DEFINITION = new SettingsDefinition([
  {
    name: "topic.format",
    type: "string",
    default: "${topic}-${timestamp}",
    importance: "high",
    doc: "Format string which can contain `${topic}` and `${timestamp}` as placeholders for the topic and timestamp, respectively.",
  },
  {
    name: "timestamp.format",
    type: "string",
    default: "yyyyMMdd",
    importance: "high",
    doc: "Format string for the timestamp that is compatible with `java.text.SimpleDateFormat`.",
    validate: dateFormatProblem,
  },
]);

export class TimestampRouter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private topicFormat = "${topic}-${timestamp}";
  private timestampFormat = new SimpleDateFormat("yyyyMMdd");

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(DEFINITION, config);
    this.topicFormat = s.string("topic.format");
    this.timestampFormat = new SimpleDateFormat(s.string("timestamp.format"));
  }

  apply(record: R): R {
    if (record.timestamp === null || record.timestamp === undefined)
      throw new DataException(`Timestamp missing on record: ${recordToString(record)}`);
    const formatted = this.timestampFormat.format(new Date(record.timestamp));
    // Literal replacement of every occurrence, topic first (so a topic containing ${timestamp} expands).
    const topic = this.topicFormat.split("${topic}").join(record.topic).split("${timestamp}").join(formatted);
    return newRecord(record, { topic });
  }
}
