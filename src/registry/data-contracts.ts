// Data contracts: the `metadata` and `ruleSet` a schema version carries (Confluent 7.4+), as Confluent's
// entities read, compare, merge, validate, hash and write them. Pure: no state, no I/O.
import { createHash, type Hash } from "node:crypto";
import { errors } from "./errors.ts";

export interface Metadata {
  /** Tags by path; keys and values sorted, as Confluent keeps them in sorted maps and sets. */
  tags: Record<string, string[]>;
  properties: Record<string, string>;
  sensitive: string[];
}

const RULE_KINDS = ["TRANSFORM", "CONDITION"] as const;
const RULE_MODES = ["UPGRADE", "DOWNGRADE", "UPDOWN", "WRITE", "READ", "WRITEREAD"] as const;
const EXECUTION_ENVIRONMENTS = ["ALL", "CLIENT", "GATEWAY", "SERVER", "NONE"] as const;

export interface Rule {
  name?: string;
  doc?: string;
  kind: (typeof RULE_KINDS)[number];
  mode: (typeof RULE_MODES)[number];
  type?: string;
  tags: string[];
  params: Record<string, string>;
  expr?: string;
  onSuccess?: string;
  onFailure?: string;
  disabled: boolean;
}

export interface RuleSet {
  migrationRules: Rule[];
  domainRules: Rule[];
  encodingRules: Rule[];
  enableAt?: (typeof EXECUTION_ENVIRONMENTS)[number];
}

/** What a schema version carries besides its schema; absent (not empty) when not given. */
export interface Contract {
  metadata?: Metadata;
  ruleSet?: RuleSet;
}

const CONFLUENT_VERSION = "confluent:version";

// ---- reading JSON (request bodies and stored records) ----

/** Metadata from JSON; undefined for null/absent; 400 naming the field for a wrong shape. */
export function readMetadata(value: unknown, at = "metadata"): Metadata | undefined {
  if (value === undefined || value === null) return undefined;
  const o = object(value, at);
  const tags: Record<string, string[]> = {};
  for (const [path, list] of Object.entries(object(o.tags ?? {}, `${at}.tags`)))
    tags[path] = sortedSet(strings(list ?? [], `${at}.tags.${path}`));
  return {
    tags: sortedKeys(tags),
    properties: sortedKeys(stringMap(o.properties ?? {}, `${at}.properties`)),
    sensitive: sortedSet(strings(o.sensitive ?? [], `${at}.sensitive`)),
  };
}

export function readRuleSet(value: unknown, at = "ruleSet"): RuleSet | undefined {
  if (value === undefined || value === null) return undefined;
  const o = object(value, at);
  const rules = (field: string) =>
    list(o[field] ?? [], `${at}.${field}`).map((r, i) => readRule(r, `${at}.${field}[${i}]`));
  const enableAt = o.enableAt ?? undefined;
  if (enableAt !== undefined && enableAt !== null) oneOf(enableAt, EXECUTION_ENVIRONMENTS, `${at}.enableAt`);
  return {
    migrationRules: rules("migrationRules"),
    domainRules: rules("domainRules"),
    encodingRules: rules("encodingRules"),
    ...(enableAt ? { enableAt: enableAt as RuleSet["enableAt"] } : {}),
  };
}

function readRule(value: unknown, at: string): Rule {
  const o = object(value, at);
  const text = (field: string) =>
    o[field] === undefined || o[field] === null ? undefined : scalar(o[field], `${at}.${field}`);
  return {
    name: text("name"),
    doc: text("doc"),
    kind: o.kind === undefined || o.kind === null ? "TRANSFORM" : oneOf(o.kind, RULE_KINDS, `${at}.kind`),
    mode: o.mode === undefined || o.mode === null ? "WRITEREAD" : oneOf(o.mode, RULE_MODES, `${at}.mode`),
    type: text("type"),
    tags: sortedSet(strings(o.tags ?? [], `${at}.tags`)),
    params: sortedKeys(stringMap(o.params ?? {}, `${at}.params`)),
    expr: text("expr"),
    onSuccess: text("onSuccess"),
    onFailure: text("onFailure"),
    disabled: o.disabled === true || o.disabled === "true",
  };
}

