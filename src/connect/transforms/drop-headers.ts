// DropHeaders: removes every header whose key is listed.
import { SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { nonEmptyList, parseSettings } from "./transform-settings.ts";

const DEFINITION = new SettingsDefinition([
  {
    name: "headers",
    type: "list",
    required: true,
    importance: "high",
    doc: "The name of the headers to be removed.",
    validate: nonEmptyList,
  },
]);

export class DropHeaders<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private headers: ReadonlySet<string> = new Set();

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    this.headers = new Set(parseSettings(DEFINITION, config).list("headers"));
  }

  apply(record: R): R {
    return newRecord(record, { headers: record.headers.filter((h) => !this.headers.has(h.key)) });
  }
}
