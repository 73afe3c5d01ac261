// Registering a schema under a subject, finding the version that holds one, and testing one for
// compatibility, as Confluent Schema Registry 7.5+ does (with data contracts and import mode).
import type { CompatibilityLevel } from "./compatibility.ts";
import type { ConfigAndMode, Mode } from "./config-and-mode.ts";
import { contextOf, DEFAULT_CONTEXT, validateSubject } from "./contexts.ts";
import {
  confluentVersion,
  contractKey,
  contractOf,
  mergeMetadata,
  mergeRuleSets,
  readMetadata,
  readRuleSet,
  validateRuleSet,
  withConfluentVersion,
  type Contract,
} from "./data-contracts.ts";
import { referrers } from "./deletes.ts";
import { errors, RegistryError } from "./errors.ts";
import type { Reads, VersionSpec } from "./reads.ts";
import type { IdentityOf, ParsedSchemas, SchemaSource } from "./parsed-schemas.ts";
import type { SchemaText } from "./schema-thread/schema-texts.ts";
import type { RegistryRecord } from "./store/records.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import type { RegistryState, SchemaVersion } from "./store/state.ts";
import type { SubjectConfig } from "./subject-config.ts";
import type { SchemaReference, SchemaType } from "../schema/format.ts";

export interface SchemaRequest extends SchemaSource {
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

/** A registration as asked: the request, its contract, and the subject's mode. */
interface Ask {
  subject: string;
  request: SchemaRequest;
  given: Contract;
  mode: Mode;
  /** The request names an id: only in IMPORT mode. */
  importing: boolean;
  normalize: boolean;
}

/** What a registration registers: the schema (the latest one's when none is sent) and its contract. */
interface Prepared {
  candidate: SchemaText;
  identity: IdentityOf;
  contract: Contract;
  /** One more than the subject's latest version, soft-deleted ones included. */
  newVersion: number;
}

export class Registration {
  constructor(
    private readonly log: SchemaLog,
    private readonly maxSchemaBytes: number,
    private readonly reads: Reads,
    private readonly schemas: ParsedSchemas,
    private readonly scopes: ConfigAndMode,
  ) {}

  private get state(): RegistryState {
    return this.log.state;
  }

  /**
   * Registers the request's schema under `subject` as Confluent 7.5+ does: outside IMPORT mode the
   * contract is the request's (else the latest version's) merged over the config's default and under
   * its override, and an empty schema re-registers the latest one with that contract. The same schema
   * with the same contract finds its version; a changed contract makes a new version (and id).
   */
  async register(subject: string, request: SchemaRequest, normalize: boolean): Promise<Registered> {
    const given = requestContract(request);
    validateSubject(subject);
    const mode = this.scopes.effectiveMode(subject);
    const importing = request.id !== undefined && request.id >= 0;
    checkMode(subject, mode, importing);
    normalize ||= this.scopes.configInScope(subject).normalize === true;
    const ask: Ask = { subject, request, given, mode, importing, normalize };

    const found = this.existing(ask, await this.prepare(ask));
    if (found) return registered(found);
    return this.log.exclusive(async () => {
      // The state may have moved while the schema was parsed: what is registered is decided again.
      const prepared = await this.prepare(ask);
      const again = this.existing(ask, prepared);
      if (again) return { records: [], result: registered(again) };
      const all = this.state.versions(subject);
      const version = versionOf(ask, prepared.newVersion);
      const id = importing ? this.importedId(ask, prepared, version) : await this.checkedNewId(ask, prepared);
      const records = [
        ...this.contextRecords(subject),
        ...supersededRecords(this.state, subject, all, id),
        this.schemaRecord(subject, version, id, prepared),
      ];
      const { candidate, identity, contract } = prepared;
      return {
        records,
        result: {
          id,
          version,
          schemaType: candidate.schemaType,
          references: identity.references,
          schema: identity.form,
          contract,
        },
      };
    });
  }

  /**
   * The version of `subject` holding the request's schema and contract, as Confluent looks it up:
   * the same schema and contract; else one differing only by `confluent:version`; else, with the
   * contract a registration would give it (the latest version's and the config's), the same again.
   */
  async lookup(subject: string, request: SchemaRequest, normalize: boolean, deleted: boolean): Promise<SchemaVersion> {
    const given = requestContract(request);
    const candidate = this.schemas.schemaText(request, subject);
    const config = this.scopes.configInScope(subject);
    normalize ||= config.normalize === true;
    const form = await this.schemas.identityFormOf(candidate, normalize);
    if (!this.state.versions(subject).some((v) => deleted || !v.deleted)) throw errors.subjectNotFound(subject);
    const identity: IdentityOf = { type: candidate.schemaType, form, references: request.references ?? [], normalize };
    const find = (contract: Contract) => {
      const exact = this.schemas.inSubject(subject, identity, contract).filter((v) => deleted || !v.deleted);
      if (exact.length > 0) return exact[exact.length - 1];
      return this.schemas.sameButVersion(subject, identity, contract, deleted);
    };
    const prev = this.reads.liveVersions(subject).at(-1);
    const populated = prev ? populatedContract(config, given, prev, undefined) : given;
    const found = find(given) ?? (contractKey(populated) !== contractKey(given) ? find(populated) : undefined);
    if (!found) throw errors.schemaNotFound();
    return found;
  }

