// Plumbing shared by the built-in transforms: the half of a record a $Key/$Value variant works on,
// Kafka's Requirements checks (same messages), SchemaUtil.copySchemaBasics, the per-transform schema
// cache, schemaless map helpers and Kafka-worded configuration errors.
import { ConfigError, type ParsedSettings, type Setting, type SettingsDefinition } from "../../platform/settings.ts";
import { DataException, SchemaBuilder, Struct, type Field, type Schema } from "../api/data/index.ts";
import { isPlainObject, javaClassName } from "../api/data/java-format.ts";
import { newRecord, type ConnectHeader, type ConnectRecord, type SinkRecord } from "../api/records.ts";

/** Which part of the record a transform operates on (Kafka's `$Key` / `$Value` inner classes). */
export type Side = "key" | "value";

export function operatingSchema(record: ConnectRecord, side: Side): Schema | null {
  return side === "key" ? record.keySchema : record.valueSchema;
}

export function operatingValue(record: ConnectRecord, side: Side): unknown {
  return (side === "key" ? record.key : record.value) ?? null;
}

/** A copy of `record` whose key or value (and its schema) is replaced; everything else is kept. */
export function withOperating<R extends ConnectRecord>(record: R, side: Side, schema: Schema | null, value: unknown, headers?: readonly ConnectHeader[]): R {
  const changes: Partial<ConnectRecord> = side === "key" ? { keySchema: schema, key: value } : { valueSchema: schema, value };
  return newRecord(record, headers === undefined ? changes : { ...changes, headers });
}

/**
 * A configuration error worded as Kafka's ConfigException. `setting` names the offending key for
 * callers that attribute errors (empty when Kafka's message names none).
 */
export class TransformConfigError extends ConfigError {
  constructor(setting: string, value: string, message: string) {
    super(setting, value, message);
    this.message = message;
  }
}

/** Kafka's `ConfigException(name, value, message)` text. */
export function invalidConfig(setting: string, value: unknown, reason: string): TransformConfigError {
  const shown = Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
  return new TransformConfigError(setting, shown, `Invalid value ${shown} for configuration ${setting}: ${reason}`);
}

/** Kafka's message-only `ConfigException(message)`; `setting` is the key it is about, for attribution. */
export function configProblem(setting: string, message: string): TransformConfigError {
  return new TransformConfigError(setting, "", message);
}

/** Parses a transform's own settings (unknown keys are ignored, as Kafka's SimpleConfig does). */
export function parseSettings(def: SettingsDefinition, config: Record<string, string>): ParsedSettings {
  return def.parse(config).values;
}

/** The `replace.null.with.default` setting most Kafka transforms declare (3.x+). */
export const REPLACE_NULL_WITH_DEFAULT: Setting = {
  name: "replace.null.with.default",
  type: "boolean",
  default: true,
  importance: "medium",
  doc: "Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.",
};

/** Kafka's NonEmptyListValidator. */
export function nonEmptyList(value: unknown): string | undefined {
  return Array.isArray(value) && value.length > 0 ? undefined : "Empty list";
}

/** Kafka's ConfigDef.NonEmptyString (absent is fine, empty is not). */
export function nonEmptyString(value: unknown): string | undefined {
  return value === "" ? "String must be non-empty" : undefined;
}

// ---- Requirements ----

/** The JVM class name Kafka prints with getClass().getName() (`java.lang.String`, `null`). */
export function className(value: unknown): string {
  return value === null || value === undefined ? "null" : javaClassName(value).replace(/^class /, "");
}

export function requireSchema(schema: Schema | null, purpose: string): Schema {
  if (schema === null) throw new DataException(`Schema required for [${purpose}]`);
  return schema;
}

export type SchemalessMap = Map<unknown, unknown> | Record<string, unknown>;

export function isMapValue(value: unknown): value is SchemalessMap {
  return value instanceof Map || isPlainObject(value);
}

export function requireMap(value: unknown, purpose: string): SchemalessMap {
  if (!isMapValue(value)) throw new DataException(`Only Map objects supported in absence of schema for [${purpose}], found: ${className(value)}`);
  return value;
}

