// Single message transforms and predicates (Kafka's Transformation and Predicate contracts).
import type { SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "./records.ts";

export interface Transformation<R extends ConnectRecord = ConnectRecord> {
  /** Called once with the transform's own settings (the `transforms.<alias>.` prefix removed). */
  configure(config: Record<string, string>): void;
  /** The transformed record, or null to drop it; a promise of it when the work runs elsewhere (a regex thread). */
  apply(record: R): R | null | Promise<R | null>;
  /** The settings this transform understands, for validation and docs. */
  config(): SettingsDefinition;
  close?(): void;
}

export interface Predicate<R extends ConnectRecord = ConnectRecord> {
  configure(config: Record<string, string>): void;
  test(record: R): boolean | Promise<boolean>;
  config(): SettingsDefinition;
  close?(): void;
}
