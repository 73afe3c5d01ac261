// The bodies the registry answers with, in Confluent 7.x's entity shapes.
import type { SchemaVersion } from "../store/state.ts";

/** A reply body that is already JSON text (cached bodies, raw schema text). */
export class RawJson {
  constructor(readonly body: string) {}
}

/** schemaType omitted for AVRO, references only when present. */
export function typed(v: SchemaVersion): { schemaType?: string; references?: unknown[] } {
  return {
    ...(v.schemaType !== "AVRO" ? { schemaType: v.schemaType } : {}),
    ...(v.references.length > 0 ? { references: v.references } : {}),
  };
}

export function versionBody(v: SchemaVersion) {
  return { subject: v.subject, version: v.version, id: v.id, ...typed(v), schema: v.schema };
}
