// The schema registry's rules (register, look up, delete, config, mode, compatibility), as Confluent
// Schema Registry 7.x applies them. No HTTP and no broker in here: reads come from RegistryState,
// writes are records handed to the SchemaLog.
import { checkCompatibility, parseLevel, type CompatibilityLevel, type PreviousVersion } from "./compatibility.ts";
import { errors, RegistryError } from "./errors.ts";
import { formats } from "../schema/index.ts";
import {
  InvalidSchemaError,
  resolvedReference,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
  type SchemaReference,
  type SchemaType,
} from "../schema/format.ts";
import {
  confluentVersion,
  contractKey,
  mergeMetadata,
  mergeRuleSets,
  readMetadata,
  readRuleSet,
  sameContractIgnoringVersion,
  schemaGuid,
  validateRuleSet,
  withConfluentVersion,
  type Contract,
} from "./data-contracts.ts";
import { SchemaThread } from "./schema-thread/on-event-loop.ts";
import { configBody, configInScope, configUpdateBody, storedConfigJson, updatedConfig, type SubjectConfig } from "./subject-config.ts";
import { isLarge, type SchemaText, type VersionText } from "./schema-thread/schema-texts.ts";
import type { RegistryRecord } from "./store/records.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import { compareStrings, sameReferences, type RegistryState, type SchemaVersion } from "./store/state.ts";
import {
  contextOf,
  contextPrefix,
  CONTEXT_WILDCARD,
  DEFAULT_CONTEXT,
  GLOBAL_CONTEXT,
  parseSubject,
  qualifiedName,
  qualifyWithParent,
  subjectPrefixMatcher,
} from "./contexts.ts";
import { LruCache } from "../platform/lru.ts";

export const MODES = ["READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"] as const;
export type Mode = (typeof MODES)[number];

/** `latest`/-1 or a version number 1..2^31-1, as parsed from a path. */
export type VersionSpec = number | "latest";

export interface SchemaRequest {
  schema?: string;
  schemaType?: string;
  references?: SchemaReference[];
  id?: number;
  version?: number;
  /** Data contract (./data-contracts.ts), as sent: read and validated by the service. */
  metadata?: unknown;
  ruleSet?: unknown;
}

/** A registration's outcome: the version holding the schema (new or found) and whether its contract is set. */
export interface Registered {
  id: number;
  version: number;
  schemaType: SchemaType;
  references: SchemaReference[];
  schema: string;
  contract: Contract;
}

export interface RegistryOptions {
  defaultCompatibility: CompatibilityLevel;
  modeMutability: boolean;
  /** Largest schema record the store accepts (Kafka's default max.request.size). */
  maxSchemaBytes: number;
  /** Parsed schemas kept (schema.cache.size): each holds a syntax tree and an avsc/protobuf type. */
  schemaCacheSize: number;
}

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

export class RegistryService {
  private readonly parseCache: LruCache<string, ParsedSchema>;
  private readonly canonicalForms = new WeakMap<SchemaVersion, string | undefined>();
  private readonly normalizedForms = new WeakMap<SchemaVersion, string | undefined>();
  private readonly schemaThread = new SchemaThread();
  private guids?: { generation: number; byGuid: Map<string, SchemaVersion[]> };

  constructor(
    private readonly log: SchemaLog,
    private readonly options: RegistryOptions,
  ) {
    this.parseCache = new LruCache(options.schemaCacheSize);
  }

  /** Parsed schemas held now (bounded by schema.cache.size). */
  get parsedSchemasCached(): number {
    return this.parseCache.size;
  }

  get state(): RegistryState {
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
    return [...found].sort((a, b) => Number(contextOf(b.subject) === DEFAULT_CONTEXT) - Number(contextOf(a.subject) === DEFAULT_CONTEXT));
  }

  /** The highest id of the schema's context, as `fetchMaxId` reports it (1 in a context without ids, as Confluent). */
  maxIdOf(v: SchemaVersion): number {
    return this.state.maxIdIn(contextOf(v.subject)) || 1;
  }

  /** `.` first, then the contexts in name order, as Confluent lists them. */
  listContexts(): string[] {
    return [DEFAULT_CONTEXT, ...[...this.state.contexts.keys()].sort(compareStrings)];
  }

