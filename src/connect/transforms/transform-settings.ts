// How transforms read their settings, and Kafka's wording when a setting is wrong: ConfigException's
// messages, the validators Kafka's transforms declare, and the shared replace.null.with.default.
import { ConfigError, type ParsedSettings, type Setting, type SettingsDefinition } from "../../platform/settings.ts";

/**
 * A configuration error worded as Kafka's ConfigException. `setting` names the offending key for
 * callers that attribute errors (empty when Kafka's message names none).
 */
export class TransformConfigError extends ConfigError {
  constructor(setting: string, value: string, message: string) {
    super(setting, value, message);
    this.message = message;
  }
}

/** Kafka's `ConfigException(name, value, message)` text. */
export function invalidConfig(setting: string, value: unknown, reason: string): TransformConfigError {
  const shown = Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
  return new TransformConfigError(setting, shown, `Invalid value ${shown} for configuration ${setting}: ${reason}`);
}

/** Kafka's message-only `ConfigException(message)`; `setting` is the key it is about, for attribution. */
export function configProblem(setting: string, message: string): TransformConfigError {
  return new TransformConfigError(setting, "", message);
}

/** Parses a transform's own settings (unknown keys are ignored, as Kafka's SimpleConfig does). */
export function parseSettings(def: SettingsDefinition, config: Record<string, string>): ParsedSettings {
  return def.parse(config).values;
}

/** The `replace.null.with.default` setting most Kafka transforms declare (3.x+). */
export const REPLACE_NULL_WITH_DEFAULT: Setting = {
  name: "replace.null.with.default",
  type: "boolean",
  default: true,
  importance: "medium",
  doc: "Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.",
};

/** Kafka's NonEmptyListValidator. */
export function nonEmptyList(value: unknown): string | undefined {
  return Array.isArray(value) && value.length > 0 ? undefined : "Empty list";
}

/** Kafka's ConfigDef.NonEmptyString (absent is fine, empty is not). */
export function nonEmptyString(value: unknown): string | undefined {
  return value === "" ? "String must be non-empty" : undefined;
}
