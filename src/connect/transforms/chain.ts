// A connector's transformation chain, built from its config the way Kafka's ConnectorConfig does:
//   transforms=a,b                       aliases, applied in this order
//   transforms.a.type=<class>            the transform; other transforms.a.* keys configure it
//   transforms.a.predicate=p             apply `a` only to records p matches ...
//   transforms.a.negate=true             ... or only to those it does not match
//   predicates=p, predicates.p.type=<class>, predicates.p.* configure the predicate
// A transform returning null drops the record and ends the chain.
import { ConfigError, SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "../api/records.ts";
import type { Predicate, Transformation } from "../api/transformation.ts";
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from "./registry.ts";
import { TransformConfigError, configProblem, invalidConfig } from "./transform-settings.ts";
import { ownEntry } from "../../platform/own.ts";

export type TransformFactory = () => Transformation;
export type PredicateFactory = () => Predicate;

export interface ChainOptions {
  /** Plugin-provided transforms, consulted after the built-ins. */
  lookup?: (className: string) => TransformFactory | undefined;
  /** Plugin-provided predicates, consulted after the built-ins. */
  predicateLookup?: (className: string) => PredicateFactory | undefined;
}

export interface TransformStage {
  readonly alias: string;
  readonly className: string;
  readonly transform: Transformation;
  readonly predicate: Predicate | null;
  readonly predicateAlias: string | null;
  readonly negate: boolean;
}

const RESERVED = new Set(["type", "predicate", "negate"]);

/** Kafka's list parsing: comma separated, trimmed, empty entries dropped. */
function aliasList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The keys under `prefix`, with the prefix removed. */
function withPrefix(
  config: Record<string, string>,
  prefix: string,
  skip: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (!k.startsWith(prefix)) continue;
    const sub = k.slice(prefix.length);
    if (!skip.has(sub)) out[sub] = v;
  }
  return out;
}

function duplicates(aliases: readonly string[]): string[] {
  return aliases.filter((a, i) => aliases.indexOf(a) !== i);
}

function resolveTransform(className: string, options: ChainOptions): TransformFactory | undefined {
  return ownEntry(BUILTIN_TRANSFORMS, className) ?? options.lookup?.(className);
}

function resolvePredicate(className: string, options: ChainOptions): PredicateFactory | undefined {
  return ownEntry(BUILTIN_PREDICATES, className) ?? options.predicateLookup?.(className);
}

/** Re-attributes a plugin's own config error to its prefixed key. */
function prefixed(prefix: string, e: unknown): TransformConfigError {
  if (e instanceof ConfigError)
    return new TransformConfigError(e.setting === "" ? `${prefix}type` : prefix + e.setting, e.value, e.message);
  return new TransformConfigError(`${prefix}type`, "", e instanceof Error ? e.message : String(e));
}

function requiredType(config: Record<string, string>, key: string): string {
  const className = config[key]?.trim();
  if (className === undefined || className === "")
    throw configProblem(key, `Missing required configuration "${key}" which has no default value.`);
  return className;
}

function parseNegate(config: Record<string, string>, prefix: string): boolean {
  const raw = config[`${prefix}negate`];
  if (raw === undefined) return false;
  if (config[`${prefix}predicate`] === undefined)
    throw configProblem(
      `${prefix}negate`,
      `Config '${prefix}negate' was provided but there is no config '${prefix}predicate' defining a predicate to be negated.`,
    );
  const text = raw.trim().toLowerCase();
  if (text !== "true" && text !== "false")
    throw invalidConfig(`${prefix}negate`, raw, "Expected value to be either true or false");
  return text === "true";
}

function buildStage(
  config: Record<string, string>,
  alias: string,
  predicateAliases: readonly string[],
  options: ChainOptions,
): TransformStage {
  const prefix = `transforms.${alias}.`;
  const className = requiredType(config, `${prefix}type`);
  const factory = resolveTransform(className, options);
  if (factory === undefined) throw invalidConfig(`${prefix}type`, className, `Class ${className} could not be found.`);
  const negate = parseNegate(config, prefix);
  const transform = factory();
  try {
    transform.configure(withPrefix(config, prefix, RESERVED));
  } catch (e) {
    throw prefixed(prefix, e);
  }
  const predicateAlias = config[`${prefix}predicate`]?.trim() || null;
  if (predicateAlias === null)
    return { alias, className, transform, predicate: null, predicateAlias: null, negate: false };
  if (!predicateAliases.includes(predicateAlias))
    throw invalidConfig(
      `${prefix}predicate`,
      predicateAlias,
      `Predicate alias '${predicateAlias}' is not listed in 'predicates'`,
    );
  const predicatePrefix = `predicates.${predicateAlias}.`;
  const predicateClass = requiredType(config, `${predicatePrefix}type`);
  const predicateFactory = resolvePredicate(predicateClass, options);
  if (predicateFactory === undefined)
    throw invalidConfig(`${predicatePrefix}type`, predicateClass, `Class ${predicateClass} could not be found.`);
  const predicate = predicateFactory();
  try {
    predicate.configure(withPrefix(config, predicatePrefix, new Set(["type"])));
  } catch (e) {
    throw prefixed(predicatePrefix, e);
  }
  return { alias, className, transform, predicate, predicateAlias, negate };
}

export class TransformChain<R extends ConnectRecord = ConnectRecord> {
  constructor(readonly stages: readonly TransformStage[]) {}

