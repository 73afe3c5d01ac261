// The DEK registry's rules (Confluent's DekRegistryResource checks and AbstractDekRegistry), without
// HTTP: reads come from the state, writes go through the `_dek_registry_keys` log's one writer (the
// leader; a follower's write throws ForwardToLeader before any check, so the leader decides on its
// caught-up state). Shared KEKs have the registry wrap and unwrap DEKs itself (./kms.ts).
import { RegistryError } from "../errors.ts";
import type { TopicLog } from "../store/topic-log.ts";
import { dekErrors } from "./errors.ts";
import { kekAead, KmsError, newDekMaterial, type KekAead } from "./kms.ts";
import {
  DEFAULT_ALGORITHM,
  dekId,
  kekId,
  parseAlgorithm,
  type DekAlgorithm,
  type DekRecord,
  type DekValue,
  type KekValue,
} from "./records.ts";
import type { DekState, StoredDek, StoredKek } from "./state.ts";

export type DekLog = TopicLog<DekRecord, DekState>;

export interface DekRegistryOptions {
  /** dek.registry.max.keys: KEKs (and DEKs) a tenant may have. */
  maxKeys: number;
  /** Where local-kms finds LOCAL_SECRET when a KEK has no `secret` property. */
  env?: Record<string, string | undefined>;
}

/** A DEK as answered: `keyMaterial` is the raw DEK, given only for shared KEKs. */
export interface DekView {
  stored: StoredDek;
  keyMaterial?: string;
}

export interface KekUpdate {
  /** undefined: keep; null: clear. */
  kmsProps?: Record<string, string> | null;
  doc?: string | null;
  shared?: boolean | null;
}

export type DekVersion = number | "latest";

const MIN_VERSION = 1;
const NAME_MAX_LENGTH = 256;
/** The subject of the DEK Confluent wraps to test a shared KEK. */
const TEST_SUBJECT = "__TEST";

export class DekRegistry {
  constructor(
    private readonly log: DekLog,
    private readonly options: DekRegistryOptions,
  ) {}

  private get state(): DekState {
    return this.log.state;
  }

  // ---- KEKs

  /** KEK names; with subject prefixes, the KEKs having a DEK of such a subject. */
  kekNames(subjectPrefixes: string[], deleted: boolean): string[] {
    if (subjectPrefixes.length === 0)
      return this.state
        .allKeks()
        .filter((k) => deleted || !k.value.deleted)
        .map((k) => k.id.name);
    const names = this.state
      .allDeks()
      .filter((d) => (deleted || !d.value.deleted) && subjectPrefixes.some((p) => d.id.subject.startsWith(p)))
      .map((d) => d.id.kekName);
    return [...new Set(names)].sort();
  }

  getKek(name: string, deleted: boolean): StoredKek {
    checkName(name);
    return this.kek(name, deleted) ?? throwIt(dekErrors.keyNotFound(name));
  }

  async createKek(body: Record<string, unknown>, testSharing: boolean): Promise<StoredKek> {
    const request = parseCreateKek(body);
    const value: KekValue = { ...request, kmsType: normalizeKmsType(request.kmsType) };
    if (request.shared && testSharing) await this.testSharing(value, "Error while creating key");
    await this.log.exclusive(async () => {
      if (this.state.count("KEK") > this.options.maxKeys) throw dekErrors.tooManyKeys(this.options.maxKeys);
      const old = this.state.kek(value.name);
      // Creating a soft-deleted KEK again, unchanged, undeletes it.
      if (old && (value.deleted === old.value.deleted || !sameKek(old.value, value)))
        throw dekErrors.alreadyExists(value.name);
      return { records: [{ ...kekId(value.name), value, rawKey: old?.key }], result: undefined };
    });
    return this.state.kek(value.name)!;
  }

  async updateKek(name: string, body: Record<string, unknown>, testSharing: boolean): Promise<StoredKek> {
    checkName(name);
    const update = parseKekUpdate(body);
    await this.log.exclusive(async () => {
      const old = this.kek(name, false) ?? throwIt(dekErrors.keyNotFound(name));
      const value: KekValue = {
        name,
        kmsType: old.value.kmsType,
        kmsKeyId: old.value.kmsKeyId,
        kmsProps: update.kmsProps === undefined ? old.value.kmsProps : (update.kmsProps ?? {}),
        ...(update.doc === undefined
          ? old.value.doc !== undefined
            ? { doc: old.value.doc }
            : {}
          : update.doc !== null
            ? { doc: update.doc }
            : {}),
        shared: update.shared === undefined || update.shared === null ? old.value.shared : update.shared,
        deleted: false,
      };
      if (value.shared && testSharing) await this.testSharing(value, "Error while updating key");
      if (sameKek(old.value, value)) return { records: [], result: undefined };
      return { records: [{ ...kekId(name), value, rawKey: old.key }], result: undefined };
    });
    return this.state.kek(name)!;
  }

