// The `_schemas` topic's records, byte-compatible with Confluent Schema Registry (7.x) and Karapace:
// JSON keys with a fixed field order (compaction compares key bytes), JSON values, null = tombstone.
import type { Bytes } from "../../broker/broker.ts";
import { jsonBytes, parseJsonBytes } from "./json-bytes.ts";
import type { SchemaReference, SchemaType } from "../../schema/format.ts";
import { contractJson, readMetadata, readRuleSet, type Metadata, type RuleSet } from "../data-contracts.ts";

export interface SchemaValue {
  subject: string;
  version: number;
  id: number;
  schema: string;
  /** Omitted for AVRO, as Confluent 7.x writes it. */
  schemaType?: SchemaType;
  references?: SchemaReference[];
  metadata?: Metadata;
  ruleSet?: RuleSet;
  deleted: boolean;
}

/** A CONFIG record's value as JSON (../subject-config.ts reads and writes it). */
export type ConfigValue = Record<string, unknown>;

/** Confluent's ContextValue; the tenant is always "default" in a registry without tenants. */
export interface ContextValue {
  tenant: string;
  context: string;
}

export type RegistryRecord =
  | { keytype: "SCHEMA"; subject: string; version: number; value: SchemaValue | null; rawKey?: Bytes }
  | { keytype: "CONFIG"; subject: string | null; value: ConfigValue | null; rawKey?: Bytes }
  | { keytype: "MODE"; subject: string | null; value: { mode: string } | null; rawKey?: Bytes }
  | { keytype: "DELETE_SUBJECT"; subject: string; value: { subject: string; version: number } | null }
  | { keytype: "CLEAR_SUBJECT"; subject: string; value: { subject: string } | null }
  /** Written when a subject of a context (not the default one) is first registered; lists the contexts. */
  | { keytype: "CONTEXT"; context: string; value: ContextValue | null; rawKey?: Bytes }
  | { keytype: "NOOP" };

const DEFAULT_TENANT = "default";

/** The key bytes Confluent writes for a record (field order matters: tombstones must match). */
export function encodeKey(record: RegistryRecord): Bytes {
  // A tombstone reuses the key bytes as read: another writer (e.g. Karapace) may have ordered them differently.
  if ("rawKey" in record && record.rawKey) return record.rawKey;
  switch (record.keytype) {
    case "SCHEMA":
      return jsonBytes({ keytype: "SCHEMA", subject: record.subject, version: record.version, magic: 1 });
    case "NOOP":
      return jsonBytes({ keytype: "NOOP", magic: 0 });
    case "CONTEXT":
      return jsonBytes({ keytype: "CONTEXT", tenant: DEFAULT_TENANT, context: record.context, magic: 0 });
    case "CONFIG":
    case "MODE":
      return record.subject === null
        ? jsonBytes({ keytype: record.keytype, magic: 0 })
        : jsonBytes({ keytype: record.keytype, subject: record.subject, magic: 0 });
    default:
      return jsonBytes({ keytype: record.keytype, subject: record.subject, magic: 0 });
  }
}

export function encodeValue(record: RegistryRecord): Bytes | null {
  if (record.keytype === "NOOP" || record.value === null) return null;
  if (record.keytype === "SCHEMA") {
    const v = record.value;
    // Confluent's value field order; schemaType, references, metadata and ruleSet only when present.
    return jsonBytes({
      subject: v.subject,
      version: v.version,
      id: v.id,
      ...(v.schemaType && v.schemaType !== "AVRO" ? { schemaType: v.schemaType } : {}),
      ...(v.references && v.references.length > 0 ? { references: v.references } : {}),
      ...contractJson(v),
      schema: v.schema,
      deleted: v.deleted,
    });
  }
  if (record.keytype === "CONTEXT") return jsonBytes({ tenant: record.value.tenant, context: record.value.context });
  if (record.keytype === "MODE")
    return jsonBytes(record.subject === null ? record.value : { subject: record.subject, ...record.value });
  return jsonBytes(record.value);
}

