// DropHeaders: removes every header whose key is listed.
import { SettingsDefinition } from "../../common/settings.ts";
import type { ConnectRecord } from "../plugins/records.ts";
import { newRecord } from "../plugins/records.ts";
import type { Transformation } from "../plugins/transformation.ts";
import { nonEmptyList, parseSettings } from "./util.ts";

const DEFINITION = new SettingsDefinition([
  { name: "headers", type: "list", required: true, importance: "high", doc: "The name of the headers to be removed.", validate: nonEmptyList },
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