  async deleteKek(name: string, permanent: boolean): Promise<void> {
    checkName(name);
    await this.log.exclusive(async () => {
      const old = this.kek(name, true) ?? throwIt(dekErrors.keyNotFound(name));
      if (this.state.allDeks(name).some((d) => permanent || !d.value.deleted)) throw dekErrors.referenceExists(name);
      if (permanent) {
        if (!old.value.deleted) throw dekErrors.keyNotSoftDeleted(name);
        return { records: [{ ...kekId(name), value: null, rawKey: old.key }], result: undefined };
      }
      if (old.value.deleted) return { records: [], result: undefined };
      return {
        records: [{ ...kekId(name), value: { ...old.value, deleted: true }, rawKey: old.key }],
        result: undefined,
      };
    });
  }

  async undeleteKek(name: string): Promise<void> {
    checkName(name);
    await this.log.exclusive(async () => {
      const old = this.kek(name, true) ?? throwIt(dekErrors.keyNotFound(name));
      if (!old.value.deleted) return { records: [], result: undefined };
      return {
        records: [{ ...kekId(name), value: { ...old.value, deleted: false }, rawKey: old.key }],
        result: undefined,
      };
    });
  }

  /** POST /keks/{name}/test: wraps a DEK with a shared KEK's KMS (42271 for a KEK that is not shared). */
  testKek(name: string): StoredKek {
    const kek = this.getKek(name, false);
    if (!kek.value.shared) throw dekErrors.invalidKey("shared");
    this.wrap(kek.value, TEST_SUBJECT, DEFAULT_ALGORITHM, undefined);
    return kek;
  }

  // ---- DEKs

  dekSubjects(kekName: string, deleted: boolean): string[] {
    this.getKek(kekName, deleted);
    const subjects = this.state
      .allDeks(kekName)
      .filter((d) => deleted || !d.value.deleted)
      .map((d) => d.id.subject);
    return [...new Set(subjects)].sort();
  }

  dekVersions(kekName: string, subject: string, algorithm: DekAlgorithm | undefined, deleted: boolean): number[] {
    checkName(kekName);
    checkSubject(subject);
    this.getKek(kekName, deleted);
    return this.versionsOf(kekName, subject, algorithm, deleted).map((d) => d.id.version);
  }

  /** One version of a subject's DEK (version 1 when none is named, as Confluent's GET without one). */
  getDek(
    kekName: string,
    subject: string,
    version: DekVersion,
    algorithm: DekAlgorithm | undefined,
    deleted: boolean,
  ): DekView {
    checkName(kekName);
    checkSubject(subject);
    const kek = this.getKek(kekName, deleted);
    const dek = this.dek(kekName, subject, version, algorithm, deleted) ?? throwIt(dekErrors.keyNotFound(subject));
    return this.withRawMaterial(kek, dek);
  }

