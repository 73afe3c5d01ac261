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
  /** The original's setting (Kafka's, Confluent's, Debezium's), which Sluice does not implement. */
  unsupported?: Unsupported;
  /** A family of names (Debezium's `column.mask.with.<n>.chars`): `name` shows it, this matches it. */
  pattern?: RegExp;
}

/**
 * How Sluice answers a setting of the original it does not implement, so none is silently ignored:
 * `refused` when honouring it would change the data, security or delivery (a config or start-up
 * with it fails); `ignored` when it only tunes the original (accepted with a warning).
 */
export interface Unsupported {
  kind: "refused" | "ignored";
  /** Why, briefly: shown in errors, warnings and docs/unsupported-settings.md. */
  why: string;
  /** Values that ask for nothing Sluice does not do (the original's default, or "off"), matched ignoring case: accepted quietly. */
  harmless?: string[];
  /** Also listed with the implemented settings (Kafka's config endpoints show it, as Kafka's do). */
  listed?: boolean;
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
  /** The settings Sluice implements (and the unsupported ones marked `listed`): parsed, shown, documented. */
  readonly settings: Setting[];
  /** The original's settings Sluice does not implement (Setting.unsupported). */
  readonly unsupported: Setting[];
  private readonly families: Setting[];

  constructor(
    declared: Setting[],
    /** Prefixes passed through without warning (e.g. `kafkastore.ssl.` client settings). */
    readonly passThroughPrefixes: string[] = [],
  ) {
    this.settings = declared.filter((s) => !s.unsupported || s.unsupported.listed);
    this.unsupported = declared.filter((s) => s.unsupported);
    this.families = declared.filter((s) => s.pattern);
    for (const s of declared) {
      if (s.pattern) continue;
      this.byName.set(s.name, s);
      for (const alias of s.aliases ?? []) this.byName.set(alias, s);
    }
  }

  /** Every declaration, implemented or not (to build a definition from another). */
  declared(): Setting[] {
    return [...this.settings, ...this.unsupported.filter((s) => !s.unsupported!.listed)];
  }

  /** The declaration of a name (or alias, or one of a family's names). */
  find(name: string): Setting | undefined {
    return this.byName.get(name) ?? this.families.find((s) => s.pattern!.test(name));
  }

  /**
   * Whether a setting of this name is declared (by name or alias) or passed through. A pass-through name
   * a letter or two from a declared one is a typo (`kafkastore.bootstrap.server`), not a client setting.
   */
  accepts(name: string): boolean {
    if (this.find(name)) return true;
    return (
      this.passThroughPrefixes.some((p) => name.startsWith(p)) &&
      !this.names().some((known) => editDistance(known, name) <= TYPO_DISTANCE)
    );
  }

