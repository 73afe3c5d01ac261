// The DEK registry's keys, rebuilt by applying `_dek_registry_keys` records in offset order (as
// Confluent's KafkaCache does). Pure: the log feeds it records; the service reads it. Each key keeps
// the offset and timestamp of the record that wrote it: Confluent answers the timestamp as `ts`.
import type { Bytes } from "../../broker/broker.ts";
import type { LogState } from "../store/topic-log.ts";
import {
  ALGORITHMS,
  decodeRecord,
  DEFAULT_TENANT,
  idKey,
  type DekAlgorithm,
  type DekId,
  type DekValue,
  type KekId,
  type KekValue,
} from "./records.ts";

interface Stored {
  /** The key bytes as read: a later write or tombstone of this key reuses them. */
  key: Bytes;
  offset: number;
  ts: number;
}
export interface StoredKek extends Stored {
  id: KekId;
  value: KekValue;
}
export interface StoredDek extends Stored {
  id: DekId;
  value: DekValue;
}

const byName = (a: StoredKek, b: StoredKek) => compare(a.id.name, b.id.name);

/** DataEncryptionKeyId's order: KEK name, subject, algorithm (enum order), version. */
function dekOrder(a: StoredDek, b: StoredDek): number {
  return (
    compare(a.id.kekName, b.id.kekName) ||
    compare(a.id.subject, b.id.subject) ||
    ALGORITHMS.indexOf(a.id.algorithm) - ALGORITHMS.indexOf(b.id.algorithm) ||
    a.id.version - b.id.version
  );
}

export class DekState implements LogState {
  private readonly keks = new Map<string, StoredKek>();
  private readonly deks = new Map<string, StoredDek>();
  /** The versions of one KEK, subject and algorithm. */
  private readonly versions = new Map<string, Map<number, StoredDek>>();

  apply(key: Bytes | null, value: Bytes | null, read: { offset: number; timestamp: number }): boolean {
    const record = decodeRecord(key, value);
    if (!record || !key) return false;
    const stored = { key: key.slice(), offset: read.offset, ts: read.timestamp };
    if (record.type === "KEK") {
      const id = idKey(record);
      if (record.value === null) this.keks.delete(id);
      else
        this.keks.set(id, {
          ...stored,
          id: { type: "KEK", tenant: record.tenant, name: record.name },
          value: record.value,
        });
      return true;
    }
    const dekIdOf: DekId = {
      type: "DEK",
      tenant: record.tenant,
      kekName: record.kekName,
      subject: record.subject,
      algorithm: record.algorithm,
      version: record.version,
    };
    const id = idKey(dekIdOf);
    const group = versionsKey(record.tenant, record.kekName, record.subject, record.algorithm);
    if (record.value === null) {
      this.deks.delete(id);
      this.versions.get(group)?.delete(record.version);
      if (this.versions.get(group)?.size === 0) this.versions.delete(group);
      return true;
    }
    const entry: StoredDek = { ...stored, id: dekIdOf, value: record.value };
    this.deks.set(id, entry);
    let versions = this.versions.get(group);
    if (!versions) this.versions.set(group, (versions = new Map()));
    versions.set(record.version, entry);
    return true;
  }

  kek(name: string): StoredKek | undefined {
    return this.keks.get(idKey({ type: "KEK", tenant: DEFAULT_TENANT, name }));
  }

  dek(id: DekId): StoredDek | undefined {
    return this.deks.get(idKey(id));
  }

  /** Every KEK, by name. */
  allKeks(): StoredKek[] {
    return [...this.keks.values()].filter((k) => k.id.tenant === DEFAULT_TENANT).sort(byName);
  }

  /** Every DEK, or those of one KEK, in Confluent's id order. */
  allDeks(kekName?: string): StoredDek[] {
    return [...this.deks.values()]
      .filter((d) => d.id.tenant === DEFAULT_TENANT && (kekName === undefined || d.id.kekName === kekName))
      .sort(dekOrder);
  }

  /** The versions of a subject's DEK under one KEK and algorithm, oldest first. */
  dekVersions(kekName: string, subject: string, algorithm: DekAlgorithm): StoredDek[] {
    const versions = this.versions.get(versionsKey(DEFAULT_TENANT, kekName, subject, algorithm));
    return versions ? [...versions.values()].sort((a, b) => a.id.version - b.id.version) : [];
  }

  /** How many keys of a type there are, soft-deleted ones included (Confluent's per-tenant key count). */
  count(type: "KEK" | "DEK"): number {
    let n = 0;
    for (const k of type === "KEK" ? this.keks.values() : this.deks.values()) if (k.id.tenant === DEFAULT_TENANT) n++;
    return n;
  }
}

const versionsKey = (tenant: string, kekName: string, subject: string, algorithm: DekAlgorithm) =>
  JSON.stringify([tenant, kekName, subject, algorithm]);

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
