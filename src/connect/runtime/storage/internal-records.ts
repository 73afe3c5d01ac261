// Kafka Connect's records in its internal topics (config, status, offsets), as its Kafka*BackingStores
// write them: UTF-8 string keys (JSON array keys for offsets) and schemaless JSON values.
import type { Status } from "../status.ts";

export type TargetState = "STARTED" | "PAUSED" | "STOPPED";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));
const parse = (bytes: Uint8Array | null): unknown => (bytes === null ? null : JSON.parse(decoder.decode(bytes)));

// ---- config topic ----

export type ConfigRecord =
  | { kind: "connector"; name: string; config: Record<string, string> | null }
  | { kind: "target"; name: string; state: TargetState | null }
  | { kind: "task"; name: string; task: number; config: Record<string, string> | null }
  | { kind: "commit"; name: string; tasks: number }
  /** KIP-618: the task count of a connector whose earlier tasks' producers were fenced. */
  | { kind: "task-count"; name: string; tasks: number }
  | { kind: "restart"; name: string; includeTasks: boolean; onlyFailed: boolean };

export function encodeConfigRecord(record: ConfigRecord): { key: Uint8Array; value: Uint8Array | null } {
  switch (record.kind) {
    case "connector":
      return {
        key: encoder.encode(`connector-${record.name}`),
        value: record.config ? json({ properties: record.config }) : null,
      };
    case "target":
      // Workers older than KIP-875 read `state`, which has no STOPPED.
      return {
        key: encoder.encode(`target-state-${record.name}`),
        value: record.state
          ? json({ state: record.state === "STOPPED" ? "PAUSED" : record.state, "state.v2": record.state })
          : null,
      };
    case "task":
      return {
        key: encoder.encode(`task-${record.name}-${record.task}`),
        value: record.config ? json({ properties: record.config }) : null,
      };
    case "commit":
      return { key: encoder.encode(`commit-${record.name}`), value: json({ tasks: record.tasks }) };
    case "task-count":
      return { key: encoder.encode(`tasks-fencing-${record.name}`), value: json({ "task-count": record.tasks }) };
    case "restart":
      return {
        key: encoder.encode(`restart-connector-${record.name}`),
        value: json({ "include-tasks": record.includeTasks, "only-failed": record.onlyFailed }),
      };
  }
}

/** The record, or undefined for keys Sluice does not act on (session keys, logger levels). */
export function decodeConfigRecord(
  keyBytes: Uint8Array | null,
  valueBytes: Uint8Array | null,
): ConfigRecord | undefined {
  const key = keyBytes ? decoder.decode(keyBytes) : "";
  const value = parse(valueBytes) as Record<string, unknown> | null;
  const properties = () =>
    value && typeof value.properties === "object" ? (value.properties as Record<string, string>) : null;
  if (key.startsWith("connector-")) return { kind: "connector", name: key.slice(10), config: properties() };
  if (key.startsWith("target-state-")) {
    const state = value ? ((value["state.v2"] ?? value.state) as TargetState) : null;
    return { kind: "target", name: key.slice(13), state };
  }
  if (key.startsWith("task-")) {
    const at = key.lastIndexOf("-");
    return { kind: "task", name: key.slice(5, at), task: Number(key.slice(at + 1)), config: properties() };
  }
  if (key.startsWith("commit-") && value) return { kind: "commit", name: key.slice(7), tasks: Number(value.tasks) };
  if (key.startsWith("tasks-fencing-") && value)
    return { kind: "task-count", name: key.slice(14), tasks: Number(value["task-count"]) };
  if (key.startsWith("restart-connector-") && value) {
    return {
      kind: "restart",
      name: key.slice(18),
      includeTasks: value["include-tasks"] === true,
      onlyFailed: value["only-failed"] === true,
    };
  }
  return undefined;
}

// ---- status topic ----

/** A status as the status topic holds it: Kafka's JSON field names, and the writer's group generation. */
interface StatusRecord {
  state: Status["state"];
  trace: string | null;
  worker_id: string;
  generation: number;
}

export interface GenerationStatus {
  status: Status;
  generation: number;
}

export type StatusKey = { connector: string; task?: number };

export function statusKey(key: StatusKey): Uint8Array {
  return encoder.encode(
    key.task === undefined ? `status-connector-${key.connector}` : `status-task-${key.connector}-${key.task}`,
  );
}

export function encodeStatus(status: Status, generation: number): Uint8Array {
  return json({
    state: status.state,
    trace: status.trace ?? null,
    worker_id: status.workerId,
    generation,
  } satisfies StatusRecord);
}

export function decodeStatusKey(
  bytes: Uint8Array | null,
): StatusKey | { topic: string; connector: string } | undefined {
  const key = bytes ? decoder.decode(bytes) : "";
  if (key.startsWith("status-connector-")) return { connector: key.slice(17) };
  if (key.startsWith("status-task-")) {
    const at = key.lastIndexOf("-");
    return { connector: key.slice(12, at), task: Number(key.slice(at + 1)) };
  }
  if (key.startsWith("status-topic-")) {
    const at = key.indexOf(":connector-");
    if (at > 0) return { topic: key.slice(13, at), connector: key.slice(at + 11) };
  }
  return undefined;
}

export function decodeStatus(bytes: Uint8Array | null): GenerationStatus | null {
  const record = parse(bytes) as StatusRecord | null;
  if (record === null) return null;
  const status: Status = {
    state: record.state,
    workerId: record.worker_id,
    ...(record.trace ? { trace: record.trace } : {}),
  };
  return { status, generation: record.generation };
}

export function topicStatusRecord(
  topic: string,
  connector: string,
  task: number,
): { key: Uint8Array; value: Uint8Array } {
  return {
    key: encoder.encode(`status-topic-${topic}:connector-${connector}`),
    value: json({ topic: { name: topic, connector, task, discoverTimestamp: Date.now() } }),
  };
}

// ---- offsets topic ----

export function offsetKey(connector: string, partition: Record<string, unknown>): Uint8Array {
  return json([connector, partition]);
}

export function encodeOffset(offset: Record<string, unknown> | null): Uint8Array | null {
  return offset === null ? null : json(offset);
}

export function decodeOffsetRecord(
  key: Uint8Array | null,
  value: Uint8Array | null,
): { connector: string; partition: Record<string, unknown>; offset: Record<string, unknown> | null } | undefined {
  const parsed = parse(key);
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== "string" ||
    parsed[1] === null ||
    typeof parsed[1] !== "object"
  )
    return undefined;
  return {
    connector: parsed[0],
    partition: parsed[1] as Record<string, unknown>,
    offset: parse(value) as Record<string, unknown> | null,
  };
}

/**
 * A source partition's identity whatever the order of its fields: Java writes a map's fields in its
 * own iteration order, so the same partition may come with its fields ordered differently.
 */
export function partitionIdentity(connector: string, partition: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.entries(partition).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify([connector, sorted]);
}
