// Connect's config descriptions and validation results (ConfigKeyInfo, ConfigInfos), built from the
// setting declarations. Validation follows Kafka's ConfigDef rather than Sluice's own settings parser:
// clients of the Connect API read these messages, so they are worded and ordered as Kafka's are.
import { javaTrim } from "../../../jvm/java-strings.ts";
import type { Setting, SettingsDefinition } from "../../../platform/settings.ts";
import type { ConnectorSetting } from "../worker/connector-config.ts";

export interface ConfigKeyInfo {
  name: string;
  type: string;
  required: boolean;
  default_value: string | null;
  importance: string;
  documentation: string;
  group: string | null;
  order: number;
  width: string;
  display_name: string;
  dependents: string[];
}

export interface ConfigValueInfo {
  name: string;
  value: string | null;
  recommended_values: string[];
  errors: string[];
  visible: boolean;
}

export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: { definition: ConfigKeyInfo | null; value: ConfigValueInfo | null }[];
}

const TYPES: Record<Setting["type"], string> = {
  string: "STRING",
  int: "INT",
  long: "LONG",
  boolean: "BOOLEAN",
  list: "LIST",
  password: "PASSWORD",
  class: "CLASS",
};

const kafkaType = (s: Setting) => (s as ConnectorSetting).kafkaType ?? TYPES[s.type];

/** ConfigDef.convertToString of a default (lists joined by commas). */
function defaultText(s: Setting): string | null {
  if (s.default === undefined) return null;
  return Array.isArray(s.default) ? s.default.join(",") : String(s.default);
}

/** `order` is used for grouped settings that do not carry Kafka's own orderInGroup. */
export function configKeyInfo(s: Setting, order: number): ConfigKeyInfo {
  const own = (s as ConnectorSetting).order;
  return {
    name: s.name,
    type: kafkaType(s),
    // Kafka: required = no default at all; a setting whose default is null is optional.
    required: s.required === true,
    default_value: s.required ? null : defaultText(s),
    importance: s.importance.toUpperCase(),
    documentation: s.doc,
    group: s.group ?? null,
    order: s.group ? (own ?? order) : -1,
    width: s.width ?? "NONE",
    display_name: s.displayName ?? s.name,
    dependents: [],
  };
}

/** The configs of several definitions, first declaration of a name wins, with fallback orders. */
export function configKeyInfos(definitions: SettingsDefinition[]): ConfigKeyInfo[] {
  const out: ConfigKeyInfo[] = [];
  const seen = new Set<string>();
  const orderInGroup = new Map<string, number>();
  for (const def of definitions) {
    for (const s of def.settings) {
      if (seen.has(s.name)) continue;
      seen.add(s.name);
      const order = (orderInGroup.get(s.group ?? "") ?? 0) + 1;
      orderInGroup.set(s.group ?? "", order);
      out.push(configKeyInfo(s, order));
    }
  }
  return out;
}

const INT_RANGES: Record<string, [bigint, bigint]> = {
  SHORT: [-(2n ** 15n), 2n ** 15n - 1n],
  INT: [-(2n ** 31n), 2n ** 31n - 1n],
  LONG: [-(2n ** 63n), 2n ** 63n - 1n],
};

type Parsed = string | number | boolean | string[];

/** Java's toString of a parsed value, as ConfigException prints it. */
const javaText = (v: Parsed | null) => (v === null ? "null" : Array.isArray(v) ? `[${v.join(", ")}]` : String(v));

/** ConfigDef.convertToString of a parsed value (the `value` of a ConfigValueInfo). */
const valueText = (s: Setting, v: Parsed | null) =>
  v === null ? null : s.type === "password" ? "[hidden]" : Array.isArray(v) ? v.join(",") : String(v);

/**
 * One setting through ConfigDef.parseForValidate: the parsed value (null when it did not parse or is
 * unset without default) and the error messages.
 */
