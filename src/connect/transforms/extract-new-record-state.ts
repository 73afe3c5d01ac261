// Debezium's ExtractNewRecordState ("unwrap"), also the spec's io.cdc.transforms.ExtractNewRecordState:
// turns a change-event envelope (a Struct whose schema name ends in `.Envelope`, fields before, after,
// source, op, ts_ms...) into the row state `after`. Records that are not envelopes pass unchanged
// (Debezium does the same, so a schemaless envelope is left as it is).
//
// Deletes and tombstones: `delete.tombstone.handling.mode` (drop | tombstone | rewrite |
// rewrite-with-tombstone | delete-to-tombstone) when set; otherwise the legacy pair `drop.tombstones`
// (default true) and `delete.handling.mode` (drop | rewrite | none, default drop), as Debezium 2.x
// did before removing them. Rewrite modes add `__deleted` ("true"/"false") and carry the `before`
// state for deletes. `add.fields` / `add.headers` copy envelope fields (`op`, `ts_ms`, `source.lsn` or
// just `lsn`, `transaction.id`, `field:newName`) into the row or headers, prefixed `__` by default.
// Truncate events (neither before nor after) are dropped.
import { javaSplit } from "../../jvm/java-strings.ts";
import { SettingsDefinition } from "../../platform/settings.ts";
import { Schema, SchemaBuilder, Struct } from "../api/data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { ExtractField } from "./extract-field.ts";
import { InsertField } from "./insert-field.ts";
import { ReplaceField } from "./replace-field.ts";
import { requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { copySchemaBasics } from "./struct-copy.ts";
import { configProblem, parseSettings } from "./transform-settings.ts";

type DeleteTombstoneHandling = "drop" | "tombstone" | "rewrite" | "rewrite-with-tombstone" | "delete-to-tombstone";
type LegacyDeleteHandling = "drop" | "rewrite" | "none";

const DEFINITION = new SettingsDefinition([
  {
    name: "delete.tombstone.handling.mode",
    type: "string",
    oneOf: ["drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone"],
    importance: "medium",
    doc: "How to handle delete records and tombstones: drop (both), tombstone (keep only a tombstone), rewrite (flattened before state with __deleted=true, no tombstone), rewrite-with-tombstone, delete-to-tombstone. When unset, the legacy drop.tombstones / delete.handling.mode apply.",
  },
  {
    name: "drop.tombstones",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Legacy: drop tombstone records.",
  },
  {
    name: "delete.handling.mode",
    type: "string",
    default: "drop",
    oneOf: ["drop", "rewrite", "none"],
    importance: "medium",
    doc: "Legacy: how to handle delete records: none (pass as a null value), drop, rewrite (add __deleted).",
  },
  {
    name: "route.by.field",
    type: "string",
    default: "",
    importance: "low",
    doc: "The column whose value replaces the topic name.",
  },
  {
    name: "add.fields.prefix",
    type: "string",
    default: "__",
    importance: "low",
    doc: "Prefix of the fields added by add.fields.",
  },
  {
    name: "add.fields",
    type: "list",
    default: [],
    importance: "low",
    doc: "Envelope fields to add to the row, e.g. `op,table,source.ts_ms,lsn:LSN`.",
  },
  {
    name: "add.headers.prefix",
    type: "string",
    default: "__",
    importance: "low",
    doc: "Prefix of the headers added by add.headers.",
  },
  { name: "add.headers", type: "list", default: [], importance: "low", doc: "Envelope fields to add as headers." },
  {
    name: "replace.null.with.default",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Replace null field values by their schema defaults when rewriting the record.",
  },
  {
    name: "drop.fields.header.name",
    type: "string",
    importance: "low",
    doc: "A header holding a list of field names to remove from the value.",
  },
  {
    name: "drop.fields.from.key",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Also remove those fields from the key.",
  },
  {
    name: "drop.fields.keep.schema.compatible",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "true: only optional fields are dropped (schemas stay compatible); false: listed fields are dropped regardless.",
  },
]);

const PURPOSE = "source field insertion";
const DELETED_FIELD = "__deleted";
const TRANSACTION_FIELDS = new Set(["id", "total_order", "data_collection_order"]);
const ENVELOPE_FIELDS = new Set(["op", "ts_ms", "ts_us", "ts_ns"]);

/** One `add.fields`/`add.headers` entry: where the value lives in the envelope and the name it gets. */
class FieldReference {
  /** `source`, `transaction`, `updateDescription`, or null for top-level envelope fields. */
  readonly struct: string | null;
  readonly field: string;
  readonly newField: string;

  constructor(prefix: string, spec: string) {
    const parts = javaSplit(spec, ":");
    if (parts.length > 2) throw configProblem("add.fields", `Unexpected field name: ${spec}`);
    const path = javaSplit(parts[0] ?? "", ".");
    this.field = path.length === 1 ? path[0] : (path[1] ?? "");
    this.struct = path.length === 1 ? FieldReference.hostOf(this.field) : path[0];
    this.newField =
      prefix + (parts.length === 2 ? parts[1] : path.length === 1 ? this.field : `${this.struct}_${this.field}`);
  }

  private static hostOf(field: string): string | null {
    if (TRANSACTION_FIELDS.has(field)) return "transaction";
    if (ENVELOPE_FIELDS.has(field)) return null;
    if (field === "updateDescription") return "updateDescription";
    return "source";
  }

  /** The (optional) schema of the referenced field, or null when the envelope has no such field. */
  schema(envelope: Schema): Schema | null {
    const parent = this.struct === null ? envelope : (envelope.field(this.struct)?.schema ?? null);
    let f = parent !== null && parent.type === "STRUCT" ? parent.field(this.field) : null;
    // A field another transform put into the envelope itself is found there.
    if (f === null) f = envelope.field(this.field);
    return f === null ? null : copySchemaBasics(f.schema).optional().build();
  }

  value(envelope: Struct): unknown {
    const parent =
      this.struct === null
        ? envelope
        : envelope.schema.field(this.struct) !== null
          ? envelope.getWithoutDefault(this.struct)
          : null;
    if (this.struct !== null && parent === null) return null;
    const host = parent instanceof Struct && parent.schema.field(this.field) !== null ? parent : envelope;
    return host.schema.field(this.field) === null ? null : host.getWithoutDefault(this.field);
  }
}

function parseReferences(prefix: string, specs: readonly string[]): FieldReference[] {
  return specs
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => new FieldReference(prefix, s));
}