  async testCompatibility(
    subject: string,
    spec: VersionSpec | undefined,
    request: SchemaRequest,
    verbose: boolean,
  ): Promise<string[]> {
    let candidate: SchemaText;
    try {
      candidate = this.schemas.schemaText(request, subject);
      await this.schemas.identityFormOf(candidate, false); // an invalid schema is the answer, whatever the versions
    } catch (err) {
      if (verbose && err instanceof RegistryError && err.errorCode === 42201) return [err.message];
      throw err;
    }
    let level = this.scopes.effectiveLevel(subject);
    let against: SchemaVersion[];
    if (spec === undefined)
      against = this.comparedVersions(
        subject,
        level,
        groupFilter(this.scopes.configInScope(subject), requestContract(request)),
      );
    else {
      const live = this.reads.liveVersions(subject);
      const target = spec === "latest" ? live[live.length - 1] : live.find((v) => v.version === spec);
      if (!target) {
        if (spec === "latest") return [];
        throw errors.versionNotFound(spec);
      }
      against = [target];
      // A single named version is checked as the non-transitive level would check the latest.
      level = level.replace("_TRANSITIVE", "") as CompatibilityLevel;
    }
    return this.schemas.compatibilityOf(candidate, level, against);
  }

  /** The schema and contract registered: the latest version's schema when none is sent (outside IMPORT). */
  private async prepare({ subject, request, given, mode, normalize }: Ask): Promise<Prepared> {
    const all = this.state.versions(subject);
    const newVersion = (all[all.length - 1]?.version ?? 0) + 1;
    let full = request;
    let contract = given;
    if (mode !== "IMPORT") {
      const prev = this.reads.liveVersions(subject).at(-1);
      if ((request.schema === undefined || request.schema.trim() === "") && prev) {
        full = { ...request, schema: prev.schema, schemaType: prev.schemaType, references: prev.references };
      }
      contract = populatedContract(
        this.scopes.configInScope(subject),
        given,
        prev,
        newVersion,
        request.version !== undefined && request.version !== 0,
      );
    }
    const candidate = this.schemas.schemaText(full, subject);
    const form = await this.schemas.identityFormOf(candidate, normalize);
    return {
      candidate,
      identity: { type: candidate.schemaType, form, references: full.references ?? [], normalize },
      contract,
      newVersion,
    };
  }

  /** The live version already holding the schema and contract (never when importing). */
  private existing({ subject, importing }: Ask, { identity, contract }: Prepared): SchemaVersion | undefined {
    if (importing) return undefined;
    return (
      this.schemas.inSubject(subject, identity, contract).find((v) => !v.deleted) ??
      this.schemas.sameButVersion(subject, identity, contract, false)
    );
  }

  /** An imported schema keeps its id: refused when that id (or the version) holds another schema. */
  private importedId({ subject, request }: Ask, { identity, contract }: Prepared, version: number): number {
    const id = request.id!;
    const holder = this.state.holders(id, contextOf(subject))[0];
    if (holder && (!this.schemas.sameSchema(holder, identity) || contractKey(holder) !== contractKey(contract))) {
      throw errors.operationNotPermitted(`Overwrite new schema with id ${id} is not permitted.`);
    }
    const inSubject = this.schemas.inSubject(subject, identity, contract)[0];
    if (inSubject && inSubject.id !== id) throw errors.idMismatch();
    if (this.state.version(subject, version)) {
      throw errors.operationNotPermitted(`Overwrite new schema with id ${id} is not permitted.`);
    }
    return id;
  }

  /** A new schema's id once it passes the compatibility check: the id another subject holds it under, else the next. */
  private async checkedNewId({ subject }: Ask, { candidate, identity, contract }: Prepared): Promise<number> {
    // As Confluent's lookup by hash: another subject's schema shares its id when stored with this
    // very text and contract, in the same context (ids are per context).
    const context = contextOf(subject);
    const sameIdentity = this.state
      .withText(identity.type, identity.references, identity.form, contract)
      .find((v) => contextOf(v.subject) === context);
    const level = this.scopes.effectiveLevel(subject);
    const against = this.comparedVersions(subject, level, groupFilter(this.scopes.configInScope(subject), contract));
    const messages = await this.schemas.compatibilityOf(candidate, level, against);
    if (messages.length > 0) {
      throw errors.incompatible(
        `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${messages.join(", ")}]`,
      );
    }
    return sameIdentity?.id ?? this.state.maxIdIn(context) + 1;
  }

