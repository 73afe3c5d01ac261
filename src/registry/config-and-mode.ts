// Config (compatibility level and data-contract settings) and mode, per subject, per context and
// global, as Confluent Schema Registry 7.x scopes them: a subject without its own takes its context's
// (`:.ctx:`) or, in the default context, the global one; then the `:.__GLOBAL:` context's.
import type { CompatibilityLevel } from "./compatibility.ts";
import {
  contextOf,
  contextPrefix,
  DEFAULT_CONTEXT,
  GLOBAL_CONTEXT,
  parseSubject,
  qualifyWithParent,
  validateSubject,
} from "./contexts.ts";
import { errors } from "./errors.ts";
import type { RegistryRecord } from "./store/records.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import type { RegistryState } from "./store/state.ts";
import { configInScope, storedConfigJson, updatedConfig, type SubjectConfig } from "./subject-config.ts";

const MODES = ["READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"] as const;
export type Mode = (typeof MODES)[number];

/** A config as GET /config answers it: `fallbackLevel` fills a config that sets no level. */
export interface ScopedConfig {
  config: SubjectConfig;
  fallbackLevel?: CompatibilityLevel;
}

export interface ConfigAndModeOptions {
  defaultCompatibility: CompatibilityLevel;
  modeMutability: boolean;
}

export class ConfigAndMode {
  constructor(
    private readonly log: SchemaLog,
    private readonly options: ConfigAndModeOptions,
  ) {}

  private get state(): RegistryState {
    return this.log.state;
  }

  // ---- config ----

  /** GET /config: the global config (the default level filled in) or a subject's own (in scope with defaultToGlobal). */
  getConfig(subject: string | null, defaultToGlobal: boolean): ScopedConfig {
    // `:.:`, the default context named as a subject, is the global config (Confluent's isDefaultContext).
    if (subject === null || subject === "")
      return { config: this.storedConfig(null) ?? { kept: {} }, fallbackLevel: this.globalLevel() };
    const own = this.storedConfig(subject);
    if (own && !defaultToGlobal) return { config: own };
    if (own || defaultToGlobal)
      return { config: this.configInScope(subject), fallbackLevel: this.effectiveLevel(subject) };
    throw errors.subjectConfigNotFound(subject);
  }

  /** PUT /config: the body's fields over the stored config (./subject-config.ts); answers the config as set. */
  async setConfig(subject: string | null, body: Record<string, unknown>): Promise<SubjectConfig> {
    if (subject === "") subject = null;
    updatedConfig(this.storedConfig(subject), body); // bad input is refused before anything is checked or written
    if (subject !== null) validateSubject(subject, true);
    this.requireWritable(subject);
    return this.log.exclusive(async () => {
      const next = updatedConfig(this.storedConfig(subject), body);
      return { records: [{ keytype: "CONFIG", subject, value: storedConfigJson(subject, next) }], result: next };
    });
  }

  /** DELETE /config: answers the config deleted. */
  async deleteConfig(subject: string | null): Promise<ScopedConfig> {
    return this.log.exclusive(async () => {
      const current = this.state.configs.get(subject);
      if (subject !== null && !current) throw errors.subjectNotFound(subject);
      const previous = { config: current?.value ?? { kept: {} }, fallbackLevel: this.globalLevel() };
      const records: RegistryRecord[] = current
        ? [{ keytype: "CONFIG", subject, value: null, rawKey: current.key }]
        : [];
      return { records, result: previous };
    });
  }

  /**
   * The subject's level, else its scope's (Confluent's lookup): a subject of a context takes the
   * context's config (`:.ctx:`), one of the default context the global config; then the
   * `:.__GLOBAL:` context's, then the server's default.
   */
  effectiveLevel(subject: string): CompatibilityLevel {
    return (
      this.storedConfig(subject)?.compatibilityLevel ??
      this.scopeConfig(subject)?.compatibilityLevel ??
      this.options.defaultCompatibility
    );
  }

  /** The config a subject's registrations follow: its own over the global one (./subject-config.ts). */
  configInScope(subject: string): SubjectConfig {
    // Confluent's getConfigInScope: without its own config, the scope's; with one, merged over the global one.
    const own = this.storedConfig(subject);
    if (!own) return this.scopeConfig(subject) ?? { kept: {} };
    return configInScope(this.storedConfig(null), own);
  }

  /**
   * The subject a request naming `subject` is about, by the `alias` of `subject`'s own config (for DEK
   * routes `aliasForDeks` first), as Confluent's alias filter resolves it: one step, an unqualified
   * alias in the subject's context. Undefined when `subject` has no alias.
   */
  aliasOf(subject: string, forDeks: boolean): string | undefined {
    const own = this.storedConfig(subject);
    const forDek = forDeks ? own?.kept.aliasForDeks : undefined;
    const alias = typeof forDek === "string" && forDek !== "" ? forDek : own?.alias;
    return alias ? qualifyWithParent(subject, alias) : undefined;
  }

  private globalLevel(): CompatibilityLevel {
    return this.scopeConfig(null)?.compatibilityLevel ?? this.options.defaultCompatibility;
  }

  /** The config a subject without its own falls back to: its context's or the global one, else `:.__GLOBAL:`'s. */
  private scopeConfig(subject: string | null): SubjectConfig | undefined {
    return this.storedConfig(scopeKey(subject)) ?? this.storedConfig(GLOBAL_SCOPE);
  }

  private storedConfig(subject: string | null): SubjectConfig | undefined {
    return this.state.configs.get(subject)?.value;
  }

