// The exporters' two compacted topics, as Confluent keeps them: `_exporter_configs` (exporter.config.topic)
// holds each exporter's definition, `_exporter_states` (exporter.state.topic) where it is: JSON keys
// naming the exporter (`{"tenant":"default","name":…}`), JSON values, null = tombstone (deleted).
import type { Bytes } from "../../broker/broker.ts";
import { jsonBytes, parseJsonBytes } from "../store/json-bytes.ts";
import { CONTEXT_TYPES, type ContextType } from "./naming.ts";

export const DEFAULT_TENANT = "default";

/** An exporter's definition, as created and updated (secrets included: never answered as they are). */
export interface ExporterInfo {
  name: string;
  contextType: ContextType;
  /** CUSTOM's context. */
  context?: string;
  subjects: string[];
  subjectRenameFormat?: string;
  /** The destination: schema.registry.url, basic.auth.*, bearer.auth.*, schema.registry.ssl.* */
  config: Record<string, string>;
}

export const EXPORTER_STATES = ["STARTING", "RUNNING", "PAUSED", "ERROR"] as const;
export type ExporterState = (typeof EXPORTER_STATES)[number];

/** Where an exporter is: `offset` is the next `_schemas` offset it has yet to export. */
export interface ExporterStatus {
  name: string;
  state: ExporterState;
  offset: number;
  /** When the state last changed or the offset last moved (ms since the epoch). */
  ts: number;
  trace?: string;
}

/** A write to one of the topics: the exporter's new value, or null to forget it. */
export interface NamedRecord<V> {
  name: string;
  value: V | null;
  /** The key bytes as read, so a tombstone matches them. */
  rawKey?: Bytes;
}

export function encodeKey(record: NamedRecord<unknown>): Bytes {
  return record.rawKey ?? jsonBytes({ tenant: DEFAULT_TENANT, name: record.name });
}

/** The exporter a key names; undefined for a key of another tenant or shape. */
export function decodeKey(key: Bytes | null): string | undefined {
  const k = key === null ? undefined : (parseJsonBytes(key) as Record<string, unknown> | undefined);
  if (!k || typeof k.name !== "string" || (k.tenant ?? DEFAULT_TENANT) !== DEFAULT_TENANT) return undefined;
  return k.name;
}

export function encodeInfo(info: ExporterInfo): Bytes {
  return jsonBytes({
    name: info.name,
    contextType: info.contextType,
    ...(info.context !== undefined ? { context: info.context } : {}),
    subjects: info.subjects,
    ...(info.subjectRenameFormat !== undefined ? { subjectRenameFormat: info.subjectRenameFormat } : {}),
    config: info.config,
  });
}

export function decodeInfo(name: string, value: Bytes): ExporterInfo | undefined {
  const v = parseJsonBytes(value) as Record<string, unknown> | undefined;
  const contextType = CONTEXT_TYPES.find((t) => t === v?.contextType);
  if (!v || !contextType || !Array.isArray(v.subjects)) return undefined;
  return {
    name,
    contextType,
    ...(typeof v.context === "string" ? { context: v.context } : {}),
    subjects: v.subjects.filter((s): s is string => typeof s === "string"),
    ...(typeof v.subjectRenameFormat === "string" ? { subjectRenameFormat: v.subjectRenameFormat } : {}),
    config: stringMap(v.config),
  };
}

export function encodeStatus(status: ExporterStatus): Bytes {
  return jsonBytes({
    name: status.name,
    state: status.state,
    offset: status.offset,
    ts: status.ts,
    ...(status.trace ? { trace: status.trace } : {}),
  });
}

export function decodeStatus(name: string, value: Bytes): ExporterStatus | undefined {
  const v = parseJsonBytes(value) as Record<string, unknown> | undefined;
  const state = EXPORTER_STATES.find((s) => s === v?.state);
  if (!v || !state || !Number.isSafeInteger(v.offset)) return undefined;
  return {
    name,
    state,
    offset: v.offset as number,
    ts: typeof v.ts === "number" ? v.ts : 0,
    ...(typeof v.trace === "string" && v.trace ? { trace: v.trace } : {}),
  };
}

function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}
