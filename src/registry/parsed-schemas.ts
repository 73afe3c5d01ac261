// Schemas as the registry compares them: parsed (with a bounded cache), references resolved in the
// subject's context, identity forms (canonical or normalized) and compatibility messages. Large
// schemas are answered on the schema thread (./schema-thread/) so the event loop goes on serving reads.
import { checkCompatibility, type CompatibilityLevel, type PreviousVersion } from "./compatibility.ts";
import { qualifyWithParent } from "./contexts.ts";
import { contractKey, sameContractIgnoringVersion, type Contract } from "./data-contracts.ts";
import { errors } from "./errors.ts";
import type { Reads, VersionSpec } from "./reads.ts";
import { SchemaThread } from "./schema-thread/on-event-loop.ts";
import { isLarge, type SchemaText, type VersionText } from "./schema-thread/schema-texts.ts";
import type { SchemaLog } from "./store/schema-log.ts";
import { sameReferences, type RegistryState, type SchemaVersion } from "./store/state.ts";
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
import { LruCache } from "../platform/lru.ts";

/** What a schema request names: its text, type and references, as sent. */
export interface SchemaSource {
  schema?: string;
  schemaType?: string;
  references?: SchemaReference[];
}

/** A schema in the form compared for identity, with what it is compared by. */
export interface IdentityOf {
  type: SchemaType;
  form: string;
  references: SchemaReference[];
  normalize: boolean;
}

export class ParsedSchemas {
  private readonly parseCache: LruCache<string, ParsedSchema>;
  private readonly canonicalForms = new WeakMap<SchemaVersion, string | undefined>();
  private readonly normalizedForms = new WeakMap<SchemaVersion, string | undefined>();
  private readonly schemaThread = new SchemaThread();

  constructor(
    private readonly log: SchemaLog,
    private readonly reads: Reads,
    schemaCacheSize: number,
  ) {
    this.parseCache = new LruCache(schemaCacheSize);
  }

  private get state(): RegistryState {
    return this.log.state;
  }

  /** Parsed schemas held now (bounded by schema.cache.size). */
  get cached(): number {
    return this.parseCache.size;
  }

  /** The schema text of a stored version in a `format=` rendering; the stored text when the format has none. */
  formattedSchema(v: SchemaVersion, format: string | undefined): string {
    const formatter = format ? formats.get(v.schemaType)?.formatted : undefined;
    if (!formatter || !format) return v.schema;
    const parsed = this.parse(v.schemaType, v.schema, this.resolveReferences(v.subject, v.references, new Set()));
    return formatter(parsed, format) ?? v.schema;
  }

  /** The request's schema with its references resolved; 42201 for an unknown type or an empty schema. */
  schemaText(request: SchemaSource, subject: string): SchemaText {
    const type = (request.schemaType ?? "AVRO").toUpperCase() as SchemaType;
    if (!formats.has(type)) throw errors.invalidSchema(`Invalid schema type ${request.schemaType}`);
    if (request.schema === undefined || request.schema.trim() === "") throw errors.invalidSchema("Empty schema");
    return {
      schemaType: type,
      schema: request.schema,
      references: this.resolveReferences(subject, request.references ?? [], new Set()),
    };
  }

  /** The candidate's identity form; a large schema's is worked out on the schema thread. */
  async identityFormOf(candidate: SchemaText, normalize: boolean): Promise<string> {
    if (!isLarge(candidate)) return identityForm(this.parseText(candidate), normalize);
    try {
      return await this.schemaThread.identityForm(candidate, normalize);
    } catch (err) {
      throw invalidSchema(candidate.schemaType, err);
    }
  }

  /** Confluent's messages for the candidate against `against` (oldest first), on the schema thread when large. */
  async compatibilityOf(candidate: SchemaText, level: CompatibilityLevel, against: SchemaVersion[]): Promise<string[]> {
    if (level === "NONE") return [];
    const previous: VersionText[] = [];
    for (const v of against) {
      try {
        previous.push({
          version: v.version,
          schemaType: v.schemaType,
          schema: v.schema,
          references: this.resolveReferences(v.subject, v.references, new Set()),
        });
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

  sameSchema(stored: SchemaVersion, s: IdentityOf): boolean {
    if (stored.schemaType !== s.type || !sameReferences(stored.references, s.references)) return false;
    return stored.schema === s.form || this.storedForm(stored, s.normalize) === s.form;
  }

  /**
   * Versions of `subject` (soft-deleted included, in version order) holding this schema: those stored
   * with this very text from the index, else compared by identity form, as Confluent compares a
   * subject's versions (text written by another registry may differ in layout).
   */
  inSubject(subject: string, s: IdentityOf, contract: Contract): SchemaVersion[] {
    const exact = this.state.withText(s.type, s.references, s.form, contract).filter((v) => v.subject === subject);
    if (exact.length > 0) return exact;
    const key = contractKey(contract);
    return this.state.versions(subject).filter((v) => contractKey(v) === key && this.sameSchema(v, s));
  }

  /** The latest version equal to the schema whose contract differs at most by `confluent:version` (Confluent's canLookup). */
  sameButVersion(subject: string, s: IdentityOf, contract: Contract, deleted: boolean): SchemaVersion | undefined {
    return this.state
      .versions(subject)
      .reverse()
      .find(
        (v) => (deleted || !v.deleted) && this.sameSchema(v, s) && sameContractIgnoringVersion(contract, v, v.version),
      );
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
      form = identityForm(
        this.parse(
          stored.schemaType,
          stored.schema,
          this.resolveReferences(stored.subject, stored.references, new Set()),
        ),
        normalize,
      );
    } catch {
      form = undefined; // unparseable stored schemas match nothing
    }
    // The stored string itself when equal (the usual case): the memo then holds no second copy.
    memo.set(stored, form === stored.schema ? stored.schema : form);
    return form;
  }

  private formatOf(type: SchemaType): SchemaFormat {
    const format = formats.get(type);
    if (!format) throw errors.invalidSchema(`Invalid schema type ${type}`);
    return format;
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
        target = this.reads.getVersion(refSubject, spec);
      } catch {
        throw errors.invalidSchema(
          `Invalid schema, reference not found: subject ${ref.subject} version ${ref.version}`,
        );
      }
      return resolvedReference(
        ref,
        target,
        this.resolveReferences(target.subject, target.references, new Set([...seen, key])),
      );
    });
  }
}

/** The stored schema in the form compared for identity (canonical, or normalized). */
function identityForm(parsed: ParsedSchema, normalize: boolean): string {
  return normalize ? parsed.normalized() : parsed.canonical;
}

/** 42201 with the parser's reason for an InvalidSchemaError; anything else as it is. */
function invalidSchema(type: SchemaType, err: unknown): unknown {
  return err instanceof InvalidSchemaError
    ? errors.invalidSchema(`Invalid schema of type ${type}, details: ${err.message}`)
    : err;
}