  async createDek(kekName: string, subject: string, body: Record<string, unknown>, rewrap: boolean): Promise<DekView> {
    checkName(kekName);
    checkSubject(subject);
    const request = parseCreateDek(body);
    let keyMaterial: string | undefined;
    const id = dekId(kekName, subject, request.algorithm, request.version);
    await this.log.exclusive(async () => {
      const kek = this.kek(kekName, request.deleted) ?? throwIt(dekErrors.keyNotFound(kekName));
      if (this.state.count("DEK") > this.options.maxKeys) throw dekErrors.tooManyKeys(this.options.maxKeys);
      const old = this.state.dek(id);
      let value: DekValue = {
        kekName,
        subject,
        algorithm: request.algorithm,
        version: request.version,
        ...(request.encryptedKeyMaterial !== undefined ? { encryptedKeyMaterial: request.encryptedKeyMaterial } : {}),
        deleted: request.deleted,
      };
      // Creating a soft-deleted DEK again, unchanged, undeletes it; rewrap replaces it.
      if (!rewrap && old && (value.deleted === old.value.deleted || !sameDek(old.value, value)))
        throw dekErrors.alreadyExists(subject);
      if (value.encryptedKeyMaterial !== undefined) {
        if (kek.value.shared && old) throw dekErrors.alreadyExists(subject);
      } else if (kek.value.shared) {
        // A rewrap keeps the DEK and wraps it again (with the KEK's current KMS settings).
        const raw = old ? this.unwrap(kek.value, old.value) : undefined;
        value = { ...value, encryptedKeyMaterial: this.wrap(kek.value, subject, value.algorithm, raw) };
        keyMaterial = Buffer.from(this.unwrap(kek.value, value)).toString("base64");
      } else {
        throw dekErrors.invalidKey("encryptedKeyMaterial");
      }
      return { records: [{ ...id, value, rawKey: old?.key }], result: undefined };
    });
    return { stored: this.state.dek(id)!, keyMaterial };
  }

  /** Soft-deletes (or, once soft-deleted, removes) every version of a subject's DEK. */
  async deleteDek(
    kekName: string,
    subject: string,
    algorithm: DekAlgorithm | undefined,
    permanent: boolean,
  ): Promise<void> {
    checkName(kekName);
    checkSubject(subject);
    await this.log.exclusive(async () => {
      this.kek(kekName, true) ?? throwIt(dekErrors.keyNotFound(kekName));
      const all = this.versionsOf(kekName, subject, algorithm, true);
      if (all.length === 0) throw dekErrors.keyNotFound(subject);
      const deks = permanent ? all : all.filter((d) => !d.value.deleted);
      if (permanent && deks.some((d) => !d.value.deleted)) throw dekErrors.keyNotSoftDeleted(subject);
      return { records: deks.map((d) => deletion(d, permanent)), result: undefined };
    });
  }

  async deleteDekVersion(
    kekName: string,
    subject: string,
    version: DekVersion,
    algorithm: DekAlgorithm | undefined,
    permanent: boolean,
  ): Promise<void> {
    checkName(kekName);
    checkSubject(subject);
    await this.log.exclusive(async () => {
      this.kek(kekName, true) ?? throwIt(dekErrors.keyNotFound(kekName));
      const dek = this.dek(kekName, subject, version, algorithm, true) ?? throwIt(dekErrors.keyNotFound(subject));
      if (permanent && !dek.value.deleted) throw dekErrors.keyNotSoftDeleted(subject);
      if (!permanent && dek.value.deleted) return { records: [], result: undefined };
      return { records: [deletion(dek, permanent)], result: undefined };
    });
  }

  async undeleteDek(kekName: string, subject: string, algorithm: DekAlgorithm | undefined): Promise<void> {
    checkName(kekName);
    checkSubject(subject);
    await this.log.exclusive(async () => {
      const kek = this.kek(kekName, true) ?? throwIt(dekErrors.keyNotFound(kekName));
      const deks = this.versionsOf(kekName, subject, algorithm, true);
      if (deks.length === 0) throw dekErrors.keyNotFound(subject);
      if (kek.value.deleted) throw dekErrors.keySoftDeleted(kekName);
      return { records: deks.filter((d) => d.value.deleted).map(undeletion), result: undefined };
    });
  }

  async undeleteDekVersion(
    kekName: string,
    subject: string,
    version: DekVersion,
    algorithm: DekAlgorithm | undefined,
  ): Promise<void> {
    checkName(kekName);
    checkSubject(subject);
    await this.log.exclusive(async () => {
      const kek = this.kek(kekName, true) ?? throwIt(dekErrors.keyNotFound(kekName));
      const dek = this.dek(kekName, subject, version, algorithm, true) ?? throwIt(dekErrors.keyNotFound(subject));
      if (kek.value.deleted) throw dekErrors.keySoftDeleted(kekName);
      return { records: dek.value.deleted ? [undeletion(dek)] : [], result: undefined };
    });
  }

  // ---- helpers

  private kek(name: string, deleted: boolean): StoredKek | undefined {
    const kek = this.state.kek(name);
    return kek && (deleted || !kek.value.deleted) ? kek : undefined;
  }