  /** Every declared name and alias (not families'). */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /**
   * The given settings this definition declares but Sluice does not implement, unless given a harmless
   * value: refused ones (with the value given) and ignored ones.
   */
  unsupportedIn(config: Record<string, string | null | undefined>): {
    refused: UnsupportedUse[];
    ignored: UnsupportedUse[];
  } {
    const refused: UnsupportedUse[] = [];
    const ignored: UnsupportedUse[] = [];
    for (const [name, value] of Object.entries(config)) {
      const setting = this.find(name);
      const unsupported = setting?.unsupported;
      if (!setting || !unsupported || value == null) continue;
      if (unsupported.harmless?.some((h) => h.toLowerCase() === value.trim().toLowerCase())) continue;
      (unsupported.kind === "refused" ? refused : ignored).push({
        name,
        value: setting.type === "password" ? "[hidden]" : value,
        setting,
      });
    }
    return { refused, ignored };
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
        const setting = this.find(given);
        if (setting && this.settings.includes(setting)) raw.set(setting.name, { given, value });
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

/** A setting given that Sluice does not implement, with its declaration. */
export interface UnsupportedUse {
  name: string;
  /** As given ("[hidden]" for passwords). */
  value: string;
  setting: Setting;
}

/** Why a refused setting cannot be given, and what can be given instead. */
export function refusalReason(use: UnsupportedUse): string {
  const harmless = use.setting.unsupported?.harmless ?? [];
  const values = harmless.filter((h) => h !== "");
  const choices = [
    ...(values.length ? [`set ${values.join(" or ")}`] : []),
    ...(harmless.includes("") ? ["leave it empty"] : []),
    "remove it",
  ];
  const instead = choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;
  return `${use.name} is not supported by Sluice: ${use.setting.unsupported!.why} (${instead})`;
}

/** The warning for a setting Sluice accepts but does nothing with. */
export function noEffectWarning(use: UnsupportedUse): string {
  return `Setting ${use.name} has no effect in Sluice: ${use.setting.unsupported!.why}`;
}

/** Settings Sluice refuses to start with, each named with its reason. */
export class UnsupportedSettingsError extends ConfigError {
  constructor(readonly uses: UnsupportedUse[]) {
    super(uses[0]!.name, uses[0]!.value, refusalReason(uses[0]!));
    this.name = "UnsupportedSettingsError";
    this.message = `${uses.length === 1 ? "A setting" : `${uses.length} settings`} not supported by Sluice:\n${uses.map((u) => `  ${u.name}=${u.value}: ${refusalReason(u)}`).join("\n")}`;
  }
}

/** A declaration of the original's setting that Sluice refuses (unless given one of `harmless`). */
export function refused(name: string, why: string, harmless?: string[], more: Partial<Setting> = {}): Setting {
  return unsupportedSetting("refused", name, why, more, harmless);
}

/** A declaration of the original's tuning setting that has no effect in Sluice (no warning for `harmless`). */
export function ignored(name: string, why: string, more: Partial<Setting> = {}, harmless?: string[]): Setting {
  return unsupportedSetting("ignored", name, why, more, harmless);
}

function unsupportedSetting(
  kind: Unsupported["kind"],
  name: string,
  why: string,
  more: Partial<Setting>,
  harmless: string[] | undefined,
): Setting {
  return {
    name,
    type: "string",
    importance: "low",
    doc: why,
    ...more,
    unsupported: { kind, why, ...(harmless ? { harmless } : {}) },
  };
}

/** Declares each name with the same answer (a family of names is given as `[name, pattern]`). */
export function unsupportedAll(
  kind: Unsupported["kind"],
  names: (string | [string, RegExp])[],
  why: string,
): Setting[] {
  return names.map((n) => {
    const [name, pattern] = typeof n === "string" ? [n, undefined] : n;
    return {
      name,
      type: "string",
      importance: "low",
      doc: why,
      ...(pattern ? { pattern } : {}),
      unsupported: { kind, why },
    };
  });
}

/** Markdown table of what Sluice does not implement of a definition's original, for docs/unsupported-settings.md. */
export function unsupportedReference(def: SettingsDefinition): string {
  const rows = [...def.unsupported]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((s) => {
      const u = s.unsupported!;
      const answer =
        u.kind === "refused"
          ? `refused${u.harmless?.length ? ` (accepted: ${u.harmless.map((h) => (h === "" ? "empty" : `\`${h}\``)).join(", ")})` : ""}`
          : `no effect (warning${u.harmless?.length ? `, none for ${u.harmless.map((h) => `\`${h}\``).join(", ")}` : ""})`;
      return `| \`${s.name}\` | ${answer} | ${u.why.replaceAll("|", "\\|")} |`;
    });
  return ["| Setting | Sluice | Why |", "|---|---|---|", ...rows].join("\n");
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
      value =
        text === ""
          ? []
          : text
              .split(",")
              .map((v) => v.trim())
              .filter(Boolean);
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
    return Array.isArray(v)
      ? v
      : v === undefined || v === ""
        ? []
        : String(v)
            .split(",")
            .map((s) => s.trim());
  }
  private get(name: string): SettingValue {
    if (!this.values.has(name)) throw new Error(`setting ${name} is not declared`);
    return this.values.get(name);
  }
}

/** Markdown table of a definition, for docs/configuration.md. */
export function settingsReference(def: SettingsDefinition): string {
  const rows = def.settings.map((s) => {
    const names = [s.name, ...(s.aliases ?? [])].map((n) => `\`${n}\``).join("<br>");
    const dflt =
      s.default === undefined ? "" : `\`${Array.isArray(s.default) ? s.default.join(",") : String(s.default)}\``;
    const allowed = s.oneOf ? ` One of: ${s.oneOf.join(", ")}.` : "";
    return `| ${names} | ${s.type} | ${dflt} | ${s.importance} | ${s.doc}${allowed} |`;
  });
  return ["| Setting | Type | Default | Importance | Description |", "|---|---|---|---|---|", ...rows].join("\n");
}
