// The registry's in-memory state, rebuilt by applying `_schemas` records in offset order. Pure: the
// store feeds it records; the service reads it. Mirrors how Confluent's reader applies each keytype.
import type { Bytes } from "../../broker/broker.ts";
import type { SchemaReference, SchemaType } from "../../schema/format.ts";
import { contractKey, type Contract, type Metadata, type RuleSet } from "../data-contracts.ts";
import { readStoredConfig, type SubjectConfig } from "../subject-config.ts";
import { contextOf, DEFAULT_CONTEXT } from "../contexts.ts";
import { decodeRecord, skippedSchemaId, type ContextValue } from "./records.ts";
import { VersionIndex } from "./version-index.ts";

export interface SchemaVersion {
  subject: string;
  version: number;
  id: number;
  schema: string;
  schemaType: SchemaType;
  references: SchemaReference[];
  metadata?: Metadata;
  ruleSet?: RuleSet;
  deleted: boolean;
  /** The record's key bytes as read, so a tombstone reproduces them exactly. */
  key: Bytes;
}

export interface Scoped<T> {
  value: T;
  key: Bytes;
}

export class RegistryState {
  private readonly subjects = new Map<string, Map<number, SchemaVersion>>();
  private readonly byId = new VersionIndex<number, SchemaVersion>();
  /** Versions by a hash of their type, references, stored text and data contract: finding a schema does not scan. */
  private readonly byText = new VersionIndex<number, SchemaVersion>();
  readonly configs = new Map<string | null, Scoped<SubjectConfig>>();
  readonly modes = new Map<string | null, Scoped<string>>();
  /** The contexts Confluent has CONTEXT records of (".ctx"), the default one not among them. */
  readonly contexts = new Map<string, Scoped<ContextValue>>();
  /**
   * Highest id ever seen per context, in skipped schema records too: the id allocator's state (ids are
   * allocated per context, as Confluent's IncrementalIdGenerator does).
   */
  private readonly maxIds = new Map<string, number>();
  /** Bumped on every applied change, for caches keyed on the state. */
  generation = 0;

  apply(fetchedKey: Bytes | null, value: Bytes | null): boolean {
    const record = decodeRecord(fetchedKey, value);
    if (!record || !fetchedKey) {
      this.raiseMaxId(DEFAULT_CONTEXT, skippedSchemaId(fetchedKey, value));
      return false;
    }
    // Kept for as long as the record is: a copy, as the fetched bytes may be a view into the whole
    // buffer a fetch read (with the embedded broker, one such buffer per write read back).
    const key = fetchedKey.slice();
    this.generation++;
    switch (record.keytype) {
      case "NOOP":
        return true;
      case "SCHEMA": {
        const old = this.subjects.get(record.subject)?.get(record.version);
        if (old) this.unindex(old);
        if (record.value === null) {
          this.subjects.get(record.subject)?.delete(record.version);
          if (this.subjects.get(record.subject)?.size === 0) this.subjects.delete(record.subject);
          return true;
        }
        const v = record.value;
        const entry: SchemaVersion = {
          subject: v.subject,
          version: v.version,
          id: v.id,
          schema: v.schema,
          schemaType: v.schemaType ?? "AVRO",
          references: v.references ?? [],
          ...(v.metadata ? { metadata: v.metadata } : {}),
          ...(v.ruleSet ? { ruleSet: v.ruleSet } : {}),
          deleted: v.deleted,
          key,
        };
        let versions = this.subjects.get(record.subject);
        if (!versions) this.subjects.set(record.subject, (versions = new Map()));
        versions.set(record.version, entry);
        this.byId.add(v.id, entry);
        this.byText.add(textKey(entry.schemaType, entry.references, entry.schema, entry), entry);
        this.raiseMaxId(contextOf(record.subject), v.id);
        return true;
      }
      case "CONTEXT":
        if (record.value === null) this.contexts.delete(record.context);
        else this.contexts.set(record.context, { value: record.value, key });
        return true;
      case "CONFIG":
        if (record.value === null) this.configs.delete(record.subject);
        else this.configs.set(record.subject, { value: readStoredConfig(record.value), key });
        return true;
      case "MODE":
        if (record.value === null) this.modes.delete(record.subject);
        else this.modes.set(record.subject, { value: record.value.mode.toUpperCase(), key });
        return true;
      case "DELETE_SUBJECT": {
        // Soft-delete marker: every version up to the watermark is deleted.
        if (record.value === null) return true;
        for (const entry of this.subjects.get(record.subject)?.values() ?? []) {
          if (entry.version <= record.value.version) entry.deleted = true;
        }
        return true;
      }
      case "CLEAR_SUBJECT":
        // Written on a switch to IMPORT: soft-deleted versions of the subject are forgotten.
        for (const entry of [...(this.subjects.get(record.subject)?.values() ?? [])]) {
          if (entry.deleted) {
            this.unindex(entry);
            this.subjects.get(record.subject)!.delete(entry.version);
          }
        }
        return true;
    }
  }

