// A config (global or a subject's): compatibility level and the data-contract settings Confluent 7.4+
// keeps with it. How a PUT updates a stored config, how a subject's config falls back to the global
// one, and its fields as JSON (the `_schemas` record here; GET's and PUT's bodies in ./http/entities.ts). Pure.
import { parseLevel, type CompatibilityLevel } from "./compatibility.ts";
import {
  metadataJson,
  readMetadata,
  readRuleSet,
  ruleSetJson,
  validateRuleSet,
  type Metadata,
  type RuleSet,
} from "./data-contracts.ts";
import { errors } from "./errors.ts";

export interface SubjectConfig {
  alias?: string;
  normalize?: boolean;
  validateFields?: boolean;
  validateRules?: boolean;
  compatibilityLevel?: CompatibilityLevel;
  compatibilityGroup?: string;
  defaultMetadata?: Metadata;
  overrideMetadata?: Metadata;
  defaultRuleSet?: RuleSet;
  overrideRuleSet?: RuleSet;
  /** Fields Confluent has that Sluice keeps as they are (aliasForDeks, read by ./config-and-mode.ts; validateNewSchemas, compatibilityPolicy). */
  kept: Record<string, unknown>;
}

const KEPT = ["aliasForDeks", "validateNewSchemas", "compatibilityPolicy"] as const;
const BOOLEANS = ["normalize", "validateFields", "validateRules"] as const;
const STRINGS = ["alias", "compatibilityGroup"] as const;
const METADATA = ["defaultMetadata", "overrideMetadata"] as const;
const RULE_SETS = ["defaultRuleSet", "overrideRuleSet"] as const;

/** A stored CONFIG value as read; a field this registry cannot read is left out rather than failing the record. */
export function readStoredConfig(value: Record<string, unknown>): SubjectConfig {
  const config: SubjectConfig = { kept: {} };
  const level = parseLevel(value.compatibilityLevel);
  if (level) config.compatibilityLevel = level;
  for (const f of BOOLEANS) if (typeof value[f] === "boolean") config[f] = value[f];
  for (const f of STRINGS) if (typeof value[f] === "string") config[f] = value[f];
  for (const f of METADATA) config[f] = lenient(() => readMetadata(value[f]));
  for (const f of RULE_SETS) config[f] = lenient(() => readRuleSet(value[f]));
  for (const f of KEPT) if (value[f] !== undefined && value[f] !== null) config.kept[f] = value[f];
  return dropUndefined(config);
}

/**
 * A PUT body applied to the stored config, as Confluent's ConfigValue.update does: a field present in
 * the body replaces the stored one (null clears it), an absent one is kept. 42203 for an unknown
 * compatibility level, 42210 for an invalid rule set, 400 for a field of the wrong JSON type.
 */
export function updatedConfig(old: SubjectConfig | undefined, body: Record<string, unknown>): SubjectConfig {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw errors.badRequest("Invalid request body: expected an object");
  const next: SubjectConfig = { ...(old ?? {}), kept: { ...(old?.kept ?? {}) } };
  const has = (f: string) => Object.hasOwn(body, f);
  if (has("compatibility")) {
    if (body.compatibility === null) delete next.compatibilityLevel;
    else {
      const level = parseLevel(body.compatibility);
      if (!level) throw errors.invalidCompatibilityLevel();
      next.compatibilityLevel = level;
    }
  }
  for (const f of BOOLEANS) {
    if (!has(f)) continue;
    if (body[f] === null) delete next[f];
    else if (typeof body[f] === "boolean") next[f] = body[f];
    else throw errors.badRequest(`Invalid request body at ${f}: expected a boolean`);
  }
  for (const f of STRINGS) {
    if (!has(f)) continue;
    if (body[f] === null) delete next[f];
    else if (typeof body[f] === "string") next[f] = body[f];
    else throw errors.badRequest(`Invalid request body at ${f}: expected a string`);
  }
  for (const f of METADATA) if (has(f)) next[f] = readMetadata(body[f], f);
  for (const f of RULE_SETS) {
    if (!has(f)) continue;
    next[f] = readRuleSet(body[f], f);
    validateRuleSet(next[f]);
  }
  for (const f of KEPT) {
    if (!has(f)) continue;
    if (body[f] === null) delete next.kept[f];
    else next.kept[f] = body[f];
  }
  return dropUndefined(next);
}

/**
 * The config in force for a subject (Confluent's Config.mergeConfigs): with a subject config, its
 * level, alias and default/override metadata and rule sets, the flags falling back to the global
 * ones field by field; without one, the global config.
 */
export function configInScope(global: SubjectConfig | undefined, subject: SubjectConfig | undefined): SubjectConfig {
  if (!subject) return global ?? { kept: {} };
  if (!global) return subject;
  return dropUndefined({
    ...subject,
    normalize: subject.normalize ?? global.normalize,
    validateFields: subject.validateFields ?? global.validateFields,
    validateRules: subject.validateRules ?? global.validateRules,
    compatibilityGroup: subject.compatibilityGroup ?? global.compatibilityGroup,
    kept: { ...pick(global.kept, ["validateNewSchemas", "compatibilityPolicy"]), ...subject.kept },
  });
}

/** The CONFIG record's value, in Confluent's ConfigValue field order. */
export function storedConfigJson(subject: string | null, c: SubjectConfig): Record<string, unknown> {
  return { ...(subject !== null ? { subject } : {}), ...configFields(c, "compatibilityLevel") };
}

/** The config's fields as Confluent writes them, the level under `levelName`; for records and REST bodies. */
export function configFields(c: SubjectConfig, levelName: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    if (value !== undefined) out[name] = value;
  };
  set("alias", c.alias);
  set("aliasForDeks", c.kept.aliasForDeks);
  set("normalize", c.normalize);
  set("validateFields", c.validateFields);
  set("validateNewSchemas", c.kept.validateNewSchemas);
  set("validateRules", c.validateRules);
  set(levelName, c.compatibilityLevel);
  set("compatibilityPolicy", c.kept.compatibilityPolicy);
  set("compatibilityGroup", c.compatibilityGroup);
  set("defaultMetadata", c.defaultMetadata && metadataJson(c.defaultMetadata));
  set("overrideMetadata", c.overrideMetadata && metadataJson(c.overrideMetadata));
  set("defaultRuleSet", c.defaultRuleSet && ruleSetJson(c.defaultRuleSet));
  set("overrideRuleSet", c.overrideRuleSet && ruleSetJson(c.overrideRuleSet));
  return out;
}

function lenient<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

function dropUndefined<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key];
  return o;
}