// ---- writing JSON (Confluent's field order; empty fields left out, as its NON_EMPTY entities do) ----

export function metadataJson(m: Metadata): Record<string, unknown> {
  return {
    ...(Object.keys(m.tags).length > 0 ? { tags: m.tags } : {}),
    ...(Object.keys(m.properties).length > 0 ? { properties: m.properties } : {}),
    ...(m.sensitive.length > 0 ? { sensitive: m.sensitive } : {}),
  };
}

export function ruleSetJson(r: RuleSet): Record<string, unknown> {
  return {
    ...(r.migrationRules.length > 0 ? { migrationRules: r.migrationRules.map(ruleJson) } : {}),
    ...(r.domainRules.length > 0 ? { domainRules: r.domainRules.map(ruleJson) } : {}),
    ...(r.encodingRules.length > 0 ? { encodingRules: r.encodingRules.map(ruleJson) } : {}),
    ...(r.enableAt ? { enableAt: r.enableAt } : {}),
  };
}

function ruleJson(r: Rule): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.name !== undefined && r.name !== "") out.name = r.name;
  if (r.doc !== undefined && r.doc !== "") out.doc = r.doc;
  out.kind = r.kind;
  out.mode = r.mode;
  if (r.type !== undefined && r.type !== "") out.type = r.type;
  if (r.tags.length > 0) out.tags = r.tags;
  if (Object.keys(r.params).length > 0) out.params = r.params;
  if (r.expr !== undefined && r.expr !== "") out.expr = r.expr;
  if (r.onSuccess !== undefined && r.onSuccess !== "") out.onSuccess = r.onSuccess;
  if (r.onFailure !== undefined && r.onFailure !== "") out.onFailure = r.onFailure;
  out.disabled = r.disabled;
  return out;
}

/** `metadata` and `ruleSet` of a body or record, each only when present. */
export function contractJson(c: Contract): { metadata?: Record<string, unknown>; ruleSet?: Record<string, unknown> } {
  return {
    ...(c.metadata ? { metadata: metadataJson(c.metadata) } : {}),
    ...(c.ruleSet ? { ruleSet: ruleSetJson(c.ruleSet) } : {}),
  };
}

/** A stored version's contract, each part only when it has one. */
export function contractOf(v: Contract): Contract {
  return { ...(v.metadata ? { metadata: v.metadata } : {}), ...(v.ruleSet ? { ruleSet: v.ruleSet } : {}) };
}

/** A string equal for equal contracts (the normalized forms are canonical): for indexes and comparisons. */
export function contractKey(c: Contract): string {
  if (!c.metadata && !c.ruleSet) return "";
  return JSON.stringify([c.metadata ? metadataJson(c.metadata) : null, c.ruleSet ? ruleSetJson(c.ruleSet) : null]);
}

// ---- merging (Confluent's Metadata.mergeMetadata and RuleSet.mergeRuleSets) ----

/** `newer` over `older`: maps merged key by key, sets united; either side absent gives the other. */
export function mergeMetadata(older: Metadata | undefined, newer: Metadata | undefined): Metadata | undefined {
  if (!older) return newer;
  if (!newer) return older;
  const mergeMap = <T>(a: Record<string, T>, b: Record<string, T>) =>
    Object.keys(a).length === 0 ? b : Object.keys(b).length === 0 ? a : sortedKeys({ ...a, ...b });
  const mergeSet = (a: string[], b: string[]) => (a.length === 0 ? b : b.length === 0 ? a : sortedSet([...a, ...b]));
  return {
    tags: mergeMap(older.tags, newer.tags),
    properties: mergeMap(older.properties, newer.properties),
    sensitive: mergeSet(older.sensitive, newer.sensitive),
  };
}

/** `newer`'s rules replace `older`'s of the same name (older ones first, then the newer). */
export function mergeRuleSets(older: RuleSet | undefined, newer: RuleSet | undefined): RuleSet | undefined {
  if (!older) return newer;
  if (!newer) return older;
  const merge = (a: Rule[], b: Rule[]) => {
    if (a.length === 0) return b;
    if (b.length === 0) return a;
    const names = new Set(b.map((r) => r.name));
    return [...a.filter((r) => !names.has(r.name)), ...b];
  };
  const enableAt = newer.enableAt ?? older.enableAt;
  return {
    migrationRules: merge(older.migrationRules, newer.migrationRules),
    domainRules: merge(older.domainRules, newer.domainRules),
    encodingRules: merge(older.encodingRules, newer.encodingRules),
    ...(enableAt ? { enableAt } : {}),
  };
}

