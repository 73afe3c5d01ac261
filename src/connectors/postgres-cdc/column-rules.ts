// Debezium's column and record rules (ColumnMappers, Key.CustomKeyMapper): masking a column with
// asterisks or with a salted hash, truncating it, adding its source type to its schema, and keying
// records by chosen columns. Each column gets at most one rule, the first it matches in Debezium's order
// (truncate, mask, propagate by column, propagate by type, hash v1, hash v2); rules change the value's
// schema and value only, never the key's.
import { createHash } from "node:crypto";
import { ConfigError } from "../../platform/settings.ts";
import type { TableName } from "./catalog.ts";

export type ColumnRule =
  | { readonly kind: "truncate"; readonly length: number }
  | { readonly kind: "mask"; readonly mask: string }
  | { readonly kind: "propagate" }
  | { readonly kind: "hash"; readonly algorithm: string; readonly salt: Uint8Array; readonly version: 1 | 2 };

interface RuleEntry {
  /** Matched against `schema.table.column`, or against `schema.table.type` for datatype.propagate.source.type. */
  readonly by: "column" | "type";
  readonly patterns: readonly RegExp[];
  readonly rule: ColumnRule;
}

/** One `<table>:<col>,<col>` entry of message.key.columns, as `schema.table.column` patterns. */
type KeyColumnPatterns = readonly RegExp[];

export interface ColumnRules {
  readonly entries: readonly RuleEntry[];
  /** message.key.columns, one entry per table pattern, in the order given. */
  readonly keyColumns: readonly KeyColumnPatterns[];
}

export const NO_COLUMN_RULES: ColumnRules = { entries: [], keyColumns: [] };

const TRUNCATE = /^column\.truncate\.to\.(\d+)\.chars$/;
const MASK = /^column\.mask\.with\.(\d+)\.chars$/;
const HASH = /^column\.mask\.hash\.([^.]+)\.with\.salt\.(.+)$/;
const HASH_V2 = /^column\.mask\.hash\.v2\.([^.]+)\.with\.salt\.(.+)$/;

/** The rules of a connector's settings (the families are read by name pattern, as Debezium does). */
export function parseColumnRules(props: Readonly<Record<string, string>>): ColumnRules {
  const truncates: RuleEntry[] = [];
  const masks: RuleEntry[] = [];
  const propagates: RuleEntry[] = [];
  const hashes: RuleEntry[] = [];
  const hashesV2: RuleEntry[] = [];
  for (const [name, value] of Object.entries(props)) {
    let m: RegExpExecArray | null;
    if ((m = TRUNCATE.exec(name))) {
      truncates.push({
        by: "column",
        patterns: regexList(value),
        rule: { kind: "truncate", length: count(name, m[1]!) },
      });
    } else if ((m = MASK.exec(name))) {
      masks.push({
        by: "column",
        patterns: regexList(value),
        rule: { kind: "mask", mask: "*".repeat(count(name, m[1]!)) },
      });
    } else if ((m = HASH_V2.exec(name)) || (m = HASH.exec(name))) {
      const version = HASH_V2.test(name) ? 2 : 1;
      const rule: ColumnRule = {
        kind: "hash",
        algorithm: digestName(name, m[1]!),
        salt: new TextEncoder().encode(m[2]!),
        version,
      };
      (version === 2 ? hashesV2 : hashes).push({ by: "column", patterns: regexList(value), rule });
    }
  }
  const propagate = (key: string, by: RuleEntry["by"]) => {
    const value = props[key];
    if (value !== undefined && value.trim() !== "")
      propagates.push({ by, patterns: regexList(value), rule: { kind: "propagate" } });
  };
  propagate("column.propagate.source.type", "column");
  propagate("datatype.propagate.source.type", "type");
  return {
    entries: [...truncates, ...masks, ...propagates, ...hashes, ...hashesV2],
    keyColumns: parseMessageKeyColumns(props["message.key.columns"] ?? ""),
  };
}

