// Every setting is declared once (the Kafka ConfigDef idea): name, type, default, importance, doc,
// validator. The same declaration validates files/env/flags and generates the configuration reference.
import { editDistance, nearest } from "./edit-distance.ts";

export type SettingType = "string" | "int" | "long" | "boolean" | "list" | "password" | "class";
export type Importance = "high" | "medium" | "low";

export interface Setting {
  name: string;
  type: SettingType;
  doc: string;
  importance: Importance;
  /** undefined = no default (optional unless `required`). */
  default?: string | number | boolean | string[];
  required?: boolean;
  /** Other names accepted for it (Confluent legacy names, the spec's names). */
  aliases?: string[];
  /** Allowed values, matched case-insensitively; shown in errors and docs. */
  oneOf?: string[];
  min?: number;
  max?: number;
  /** Extra check; returns what is allowed when the value is bad. */
  validate?: (value: SettingValue) => string | undefined;
  /** Kafka ConfigDef presentation, shown by Connect's config endpoints. */
  group?: string;
  displayName?: string;
  width?: "NONE" | "SHORT" | "MEDIUM" | "LONG";
}

export type SettingValue = string | number | boolean | string[] | undefined;

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    readonly value: string,
    readonly allowed: string,
  ) {
    super(`Invalid value ${JSON.stringify(value)} for setting ${setting}: ${allowed}`);
    this.name = "ConfigError";
  }
}

/** At most this many edits from a declared name, a passed-through name is taken for a typo of it. */
const TYPO_DISTANCE = 2;

export class SettingsDefinition {
  private readonly byName = new Map<string, Setting>();

  constructor(
    readonly settings: Setting[],
    /** Prefixes passed through without warning (e.g. `kafkastore.ssl.` client settings). */
    readonly passThroughPrefixes: string[] = [],
  ) {
    for (const s of settings) {
      this.byName.set(s.name, s);
      for (const alias of s.aliases ?? []) this.byName.set(alias, s);
    }
  }

  /**
   * Whether a setting of this name is declared (by name or alias) or passed through. A pass-through name
   * a letter or two from a declared one is a typo (`kafkastore.bootstrap.server`), not a client setting.
   */
  accepts(name: string): boolean {
    if (this.byName.has(name)) return true;
    return this.passThroughPrefixes.some((p) => name.startsWith(p)) && !this.names().some((known) => editDistance(known, name) <= TYPO_DISTANCE);
  }

  /** Every declared name and alias. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /**
   * Validates raw values (later sources win); returns typed values by canonical name and the names given
   * that this definition does not accept (the caller reports them: another service may take them).
   */
  parse(...sources: Record<string, string>[]): { values: ParsedSettings; unknown: string[] } {
    const raw = new Map<string, { given: string; value: string }>();
    const extra: Record<string, string> = {};
    const unknown = new Set<string>();
    for (const source of sources) {
      for (const [given, value] of Object.entries(source)) {
        const setting = this.byName.get(given);
        if (setting) raw.set(setting.name, { given, value });
        else {
          extra[given] = value;
          if (!this.accepts(given)) unknown.add(given);
        }
      }
    }
    const values = new Map<string, SettingValue>();
    for (const s of this.settings) {
      const entry = raw.get(s.name);
      if (entry === undefined) {
        if (s.required) throw new ConfigError(s.name, "", "a value is required");
        values.set(s.name, s.default);
        continue;
      }
      values.set(s.name, convert(s, entry.given, entry.value.trim()));
    }
    return { values: new ParsedSettings(values, extra), unknown: [...unknown] };
  }
}

/** The warning for a setting nothing takes, with the known name it most likely misspells. */
export function unknownSettingWarning(name: string, known: Iterable<string>): string {
  const meant = nearest(name, known);
  return `Unknown setting ${name} is ignored${meant ? `; did you mean ${meant}?` : ""}`;
}

function convert(s: Setting, given: string, text: string): SettingValue {
  const fail = (allowed: string): never => {
    throw new ConfigError(given, s.type === "password" ? "[hidden]" : text, allowed);
  };
  let value: SettingValue;
  switch (s.type) {
    case "int":
    case "long": {
      if (!/^-?\d+$/.test(text)) fail(`an integer is required`);
      value = Number(text);
      if (s.min !== undefined && value < s.min) fail(`must be at least ${s.min}`);
      if (s.max !== undefined && value > s.max) fail(`must be at most ${s.max}`);
      break;
    }
    case "boolean":
      if (!/^(true|false)$/i.test(text)) fail("expected true or false");
      value = text.toLowerCase() === "true";
      break;
    case "list":
      value = text === "" ? [] : text.split(",").map((v) => v.trim()).filter(Boolean);
      break;
    default:
      value = text;
  }
  if (s.oneOf && typeof value === "string") {
    const match = s.oneOf.find((o) => o.toLowerCase() === text.toLowerCase());
    if (!match) fail(`allowed values are ${s.oneOf.join(", ")}`);
    value = match;
  }
  const problem = s.validate?.(value);
  if (problem) fail(problem);
  return value;
}

/** Parsed settings as plain data, to hand to another thread (ParsedSettings.from). */
export interface SettingsSnapshot {
  values: Map<string, SettingValue>;
  extra: Record<string, string>;
}

export class ParsedSettings {
  static from(snapshot: SettingsSnapshot): ParsedSettings {
    return new ParsedSettings(snapshot.values, snapshot.extra);
  }
  snapshot(): SettingsSnapshot {
    return { values: this.values, extra: this.extra };
  }
  constructor(
    private readonly values: Map<string, SettingValue>,
    /** Settings not declared (passed-through client settings and unknown ones). */
    readonly extra: Record<string, string>,
  ) {}
  string(name: string): string {
    const v = this.get(name);
    return v === undefined ? "" : String(v);
  }
  optionalString(name: string): string | undefined {
    const v = this.get(name);
    return v === undefined || v === "" ? undefined : String(v);
  }
  int(name: string): number {
    return Number(this.get(name));
  }
  boolean(name: string): boolean {
    return this.get(name) === true;
  }
  list(name: string): string[] {
    const v = this.get(name);
    return Array.isArray(v) ? v : v === undefined || v === "" ? [] : String(v).split(",").map((s) => s.trim());
  }
  private get(name: string): SettingValue {
    if (!this.values.has(name)) throw new Error(`setting ${name} is not declared`);
    return this.values.get(name);
  }
}

/** Markdown table of a definition, for the README's configuration reference. */
export function settingsReference(def: SettingsDefinition): string {
  const rows = def.settings.map((s) => {
    const names = [s.name, ...(s.aliases ?? [])].map((n) => `\`${n}\``).join("<br>");
    const dflt = s.default === undefined ? "" : `\`${Array.isArray(s.default) ? s.default.join(",") : String(s.default)}\``;
    const allowed = s.oneOf ? ` One of: ${s.oneOf.join(", ")}.` : "";
    return `| ${names} | ${s.type} | ${dflt} | ${s.importance} | ${s.doc}${allowed} |`;
  });
  return ["| Setting | Type | Default | Importance | Description |", "|---|---|---|---|---|", ...rows].join("\n");
}
