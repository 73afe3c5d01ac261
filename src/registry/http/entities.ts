// The bodies the registry answers with, in Confluent's entity shapes (7.x, with 7.4+'s data contracts
// and 8's `guid`).
import { contractJson, schemaGuid, type Contract } from "../data-contracts.ts";
import type { CompatibilityLevel } from "../compatibility.ts";
import type { Registered } from "../registration.ts";
import type { SchemaVersion } from "../store/state.ts";
import { configFields, type SubjectConfig } from "../subject-config.ts";

/** A reply body that is already JSON text (cached bodies, raw schema text). */
export class RawJson {
  constructor(readonly body: string) {}
}

/**
 * Confluent 8's `guid` (the hash of the stored schema, references and contract: the same on every
 * instance and after restarts, whatever format the body shows the schema in); schemaType omitted for
 * AVRO; references, metadata and ruleSet only when present.
 */
export function typed(v: Pick<SchemaVersion, "schema" | "schemaType" | "references"> & Contract) {
  return {
    guid: schemaGuid(v.schema, v.references, v),
    ...(v.schemaType !== "AVRO" ? { schemaType: v.schemaType } : {}),
    ...(v.references.length > 0 ? { references: v.references } : {}),
    ...contractJson(v),
  };
}

export function versionBody(v: SchemaVersion) {
  return { subject: v.subject, version: v.version, id: v.id, ...typed(v), schema: v.schema };
}

/**
 * POST /subjects/{s}/versions: the id and guid (Confluent 8's header serializers send the guid), and with
 * a data contract the version it was registered as (Confluent 7.5+ answers the schema as stored when
 * the registry filled in its metadata or rules).
 */
export function registeredBody(r: Registered) {
  if (!r.contract.metadata && !r.contract.ruleSet)
    return { id: r.id, guid: schemaGuid(r.schema, r.references, r.contract) };
  return { id: r.id, version: r.version, ...typed({ ...r, ...r.contract }), schema: r.schema };
}

/** GET /config's body (Confluent's Config entity); `fallbackLevel` fills a config that sets none. */
export function configBody(c: SubjectConfig, fallbackLevel?: CompatibilityLevel): Record<string, unknown> {
  return configFields(
    c.compatibilityLevel || !fallbackLevel ? c : { ...c, compatibilityLevel: fallbackLevel },
    "compatibilityLevel",
  );
}

/** PUT /config's body (Confluent's ConfigUpdateRequest): the level is named `compatibility`. */
export function configUpdateBody(c: SubjectConfig): Record<string, unknown> {
  return configFields(c, "compatibility");
}