export function requireMapOrNull(value: unknown, purpose: string): SchemalessMap | null {
  return value === null || value === undefined ? null : requireMap(value, purpose);
}

export function requireStruct(value: unknown, purpose: string): Struct {
  if (!(value instanceof Struct)) throw new DataException(`Only Struct objects supported for [${purpose}], found: ${className(value)}`);
  return value;
}

export function requireStructOrNull(value: unknown, purpose: string): Struct | null {
  return value === null || value === undefined ? null : requireStruct(value, purpose);
}

export function isSinkRecord(record: ConnectRecord): record is SinkRecord {
  return typeof (record as Partial<SinkRecord>).kafkaOffset === "number";
}

export function requireSinkRecord(record: ConnectRecord, purpose: string): SinkRecord {
  if (!isSinkRecord(record)) {
    const found = "sourcePartition" in record ? "org.apache.kafka.connect.source.SourceRecord" : "org.apache.kafka.connect.connector.ConnectRecord";
    throw new DataException(`Only SinkRecord supported for [${purpose}], found: ${found}`);
  }
  return record;
}

// ---- schemaless maps: read either shape, write back the shape we were given ----

/** `map.get(key)` with Java's null for a missing key. */
export function mapGet(map: SchemalessMap, key: string): unknown {
  if (map instanceof Map) return map.get(key) ?? null;
  return Object.prototype.hasOwnProperty.call(map, key) ? (map[key] ?? null) : null;
}

/** A mutable copy, in insertion order. */
export function mapCopy(map: SchemalessMap): Map<unknown, unknown> {
  return new Map(map instanceof Map ? map : Object.entries(map));
}

/** `entries` in the same shape as `like` (a Map stays a Map, a plain object stays an object). */
export function mapLike(entries: Map<unknown, unknown>, like: SchemalessMap): SchemalessMap {
  if (like instanceof Map) return entries;
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, String(k), { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

// ---- schemas ----

/** SchemaUtil.copySchemaBasics: name, version, doc and parameters (not optionality, default or fields). */
export function copySchemaBasics(source: Schema, builder?: SchemaBuilder): SchemaBuilder {
  const target = builder ?? (source.type === "ARRAY" && source.valueSchema !== null ? SchemaBuilder.array(source.valueSchema) : new SchemaBuilder(source.type));
  if (source.name !== null) target.name(source.name);
  if (source.version !== null) target.version(source.version);
  if (source.doc !== null) target.doc(source.doc);
  if (source.parameters !== null) target.parameters(source.parameters);
  return target;
}

/** A struct field's value honouring `replace.null.with.default` (Struct.get vs getWithoutDefault). */
export function fieldValue(struct: Struct, field: Field, replaceNullWithDefault: boolean): unknown {
  return replaceNullWithDefault ? struct.get(field) : struct.getWithoutDefault(field.name);
}

/**
 * Derived schemas by input schema, least recently used evicted (Kafka wraps an LRUCache of 16 in a
 * SynchronizedCache). Looked up by identity first, then by Schema.equals as Kafka's hash map does.
 */
export class SchemaCache<V = Schema> {
  private readonly entries = new Map<Schema, V>();

  constructor(private readonly capacity = 16) {}

  get(key: Schema): V | undefined {
    let found: Schema | undefined = this.entries.has(key) ? key : undefined;
    if (found === undefined) for (const k of this.entries.keys()) if (k.equals(key)) found = k;
    if (found === undefined) return undefined;
    const value = this.entries.get(found) as V;
    // Re-insert to mark as most recently used.
    this.entries.delete(found);
    this.entries.set(found, value);
    return value;
  }

  put(key: Schema, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as Schema);
  }

  getOrCompute(key: Schema, compute: (key: Schema) => V): V {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = compute(key);
    this.put(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Java's String.split(regex) for a literal separator: trailing empty strings are removed. */
export function javaSplit(text: string, separator: string): string[] {
  const parts = text.split(separator);
  while (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 1 && parts[0] === "" && text !== "") return [];
  return parts;
}