function validateSetting(s: Setting, raw: string | undefined): { value: Parsed | null; errors: string[] } {
  const invalid = (value: unknown, message: string) => `Invalid value ${value} for configuration ${s.name}: ${message}`;
  if (raw === undefined) {
    if (s.required)
      return { value: null, errors: [`Missing required configuration "${s.name}" which has no default value.`] };
    return { value: s.default === undefined ? null : (s.default as Parsed), errors: [] };
  }
  const text = javaTrim(raw);
  const type = kafkaType(s);
  let value: Parsed;
  if (type === "INT" || type === "LONG" || type === "SHORT") {
    const [lo, hi] = INT_RANGES[type]!;
    if (!/^[+-]?\d+$/.test(text) || BigInt(text) < lo || BigInt(text) > hi) {
      return { value: null, errors: [invalid(raw, `Not a number of type ${type}`)] };
    }
    value = Number(text);
  } else if (type === "BOOLEAN") {
    if (!/^(true|false)$/i.test(text))
      return { value: null, errors: [invalid(raw, "Expected value to be either true or false")] };
    value = text.toLowerCase() === "true";
  } else if (type === "LIST") {
    value = text === "" ? [] : text.split(/\s*,\s*/);
  } else {
    value = text;
  }
  const errors: string[] = [];
  if (typeof value === "number") {
    if (s.min !== undefined && value < s.min) errors.push(invalid(value, `Value must be at least ${s.min}`));
    else if (s.max !== undefined && value > s.max) errors.push(invalid(value, `Value must be no more than ${s.max}`));
  }
  if (s.oneOf && typeof value === "string") {
    const exact = (s as ConnectorSetting).oneOfCaseSensitive;
    const ok = s.oneOf.some((o) => (exact ? o === value : o.toLowerCase() === (value as string).toLowerCase()));
    if (!ok)
      errors.push(
        invalid(
          value,
          exact
            ? `String must be one of: ${s.oneOf.join(", ")}`
            : `String must be one of (case insensitive): ${s.oneOf.map((o) => o.toUpperCase()).join(", ")}`,
        ),
      );
  }
  if (errors.length === 0 && s.validate) {
    let problem: string | undefined;
    try {
      problem = s.validate(value);
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    if (problem) errors.push(invalid(javaText(value), problem));
  }
  return { value, errors };
}

/** Extra problems for a key: messages, and whether the value counts as unparsed (shown as null). */
export type ExtraProblems = Map<string, string[]>;

/**
 * Validation of `config` against definitions (first declaration of a name wins), with extra
 * problems (cross-setting rules, class lookups) appended per key. `unparsed` keys show a null value,
 * as Kafka shows values it could not convert.
 */
export function configInfos(
  name: string,
  definitions: SettingsDefinition[],
  config: Record<string, string>,
  extra: ExtraProblems[],
  unparsed: Set<string> = new Set(),
): ConfigInfos {
  const configs: ConfigInfos["configs"] = [];
  const groups: string[] = [];
  const seen = new Set<string>();
  let errorCount = 0;
  const orderInGroup = new Map<string, number>();
  for (const def of definitions) {
    for (const s of def.settings) {
      if (seen.has(s.name)) continue;
      seen.add(s.name);
      if (s.group && !groups.includes(s.group)) groups.push(s.group);
      const order = (orderInGroup.get(s.group ?? "") ?? 0) + 1;
      orderInGroup.set(s.group ?? "", order);
      // A setting may be given under one of its aliases (e.g. database.server.name for topic.prefix).
      const given = [s.name, ...(s.aliases ?? [])].find((n) => config[n] != null);
      const checked = validateSetting(s, given === undefined ? undefined : config[given]);
      const errors = [...checked.errors, ...extra.flatMap((m) => m.get(s.name) ?? [])];
      errorCount += errors.length;
      configs.push({
        definition: configKeyInfo(s, order),
        value: {
          name: s.name,
          value: unparsed.has(s.name) ? null : valueText(s, checked.value),
          recommended_values: [],
          errors,
          visible: true,
        },
      });
    }
  }
  // Problems for settings no definition declares (e.g. transform sub-settings).
  for (const m of extra) {
    for (const [key, errors] of m) {
      if (seen.has(key) || errors.length === 0) continue;
      seen.add(key);
      errorCount += errors.length;
      configs.push({
        definition: null,
        value: {
          name: key,
          value: unparsed.has(key) ? null : (config[key] ?? null),
          recommended_values: [],
          errors,
          visible: true,
        },
      });
    }
  }
  return { name, error_count: errorCount, groups, configs };
}

/** Kafka's "Connector configuration is invalid and contains the following N error(s):" message. */
export function invalidConfigMessage(infos: ConfigInfos): string {
  const lines = infos.configs.flatMap((c) => c.value?.errors ?? []);
  return [
    `Connector configuration is invalid and contains the following ${infos.error_count} error(s):`,
    ...lines,
    "You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`",
  ].join("\n");
}