/** Parses a record as read from the topic; undefined for keys this registry does not understand. */
export function decodeRecord(key: Bytes | null, value: Bytes | null): RegistryRecord | undefined {
  if (key === null) return undefined;
  const k = parseJsonBytes(key) as Record<string, unknown> | undefined;
  if (!k || typeof k.keytype !== "string") return undefined;
  const v = value === null ? null : (parseJsonBytes(value) as Record<string, unknown> | undefined);
  if (v === undefined) return undefined;
  const subject = typeof k.subject === "string" ? k.subject : null;
  switch (k.keytype) {
    case "NOOP":
      return { keytype: "NOOP" };
    case "SCHEMA": {
      if (subject === null || typeof k.version !== "number") return undefined;
      if (v === null) return { keytype: "SCHEMA", subject, version: k.version, value: null };
      if (typeof v.id !== "number" || typeof v.schema !== "string") return undefined;
      const schemaType = typeof v.schemaType === "string" ? (v.schemaType.toUpperCase() as SchemaType) : undefined;
      let contract: { metadata?: Metadata; ruleSet?: RuleSet };
      try {
        contract = { metadata: readMetadata(v.metadata), ruleSet: readRuleSet(v.ruleSet) };
      } catch {
        return undefined; // a data contract this registry cannot read: the record is skipped, its id kept
      }
      return {
        keytype: "SCHEMA",
        subject,
        version: k.version,
        value: {
          subject,
          version: k.version,
          id: v.id,
          schema: v.schema,
          schemaType: schemaType === "AVRO" ? undefined : schemaType,
          references: Array.isArray(v.references) ? (v.references as SchemaReference[]) : undefined,
          ...(contract.metadata ? { metadata: contract.metadata } : {}),
          ...(contract.ruleSet ? { ruleSet: contract.ruleSet } : {}),
          deleted: v.deleted === true,
        },
      };
    }
    case "CONFIG":
      return { keytype: "CONFIG", subject, value: v as ConfigValue | null };
    case "MODE":
      return { keytype: "MODE", subject, value: v === null ? null : { mode: String(v.mode) } };
    case "DELETE_SUBJECT":
      if (subject === null) return undefined;
      return { keytype: "DELETE_SUBJECT", subject, value: v === null ? null : { subject, version: Number(v.version) } };
    case "CLEAR_SUBJECT":
      if (subject === null) return undefined;
      return { keytype: "CLEAR_SUBJECT", subject, value: v === null ? null : { subject } };
    case "CONTEXT": {
      // Another tenant's contexts (Confluent Cloud's multi-tenant registries) are not this registry's.
      const tenant = typeof k.tenant === "string" ? k.tenant : DEFAULT_TENANT;
      if (typeof k.context !== "string" || tenant !== DEFAULT_TENANT) return undefined;
      return { keytype: "CONTEXT", context: k.context, value: v === null ? null : { tenant, context: k.context } };
    }
    default:
      return undefined;
  }
}

/**
 * Whether the reader applies `record`, encoded as `key` and `value`, to the subject it names: one it
 * would skip (a key without its subject) or apply elsewhere (a missing subject reads as the global
 * config) must never be written, or replay loses it and, with a schema, the id already answered.
 */
export function replayable(record: RegistryRecord, key = encodeKey(record), value = encodeValue(record)): boolean {
  const read = decodeRecord(key, value);
  if (!read || read.keytype !== record.keytype) return false;
  return !("subject" in record) || ("subject" in read && read.subject === record.subject);
}

/**
 * The id in a SCHEMA record the reader skips (such as the `"subject":null` ones older Sluice wrote):
 * the id was answered to a client, so the allocator must not hand it out again. 0 when none.
 */
export function skippedSchemaId(key: Bytes | null, value: Bytes | null): number {
  if (key === null || value === null) return 0;
  const k = parseJsonBytes(key) as Record<string, unknown> | undefined;
  const v = parseJsonBytes(value) as Record<string, unknown> | undefined;
  if (k?.keytype !== "SCHEMA" || typeof v?.id !== "number" || !Number.isSafeInteger(v.id)) return 0;
  return v.id;
}