  /** Confluent records a context when a subject first registers in it; GET /contexts lists these. */
  private contextRecords(subject: string): RegistryRecord[] {
    const context = contextOf(subject);
    if (context === DEFAULT_CONTEXT || this.state.contexts.has(context)) return [];
    return [{ keytype: "CONTEXT", context, value: { tenant: "default", context } }];
  }

  private schemaRecord(
    subject: string,
    version: number,
    id: number,
    { candidate, identity, contract }: Prepared,
  ): RegistryRecord {
    const schemaType = candidate.schemaType;
    const value = {
      subject,
      version,
      id,
      schema: identity.form,
      schemaType: schemaType === "AVRO" ? undefined : schemaType,
      references: identity.references,
      ...contract,
      deleted: false,
    };
    if (JSON.stringify(value).length > this.maxSchemaBytes) throw errors.schemaTooLarge();
    return { keytype: "SCHEMA", subject, version, value };
  }

  /**
   * The live versions a check at `level` compares with: of those in the candidate's compatibility
   * group (when the config names one), all for transitive levels, else the latest.
   */
  private comparedVersions(
    subject: string,
    level: CompatibilityLevel,
    inGroup: (v: SchemaVersion) => boolean = () => true,
  ): SchemaVersion[] {
    if (level === "NONE") return [];
    const live = this.reads.liveVersions(subject).filter(inGroup);
    return level.endsWith("_TRANSITIVE") ? live : live.slice(-1);
  }
}

/** READONLY refuses registrations; an id is registered only in IMPORT mode, and IMPORT takes only those. */
function checkMode(subject: string, mode: Mode, importing: boolean): void {
  if (mode === "READONLY" || mode === "READONLY_OVERRIDE")
    throw errors.operationNotPermitted(`Subject ${subject} is in read-only mode`);
  if (importing && mode !== "IMPORT") throw errors.operationNotPermitted(`Subject ${subject} is not in import mode`);
  if (!importing && mode === "IMPORT")
    throw errors.operationNotPermitted(`Subject ${subject} is not in read-write mode`);
}

/** The version registered: the next, or in IMPORT mode the one the request names. */
function versionOf({ request, mode }: Ask, newVersion: number): number {
  if (request.version === undefined || request.version <= 0) return newVersion;
  if (mode !== "IMPORT" && request.version !== newVersion)
    throw errors.invalidSchema("Version is not one more than previous version");
  return request.version;
}

/** An older soft-deleted version of this subject with the same id is superseded (Confluent does the same). */
function supersededRecords(state: RegistryState, subject: string, all: SchemaVersion[], id: number): RegistryRecord[] {
  return all
    .filter((old) => old.deleted && old.id === id && referrers(state, old, true).length === 0)
    .map((old): RegistryRecord => ({ keytype: "SCHEMA", subject, version: old.version, value: null, rawKey: old.key }));
}

function registered(v: SchemaVersion): Registered {
  return {
    id: v.id,
    version: v.version,
    schemaType: v.schemaType,
    references: v.references,
    schema: v.schema,
    contract: contractOf(v),
  };
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
function populatedContract(
  config: SubjectConfig,
  given: Contract,
  prev: SchemaVersion | undefined,
  newVersion?: number,
  requestHasVersion = false,
): Contract {
  const metadata = mergeMetadata(
    mergeMetadata(config.defaultMetadata, given.metadata ?? prev?.metadata),
    config.overrideMetadata,
  );
  const ruleSet = mergeRuleSets(
    mergeRuleSets(config.defaultRuleSet, given.ruleSet ?? prev?.ruleSet),
    config.overrideRuleSet,
  );
  const versioned =
    newVersion !== undefined && (requestHasVersion || confluentVersion(metadata) !== undefined)
      ? withConfluentVersion(metadata, newVersion)
      : metadata;
  return contractOf({ metadata: versioned, ruleSet });
}

/** With a compatibilityGroup, only versions whose metadata property of that name equals the candidate's are compared. */
function groupFilter(config: SubjectConfig, candidate: Contract): (v: SchemaVersion) => boolean {
  const group = config.compatibilityGroup;
  if (group === undefined) return () => true;
  const value = candidate.metadata?.properties[group];
  return (v) => v.metadata?.properties[group] === value;
}
