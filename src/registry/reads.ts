// The registry's reads: schemas by id and by GUID, subjects and their versions, contexts, as
// Confluent Schema Registry 7.x answers them. Only reads of RegistryState; nothing is written here.
import {
  contextOf,
  CONTEXT_WILDCARD,
  DEFAULT_CONTEXT,
  parseSubject,
  qualifiedName,
  subjectPrefixMatcher,
} from "./contexts.ts";
import { schemaGuid } from "./data-contracts.ts";
import { errors } from "./errors.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import { compareStrings, type RegistryState, type SchemaVersion } from "./store/state.ts";

/** `latest`/-1 or a version number 1..2^31-1, as parsed from a path. */
export type VersionSpec = number | "latest";

export interface ListOptions {
  deleted?: boolean;
  deletedOnly?: boolean;
  subjectPrefix?: string;
  offset?: number;
  limit?: number;
  /** Only these subjects (the user's readable ones), filtered before paging. */
  readable?: (subject: string) => boolean;
}

const MAX_VERSION = 2 ** 31 - 1;

export function parseVersionSpec(text: string): VersionSpec {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === "latest" || trimmed === "-1") return "latest";
  if (/^\d+$/.test(trimmed)) {
    const n = Number(trimmed);
    if (n >= 1 && n <= MAX_VERSION) return n;
  }
  throw errors.invalidVersion(text);
}

export class Reads {
  private guids?: { generation: number; byGuid: Map<string, SchemaVersion[]> };

  constructor(private readonly log: SchemaLog) {}

  private get state(): RegistryState {
    return this.log.state;
  }

  // ---- schemas by id ----

  /** Schema `id` of the default context (the cached read, without a subject). */
  schemaById(id: number): SchemaVersion {
    const holder = this.state.holders(id)[0];
    if (!holder) throw errors.schemaIdNotFound(id);
    return holder;
  }

  /**
   * Schema `id` as `GET /schemas/ids/{id}?subject=` finds it (Confluent's getSchemaKeyUsingContexts):
   * a qualified subject (`:.ctx:s`) names the context and must hold the id; a context alone
   * (`:.ctx:`) takes any holder in it; an unqualified subject is tried as it is, then in each known
   * context, then any holder in the default context. Without a subject, the default context.
   */
  schemaByIdFor(id: number, subject: string | undefined): SchemaVersion {
    const found = subject === undefined ? this.state.holders(id)[0] : this.holderFor(id, subject);
    if (!found) throw errors.schemaIdNotFound(id);
    return found;
  }

  private holderFor(id: number, subject: string): SchemaVersion | undefined {
    const q = parseSubject(subject);
    const inContext = (context: string, name: string) => {
      const holders = this.state.holders(id, context);
      return name === "" ? holders[0] : holders.find((h) => h.subject === qualifiedName({ context, subject: name }));
    };
    const direct = inContext(q.context, q.subject);
    if (direct || q.subject === "" || q.context !== DEFAULT_CONTEXT) return direct;
    for (const context of [...this.state.contexts.keys()].sort(compareStrings)) {
      const found = inContext(context, q.subject);
      if (found) return found;
    }
    return inContext(DEFAULT_CONTEXT, "");
  }

  /**
   * The versions whose GUID (Confluent 8: the MD5 of schema, references and contract, ./data-contracts.ts)
   * is `guid`, default context first: the index is rebuilt lazily after the state changes.
   */
  versionsByGuid(guid: string): SchemaVersion[] {
    if (this.guids?.generation !== this.state.generation) {
      const byGuid = new Map<string, SchemaVersion[]>();
      for (const v of this.state.allVersions()) {
        const key = schemaGuid(v.schema, v.references, v);
        const list = byGuid.get(key);
        if (list) list.push(v);
        else byGuid.set(key, [v]);
      }
      this.guids = { generation: this.state.generation, byGuid };
    }
    const found = this.guids.byGuid.get(guid.toLowerCase()) ?? [];
    return [...found].sort(
      (a, b) => Number(contextOf(b.subject) === DEFAULT_CONTEXT) - Number(contextOf(a.subject) === DEFAULT_CONTEXT),
    );
  }

  /** The highest id of the schema's context, as `fetchMaxId` reports it (1 in a context without ids, as Confluent). */
  maxIdOf(v: SchemaVersion): number {
    return this.state.maxIdIn(contextOf(v.subject)) || 1;
  }

