// The schema registry's rules, as Confluent Schema Registry 7.x applies them, behind one entry point:
// reads (./reads.ts), registration and lookup of a schema (./registration.ts), config and mode
// (./config-and-mode.ts), deletes (./deletes.ts). No HTTP and no broker in here: reads come from
// RegistryState, writes are records handed to the SchemaLog; the REST bodies are built in ./http/.
import type { CompatibilityLevel } from "./compatibility.ts";
import { ConfigAndMode, type Mode, type ScopedConfig } from "./config-and-mode.ts";
import { Deletes } from "./deletes.ts";
import { Reads, type ListOptions, type VersionSpec } from "./reads.ts";
import { ParsedSchemas } from "./parsed-schemas.ts";
import { Registration, type Registered, type SchemaRequest } from "./registration.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import type { RegistryState, SchemaVersion } from "./store/state.ts";
import type { SubjectConfig } from "./subject-config.ts";

export interface RegistryOptions {
  defaultCompatibility: CompatibilityLevel;
  modeMutability: boolean;
  /** Largest schema record the store accepts (Kafka's default max.request.size). */
  maxSchemaBytes: number;
  /** Parsed schemas kept (schema.cache.size): each holds a syntax tree and an avsc/protobuf type. */
  schemaCacheSize: number;
}

export class RegistryService {
  private readonly reads: Reads;
  private readonly schemas: ParsedSchemas;
  private readonly scopes: ConfigAndMode;
  private readonly registration: Registration;
  private readonly deletes: Deletes;

  constructor(
    private readonly log: SchemaLog,
    options: RegistryOptions,
  ) {
    this.reads = new Reads(log);
    this.schemas = new ParsedSchemas(log, this.reads, options.schemaCacheSize);
    this.scopes = new ConfigAndMode(log, options);
    this.registration = new Registration(log, options.maxSchemaBytes, this.reads, this.schemas, this.scopes);
    this.deletes = new Deletes(log, this.reads, this.scopes);
  }

  get state(): RegistryState {
    return this.log.state;
  }

  /** Parsed schemas held now (bounded by schema.cache.size). */
  get parsedSchemasCached(): number {
    return this.schemas.cached;
  }

  // ---- reads (./reads.ts) ----

  schemaById(id: number): SchemaVersion {
    return this.reads.schemaById(id);
  }

  schemaByIdFor(id: number, subject: string | undefined): SchemaVersion {
    return this.reads.schemaByIdFor(id, subject);
  }

  versionsByGuid(guid: string): SchemaVersion[] {
    return this.reads.versionsByGuid(guid);
  }

  maxIdOf(v: SchemaVersion): number {
    return this.reads.maxIdOf(v);
  }

  listContexts(): string[] {
    return this.reads.listContexts();
  }

  versionsOfId(id: number, deleted: boolean, subject?: string): { subject: string; version: number }[] {
    return this.reads.versionsOfId(id, deleted, subject);
  }

  listSchemas(options: ListOptions & { latestOnly?: boolean }): SchemaVersion[] {
    return this.reads.listSchemas(options);
  }

  listSubjects(options: ListOptions): string[] {
    return this.reads.listSubjects(options);
  }

  listVersions(subject: string, options: ListOptions): number[] {
    return this.reads.listVersions(subject, options);
  }

  getVersion(subject: string, spec: VersionSpec, deleted = false): SchemaVersion {
    return this.reads.getVersion(subject, spec, deleted);
  }

  latestWithMetadata(subject: string, properties: Record<string, string>, deleted: boolean): SchemaVersion {
    return this.reads.latestWithMetadata(subject, properties, deleted);
  }

  formattedSchema(v: SchemaVersion, format: string | undefined): string {
    return this.schemas.formattedSchema(v, format);
  }

  // ---- registration and lookup (./registration.ts) ----

  register(subject: string, request: SchemaRequest, normalize: boolean): Promise<Registered> {
    return this.registration.register(subject, request, normalize);
  }

  lookup(subject: string, request: SchemaRequest, normalize: boolean, deleted: boolean): Promise<SchemaVersion> {
    return this.registration.lookup(subject, request, normalize, deleted);
  }

  testCompatibility(
    subject: string,
    spec: VersionSpec | undefined,
    request: SchemaRequest,
    verbose: boolean,
  ): Promise<string[]> {
    return this.registration.testCompatibility(subject, spec, request, verbose);
  }

  // ---- config and mode (./config-and-mode.ts) ----

  getConfig(subject: string | null, defaultToGlobal: boolean): ScopedConfig {
    return this.scopes.getConfig(subject, defaultToGlobal);
  }

  setConfig(subject: string | null, body: Record<string, unknown>): Promise<SubjectConfig> {
    return this.scopes.setConfig(subject, body);
  }

  deleteConfig(subject: string | null): Promise<ScopedConfig> {
    return this.scopes.deleteConfig(subject);
  }

  /** The subject `subject`'s alias config points to (./config-and-mode.ts), if any. */
  aliasOf(subject: string, forDeks: boolean): string | undefined {
    return this.scopes.aliasOf(subject, forDeks);
  }

  getMode(subject: string | null, defaultToGlobal: boolean): Mode {
    return this.scopes.getMode(subject, defaultToGlobal);
  }

  setMode(subject: string | null, mode: unknown, force: boolean): Promise<Mode> {
    return this.scopes.setMode(subject, mode, force);
  }

  deleteMode(subject: string | null, recursive = false): Promise<Mode | null> {
    return this.scopes.deleteMode(subject, recursive);
  }

  // ---- deletes and referrers (./deletes.ts) ----

  deleteVersion(subject: string, spec: VersionSpec, permanent: boolean): Promise<number> {
    return this.deletes.deleteVersion(subject, spec, permanent);
  }

  deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    return this.deletes.deleteSubject(subject, permanent);
  }

  deleteContext(name: string): Promise<void> {
    return this.deletes.deleteContext(name);
  }

  referencedBy(subject: string, spec: VersionSpec, deleted = false): number[] {
    return this.deletes.referencedBy(subject, spec, deleted);
  }
}