  /** DELETE /contexts/{context}: only an empty context (no subject in it, soft-deleted ones included). */
  async deleteContext(name: string): Promise<void> {
    const context = parseSubject(name).context;
    return this.log.exclusive(async () => {
      if (this.state.subjectNames().some((s) => contextOf(s) === context)) throw errors.contextNotEmpty(name);
      const current = this.state.contexts.get(context);
      const records: RegistryRecord[] = current ? [{ keytype: "CONTEXT", context, value: null, rawKey: current.key }] : [];
      return { records, result: undefined };
    });
  }

  /** The schema text of a stored version in a `format=` rendering; the stored text when the format has none. */
  formattedSchema(v: SchemaVersion, format: string | undefined): string {
    const formatter = format ? formats.get(v.schemaType)?.formatted : undefined;
    if (!formatter || !format) return v.schema;
    const parsed = this.parse(v.schemaType, v.schema, this.resolveReferences(v.subject, v.references, new Set()));
    return formatter(parsed, format) ?? v.schema;
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
    let out = this.state.allVersions().filter((v) => selected(v.subject) && (options.deleted || !v.deleted) && readable(v.subject));
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
    const selected = subjectPrefixMatcher(options.subjectPrefix ?? CONTEXT_WILDCARD, new Set(this.state.contexts.keys()));
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
    const versions = all.filter((v) => (options.deletedOnly ? v.deleted : options.deleted || !v.deleted)).map((v) => v.version);
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

  referencedBy(subject: string, spec: VersionSpec, deleted = false): number[] {
    const target = this.getVersion(subject, spec, deleted);
    return this.referrers(target, deleted).map((v) => v.id);
  }

  /**
   * The version of `subject` holding the request's schema and contract, as Confluent looks it up:
   * the same schema and contract; else one differing only by `confluent:version`; else, with the
   * contract a registration would give it (the latest version's and the config's), the same again.
   */
  async lookup(subject: string, request: SchemaRequest, normalize: boolean, deleted: boolean): Promise<SchemaVersion> {
    const given = requestContract(request);
    const candidate = this.schemaText(request, subject);
    const config = this.configInScope(subject);
    normalize ||= config.normalize === true;
    const form = await this.identityFormOf(candidate, normalize);
    if (!this.state.versions(subject).some((v) => deleted || !v.deleted)) throw errors.subjectNotFound(subject);
    const find = (contract: Contract) => {
      const exact = this.inSubject(subject, candidate.schemaType, form, request.references ?? [], normalize, contract).filter((v) => deleted || !v.deleted);
      if (exact.length > 0) return exact[exact.length - 1];
      return this.sameButVersion(subject, candidate.schemaType, form, request.references ?? [], normalize, contract, deleted);
    };
    const prev = this.liveVersions(subject).at(-1);
    const populated = prev ? populatedContract(config, given, prev, undefined) : given;
    const found = find(given) ?? (contractKey(populated) !== contractKey(given) ? find(populated) : undefined);
    if (!found) throw errors.schemaNotFound();
    return found;
  }

  /** The latest version equal to the schema whose contract differs at most by `confluent:version` (Confluent's canLookup). */
  private sameButVersion(subject: string, type: SchemaType, form: string, references: SchemaReference[], normalize: boolean, contract: Contract, deleted: boolean): SchemaVersion | undefined {
    return this.state
      .versions(subject)
      .reverse()
      .find((v) => (deleted || !v.deleted) && this.sameSchema(v, type, form, references, normalize) && sameContractIgnoringVersion(contract, v, v.version));
  }

  // ---- register ----

  async register(subject: string, request: SchemaRequest, normalize: boolean): Promise<number> {
    return (await this.registerFull(subject, request, normalize)).id;
  }

  /**
   * Registers the request's schema under `subject` as Confluent 7.5+ does: outside IMPORT mode the
   * contract is the request's (else the latest version's) merged over the config's default and under
   * its override, and an empty schema re-registers the latest one with that contract. The same schema
   * with the same contract finds its version; a changed contract makes a new version (and id).
   */
  async registerFull(subject: string, request: SchemaRequest, normalize: boolean): Promise<Registered> {
    const given = requestContract(request);
    validateSubject(subject);
    const mode = this.effectiveMode(subject);
    const importing = request.id !== undefined && request.id >= 0;
    if (mode === "READONLY" || mode === "READONLY_OVERRIDE") throw errors.operationNotPermitted(`Subject ${subject} is in read-only mode`);
    if (importing && mode !== "IMPORT") throw errors.operationNotPermitted(`Subject ${subject} is not in import mode`);
    if (!importing && mode === "IMPORT") throw errors.operationNotPermitted(`Subject ${subject} is not in read-write mode`);
    normalize ||= this.configInScope(subject).normalize === true;

    // What is registered: the schema (the latest one's when none is sent) and its contract.
    const prepare = async () => {
      const all = this.state.versions(subject);
      const newVersion = (all[all.length - 1]?.version ?? 0) + 1;
      let full = request;
      let contract = given;
      if (mode !== "IMPORT") {
        const prev = this.liveVersions(subject).at(-1);
        if ((request.schema === undefined || request.schema.trim() === "") && prev) {
          full = { ...request, schema: prev.schema, schemaType: prev.schemaType, references: prev.references };
        }
        contract = populatedContract(this.configInScope(subject), given, prev, newVersion, request.version !== undefined && request.version !== 0);
      }
      const candidate = this.schemaText(full, subject);
      return { candidate, text: await this.identityFormOf(candidate, normalize), references: full.references ?? [], contract, newVersion };
    };
    const registered = (v: SchemaVersion): Registered => ({ id: v.id, version: v.version, schemaType: v.schemaType, references: v.references, schema: v.schema, contract: contractOf(v) });
    const existing = ({ candidate, text, references, contract }: Awaited<ReturnType<typeof prepare>>) =>
      importing
        ? undefined
        : (this.inSubject(subject, candidate.schemaType, text, references, normalize, contract).find((v) => !v.deleted) ??
          this.sameButVersion(subject, candidate.schemaType, text, references, normalize, contract, false));
    const found = existing(await prepare());
    if (found) return registered(found);

    return this.log.exclusive(async () => {
      // The state may have moved while the schema was parsed: what is registered is decided again.
      const prepared = await prepare();
      const { candidate, text, references, contract, newVersion } = prepared;
      const schemaType = candidate.schemaType;
      const again = existing(prepared);
      if (again) return { records: [], result: registered(again) };
      const all = this.state.versions(subject);
      let version = newVersion;
      if (request.version !== undefined && request.version > 0) {
        if (mode !== "IMPORT" && request.version !== newVersion) {
          throw errors.invalidSchema("Version is not one more than previous version");
        }
        version = request.version;
      }
      // As Confluent's lookup by hash: another subject's schema shares its id when stored with this
      // very text and contract, in the same context (ids are per context).
      const context = contextOf(subject);
      const sameIdentity = this.state.withText(schemaType, references, text, contract).find((v) => contextOf(v.subject) === context);

      let id: number;
      if (importing) {
        id = request.id!;
        const holder = this.state.holders(id, context)[0];
        if (holder && (!this.sameSchema(holder, schemaType, text, references, normalize) || contractKey(holder) !== contractKey(contract))) {
          throw errors.operationNotPermitted(`Overwrite new schema with id ${id} is not permitted.`);
        }
        const inSubject = this.inSubject(subject, schemaType, text, references, normalize, contract)[0];
        if (inSubject && inSubject.id !== id) throw errors.idMismatch();
        if (this.state.version(subject, version)) {
          throw errors.operationNotPermitted(`Overwrite new schema with id ${id} is not permitted.`);
        }
      } else {
        const config = this.configInScope(subject);
        const level = this.effectiveLevel(subject);
        const against = this.comparedVersions(subject, level, groupFilter(config, contract));
        const messages = await this.compatibilityOf(candidate, level, against);
        if (messages.length > 0) {
          throw errors.incompatible(
            `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${messages.join(", ")}]`,
          );
        }
        id = sameIdentity?.id ?? this.state.maxIdIn(context) + 1;
      }

      const records: RegistryRecord[] = [];
      // Confluent records a context when a subject first registers in it; GET /contexts lists these.
      if (context !== DEFAULT_CONTEXT && !this.state.contexts.has(context)) {
        records.push({ keytype: "CONTEXT", context, value: { tenant: "default", context } });
      }
      // An older soft-deleted version of this subject with the same id is superseded (Confluent does the same).
      for (const old of all) {
        if (old.deleted && old.id === id && this.referrers(old, true).length === 0) {
          records.push({ keytype: "SCHEMA", subject, version: old.version, value: null, rawKey: old.key });
        }
      }
      const value = {
        subject,
        version,
        id,
        schema: text,
        schemaType: schemaType === "AVRO" ? undefined : schemaType,
        references,
        ...contract,
        deleted: false,
      };
      if (JSON.stringify(value).length > this.options.maxSchemaBytes) throw errors.schemaTooLarge();
      records.push({ keytype: "SCHEMA", subject, version, value });
      return { records, result: { id, version, schemaType, references, schema: text, contract } };
    });
  }

  /** The latest version of `subject` whose metadata properties include all of `properties` (GET /subjects/{s}/metadata). */
  latestWithMetadata(subject: string, properties: Record<string, string>, deleted: boolean): SchemaVersion {
    const visible = this.state.versions(subject).filter((v) => deleted || !v.deleted);
    const wanted = Object.entries(properties);
    const found = visible.reverse().find((v) => v.metadata && wanted.every(([k, value]) => v.metadata!.properties[k] === value));
    if (found) return found;
    if (visible.length === 0) throw errors.subjectNotFound(subject);
    throw errors.schemaNotFound();
  }

  // ---- compatibility test ----

  async testCompatibility(subject: string, spec: VersionSpec | undefined, request: SchemaRequest, verbose: boolean): Promise<string[]> {
    let candidate: SchemaText;
    try {
      candidate = this.schemaText(request, subject);
      await this.identityFormOf(candidate, false); // an invalid schema is the answer, whatever the versions
    } catch (err) {
      if (verbose && err instanceof RegistryError && err.errorCode === 42201) return [err.message];
      throw err;
    }
    let level = this.effectiveLevel(subject);
    let against: SchemaVersion[];
    if (spec === undefined) against = this.comparedVersions(subject, level, groupFilter(this.configInScope(subject), requestContract(request)));
    else {
      const live = this.liveVersions(subject);
      const target = spec === "latest" ? live[live.length - 1] : live.find((v) => v.version === spec);
      if (!target) {
        if (spec === "latest") return [];
        throw errors.versionNotFound(spec);
      }
      against = [target];
      // A single named version is checked as the non-transitive level would check the latest.
      level = level.replace("_TRANSITIVE", "") as CompatibilityLevel;
    }
    return this.compatibilityOf(candidate, level, against);
  }

  // ---- deletes ----

  async deleteVersion(subject: string, spec: VersionSpec, permanent: boolean): Promise<number> {
    this.requireWritable(subject);
    return this.log.exclusive(async () => {
      const all = this.state.versions(subject);
      if (all.length === 0 || (!permanent && all.every((v) => v.deleted) && spec === "latest")) {
        throw errors.subjectNotFound(subject);
      }
      const live = all.filter((v) => !v.deleted);
      const target = spec === "latest" ? (permanent ? all : live)[(permanent ? all : live).length - 1] : all.find((v) => v.version === spec);
      if (!target) throw errors.versionNotFound(spec === "latest" ? -1 : spec);
      if (permanent) {
        if (!target.deleted) throw errors.versionNotSoftDeleted(subject, target.version);
      } else if (target.deleted) {
        throw errors.versionSoftDeleted(subject, target.version);
      }
      if (this.referrers(target, false).length > 0) throw errors.referenceExists(subject, target.version);
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
    this.requireWritable(subject);
    return this.log.exclusive(async () => {
      const all = this.state.versions(subject);
      if (all.length === 0) throw errors.subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      for (const v of all) {
        if (this.referrers(v, false).length > 0) throw errors.referenceExists(subject, v.version);
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
        ...this.scopedTombstones(subject),
      ];
      return { records, result: live.map((v) => v.version) };
    });
  }

  // ---- config ----

  /** GET /config's body: the global config (the default level filled in) or a subject's own (in scope with defaultToGlobal). */
  getConfig(subject: string | null, defaultToGlobal: boolean): Record<string, unknown> {
    // `:.:`, the default context named as a subject, is the global config (Confluent's isDefaultContext).
    if (subject === null || subject === "") return configBody(this.storedConfig(null) ?? { kept: {} }, this.globalLevel());
    const own = this.storedConfig(subject);
    if (own && !defaultToGlobal) return configBody(own);
    if (own || defaultToGlobal) return configBody(this.configInScope(subject), this.effectiveLevel(subject));
    throw errors.subjectConfigNotFound(subject);
  }

  /** PUT /config: the body's fields over the stored config (./subject-config.ts); answers PUT's body. */
  async setConfig(subject: string | null, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (subject === "") subject = null;
    updatedConfig(this.storedConfig(subject), body); // bad input is refused before anything is checked or written
    if (subject !== null) validateSubject(subject, true);
    this.requireWritable(subject);
    return this.log.exclusive(async () => {
      const next = updatedConfig(this.storedConfig(subject), body);
      return { records: [{ keytype: "CONFIG", subject, value: storedConfigJson(subject, next) }], result: configUpdateBody(next) };
    });
  }

  async deleteConfig(subject: string | null): Promise<Record<string, unknown>> {
    return this.log.exclusive(async () => {
      const current = this.state.configs.get(subject);
      if (subject !== null && !current) throw errors.subjectNotFound(subject);
      const previous = configBody(current?.value ?? { kept: {} }, this.globalLevel());
      const records: RegistryRecord[] = current ? [{ keytype: "CONFIG", subject, value: null, rawKey: current.key }] : [];
      return { records, result: previous };
    });
  }

  // ---- mode ----

  getMode(subject: string | null, defaultToGlobal: boolean): Mode {
    if (subject === null || subject === "") return this.globalMode();
    const own = this.state.modes.get(subject)?.value as Mode | undefined;
    if (own) return own;
    if (defaultToGlobal) return this.modeAt(scopeKey(subject)) ?? this.modeAt(GLOBAL_SCOPE) ?? "READWRITE";
    throw errors.subjectModeNotFound(subject);
  }

  async setMode(subject: string | null, mode: unknown, force: boolean): Promise<Mode> {
    if (subject === "") subject = null;
    const parsed = typeof mode === "string" ? (MODES as readonly string[]).find((m) => m === mode.trim().toUpperCase()) : undefined;
    if (!parsed) throw errors.invalidMode();
    if (!this.options.modeMutability) throw errors.operationNotPermitted("Mode changes are not allowed");
    if (subject !== null) validateSubject(subject, true);
    return this.log.exclusive(async () => {
      const records: RegistryRecord[] = [];
      if (parsed === "IMPORT" && !force) {
        const scope = this.subjectsOf(subject);
        if (scope.some((s) => this.state.versions(s).some((v) => !v.deleted))) {
          throw errors.operationNotPermitted("Cannot import since found existing subjects");
        }
      }
      if (parsed === "IMPORT") {
        // Leftover soft-deleted versions would collide with imported ones.
        const scope = this.subjectsOf(subject);
        for (const s of scope) {
          if (this.state.versions(s).some((v) => v.deleted)) records.push({ keytype: "CLEAR_SUBJECT", subject: s, value: { subject: s } });
        }
      }
      records.push({ keytype: "MODE", subject, value: { mode: parsed } });
      return { records, result: parsed as Mode };
    });
  }

  async deleteMode(subject: string): Promise<Mode> {
    return this.log.exclusive(async () => {
      const current = this.state.modes.get(subject);
      if (!current) throw errors.subjectNotFound(subject);
      return {
        records: [{ keytype: "MODE", subject, value: null, rawKey: current.key }],
        result: current.value as Mode,
      };
    });
  }

  // ---- helpers ----

  /**
   * The subject's level, else its scope's (Confluent's lookup): a subject of a context takes the
   * context's config (`:.ctx:`), one of the default context the global config; then the
   * `:.__GLOBAL:` context's, then the server's default.
   */
  effectiveLevel(subject: string): CompatibilityLevel {
    return this.storedConfig(subject)?.compatibilityLevel ?? this.scopeConfig(subject)?.compatibilityLevel ?? this.options.defaultCompatibility;
  }

  private globalLevel(): CompatibilityLevel {
    return this.scopeConfig(null)?.compatibilityLevel ?? this.options.defaultCompatibility;
  }

  /** The config a subject without its own falls back to: its context's or the global one, else `:.__GLOBAL:`'s. */
  private scopeConfig(subject: string | null): SubjectConfig | undefined {
    return this.storedConfig(scopeKey(subject)) ?? this.storedConfig(GLOBAL_SCOPE);
  }

  private storedConfig(subject: string | null): SubjectConfig | undefined {
    return this.state.configs.get(subject)?.value;
  }

  /** The config a subject's registrations follow: its own over the global one (./subject-config.ts). */
  configInScope(subject: string): SubjectConfig {
    // Confluent's getConfigInScope: without its own config, the scope's; with one, merged over the global one.
    const own = this.storedConfig(subject);
    if (!own) return this.scopeConfig(subject) ?? { kept: {} };
    return configInScope(this.storedConfig(null), own);
  }

  private globalMode(): Mode {
    return this.modeAt(null) ?? this.modeAt(GLOBAL_SCOPE) ?? "READWRITE";
  }

  private modeAt(key: string | null): Mode | undefined {
    return this.state.modes.get(key)?.value as Mode | undefined;
  }

  /** The subject's mode, else its scope's, as effectiveLevel; a global READONLY_OVERRIDE overrides all. */
  private effectiveMode(subject: string): Mode {
    const global = this.globalMode();
    if (global === "READONLY_OVERRIDE") return global;
    return this.modeAt(subject) ?? this.modeAt(scopeKey(subject)) ?? this.modeAt(GLOBAL_SCOPE) ?? "READWRITE";
  }

  /** The subjects a config or mode scope covers: all, a context's (`:.ctx:`), or the one subject. */
  private subjectsOf(scope: string | null): string[] {
    if (scope === null) return this.state.subjectNames();
    const q = parseSubject(scope);
    return q.subject === "" ? this.state.subjectNames().filter((s) => contextOf(s) === q.context) : [scope];
  }

  private requireWritable(subject: string | null): void {
    const mode = subject === null ? this.globalMode() : this.effectiveMode(subject);
    if (mode === "READONLY" || mode === "READONLY_OVERRIDE") {
      throw errors.operationNotPermitted(`Subject ${subject ?? ""} is in read-only mode`);
    }
  }

  private scopedTombstones(subject: string): RegistryRecord[] {
    const out: RegistryRecord[] = [];
    const config = this.state.configs.get(subject);
    if (config) out.push({ keytype: "CONFIG", subject, value: null, rawKey: config.key });
    const mode = this.state.modes.get(subject);
    if (mode) out.push({ keytype: "MODE", subject, value: null, rawKey: mode.key });
    return out;
  }

  private formatOf(type: SchemaType): SchemaFormat {
    const format = formats.get(type);
    if (!format) throw errors.invalidSchema(`Invalid schema type ${type}`);
    return format;
  }

  /** The request's schema with its references resolved; 42201 for an unknown type or an empty schema. */
  private schemaText(request: SchemaRequest, subject: string): SchemaText {
    const type = (request.schemaType ?? "AVRO").toUpperCase() as SchemaType;
    if (!formats.has(type)) throw errors.invalidSchema(`Invalid schema type ${request.schemaType}`);
    if (request.schema === undefined || request.schema.trim() === "") throw errors.invalidSchema("Empty schema");
    return { schemaType: type, schema: request.schema, references: this.resolveReferences(subject, request.references ?? [], new Set()) };
  }

  /** The candidate's identity form; a large schema's is worked out on the schema thread. */
  private async identityFormOf(candidate: SchemaText, normalize: boolean): Promise<string> {
    if (!isLarge(candidate)) return this.identityForm(this.parseText(candidate), normalize);
    try {
      return await this.schemaThread.identityForm(candidate, normalize);
    } catch (err) {
      throw invalidSchema(candidate.schemaType, err);
    }
  }

  /** Confluent's messages for the candidate against `against` (oldest first), on the schema thread when large. */
  private async compatibilityOf(candidate: SchemaText, level: CompatibilityLevel, against: SchemaVersion[]): Promise<string[]> {
    if (level === "NONE") return [];
    const previous: VersionText[] = [];
    for (const v of against) {
      try {
        previous.push({ version: v.version, schemaType: v.schemaType, schema: v.schema, references: this.resolveReferences(v.subject, v.references, new Set()) });
      } catch {
        // A stored schema whose references are gone cannot be compared; Confluent skips it too.
      }
    }
    if (isLarge(candidate, ...previous)) return this.schemaThread.compatibilityMessages(candidate, level, previous);
    const parsed: PreviousVersion[] = [];
    for (const p of previous) {
      try {
        parsed.push({ version: p.version, schema: p.schema, parsed: this.parseText(p) });
      } catch {
        // A stored schema this registry cannot parse cannot be compared; Confluent skips it too.
      }
    }
    return checkCompatibility(this.formatOf(candidate.schemaType), level, this.parseText(candidate), parsed);
  }

  private liveVersions(subject: string): SchemaVersion[] {
    return this.state.versions(subject).filter((v) => !v.deleted);
  }

  private parseText(s: SchemaText): ParsedSchema {
    return this.parse(s.schemaType, s.schema, s.references);
  }

  private parse(type: SchemaType, text: string, references: ResolvedReference[]): ParsedSchema {
    const cacheKey = `${type}\u0000${text}\u0000${JSON.stringify(references)}`;
    const cached = this.parseCache.get(cacheKey);
    if (cached) return cached;
    let parsed: ParsedSchema;
    try {
      parsed = this.formatOf(type).parse(text, references);
    } catch (err) {
      throw invalidSchema(type, err);
    }
    this.parseCache.set(cacheKey, parsed);
    return parsed;
  }

  /** References of a schema of subject `parent`: an unqualified reference subject is in the parent's context. */
  private resolveReferences(parent: string, references: SchemaReference[], seen: Set<string>): ResolvedReference[] {
    return references.map((ref) => {
      if (typeof ref?.name !== "string" || typeof ref.subject !== "string" || typeof ref.version !== "number") {
        throw errors.invalidSchema("Invalid reference: name, subject and version are required");
      }
      const refSubject = qualifyWithParent(parent, ref.subject);
      const key = `${refSubject}/${ref.version}`;
      if (seen.has(key)) throw errors.invalidSchema(`Circular reference to ${key}`);
      const spec: VersionSpec = ref.version === -1 ? "latest" : ref.version;
      let target: SchemaVersion;
      try {
        target = this.getVersion(refSubject, spec);
      } catch {
        throw errors.invalidSchema(`Invalid schema, reference not found: subject ${ref.subject} version ${ref.version}`);
      }
      return resolvedReference(ref, target, this.resolveReferences(target.subject, target.references, new Set([...seen, key])));
    });
  }

  /** The stored schema in the form compared for identity (canonical, or normalized). */
  private identityForm(parsed: ParsedSchema, normalize: boolean): string {
    return normalize ? parsed.normalized() : parsed.canonical;
  }

  private sameSchema(
    stored: SchemaVersion,
    type: SchemaType,
    form: string,
    references: SchemaReference[],
    normalize: boolean,
  ): boolean {
    if (stored.schemaType !== type || !sameReferences(stored.references, references)) return false;
    return stored.schema === form || this.storedForm(stored, normalize) === form;
  }

  /**
   * Versions of `subject` (soft-deleted included, in version order) holding this schema: those stored
   * with this very text from the index, else compared by identity form, as Confluent compares a
   * subject's versions (text written by another registry may differ in layout).
   */
  private inSubject(subject: string, type: SchemaType, form: string, references: SchemaReference[], normalize: boolean, contract: Contract): SchemaVersion[] {
    const exact = this.state.withText(type, references, form, contract).filter((v) => v.subject === subject);
    if (exact.length > 0) return exact;
    const key = contractKey(contract);
    return this.state.versions(subject).filter((v) => contractKey(v) === key && this.sameSchema(v, type, form, references, normalize));
  }

  /**
   * A stored schema's identity form, computed once per stored version: text written by another
   * registry (or an older one) may differ in layout from ours.
   */
  private storedForm(stored: SchemaVersion, normalize: boolean): string | undefined {
    const memo = normalize ? this.normalizedForms : this.canonicalForms;
    if (memo.has(stored)) return memo.get(stored);
    let form: string | undefined;
    try {
      form = this.identityForm(this.parse(stored.schemaType, stored.schema, this.resolveReferences(stored.subject, stored.references, new Set())), normalize);
    } catch {
      form = undefined; // unparseable stored schemas match nothing
    }
    // The stored string itself when equal (the usual case): the memo then holds no second copy.
    memo.set(stored, form === stored.schema ? stored.schema : form);
    return form;
  }

  /**
   * The live versions a check at `level` compares with: of those in the candidate's compatibility
   * group (when the config names one), all for transitive levels, else the latest.
   */
  private comparedVersions(subject: string, level: CompatibilityLevel, inGroup: (v: SchemaVersion) => boolean = () => true): SchemaVersion[] {
    if (level === "NONE") return [];
    const live = this.liveVersions(subject).filter(inGroup);
    return level.endsWith("_TRANSITIVE") ? live : live.slice(-1);
  }

  /** Live (or all) schemas whose references point at `target`. */
  private referrers(target: SchemaVersion, includeDeleted: boolean): SchemaVersion[] {
    return this.state
      .allVersions()
      .filter(
        (v) =>
          (includeDeleted || !v.deleted) &&
          v.references.some((r) => r.version === target.version && qualifyWithParent(v.subject, r.subject) === target.subject),
      );
  }
}

/** 42201 with the parser's reason for an InvalidSchemaError; anything else as it is. */
function invalidSchema(type: SchemaType, err: unknown): unknown {
  return err instanceof InvalidSchemaError ? errors.invalidSchema(`Invalid schema of type ${type}, details: ${err.message}`) : err;
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

/** A stored version's contract, each part only when it has one. */
export function contractOf(v: Contract): Contract {
  return { ...(v.metadata ? { metadata: v.metadata } : {}), ...(v.ruleSet ? { ruleSet: v.ruleSet } : {}) };
}

/** The request's metadata and rule set, read (400 for a wrong shape) and the rule set validated (42210). */
function requestContract(request: SchemaRequest): Contract {
  const metadata = readMetadata(request.metadata);
  const ruleSet = readRuleSet(request.ruleSet);
  validateRuleSet(ruleSet);
  return contractOf({ metadata, ruleSet });
}

/**
 * Confluent's maybeSetMetadataRuleSet: the request's contract (else the latest version's) merged over
 * the config's defaults and under its overrides; on registration (`newVersion`), `confluent:version`
 * is set to the new version when the request named a version or the merged metadata has one.
 */
function populatedContract(config: SubjectConfig, given: Contract, prev: SchemaVersion | undefined, newVersion?: number, requestHasVersion = false): Contract {
  const metadata = mergeMetadata(mergeMetadata(config.defaultMetadata, given.metadata ?? prev?.metadata), config.overrideMetadata);
  const ruleSet = mergeRuleSets(mergeRuleSets(config.defaultRuleSet, given.ruleSet ?? prev?.ruleSet), config.overrideRuleSet);
  const versioned = newVersion !== undefined && (requestHasVersion || confluentVersion(metadata) !== undefined) ? withConfluentVersion(metadata, newVersion) : metadata;
  return contractOf({ metadata: versioned, ruleSet });
}

/** With a compatibilityGroup, only versions whose metadata property of that name equals the candidate's are compared. */
function groupFilter(config: SubjectConfig, candidate: Contract): (v: SchemaVersion) => boolean {
  const group = config.compatibilityGroup;
  if (group === undefined) return () => true;
  const value = candidate.metadata?.properties[group];
  return (v) => v.metadata?.properties[group] === value;
}

/** Config and mode of the `:.__GLOBAL:` context apply where no other scope has one. */
const GLOBAL_SCOPE = contextPrefix(GLOBAL_CONTEXT);

/** Where a subject's config and mode come from when it has none: its context's, or the global one. */
function scopeKey(subject: string | null): string | null {
  const context = subject === null ? DEFAULT_CONTEXT : contextOf(subject);
  return context === DEFAULT_CONTEXT ? null : contextPrefix(context);
}

/**
 * Confluent's QualifiedSubject.isValidSubject: no control characters, no `__GLOBAL`/`__EMPTY` subject
 * (in any context), and the `:.__GLOBAL:` context only for config and mode.
 */
function validateSubject(subject: string, configOrMode = false): void {
  // Typed as a string, but a subject the HTTP layer failed to decode must never pass as one.
  // eslint-disable-next-line no-control-regex
  if (typeof subject !== "string" || subject === "" || /[\u0000-\u001f\u007f-\u009f]/.test(subject)) throw errors.invalidSubject(subject);
  const q = parseSubject(subject);
  if (q.subject === "__GLOBAL" || q.subject === "__EMPTY" || (!configOrMode && q.context === GLOBAL_CONTEXT)) throw errors.invalidSubject(subject);
}

function page<T>(items: T[], { offset = 0, limit = -1 }: ListOptions): T[] {
  const start = Math.max(0, offset);
  return limit > 0 ? items.slice(start, start + limit) : items.slice(start);
}