  private versionsOf(
    kekName: string,
    subject: string,
    algorithm: DekAlgorithm | undefined,
    deleted: boolean,
  ): StoredDek[] {
    return this.state
      .dekVersions(kekName, subject, algorithm ?? DEFAULT_ALGORITHM)
      .filter((d) => deleted || !d.value.deleted);
  }

  private dek(
    kekName: string,
    subject: string,
    version: DekVersion,
    algorithm: DekAlgorithm | undefined,
    deleted: boolean,
  ): StoredDek | undefined {
    if (version === "latest") return this.versionsOf(kekName, subject, algorithm, deleted).at(-1);
    const dek = this.state.dek(dekId(kekName, subject, algorithm ?? DEFAULT_ALGORITHM, version));
    return dek && (deleted || !dek.value.deleted) ? dek : undefined;
  }

  /** A shared KEK's DEKs are answered with their raw material, unwrapped by the registry. */
  private withRawMaterial(kek: StoredKek, dek: StoredDek): DekView {
    if (!kek.value.shared || dek.value.encryptedKeyMaterial === undefined) return { stored: dek };
    return { stored: dek, keyMaterial: Buffer.from(this.unwrap(kek.value, dek.value)).toString("base64") };
  }

  private aead(kek: KekValue, failure: string): KekAead {
    try {
      return kekAead(kek, this.options.env);
    } catch (err) {
      throw generationFailed(failure, err);
    }
  }

  /** A new (or the given raw) DEK wrapped with the KEK, base64 (50070 when the KMS fails). */
  private wrap(kek: KekValue, subject: string, algorithm: DekAlgorithm, raw: Uint8Array | undefined): string {
    const failure = `Could not generate encrypted dek for ${subject}`;
    const aead = this.aead(kek, failure);
    try {
      return Buffer.from(aead.encrypt(raw ?? newDekMaterial(algorithm))).toString("base64");
    } catch (err) {
      throw generationFailed(failure, err);
    }
  }

  private unwrap(kek: KekValue, dek: DekValue): Uint8Array {
    const failure = `Could not generate raw dek for ${dek.subject}`;
    const aead = this.aead(kek, failure);
    try {
      return aead.decrypt(Buffer.from(dek.encryptedKeyMaterial ?? "", "base64"));
    } catch (err) {
      throw generationFailed(failure, err);
    }
  }

  /** ?testSharing=true on create or update: the shared KEK must wrap a DEK, or the write fails (50001). */
  private async testSharing(kek: KekValue, context: string): Promise<void> {
    try {
      this.wrap(kek, TEST_SUBJECT, DEFAULT_ALGORITHM, undefined);
    } catch (err) {
      throw new RegistryError(500, 50001, `${context}: ${(err as Error).message}`);
    }
  }
}

function generationFailed(failure: string, err: unknown): RegistryError {
  return dekErrors.generation(`${failure}: ${err instanceof KmsError ? err.message : String(err)}`);
}

const deletion = (d: StoredDek, permanent: boolean): DekRecord => ({
  ...d.id,
  value: permanent ? null : { ...d.value, deleted: true },
  rawKey: d.key,
});
const undeletion = (d: StoredDek): DekRecord => ({ ...d.id, value: { ...d.value, deleted: false }, rawKey: d.key });

function throwIt(error: Error): never {
  throw error;
}

// ---- request checks, as Confluent's resource makes them

/** A KEK name: a letter or '_', then letters, digits, '_' or '-', at most 256 chars (Java's Character classes). */
export function checkName(name: unknown): asserts name is string {
  if (
    typeof name !== "string" ||
    name.length === 0 ||
    name.length > NAME_MAX_LENGTH ||
    !/^[\p{L}_][\p{L}\p{Nd}_-]*$/u.test(name)
  )
    throw dekErrors.invalidKey("name");
}

/** A DEK subject: not empty, no ISO control characters. */
function checkSubject(subject: string): void {
  if (subject.length === 0 || /[\u0000-\u001f\u007f-\u009f]/.test(subject)) throw dekErrors.invalidKey("subject");
}

/** Confluent's short KMS type names: anything starting with aws/azure/gcp (any case) is that cloud's. */
function normalizeKmsType(kmsType: string): string {
  const type = kmsType.toLowerCase();
  if (type.startsWith("aws")) return "aws-kms";
  if (type.startsWith("azure")) return "azure-kms";
  if (type.startsWith("gcp")) return "gcp-kms";
  return kmsType;
}