function count(setting: string, digits: string): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n) || n > 2147483647) throw new ConfigError(setting, digits, "a length up to 2147483647");
  return n;
}

/** Comma-separated regular expressions, matched whole and ignoring case (Debezium's Strings.setOfRegex). */
function regexList(value: string): RegExp[] {
  return value
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => new RegExp(`^(?:${p})$`, "i"));
}

/** The JDK's MessageDigest algorithms (names and aliases, any case) and node's names for them. */
const DIGESTS: ReadonlyMap<string, string> = new Map([
  ["md5", "md5"],
  ["sha", "sha1"],
  ["sha1", "sha1"],
  ["sha-1", "sha1"],
  ["sha-224", "sha224"],
  ["sha224", "sha224"],
  ["sha-256", "sha256"],
  ["sha256", "sha256"],
  ["sha-384", "sha384"],
  ["sha384", "sha384"],
  ["sha-512", "sha512"],
  ["sha512", "sha512"],
  ["sha-512/224", "sha512-224"],
  ["sha512/224", "sha512-224"],
  ["sha-512/256", "sha512-256"],
  ["sha512/256", "sha512-256"],
  ["sha3-224", "sha3-224"],
  ["sha3-256", "sha3-256"],
  ["sha3-384", "sha3-384"],
  ["sha3-512", "sha3-512"],
]);

function digestName(setting: string, algorithm: string): string {
  const digest = DIGESTS.get(algorithm.toLowerCase());
  if (digest === undefined)
    throw new ConfigError(
      setting,
      algorithm,
      "a MessageDigest algorithm: MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256, SHA3-224, SHA3-256, SHA3-384 or SHA3-512",
    );
  return digest;
}

/** Debezium's CustomKeyMapper.MSG_KEY_COLUMNS_PATTERN: `<table>:<column>[,<column>...]`. */
const KEY_ENTRY = /^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$/;

/**
 * message.key.columns: `<schema>.<table>:<column>,<column>;...`, the table a regular expression, each
 * column one. Within an entry, key columns come in the table's column order.
 */
export function parseMessageKeyColumns(value: string): KeyColumnPatterns[] {
  if (value.trim() === "") return [];
  return value.split(";").map((entry) => {
    const m = KEY_ENTRY.exec(entry);
    if (m === null)
      throw new ConfigError(
        "message.key.columns",
        value,
        `each ;-separated entry must be <fully-qualified table>:<column>[,<column>...], not ${JSON.stringify(entry)}`,
      );
    const table = m[1]!.trim();
    return m[2]!.split(",").map((c) => new RegExp(`^(?:${table}.${c.trim()})$`, "i"));
  });
}

/**
 * The key columns message.key.columns chooses for a table (by name, in Debezium's order: entry by
 * entry, each in column order), or null when it chooses none (the primary key then applies).
 */
export function messageKeyColumns(rules: ColumnRules, table: TableName, columns: readonly string[]): string[] | null {
  const chosen: string[] = [];
  for (const entry of rules.keyColumns)
    for (const pattern of entry)
      for (const column of columns) {
        if (!chosen.includes(column) && pattern.test(`${table.schema}.${table.table}.${column}`)) chosen.push(column);
      }
  return chosen.length > 0 ? chosen : null;
}

/** The rule of a column, the first it matches, or null. `typeName` is the source type's name (int4, varchar, ...). */
export function ruleFor(rules: ColumnRules, table: TableName, column: string, typeName: string): ColumnRule | null {
  const byColumn = `${table.schema}.${table.table}.${column}`;
  const byType = `${table.schema}.${table.table}.${typeName}`;
  for (const entry of rules.entries)
    if (entry.patterns.some((p) => p.test(entry.by === "column" ? byColumn : byType))) return entry.rule;
  return null;
}