  private unindex(entry: SchemaVersion): void {
    this.byId.delete(entry.id, entry);
    this.byText.delete(textKey(entry.schemaType, entry.references, entry.schema, entry), entry);
  }

  /** Versions (of any subject, soft-deleted included) stored with exactly this type, references, text and contract. */
  withText(schemaType: SchemaType, references: SchemaReference[], schema: string, contract: Contract): SchemaVersion[] {
    const out: SchemaVersion[] = [];
    const wanted = contractKey(contract);
    for (const v of this.byText.get(textKey(schemaType, references, schema, contract))) {
      if (
        v.schemaType === schemaType &&
        v.schema === schema &&
        sameReferences(v.references, references) &&
        contractKey(v) === wanted
      )
        out.push(v);
    }
    return out.sort(bySubjectAndVersion);
  }

  subjectNames(): string[] {
    return [...this.subjects.keys()];
  }

  /** Versions of a subject in version order, soft-deleted included. */
  versions(subject: string): SchemaVersion[] {
    return [...(this.subjects.get(subject)?.values() ?? [])].sort((a, b) => a.version - b.version);
  }

  version(subject: string, version: number): SchemaVersion | undefined {
    return this.subjects.get(subject)?.get(version);
  }

  /** Subject-versions of `context` holding schema `id` (ids are per context), in subject/version order. */
  holders(id: number, context = DEFAULT_CONTEXT): SchemaVersion[] {
    return [...this.byId.get(id)].filter((v) => contextOf(v.subject) === context).sort(bySubjectAndVersion);
  }

  /** The highest id allocated in `context`. */
  maxIdIn(context: string): number {
    return this.maxIds.get(context) ?? 0;
  }

  /** The default context's highest id (the metrics' and start-up line's figure). */
  get maxId(): number {
    return this.maxIdIn(DEFAULT_CONTEXT);
  }

  private raiseMaxId(context: string, id: number): void {
    if (id > this.maxIdIn(context)) this.maxIds.set(context, id);
  }

  allVersions(): SchemaVersion[] {
    const out: SchemaVersion[] = [];
    for (const subject of [...this.subjects.keys()].sort(compareStrings)) out.push(...this.versions(subject));
    return out;
  }
}

export function sameReferences(a: SchemaReference[], b: SchemaReference[]): boolean {
  return (
    a.length === b.length &&
    a.every((r, i) => r.name === b[i]!.name && r.subject === b[i]!.subject && r.version === b[i]!.version)
  );
}

/**
 * A 52-bit hash, not the text: the index costs a few bytes per version, not a second copy of each
 * schema; as a plain number it is no object of its own either.
 */
function textKey(schemaType: SchemaType, references: SchemaReference[], schema: string, contract: Contract): number {
  const refs = references.map((r) => `${r?.name}\u0000${r?.subject}\u0000${r?.version}`).join("\u0000");
  return Number(
    BigInt.asUintN(52, BigInt(Bun.hash(`${schemaType}\u0000${refs}\u0000${contractKey(contract)}\u0000${schema}`))),
  );
}

function bySubjectAndVersion(a: SchemaVersion, b: SchemaVersion): number {
  return compareStrings(a.subject, b.subject) || a.version - b.version;
}

/** Java's String.compareTo order (UTF-16 code units), which Confluent's sorted listings follow. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