/** CreateKekRequest.validate(): the key id's shape for the cloud KMS types (on the type as sent). */
const KEY_ID_PREFIXES = new Map<string, string[]>([
  ["aws-kms", ["arn:aws:kms:"]],
  ["azure-kms", ["https://"]],
  ["gcp-kms", ["projects/"]],
  ["hcvault", ["https://", "http://"]],
]);

function parseCreateKek(body: Record<string, unknown>): KekValue {
  const { name, kmsType, kmsKeyId } = body;
  checkName(name);
  if (typeof kmsKeyId !== "string" || kmsKeyId === "") throw dekErrors.invalidKey("kmsKeyId");
  if (typeof kmsType !== "string") throw dekErrors.invalidKey("kmsType");
  // A Map: a kmsType such as "__proto__" must not find Object's prototype.
  const prefixes = KEY_ID_PREFIXES.get(kmsType);
  if (prefixes && !prefixes.some((p) => kmsKeyId.startsWith(p))) throw dekErrors.invalidKey("kmsKeyId");
  const doc = optionalString(body, "doc");
  return {
    name,
    kmsType,
    kmsKeyId,
    kmsProps: parseProps(body.kmsProps) ?? {},
    ...(doc !== undefined && doc !== null ? { doc } : {}),
    shared: bool(body, "shared"),
    deleted: bool(body, "deleted"),
  };
}

function parseKekUpdate(body: Record<string, unknown>): KekUpdate {
  const shared = body.shared;
  if (shared !== undefined && shared !== null && typeof shared !== "boolean") throw dekErrors.invalidKey("shared");
  return {
    ...("kmsProps" in body ? { kmsProps: parseProps(body.kmsProps) } : {}),
    ...("doc" in body ? { doc: optionalString(body, "doc") } : {}),
    ...("shared" in body ? { shared: shared as boolean | null } : {}),
  };
}

function parseCreateDek(body: Record<string, unknown>): {
  version: number;
  algorithm: DekAlgorithm;
  encryptedKeyMaterial?: string;
  deleted: boolean;
} {
  const { version, algorithm, encryptedKeyMaterial } = body;
  if (
    version !== undefined &&
    version !== null &&
    !(Number.isInteger(version) && Math.abs(version as number) <= 2 ** 31 - 1)
  )
    throw dekErrors.invalidKey("version");
  const parsed = algorithm === undefined || algorithm === null ? DEFAULT_ALGORITHM : parseAlgorithm(algorithm);
  if (!parsed) throw dekErrors.invalidKey("algorithm");
  if (encryptedKeyMaterial !== undefined && encryptedKeyMaterial !== null && typeof encryptedKeyMaterial !== "string")
    throw dekErrors.invalidKey("encryptedKeyMaterial");
  return {
    version: (version as number | null | undefined) ?? MIN_VERSION,
    algorithm: parsed,
    ...(typeof encryptedKeyMaterial === "string" ? { encryptedKeyMaterial } : {}),
    deleted: bool(body, "deleted"),
  };
}

/** KMS properties: string values (numbers and booleans as Jackson coerces them); null when sent as null. */
function parseProps(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw dekErrors.invalidKey("kmsProps");
  const props: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string") props[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") props[k] = String(v);
    else throw dekErrors.invalidKey("kmsProps");
  }
  return props;
}

function optionalString(body: Record<string, unknown>, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null || typeof value === "string") return value;
  throw dekErrors.invalidKey(field);
}

/** A primitive boolean field: absent or null is false. */
function bool(body: Record<string, unknown>, field: string): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw dekErrors.invalidKey(field);
  return value;
}

function sameProps(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && a[k] === b[k]);
}

/** KeyEncryptionKey.isEquivalent: everything but the deleted flag. */
function sameKek(a: KekValue, b: KekValue): boolean {
  return (
    a.shared === b.shared &&
    a.name === b.name &&
    a.kmsType === b.kmsType &&
    a.kmsKeyId === b.kmsKeyId &&
    sameProps(a.kmsProps, b.kmsProps) &&
    a.doc === b.doc
  );
}

/** DataEncryptionKey.isEquivalent. */
function sameDek(a: DekValue, b: DekValue): boolean {
  return (
    a.kekName === b.kekName &&
    a.subject === b.subject &&
    a.algorithm === b.algorithm &&
    a.version === b.version &&
    a.encryptedKeyMaterial === b.encryptedKeyMaterial
  );
}
