// Kafka's Filter: drops every record it is applied to; meant to be used with a predicate
// (`transforms.x.predicate`, optionally `negate`).
import { SettingsDefinition } from "../../common/settings.ts";
import type { ConnectRecord } from "../plugins/records.ts";
import type { Transformation } from "../plugins/transformation.ts";

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