export function confluentVersion(m: Metadata | undefined): string | undefined {
  return m?.properties[CONFLUENT_VERSION];
}

export function withConfluentVersion(m: Metadata | undefined, version: number): Metadata {
  return {
    tags: m?.tags ?? {},
    properties: sortedKeys({ ...(m?.properties ?? {}), [CONFLUENT_VERSION]: String(version) }),
    sensitive: m?.sensitive ?? [],
  };
}

function withoutConfluentVersion(m: Metadata | undefined): Metadata | undefined {
  if (!m || !(CONFLUENT_VERSION in m.properties)) return m;
  const { [CONFLUENT_VERSION]: _, ...properties } = m.properties;
  return { ...m, properties };
}

const EMPTY_METADATA: Metadata = { tags: {}, properties: {}, sensitive: [] };

/**
 * Whether a candidate's contract finds a stored one as Confluent's lookup does: equal, or equal once
 * `confluent:version` is set aside on the side that has it (the stored version's number must then
 * match a candidate's); absent metadata counts as empty there.
 */
export function sameContractIgnoringVersion(candidate: Contract, stored: Contract, storedVersion: number): boolean {
  const mine = confluentVersion(candidate.metadata);
  const theirs = confluentVersion(stored.metadata);
  if (mine === undefined && theirs !== undefined) {
    return (
      contractKey({ metadata: candidate.metadata ?? EMPTY_METADATA, ruleSet: candidate.ruleSet }) ===
      contractKey({ metadata: withoutConfluentVersion(stored.metadata), ruleSet: stored.ruleSet })
    );
  }
  if (mine !== undefined && theirs === undefined) {
    if (Number(mine) !== storedVersion || !/^-?\d+$/.test(mine)) return false;
    return (
      contractKey({ metadata: withoutConfluentVersion(candidate.metadata), ruleSet: candidate.ruleSet }) ===
      contractKey({ metadata: stored.metadata ?? EMPTY_METADATA, ruleSet: stored.ruleSet })
    );
  }
  return contractKey(candidate) === contractKey(stored);
}

// ---- validation (Confluent's RuleSet.validate, answered 42210) ----

const NAME_MAX_LENGTH = 256;

export function validateRuleSet(ruleSet: RuleSet | undefined): void {
  if (!ruleSet) return;
  const names = new Set<string | undefined>();
  const check = (rules: Rule[], allowed: readonly string[], wrongMode: string) => {
    for (const rule of rules) {
      if (names.has(rule.name)) throw errors.invalidRuleSet(`Found rule with duplicate name '${rule.name}'`);
      names.add(rule.name);
      validateRule(rule);
      if (!allowed.includes(rule.mode)) throw errors.invalidRuleSet(wrongMode);
    }
  };
  check(
    ruleSet.migrationRules,
    ["UPGRADE", "DOWNGRADE", "UPDOWN"],
    "Migration rules can only be UPGRADE, DOWNGRADE, UPDOWN",
  );
  check(ruleSet.domainRules, ["WRITE", "READ", "WRITEREAD"], "Domain rules can only be WRITE, READ, WRITEREAD");
  check(ruleSet.encodingRules, ["WRITE", "READ", "WRITEREAD"], "Encoding rules can only be WRITE, READ, WRITEREAD");
}

