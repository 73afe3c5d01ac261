// The DEK registry's `_dek_registry_keys` records, as Confluent's KafkaDekRegistry writes them with
// Jackson: JSON keys and values whose field order is the @JsonCreator parameters' and then the rest
// (so `type` comes last), null fields left out, null = tombstone. Offsets and timestamps are never
// written: Confluent takes them from the record when it reads it back.
import { encoder, type Bytes } from "../../broker/broker.ts";
import { jsonBytes, parseJsonBytes } from "../store/json-bytes.ts";

/** DekFormat, in its Java declaration order (which orders DEK ids). */
export const ALGORITHMS = ["AES128_GCM", "AES256_GCM", "AES256_SIV"] as const;
export type DekAlgorithm = (typeof ALGORITHMS)[number];
export const DEFAULT_ALGORITHM: DekAlgorithm = "AES256_GCM";

/** The one tenant of a self-managed registry (Confluent's QualifiedSubject.DEFAULT_TENANT). */
export const DEFAULT_TENANT = "default";

export interface KekValue {
  name: string;
  kmsType: string;
  kmsKeyId: string;
  /** Sorted by key, as Confluent's SortedMap writes it; {} when none. */
  kmsProps: Record<string, string>;
  doc?: string;
  shared: boolean;
  deleted: boolean;
}

export interface DekValue {
  kekName: string;
  subject: string;
  algorithm: DekAlgorithm;
  version: number;
  encryptedKeyMaterial?: string;
  deleted: boolean;
}

export interface KekId {
  type: "KEK";
  tenant: string;
  name: string;
}

export interface DekId {
  type: "DEK";
  tenant: string;
  kekName: string;
  subject: string;
  algorithm: DekAlgorithm;
  version: number;
}

/** A write: the key's id and its new value (null deletes it for good); `rawKey` reuses key bytes as read. */
export type DekRecord =
  | (KekId & { value: KekValue | null; rawKey?: Bytes })
  | (DekId & { value: DekValue | null; rawKey?: Bytes });

export const kekId = (name: string, tenant = DEFAULT_TENANT): KekId => ({ type: "KEK", tenant, name });
export const dekId = (
  kekName: string,
  subject: string,
  algorithm: DekAlgorithm,
  version: number,
  tenant = DEFAULT_TENANT,
): DekId => ({ type: "DEK", tenant, kekName, subject, algorithm, version });

export function encodeKey(record: DekRecord): Bytes {
  // Compaction compares key bytes: a key another writer wrote is reused as it was read.
  if (record.rawKey) return record.rawKey;
  return jsonBytes(
    record.type === "KEK"
      ? { tenant: record.tenant, name: record.name, type: "KEK" }
      : {
          tenant: record.tenant,
          kekName: record.kekName,
          subject: record.subject,
          algorithm: record.algorithm,
          version: record.version,
          type: "DEK",
        },
  );
}

export function encodeValue(record: DekRecord): Bytes | null {
  if (record.value === null) return null;
  if (record.type === "KEK") {
    const v = record.value as KekValue;
    const head = JSON.stringify({ name: v.name, kmsType: v.kmsType, kmsKeyId: v.kmsKeyId }).slice(0, -1);
    const tail = JSON.stringify({
      ...(v.doc !== undefined ? { doc: v.doc } : {}),
      shared: v.shared,
      deleted: v.deleted,
      type: "KEK",
    }).slice(1);
    return encoder.encode(`${head},"kmsProps":${propsJson(v.kmsProps)},${tail}`);
  }
  const v = record.value as DekValue;
  return jsonBytes({
    kekName: v.kekName,
    subject: v.subject,
    algorithm: v.algorithm,
    version: v.version,
    ...(v.encryptedKeyMaterial !== undefined ? { encryptedKeyMaterial: v.encryptedKeyMaterial } : {}),
    deleted: v.deleted,
    type: "DEK",
  });
}

/** A record as read; undefined for one this registry does not understand (skipped, as Jackson would fail on it). */
export function decodeRecord(key: Bytes | null, value: Bytes | null): DekRecord | undefined {
  const k = key === null ? undefined : (parseJsonBytes(key) as Record<string, unknown> | undefined);
  if (!k || typeof k.tenant !== "string") return undefined;
  const v = value === null ? null : (parseJsonBytes(value) as Record<string, unknown> | undefined);
  if (v === undefined) return undefined;
  if (k.type === "KEK") {
    if (typeof k.name !== "string") return undefined;
    const id = kekId(k.name, k.tenant);
    if (v === null) return { ...id, value: null };
    if (typeof v.kmsType !== "string" || typeof v.kmsKeyId !== "string") return undefined;
    return {
      ...id,
      value: {
        name: typeof v.name === "string" ? v.name : k.name,
        kmsType: v.kmsType,
        kmsKeyId: v.kmsKeyId,
        kmsProps: stringProps(v.kmsProps),
        ...(typeof v.doc === "string" ? { doc: v.doc } : {}),
        shared: v.shared === true,
        deleted: v.deleted === true,
      },
    };
  }
  if (k.type === "DEK") {
    const algorithm = parseAlgorithm(k.algorithm);
    if (typeof k.kekName !== "string" || typeof k.subject !== "string" || !algorithm || !Number.isInteger(k.version))
      return undefined;
    const id = dekId(k.kekName, k.subject, algorithm, k.version as number, k.tenant);
    if (v === null) return { ...id, value: null };
    return {
      ...id,
      value: {
        kekName: id.kekName,
        subject: id.subject,
        algorithm,
        version: id.version,
        ...(typeof v.encryptedKeyMaterial === "string" ? { encryptedKeyMaterial: v.encryptedKeyMaterial } : {}),
        deleted: v.deleted === true,
      },
    };
  }
  return undefined;
}

export function parseAlgorithm(text: unknown): DekAlgorithm | undefined {
  return ALGORITHMS.find((a) => a === text);
}

/** The state's map key of an id. */
export function idKey(id: KekId | DekId): string {
  return JSON.stringify(
    id.type === "KEK" ? [id.tenant, id.name] : [id.tenant, id.kekName, id.subject, id.algorithm, id.version],
  );
}

/**
 * KMS properties as Confluent's SortedMap writes them: keys in Java's TreeMap order (UTF-16 code
 * units, what JS's default sort compares). Written by hand: a JS object would put integer-like keys first.
 */
export function propsJson(props: Record<string, string>): string {
  return `{${Object.keys(props)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(props[k])}`)
    .join(",")}}`;
}

function stringProps(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}
