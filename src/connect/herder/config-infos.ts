// Connect's config descriptions and validation results (ConfigKeyInfo, ConfigInfos), built from the
// setting declarations.
import { settingProblems, type Setting, type SettingsDefinition } from "../../common/settings.ts";

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

export function configKeyInfo(s: Setting, order: number): ConfigKeyInfo {
  const dflt = s.default === undefined ? null : Array.isArray(s.default) ? s.default.join(",") : String(s.default);
  return {
    name: s.name,
    type: TYPES[s.type],
    required: s.required === true || s.default === undefined,
    default_value: s.required ? null : dflt,
    importance: s.importance.toUpperCase(),
    documentation: s.doc,
    group: s.group ?? null,
    order: s.group ? order : -1,
    width: s.width ?? "NONE",
    display_name: s.displayName ?? s.name,
    dependents: [],
  };
}

/** Validation of `config` against definitions, with extra problems (cross-setting rules) merged in. */
export function configInfos(name: string, definitions: SettingsDefinition[], config: Record<string, string>, extra: Map<string, string[]>[]): ConfigInfos {
  const configs: ConfigInfos["configs"] = [];
  const groups: string[] = [];
  const seen = new Set<string>();
  let errorCount = 0;
  const orderInGroup = new Map<string, number>();
  for (const def of definitions) {
    const problems = settingProblems(def, config);
    for (const s of def.settings) {
      if (seen.has(s.name)) continue;
      seen.add(s.name);
      if (s.group && !groups.includes(s.group)) groups.push(s.group);
      const order = (orderInGroup.get(s.group ?? "") ?? 0) + 1;
      orderInGroup.set(s.group ?? "", order);
      const errors = [...(problems.get(s.name) ?? []), ...extra.flatMap((m) => m.get(s.name) ?? [])];
      errorCount += errors.length;
      const raw = config[s.name];
      configs.push({
        definition: configKeyInfo(s, order),
        value: { name: s.name, value: raw === undefined ? (configKeyInfo(s, 0).default_value) : s.type === "password" ? "[hidden]" : raw, recommended_values: [], errors, visible: true },
      });
    }
  }
  // Problems for settings no definition declares (e.g. transform sub-settings).
  for (const m of extra) {
    for (const [key, errors] of m) {
      if (seen.has(key) || errors.length === 0) continue;
      seen.add(key);
      errorCount += errors.length;
      configs.push({ definition: null, value: { name: key, value: config[key] ?? null, recommended_values: [], errors, visible: true } });
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