function validateRule(rule: Rule): void {
  const name = rule.name;
  if (name === undefined) throw errors.invalidRuleSet("Missing rule name");
  if (name.length === 0) throw errors.invalidRuleSet("Empty rule name");
  if (name.length > NAME_MAX_LENGTH) throw errors.invalidRuleSet("Rule name too long");
  // Java's Character.isLetter / isLetterOrDigit, per UTF-16 unit as Confluent checks them.
  if (!/^[\p{L}_]$/u.test(name[0]!)) throw errors.invalidRuleSet(`Illegal initial character in rule name: ${name}`);
  for (const c of name.slice(1)) {
    if (!/^[\p{L}\p{Nd}_-]$/u.test(c)) throw errors.invalidRuleSet(`Illegal character in rule name: ${name}`);
  }
  if (rule.type === undefined) throw errors.invalidRuleSet("Missing rule type");
  for (const action of [rule.onSuccess, rule.onFailure]) {
    if (rule.mode !== "WRITEREAD" && rule.mode !== "UPDOWN" && action?.includes(",")) {
      throw errors.invalidRuleSet("Multiple actions only valid with WRITEREAD and UPDOWN");
    }
  }
}

// ---- the schema's GUID (Confluent 8: the MD5 of schema, references, metadata and rule set as a UUID) ----

export interface HashedReference {
  name?: string;
  subject?: string;
  version?: number;
}

/** Confluent's Schema.updateHash over these parts, formatted as java.util.UUID prints it. */
export function schemaGuid(schema: string, references: readonly HashedReference[], contract: Contract): string {
  const md = createHash("md5");
  md.update(schema, "utf8");
  for (const r of references) {
    if (r.name != null) md.update(r.name, "utf8");
    if (r.subject != null) md.update(r.subject, "utf8");
    if (r.version != null) md.update(int32(r.version));
  }
  if (contract.metadata) {
    md.update(Uint8Array.of(1));
    hashMetadata(md, contract.metadata);
  }
  if (contract.ruleSet) {
    md.update(Uint8Array.of(1));
    for (const rule of [
      ...contract.ruleSet.migrationRules,
      ...contract.ruleSet.domainRules,
      ...contract.ruleSet.encodingRules,
    ])
      hashRule(md, rule);
    if (contract.ruleSet.enableAt) md.update(contract.ruleSet.enableAt, "utf8");
  }
  const hex = md.digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function hashMetadata(md: Hash, m: Metadata): void {
  for (const [path, tags] of Object.entries(m.tags)) {
    md.update(path, "utf8");
    for (const t of tags) md.update(t, "utf8");
  }
  for (const [key, value] of Object.entries(m.properties)) {
    md.update(key, "utf8");
    md.update(value, "utf8");
  }
  for (const s of m.sensitive) md.update(s, "utf8");
}

function hashRule(md: Hash, r: Rule): void {
  for (const text of [r.name, r.doc, r.kind, r.mode, r.type]) if (text !== undefined) md.update(text, "utf8");
  for (const t of r.tags) md.update(t, "utf8");
  for (const [key, value] of Object.entries(r.params)) {
    md.update(key, "utf8");
    md.update(value, "utf8");
  }
  for (const text of [r.expr, r.onSuccess, r.onFailure]) if (text !== undefined) md.update(text, "utf8");
  if (r.disabled) md.update(Uint8Array.of(1));
}

function int32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, n);
  return b;
}

// ---- JSON shape helpers ----

function object(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw errors.badRequest(`Invalid request body at ${at}: expected an object`);
  return value as Record<string, unknown>;
}

function list(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) throw errors.badRequest(`Invalid request body at ${at}: expected an array`);
  return value;
}

/** A JSON scalar as the string Jackson coerces it to. */
function scalar(value: unknown, at: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw errors.badRequest(`Invalid request body at ${at}: expected a string`);
}

function strings(value: unknown, at: string): string[] {
  return list(value, at).map((v, i) => scalar(v, `${at}[${i}]`));
}

function stringMap(value: unknown, at: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(object(value, at))) {
    if (v !== null && v !== undefined) out[k] = scalar(v, `${at}.${k}`);
  }
  return out;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], at: string): T {
  const text = typeof value === "string" ? value.toUpperCase() : "";
  const found = allowed.find((a) => a === text);
  if (!found) throw errors.badRequest(`Invalid request body at ${at}: expected one of ${allowed.join(", ")}`);
  return found;
}

/** Java's TreeMap order (UTF-16 code units). */
function sortedKeys<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(map).sort(javaOrder)) out[key] = map[key]!;
  return out;
}

function sortedSet(values: string[]): string[] {
  return [...new Set(values)].sort(javaOrder);
}

const javaOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
