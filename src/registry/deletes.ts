// Deleting versions, subjects and contexts, soft and permanent, as Confluent Schema Registry 7.x
// does: nothing still referenced is deleted, so the referrers of a version are worked out here too.
import type { ConfigAndMode } from "./config-and-mode.ts";
import { contextOf, parseSubject, qualifyWithParent } from "./contexts.ts";
import { contractOf } from "./data-contracts.ts";
import { errors } from "./errors.ts";
import type { Reads, VersionSpec } from "./reads.ts";
import type { RegistryRecord } from "./store/records.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import type { RegistryState, SchemaVersion } from "./store/state.ts";

export class Deletes {
  constructor(
    private readonly log: SchemaLog,
    private readonly reads: Reads,
    private readonly scopes: ConfigAndMode,
  ) {}

  private get state(): RegistryState {
    return this.log.state;
  }

  async deleteVersion(subject: string, spec: VersionSpec, permanent: boolean): Promise<number> {
    this.scopes.requireWritable(subject);
    return this.log.exclusive(async () => {
      const all = this.state.versions(subject);
      if (all.length === 0 || (!permanent && all.every((v) => v.deleted) && spec === "latest")) {
        throw errors.subjectNotFound(subject);
      }
      const live = all.filter((v) => !v.deleted);
      const target =
        spec === "latest"
          ? (permanent ? all : live)[(permanent ? all : live).length - 1]
          : all.find((v) => v.version === spec);
      if (!target) throw errors.versionNotFound(spec === "latest" ? -1 : spec);
      if (permanent) {
        if (!target.deleted) throw errors.versionNotSoftDeleted(subject, target.version);
      } else if (target.deleted) {
        throw errors.versionSoftDeleted(subject, target.version);
      }
      if (referrers(this.state, target, false).length > 0) throw errors.referenceExists(subject, target.version);
      const record: RegistryRecord = permanent
        ? { keytype: "SCHEMA", subject, version: target.version, value: null, rawKey: target.key }
        : {
            keytype: "SCHEMA",
            subject,
            version: target.version,
            value: { ...toValue(target), deleted: true },
          };
      return { records: [record], result: target.version };
    });
  }

  async deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    this.scopes.requireWritable(subject);
    return this.log.exclusive(async () => {
      const all = this.state.versions(subject);
      if (all.length === 0) throw errors.subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      for (const v of all) {
        if (referrers(this.state, v, false).length > 0) throw errors.referenceExists(subject, v.version);
      }
      if (permanent) {
        if (live.length > 0) throw errors.subjectNotSoftDeleted(subject);
        const records: RegistryRecord[] = all.map((v) => ({
          keytype: "SCHEMA",
          subject,
          version: v.version,
          value: null,
          rawKey: v.key,
        }));
        return { records, result: all.map((v) => v.version) };
      }
      if (live.length === 0) throw errors.subjectSoftDeleted(subject);
      const records: RegistryRecord[] = [
        { keytype: "DELETE_SUBJECT", subject, value: { subject, version: all[all.length - 1]!.version } },
        // 7.x drops subject-level config and mode with the subject.
        ...this.scopes.scopedTombstones(subject),
      ];
      return { records, result: live.map((v) => v.version) };
    });
  }

  /** DELETE /contexts/{context}: only an empty context (no subject in it, soft-deleted ones included). */
  async deleteContext(name: string): Promise<void> {
    const context = parseSubject(name).context;
    return this.log.exclusive(async () => {
      if (this.state.subjectNames().some((s) => contextOf(s) === context)) throw errors.contextNotEmpty(name);
      const current = this.state.contexts.get(context);
      const records: RegistryRecord[] = current
        ? [{ keytype: "CONTEXT", context, value: null, rawKey: current.key }]
        : [];
      return { records, result: undefined };
    });
  }

  /** The ids of the schemas whose references point at the version. */
  referencedBy(subject: string, spec: VersionSpec, deleted = false): number[] {
    const target = this.reads.getVersion(subject, spec, deleted);
    return referrers(this.state, target, deleted).map((v) => v.id);
  }
}

/** Live (or all) schemas whose references point at `target`. */
export function referrers(state: RegistryState, target: SchemaVersion, includeDeleted: boolean): SchemaVersion[] {
  return state
    .allVersions()
    .filter(
      (v) =>
        (includeDeleted || !v.deleted) &&
        v.references.some(
          (r) => r.version === target.version && qualifyWithParent(v.subject, r.subject) === target.subject,
        ),
    );
}

function toValue(v: SchemaVersion) {
  return {
    subject: v.subject,
    version: v.version,
    id: v.id,
    schema: v.schema,
    schemaType: v.schemaType === "AVRO" ? undefined : v.schemaType,
    references: v.references,
    ...contractOf(v),
    deleted: v.deleted,
  };
}