  /** Builds and configures every stage; throws a ConfigError naming the offending key. */
  static fromConfig<R extends ConnectRecord = ConnectRecord>(
    config: Record<string, string>,
    options: ChainOptions = {},
  ): TransformChain<R> {
    const aliases = aliasList(config.transforms);
    if (duplicates(aliases).length > 0) throw invalidConfig("transforms", aliases, "Duplicate alias provided.");
    const predicateAliases = aliasList(config.predicates);
    if (duplicates(predicateAliases).length > 0)
      throw invalidConfig("predicates", predicateAliases, "Duplicate alias provided.");
    return new TransformChain<R>(aliases.map((alias) => buildStage(config, alias, predicateAliases, options)));
  }

  /**
   * The record after every applicable stage, or null when one dropped it. Synchronous while the stages
   * answer at once (built-in ones do): a promise per record and stage would cost more than the stage.
   */
  apply(record: R): R | null | Promise<R | null> {
    return this.applyFrom(0, record);
  }

  private applyFrom(first: number, record: R): R | null | Promise<R | null> {
    let current: R = record;
    for (let i = first; i < this.stages.length; i++) {
      const stage = this.stages[i]!;
      if (stage.predicate !== null) {
        const matches = stage.predicate.test(current);
        if (matches instanceof Promise) return this.resumeAfterTest(i, current, matches);
        if (stage.negate === matches) continue;
      }
      const next = stage.transform.apply(current) as R | null | Promise<R | null>;
      if (next instanceof Promise) return this.resumeAfterApply(i, next);
      if (next === null) return null;
      current = next;
    }
    return current;
  }

  private async resumeAfterTest(i: number, record: R, matches: Promise<boolean>): Promise<R | null> {
    const stage = this.stages[i]!;
    if (stage.negate === (await matches)) return this.applyFrom(i + 1, record);
    return this.resumeAfterApply(i, stage.transform.apply(record) as R | null | Promise<R | null>);
  }

  private async resumeAfterApply(i: number, next: R | null | Promise<R | null>): Promise<R | null> {
    const record = await next;
    return record === null ? null : this.applyFrom(i + 1, record);
  }

  close(): void {
    for (const stage of this.stages) {
      stage.transform.close?.();
      stage.predicate?.close?.();
    }
  }
}

/**
 * Problems with the transform and predicate settings of a connector config, by key (for
 * `/connector-plugins/{type}/config/validate`). Each setting of each plugin is checked on its own, so
 * several problems are reported at once; cross-setting checks run when the settings are individually
 * valid. An empty object means the chain would build.
 */
export function validateTransforms(
  config: Record<string, string>,
  options: ChainOptions = {},
): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const report = (key: string, message: string) => (problems[key] ??= []).push(message);
  const aliases = aliasList(config.transforms);
  const predicateAliases = aliasList(config.predicates);
  if (duplicates(aliases).length > 0)
    report("transforms", `Invalid value ${config.transforms} for configuration transforms: Duplicate alias provided.`);
  if (duplicates(predicateAliases).length > 0)
    report("predicates", `Invalid value ${config.predicates} for configuration predicates: Duplicate alias provided.`);

  const check = (prefix: string, plugin: Transformation | Predicate, skip: ReadonlySet<string>) => {
    const sub = withPrefix(config, prefix, skip);
    let individuallyValid = true;
    for (const setting of plugin.config().settings) {
      const names = [setting.name, ...(setting.aliases ?? [])];
      const given = onlySetting(sub, names);
      try {
        if (setting.required && Object.keys(given).length === 0)
          throw configProblem(
            setting.name,
            `Missing required configuration "${prefix}${setting.name}" which has no default value.`,
          );
        new SettingsDefinition([setting]).parse(given);
      } catch (e) {
        individuallyValid = false;
        report(`${prefix}${setting.name}`, e instanceof Error ? e.message : String(e));
      }
    }
    if (!individuallyValid) return;
    try {
      plugin.configure(sub);
    } catch (e) {
      const err = prefixed(prefix, e);
      report(err.setting, err.message);
    }
  };

  for (const alias of new Set(aliases)) {
    const prefix = `transforms.${alias}.`;
    try {
      const className = requiredType(config, `${prefix}type`);
      const factory = resolveTransform(className, options);
      if (factory === undefined)
        throw invalidConfig(`${prefix}type`, className, `Class ${className} could not be found.`);
      parseNegateOrReport(config, prefix, report);
      const predicateAlias = config[`${prefix}predicate`]?.trim();
      if (predicateAlias !== undefined && predicateAlias !== "" && !predicateAliases.includes(predicateAlias))
        report(
          `${prefix}predicate`,
          `Invalid value ${predicateAlias} for configuration ${prefix}predicate: Predicate alias '${predicateAlias}' is not listed in 'predicates'`,
        );
      check(prefix, factory(), RESERVED);
    } catch (e) {
      if (e instanceof ConfigError) report(e.setting, e.message);
      else throw e;
    }
  }
  for (const alias of new Set(predicateAliases)) {
    const prefix = `predicates.${alias}.`;
    try {
      const className = requiredType(config, `${prefix}type`);
      const factory = resolvePredicate(className, options);
      if (factory === undefined)
        throw invalidConfig(`${prefix}type`, className, `Class ${className} could not be found.`);
      check(prefix, factory(), new Set(["type"]));
    } catch (e) {
      if (e instanceof ConfigError) report(e.setting, e.message);
      else throw e;
    }
  }
  return problems;
}

function parseNegateOrReport(
  config: Record<string, string>,
  prefix: string,
  report: (key: string, message: string) => void,
): void {
  try {
    parseNegate(config, prefix);
  } catch (e) {
    if (e instanceof ConfigError) report(e.setting, e.message);
    else throw e;
  }
}

function onlySetting(config: Record<string, string>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (config[n] !== undefined) out[n] = config[n];
  return out;
}
