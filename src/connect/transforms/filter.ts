// Kafka's Filter: drops every record it is applied to; meant to be used with a predicate
// (`transforms.x.predicate`, optionally `negate`).
import { SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";

const DEFINITION = new SettingsDefinition([]);

export class Filter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(): void {}

  apply(): null {
    return null;
  }
}