  /** `.` first, then the contexts in name order, as Confluent lists them. */
  listContexts(): string[] {
    return [DEFAULT_CONTEXT, ...[...this.state.contexts.keys()].sort(compareStrings)];
  }

  /** The subject-versions holding `id` in the context where `subject` finds it (see schemaByIdFor). */
  versionsOfId(id: number, deleted: boolean, subject?: string): { subject: string; version: number }[] {
    const found = subject === undefined ? this.state.holders(id)[0] : this.holderFor(id, subject);
    const holders = found ? this.state.holders(id, contextOf(found.subject)) : [];
    if (holders.length === 0) throw errors.schemaIdNotFound(id);
    return holders.filter((h) => deleted || !h.deleted).map((h) => ({ subject: h.subject, version: h.version }));
  }

  listSchemas(options: ListOptions & { latestOnly?: boolean }): SchemaVersion[] {
    // Confluent's default prefix here is "", which selects the default context only.
    const selected = subjectPrefixMatcher(options.subjectPrefix ?? "", new Set(this.state.contexts.keys()));
    const readable = options.readable ?? (() => true);
    let out = this.state
      .allVersions()
      .filter((v) => selected(v.subject) && (options.deleted || !v.deleted) && readable(v.subject));
    if (options.latestOnly) {
      const latest = new Map<string, SchemaVersion>();
      for (const v of out) latest.set(v.subject, v);
      out = [...latest.values()];
    }
    return page(out, options);
  }

  // ---- subjects ----

  listSubjects(options: ListOptions): string[] {
    // Confluent's default prefix here is `:*:`, every context.
    const selected = subjectPrefixMatcher(
      options.subjectPrefix ?? CONTEXT_WILDCARD,
      new Set(this.state.contexts.keys()),
    );
    const readable = options.readable ?? (() => true);
    const out: string[] = [];
    for (const subject of this.state.subjectNames().sort(compareStrings)) {
      if (!selected(subject) || !readable(subject)) continue;
      // A subject counts as deleted only when every version is soft-deleted.
      const deleted = this.state.versions(subject).every((v) => v.deleted);
      if (options.deletedOnly ? deleted : options.deleted || !deleted) out.push(subject);
    }
    return page(out, options);
  }

  listVersions(subject: string, options: ListOptions): number[] {
    const all = this.state.versions(subject);
    // As Confluent: 404 only for a subject without versions (soft-deleted ones count when asked for);
    // deletedOnly on a subject with none deleted is an empty list.
    if (!all.some((v) => options.deleted || options.deletedOnly || !v.deleted)) throw errors.subjectNotFound(subject);
    const versions = all
      .filter((v) => (options.deletedOnly ? v.deleted : options.deleted || !v.deleted))
      .map((v) => v.version);
    return page(versions, options);
  }

  getVersion(subject: string, spec: VersionSpec, deleted = false): SchemaVersion {
    const all = this.state.versions(subject);
    const visible = all.filter((v) => deleted || !v.deleted);
    if (visible.length === 0) throw errors.subjectNotFound(subject);
    if (spec === "latest") return visible[visible.length - 1]!;
    const found = visible.find((v) => v.version === spec);
    if (!found) throw errors.versionNotFound(spec);
    return found;
  }

  /** The latest version of `subject` whose metadata properties include all of `properties` (GET /subjects/{s}/metadata). */
  latestWithMetadata(subject: string, properties: Record<string, string>, deleted: boolean): SchemaVersion {
    const visible = this.state.versions(subject).filter((v) => deleted || !v.deleted);
    const wanted = Object.entries(properties);
    const found = visible
      .reverse()
      .find((v) => v.metadata && wanted.every(([k, value]) => v.metadata!.properties[k] === value));
    if (found) return found;
    if (visible.length === 0) throw errors.subjectNotFound(subject);
    throw errors.schemaNotFound();
  }

  liveVersions(subject: string): SchemaVersion[] {
    return this.state.versions(subject).filter((v) => !v.deleted);
  }
}

function page<T>(items: T[], { offset = 0, limit = -1 }: ListOptions): T[] {
  const start = Math.max(0, offset);
  return limit > 0 ? items.slice(start, start + limit) : items.slice(start);
}