function extractDelegate<R extends ConnectRecord>(field: string): ExtractField<R> {
  const delegate = new ExtractField<R>("value");
  delegate.configure({ field });
  return delegate;
}

function deletedMarker<R extends ConnectRecord>(
  value: "true" | "false",
  replaceNullWithDefault: boolean,
): InsertField<R> {
  const delegate = new InsertField<R>("value");
  delegate.configure({
    "static.field": DELETED_FIELD,
    "static.value": value,
    "replace.null.with.default": String(replaceNullWithDefault),
  });
  return delegate;
}

export class ExtractNewRecordState<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private mode: DeleteTombstoneHandling | null = null;
  private dropTombstones = true;
  private legacyDeletes: LegacyDeleteHandling = "drop";
  private routeByField: string | null = null;
  private additionalFields: FieldReference[] = [];
  private additionalHeaders: FieldReference[] = [];
  private dropFieldsHeaderName: string | null = null;
  private dropFieldsFromKey = false;
  private dropFieldsKeepSchemaCompatible = true;
  private readonly after = extractDelegate<R>("after");
  private readonly before = extractDelegate<R>("before");
  private removed = deletedMarker<R>("true", true);
  private updated = deletedMarker<R>("false", true);
  /** Keyed by the unwrapped schema and the operation, as Debezium's cache is. */
  private readonly schemaCache = new Map<string, SchemaCache>();

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(DEFINITION, config);
    this.mode = (s.optionalString("delete.tombstone.handling.mode") as DeleteTombstoneHandling | undefined) ?? null;
    this.dropTombstones = s.boolean("drop.tombstones");
    this.legacyDeletes = s.string("delete.handling.mode") as LegacyDeleteHandling;
    this.routeByField = s.optionalString("route.by.field") ?? null;
    this.additionalFields = parseReferences(s.string("add.fields.prefix"), s.list("add.fields"));
    this.additionalHeaders = parseReferences(s.string("add.headers.prefix"), s.list("add.headers"));
    this.dropFieldsHeaderName = s.optionalString("drop.fields.header.name") ?? null;
    this.dropFieldsFromKey = s.boolean("drop.fields.from.key");
    this.dropFieldsKeepSchemaCompatible = s.boolean("drop.fields.keep.schema.compatible");
    const replaceNullWithDefault = s.boolean("replace.null.with.default");
    this.removed = deletedMarker<R>("true", replaceNullWithDefault);
    this.updated = deletedMarker<R>("false", replaceNullWithDefault);
    this.schemaCache.clear();
  }

  private get rewrite(): boolean {
    return this.mode === null
      ? this.legacyDeletes === "rewrite"
      : this.mode === "rewrite" || this.mode === "rewrite-with-tombstone";
  }

  apply(input: R): R | null {
    let record = input;
    const isTombstone = record.value === null || record.value === undefined;
    const isEnvelope = record.valueSchema?.name?.endsWith(".Envelope") ?? false;
    if ((isEnvelope || isTombstone) && this.additionalHeaders.length > 0)
      record = newRecord(record, {
        headers: [...record.headers, ...this.makeHeaders(isTombstone ? null : (record.value as Struct))],
      });
    if (isTombstone) return this.handleTombstone(record);
    if (!isEnvelope) return record;

    let unwrapped: R | null = this.after.apply(record);
    if (unwrapped.value === null && this.before.apply(record).value === null) return null; // truncate
    if (unwrapped.value === null) {
      unwrapped = this.handleDelete(record);
      if (unwrapped === null) return null;
      if (this.routeByField !== null) {
        const before = requireStruct(record.value, "Read record to set topic routing for DELETE").getStruct("before");
        unwrapped = this.route(before?.getString(this.routeByField) ?? null, unwrapped);
      }
      if (this.dropFieldsHeaderName !== null) unwrapped = this.dropFields(unwrapped);
      if (unwrapped.value !== null) unwrapped = this.addFields(record, unwrapped);
      return unwrapped;
    }
    unwrapped = this.rewrite && unwrapped.value instanceof Struct ? this.updated.apply(unwrapped) : unwrapped;
    if (this.routeByField !== null)
      unwrapped = this.route(
        requireStruct(unwrapped.value, "Read record to set topic routing for CREATE / UPDATE").getString(
          this.routeByField,
        ),
        unwrapped,
      );
    unwrapped = this.addFields(record, unwrapped);
    if (this.dropFieldsHeaderName !== null) unwrapped = this.dropFields(unwrapped);
    return unwrapped;
  }

  private handleTombstone(record: R): R | null {
    if (this.mode === null) return this.dropTombstones ? null : record;
    return this.mode === "rewrite-with-tombstone" ? record : null;
  }

  private handleDelete(record: R): R | null {
    const mode = this.mode ?? (this.legacyDeletes === "none" ? "tombstone" : this.legacyDeletes);
    switch (mode) {
      case "drop":
        return null;
      case "tombstone":
        // As Debezium: the value becomes null but keeps the `after` schema.
        return this.after.apply(record);
      case "delete-to-tombstone":
        return newRecord(record, { valueSchema: null, value: null });
      case "rewrite":
      case "rewrite-with-tombstone": {
        const old = this.before.apply(record);
        return old.value instanceof Struct ? this.removed.apply(old) : old;
      }
    }
  }

  private route(topic: string | null, record: R): R {
    return topic === null || topic.trim() === "" ? record : newRecord(record, { topic });
  }

  private makeHeaders(envelope: Struct | null): ConnectHeader[] {
    const headers: ConnectHeader[] = [];
    for (const ref of this.additionalHeaders) {
      if (envelope === null) {
        // Tombstones only get the operation, which is a delete.
        if (ref.field === "op") headers.push({ key: ref.newField, schema: Schema.STRING_SCHEMA, value: "d" });
        continue;
      }
      const schema = ref.schema(envelope.schema);
      if (schema !== null) headers.push({ key: ref.newField, schema, value: ref.value(envelope) });
    }
    return headers;
  }

  private addFields(original: R, unwrapped: R): R {
    // Debezium rebuilds an identical Struct when there is nothing to add; skipping that changes nothing.
    if (this.additionalFields.length === 0) return unwrapped;
    const value = requireStruct(unwrapped.value, PURPOSE);
    const envelope = original.value as Struct;
    const op = envelope.schema.field("op") !== null ? String(envelope.getWithoutDefault("op")) : "";
    let cache = this.schemaCache.get(op);
    if (cache === undefined) this.schemaCache.set(op, (cache = new SchemaCache(64)));
    const schema = cache.getOrCompute(value.schema, (s) => {
      const builder = copySchemaBasics(s, SchemaBuilder.struct());
      for (const f of s.fields) builder.field(f.name, f.schema);
      for (const ref of this.additionalFields) {
        const fieldSchema = ref.schema(envelope.schema);
        if (fieldSchema !== null) builder.field(ref.newField, fieldSchema);
      }
      return builder.build();
    });
    const updated = new Struct(schema);
    for (const f of value.schema.fields) updated.put(f.name, value.getWithoutDefault(f.name));
    for (const ref of this.additionalFields)
      if (ref.schema(envelope.schema) !== null) updated.put(ref.newField, ref.value(envelope));
    return newRecord(unwrapped, { valueSchema: schema, value: updated });
  }

  private dropFields(record: R): R {
    const header = record.headers.find((h) => h.key === this.dropFieldsHeaderName);
    if (header === undefined || !Array.isArray(header.value) || header.value.length === 0) return record;
    const names = header.value.map(String);
    let result = record;
    if (this.dropFieldsFromKey && result.key !== null && result.keySchema !== null)
      result = this.exclude(result, "key", this.fieldsToDrop(result.keySchema, names));
    if (result.valueSchema !== null)
      result = this.exclude(result, "value", this.fieldsToDrop(result.valueSchema, names));
    return result;
  }

  private fieldsToDrop(schema: Schema, names: readonly string[]): string[] {
    if (!this.dropFieldsKeepSchemaCompatible) return [...names];
    if (schema.type !== "STRUCT") return [];
    return schema.fields.filter((f) => f.schema.optional && names.includes(f.name)).map((f) => f.name);
  }

  private exclude(record: R, side: "key" | "value", fields: readonly string[]): R {
    if (fields.length === 0) return record;
    const delegate = new ReplaceField<R>(side);
    delegate.configure({ exclude: fields.join(",") });
    return delegate.apply(record);
  }
}