/** What Debezium knows of a column's source type (its Column), as the rules read it. */
export interface SourceColumn {
  readonly name: string;
  /** As Debezium names it: int4, varchar, bpchar, numeric, ... */
  readonly typeName: string;
  /** -1 when unknown. */
  readonly length: number;
  /** null when unknown. */
  readonly scale: number | null;
  /** Of a character type (JDBC CHAR, VARCHAR, ...): only those are masked and hashed. */
  readonly isCharacter: boolean;
}

export interface AppliedRule {
  /** Added to the value's field schema, after the type's own. */
  readonly parameters: ReadonlyMap<string, string>;
  /** Applied to the column's Connect value (null included) in `before` and `after`; undefined: unchanged. */
  readonly mapValue?: (value: unknown) => unknown;
}

/** What a rule does to one column's schema and values. */
export function applyRule(rule: ColumnRule, column: SourceColumn): AppliedRule {
  switch (rule.kind) {
    case "truncate": {
      // Debezium truncates only where the column's length may exceed the limit.
      if (column.length >= 0 && column.length <= rule.length) return { parameters: new Map() };
      return { parameters: new Map([["truncateLength", String(rule.length)]]), mapValue: truncator(rule.length) };
    }
    case "mask":
      return {
        parameters: new Map([["masked", "true"]]),
        ...(column.isCharacter ? { mapValue: () => rule.mask } : {}),
      };
    case "hash": {
      if (!column.isCharacter) return { parameters: new Map([["masked", "true"]]) };
      const truncate = column.length > 0 ? truncator(column.length) : (v: unknown) => v;
      return {
        parameters: new Map([["masked", "true"]]),
        mapValue: (value) => truncate(typeof value === "string" ? hashString(rule, value) : null),
      };
    }
    case "propagate": {
      const parameters = new Map([["__debezium.source.column.type", column.typeName.toUpperCase()]]);
      if (column.length !== -1) parameters.set("__debezium.source.column.length", String(column.length));
      if (column.scale !== null) parameters.set("__debezium.source.column.scale", String(column.scale));
      parameters.set("__debezium.source.column.name", column.name);
      return { parameters };
    }
  }
}

/** Strings cut to `length` UTF-16 units (as Java's substring), bytes to `length` bytes. */
function truncator(length: number): (value: unknown) => unknown {
  return (value) => {
    if (typeof value === "string" && value.length > length) return value.slice(0, length);
    if (value instanceof Uint8Array && value.length > length) return value.slice(0, length);
    return value;
  };
}

/**
 * Debezium's salted hash of a string, as lower-case hex: the digest of the salt followed by the value's
 * bytes — v1 the value as Java's ObjectOutputStream writes it, v2 its UTF-8 bytes.
 */
export function hashString(rule: { algorithm: string; salt: Uint8Array; version: 1 | 2 }, value: string): string {
  const hash = createHash(rule.algorithm).update(rule.salt);
  hash.update(rule.version === 1 ? javaSerializedString(value) : new TextEncoder().encode(value));
  return hash.digest("hex");
}

/** ObjectOutputStream.writeObject(string) on a fresh stream: the stream header, then TC_STRING or TC_LONGSTRING. */
export function javaSerializedString(value: string): Uint8Array {
  const utf = modifiedUtf8(value);
  const long = utf.length > 0xffff;
  const out = new Uint8Array(4 + 1 + (long ? 8 : 2) + utf.length);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xaced); // STREAM_MAGIC
  view.setUint16(2, 5); // STREAM_VERSION
  out[4] = long ? 0x7c : 0x74; // TC_LONGSTRING : TC_STRING
  if (long) view.setBigUint64(5, BigInt(utf.length));
  else view.setUint16(5, utf.length);
  out.set(utf, long ? 13 : 7);
  return out;
}

/** Java's modified UTF-8: each UTF-16 unit on its own (surrogates as 3 bytes each), U+0000 as C0 80. */
function modifiedUtf8(value: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x0001 && c <= 0x007f) bytes.push(c);
    else if (c <= 0x07ff) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Uint8Array.from(bytes);
}