  // ---- mode ----

  getMode(subject: string | null, defaultToGlobal: boolean): Mode {
    if (subject === null || subject === "") return this.globalMode();
    const own = this.state.modes.get(subject)?.value as Mode | undefined;
    if (own) return own;
    if (defaultToGlobal) return this.modeAt(scopeKey(subject)) ?? this.modeAt(GLOBAL_SCOPE) ?? "READWRITE";
    throw errors.subjectModeNotFound(subject);
  }

  async setMode(subject: string | null, mode: unknown, force: boolean): Promise<Mode> {
    if (subject === "") subject = null;
    const parsed =
      typeof mode === "string" ? (MODES as readonly string[]).find((m) => m === mode.trim().toUpperCase()) : undefined;
    if (!parsed) throw errors.invalidMode();
    if (!this.options.modeMutability) throw errors.operationNotPermitted("Mode changes are not allowed");
    if (subject !== null) validateSubject(subject, true);
    return this.log.exclusive(async () => {
      const records: RegistryRecord[] = [];
      if (parsed === "IMPORT" && !force) {
        const scope = this.subjectsOf(subject);
        if (scope.some((s) => this.state.versions(s).some((v) => !v.deleted))) {
          throw errors.operationNotPermitted("Cannot import since found existing subjects");
        }
      }
      if (parsed === "IMPORT") {
        // Leftover soft-deleted versions would collide with imported ones.
        const scope = this.subjectsOf(subject);
        for (const s of scope) {
          if (this.state.versions(s).some((v) => v.deleted))
            records.push({ keytype: "CLEAR_SUBJECT", subject: s, value: { subject: s } });
        }
      }
      records.push({ keytype: "MODE", subject, value: { mode: parsed } });
      return { records, result: parsed as Mode };
    });
  }

  /**
   * DELETE /mode (subject null) and /mode/{subject}: answers the mode deleted, as Confluent 8 does.
   * The global scope always has one (READWRITE unless set); a subject without its own is 40401
   * unless `recursive`, which answers no mode. `recursive` on the global scope or a context
   * (`:.ctx:`) also deletes the mode of every subject under it: Confluent's lookup for the global
   * scope starts at the empty prefix, so it reaches every context's subjects.
   */
  async deleteMode(subject: string | null, recursive = false): Promise<Mode | null> {
    if (subject === "") subject = null;
    return this.log.exclusive(async () => {
      const current = this.state.modes.get(subject);
      const previous = current ? (current.value as Mode) : subject === null ? "READWRITE" : null;
      if (previous === null && !recursive) throw errors.subjectNotFound(String(subject));
      if (!this.options.modeMutability) throw errors.operationNotPermitted("Mode changes are not allowed");
      const records: RegistryRecord[] = [];
      if (current) records.push({ keytype: "MODE", subject, value: null, rawKey: current.key });
      if (recursive && (subject === null || parseSubject(subject).subject === "")) {
        const prefix = subject ?? "";
        for (const [key, entry] of this.state.modes) {
          if (key !== null && key !== subject && key.startsWith(prefix))
            records.push({ keytype: "MODE", subject: key, value: null, rawKey: entry.key });
        }
      }
      return { records, result: previous };
    });
  }

  /** The subject's mode, else its scope's, as effectiveLevel; a global READONLY_OVERRIDE overrides all. */
  effectiveMode(subject: string): Mode {
    const global = this.globalMode();
    if (global === "READONLY_OVERRIDE") return global;
    return this.modeAt(subject) ?? this.modeAt(scopeKey(subject)) ?? this.modeAt(GLOBAL_SCOPE) ?? "READWRITE";
  }

  requireWritable(subject: string | null): void {
    const mode = subject === null ? this.globalMode() : this.effectiveMode(subject);
    if (mode === "READONLY" || mode === "READONLY_OVERRIDE") {
      throw errors.operationNotPermitted(`Subject ${subject ?? ""} is in read-only mode`);
    }
  }

  /** Tombstones for the subject's own config and mode: 7.x drops them with the subject. */
  scopedTombstones(subject: string): RegistryRecord[] {
    const out: RegistryRecord[] = [];
    const config = this.state.configs.get(subject);
    if (config) out.push({ keytype: "CONFIG", subject, value: null, rawKey: config.key });
    const mode = this.state.modes.get(subject);
    if (mode) out.push({ keytype: "MODE", subject, value: null, rawKey: mode.key });
    return out;
  }

  private globalMode(): Mode {
    return this.modeAt(null) ?? this.modeAt(GLOBAL_SCOPE) ?? "READWRITE";
  }

  private modeAt(key: string | null): Mode | undefined {
    return this.state.modes.get(key)?.value as Mode | undefined;
  }

  /** The subjects a config or mode scope covers: all, a context's (`:.ctx:`), or the one subject. */
  private subjectsOf(scope: string | null): string[] {
    if (scope === null) return this.state.subjectNames();
    const q = parseSubject(scope);
    return q.subject === "" ? this.state.subjectNames().filter((s) => contextOf(s) === q.context) : [scope];
  }
}

/** Config and mode of the `:.__GLOBAL:` context apply where no other scope has one. */
const GLOBAL_SCOPE = contextPrefix(GLOBAL_CONTEXT);

/** Where a subject's config and mode come from when it has none: its context's, or the global one. */
function scopeKey(subject: string | null): string | null {
  const context = subject === null ? DEFAULT_CONTEXT : contextOf(subject);
  return context === DEFAULT_CONTEXT ? null : contextPrefix(context);
}
