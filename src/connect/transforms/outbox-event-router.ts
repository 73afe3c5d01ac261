// Debezium's outbox EventRouter (io.debezium.transforms.outbox.EventRouter): each row inserted into an
// outbox table becomes one event on a topic named after a column of the row. The record's key is
// `table.field.event.key` (aggregateid), its value the payload column, alone or, when a column is
// placed in the `envelope`, in a Struct `{payload, <placed columns>}`; an `id` header carries the event
// id and columns placed in a `header` follow it; `partition` placement picks the Kafka partition. The
// topic is `route.by.field`'s value (aggregatetype) rewritten by `route.topic.regex` /
// `route.topic.replacement` (`outbox.event.${routedByValue}`, Java's replacement syntax). The record's
// timestamp is the envelope's ts_ms, or `table.field.event.timestamp`'s value.
//
// As Debezium's: inserts and snapshot reads are routed; deletes (the usual clean-up of an outbox) and
// tombstones are dropped; an update is dropped with a warning or an error in the log, or fails the task
// (`table.op.invalid.behavior` warn | error | fatal); records that are not change events (heartbeats,
// schema changes) pass unchanged. A null or blank payload routes a tombstone when
// `route.tombstone.on.empty.payload` is on.
//
// The value's Struct schema is named `<table's value schema namespace>.<routed value>.Value` and kept
// per payload schema (per `table.field.event.schema.version`'s value when that is set, with that
// version), so it keeps the name of the first event that needed it, as Debezium's cache does.
//
// The tracing.* settings configure Debezium's OpenTelemetry span, which Debezium only opens when
// OpenTelemetry is on Kafka Connect's classpath; Sluice has no tracing, so they are accepted with a
// warning.
import { logger } from "../../platform/log.ts";
import { type Setting, SettingsDefinition } from "../../platform/settings.ts";
import { DataException, type Schema, SchemaBuilder, Struct } from "../api/data/index.ts";
import type { ConnectHeader, ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { OutboxJsonPayload, type JsonEmptyArrayBehavior, type JsonNullBehavior } from "./outbox-json-payload.ts";
import { RegexRouter, regexProblem } from "./regex-router.ts";
import { requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { invalidConfig, parseSettings } from "./transform-settings.ts";

const log = logger("transforms");

type Placement = "header" | "envelope" | "partition";
const PLACEMENTS: readonly string[] = ["header", "envelope", "partition"];
type InvalidOperationBehavior = "warn" | "error" | "fatal";

interface AdditionalField {
  readonly placement: Placement;
  readonly field: string;
  readonly alias: string;
}

/** Debezium's AdditionalFieldsValidator (pairs or trios), and a known placement (Debezium fails on the first record). */
function placementProblem(value: unknown): string | undefined {
  const entries = (value as string[] | undefined) ?? [];
  for (const entry of entries) {
    const parts = entry.split(":");
    if (parts.length !== 2 && parts.length !== 3)
      return `A comma-separated list of valid String pairs or trios is expected but got: [${entries.join(", ")}]`;
    if (!PLACEMENTS.includes(parts[1]!.trim().toLowerCase()))
      return `The placement of ${parts[0]!.trim()} is one of ${PLACEMENTS.join(", ")}, not '${parts[1]!.trim()}'`;
  }
  return undefined;
}

const TRACING_WHY =
  "Sluice opens no OpenTelemetry spans (Debezium opens them only with OpenTelemetry on Kafka Connect's classpath)";

/** A tracing setting: accepted with a warning, and listed with Debezium's type and default as Kafka Connect lists it. */
function tracing(name: string, type: "string" | "boolean", dflt: string | boolean): Setting {
  return {
    name,
    type,
    default: dflt,
    importance: "low",
    doc: TRACING_WHY,
    unsupported: { kind: "ignored", why: TRACING_WHY, listed: true },
  };
}

const DEFINITION = new SettingsDefinition([
  {
    name: "table.field.event.id",
    type: "string",
    default: "id",
    importance: "low",
    doc: "The outbox column holding the event id, sent in the `id` header.",
  },
  {
    name: "table.field.event.key",
    type: "string",
    default: "aggregateid",
    importance: "low",
    doc: "The outbox column holding the event key (the record's key).",
  },
  {
    name: "table.field.event.type",
    type: "string",
    default: "type",
    importance: "low",
    doc: "The outbox column holding the event type. Debezium 3 reads it no more: place it as a header or in the envelope with table.fields.additional.placement.",
  },
  {
    name: "table.field.event.payload",
    type: "string",
    default: "payload",
    importance: "low",
    doc: "The outbox column holding the event payload (the record's value).",
  },
  {
    name: "table.field.event.timestamp",
    type: "string",
    importance: "medium",
    doc: "A column (io.debezium.time.Timestamp, MicroTimestamp or NanoTimestamp) whose value becomes the record's timestamp; by default the change event's ts_ms.",
  },
  {
    name: "table.fields.additional.placement",
    type: "list",
    importance: "high",
    doc: "Further columns to carry, each `column:header`, `column:envelope` or `column:partition`, with an optional `:alias` (the header or field name).",
    validate: placementProblem,
  },
  {
    name: "table.field.additional.missing",
    type: "string",
    default: "error",
    oneOf: ["error", "ignore"],
    importance: "medium",
    doc: "When a column of table.fields.additional.placement is not in the row: error fails the record, ignore leaves it out.",
  },
  {
    name: "table.field.event.schema.version",
    type: "string",
    importance: "low",
    doc: "An int column whose value becomes the version of the value's schema.",
  },
  {
    name: "table.op.invalid.behavior",
    type: "string",
    default: "warn",
    oneOf: ["warn", "error", "fatal"],
    importance: "medium",
    doc: "An update of an outbox row is dropped with a warning (warn) or an error (error) in the log, or fails the task (fatal).",
  },
  {
    name: "table.expand.json.payload",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Parse a JSON text payload into a Struct whose schema is inferred from it; a payload that is not JSON is sent unchanged, with a warning.",
  },
  {
    name: "table.json.payload.null.behavior",
    type: "string",
    default: "ignore",
    oneOf: ["ignore", "optional_bytes"],
    importance: "medium",
    doc: "Expanded JSON: a null member is left out of the schema (ignore) or kept as optional bytes (optional_bytes).",
  },
  {
    name: "table.json.payload.empty.array.behavior",
    type: "string",
    default: "ignore",
    oneOf: ["ignore", "optional_string"],
    importance: "medium",
    doc: "Expanded JSON: an empty array is left out of the schema (ignore) or kept as an optional array of optional strings (optional_string).",
  },
  {
    name: "field.name.adjustment.mode",
    type: "string",
    default: "none",
    importance: "low",
    doc: "How expanded JSON member names are adjusted; Sluice leaves them as they are (none).",
    validate: (v) =>
      String(v).trim().toLowerCase() === "none" ? undefined : "Sluice's EventRouter adjusts no field names: only none",
  },
  {
    name: "route.by.field",
    type: "string",
    default: "aggregatetype",
    importance: "high",
    doc: "The outbox column whose value names the topic (as ${routedByValue} in route.topic.replacement).",
  },
  {
    name: "route.topic.regex",
    type: "string",
    default: "(?<routedByValue>.*)",
    importance: "low",
    doc: "A Java regex matched against the route.by.field value.",
    validate: regexProblem,
  },
  {
    name: "route.topic.replacement",
    type: "string",
    default: "outbox.event.${routedByValue}",
    importance: "high",
    doc: "The topic name, with the groups of route.topic.regex ($1, ${name}).",
  },
  {
    name: "route.tombstone.on.empty.payload",
    type: "boolean",
    default: false,
    importance: "high",
    doc: "A null or blank payload is routed as a tombstone (null value).",
  },
  tracing("tracing.span.context.field", "string", "tracingspancontext"),
  tracing("tracing.operation.name", "string", "debezium-read"),
  tracing("tracing.with.context.field.only", "boolean", false),
]);

const ENVELOPE_PAYLOAD = "payload";
const TIMESTAMP_DIVISORS: Readonly<Record<string, bigint>> = {
  "io.debezium.time.Timestamp": 1n,
  "io.debezium.time.MicroTimestamp": 1_000n,
  "io.debezium.time.NanoTimestamp": 1_000_000n,
};

function parseAdditionalFields(entries: readonly string[]): AdditionalField[] {
  return entries.map((entry) => {
    const parts = entry.split(":");
    const field = parts[0]!.trim();
    return {
      field,
      placement: parts[1]!.trim().toLowerCase() as Placement,
      alias: parts.length === 3 ? parts[2]!.trim() : field,
    };
  });
}

/** Java's String.trim(): every char up to U+0020 at either end. */
const javaTrim = (s: string) => s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");

export class EventRouter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private fieldEventId = "id";
  private fieldEventKey = "aggregateid";
  private fieldPayload = "payload";
  private fieldEventTimestamp: string | null = null;
  private fieldSchemaVersion: string | null = null;
  private routeByField = "aggregatetype";
  private routeTombstoneOnEmptyPayload = false;
  private invalidOperation: InvalidOperationBehavior = "warn";
  private additionalFields: AdditionalField[] = [];
  private ignoreMissingFields = false;
  /** No field goes into an envelope: the value is the payload itself. */
  private onlyHeaders = true;
  private json: OutboxJsonPayload | null = null;
  private readonly router = new RegexRouter<R>();
  private payloadSchemas = new SchemaCache(10_000);
  private readonly versionedSchemas = new Map<number | null, Schema>();

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(DEFINITION, config);
    this.fieldEventId = s.string("table.field.event.id");
    this.fieldEventKey = s.string("table.field.event.key");
    this.fieldPayload = s.string("table.field.event.payload");
    this.fieldEventTimestamp = s.optionalString("table.field.event.timestamp") ?? null;
    this.fieldSchemaVersion = s.optionalString("table.field.event.schema.version") ?? null;
    this.routeByField = s.string("route.by.field");
    this.routeTombstoneOnEmptyPayload = s.boolean("route.tombstone.on.empty.payload");
    this.invalidOperation = s.string("table.op.invalid.behavior").toLowerCase() as InvalidOperationBehavior;
    this.additionalFields = parseAdditionalFields(s.list("table.fields.additional.placement"));
    this.ignoreMissingFields = s.string("table.field.additional.missing").toLowerCase() === "ignore";
    this.onlyHeaders = !this.additionalFields.some((f) => f.placement === "envelope");
    this.json = s.boolean("table.expand.json.payload")
      ? new OutboxJsonPayload(
          s.string("table.json.payload.null.behavior").toLowerCase() as JsonNullBehavior,
          s.string("table.json.payload.empty.array.behavior").toLowerCase() as JsonEmptyArrayBehavior,
        )
      : null;
    const replacement = s.string("route.topic.replacement");
    try {
      this.router.configure({ regex: s.string("route.topic.regex"), replacement });
    } catch (e) {
      throw invalidConfig("route.topic.replacement", replacement, (e as Error).message.replace(/^.*?: /, ""));
    }
    this.payloadSchemas = new SchemaCache(10_000);
    this.versionedSchemas.clear();
  }

  apply(record: R): R | null | Promise<R | null> {
    if (record.value === null || record.value === undefined) return null; // tombstones
    if (!(record.valueSchema?.name?.endsWith(".Envelope") ?? false)) return record;
    const envelope = requireStruct(record.value, "Detect Debezium Operation");
    const op = envelope.getString("op");
    if (op === "d") return null;
    if (op === "u") {
      this.unexpectedUpdate(record);
      return null;
    }
    const afterField = envelope.schema.field("after");
    if (afterField === null) throw new DataException("after is not a valid field name");
    const event = requireStruct(envelope.get(afterField), "Read Outbox Event");
    const eventSchema = afterField.schema;

    const payloadField = eventSchema.field(this.fieldPayload);
    if (payloadField === null) throw new DataException(`Unable to find payload field ${this.fieldPayload} in event`);
    let payloadSchema = payloadField.schema;
    const timestamp = this.timestampOf(envelope, event);
    const eventId = event.get(this.fieldEventId);
    let payload = event.get(this.fieldPayload);
    const eventIdField = eventSchema.field(this.fieldEventId);
    if (eventIdField === null) throw new DataException(`Unable to find event-id field ${this.fieldEventId} in event`);
    const headers: ConnectHeader[] = [...record.headers, { key: "id", schema: eventIdField.schema, value: eventId }];

    if (this.json !== null) {
      if (typeof payload === "string") {
        try {
          const document = OutboxJsonPayload.parse(payload);
          // As Debezium's: the schema is replaced first, so a value that then fails to fit it is sent
          // with the new schema and fails the record further on.
          payloadSchema = this.json.schemaOf(this.fieldPayload, document) as Schema;
          payload = this.json.valueOf(document, payloadSchema);
        } catch (e) {
          log.warn({ err: e }, "JSON expansion failed");
        }
      } else if (payload !== null) log.warn("Expand JSON payload is turned on but payload is not a string");
    }

    const routedBy = event.getString(this.routeByField);
    const valueSchema = this.onlyHeaders ? null : this.valueSchema(payloadSchema, eventSchema, event, routedBy);
    const value = valueSchema === null ? null : new Struct(valueSchema).put(ENVELOPE_PAYLOAD, payload);
    let partition: number | null = null;
    for (const f of this.additionalFields) {
      if (this.ignoreMissingFields && eventSchema.field(f.field) === null) continue;
      if (f.placement === "envelope") value!.put(f.alias, event.get(f.field));
      else if (f.placement === "header") {
        const fieldValue = event.get(f.field);
        headers.push({ key: f.alias, schema: eventSchema.field(f.field)!.schema, value: fieldValue });
      } else partition = event.getInt32(f.field);
    }

    const empty =
      payload === null || payload === undefined || (typeof payload === "string" && javaTrim(payload) === "");
    const [outSchema, outValue] =
      empty && this.routeTombstoneOnEmptyPayload
        ? [null, null]
        : this.onlyHeaders
          ? [payloadSchema, payload]
          : [valueSchema, value];
    if (routedBy === null) throw new DataException(`The ${this.routeByField} value is null: no topic to route to`);
    const keyField = eventSchema.field(this.fieldEventKey);
    const routed = newRecord(record, {
      topic: routedBy,
      kafkaPartition: partition,
      keySchema: keyField === null ? SchemaBuilder.string().build() : keyField.schema,
      key: event.get(this.fieldEventKey),
      valueSchema: outSchema,
      value: outValue,
      timestamp,
      headers,
    });
    return this.router.apply(routed);
  }

  private unexpectedUpdate(record: R): void {
    const key = String(record.key);
    switch (this.invalidOperation) {
      case "warn":
        log.warn(`Unexpected update message received ${key} and ignored`);
        return;
      case "error":
        log.error(`Unexpected update message received ${key} and ignored`);
        return;
      case "fatal":
        throw new DataException(`Unexpected update message received ${key}, fail.`);
    }
  }

  private timestampOf(envelope: Struct, event: Struct): number | null {
    const fromEnvelope = () => {
      const ts = envelope.getInt64("ts_ms");
      return ts === null ? null : Number(ts);
    };
    if (this.fieldEventTimestamp === null) return fromEnvelope();
    const field = event.schema.field(this.fieldEventTimestamp);
    if (field === null) throw new DataException(`Unable to find timestamp field ${this.fieldEventTimestamp} in event`);
    const value = event.getInt64(this.fieldEventTimestamp);
    if (value === null) return fromEnvelope();
    const name = field.schema.name;
    if (name === null)
      throw new DataException(
        `Unsupported field type ${field.schema.type} (without logical schema name) for event timestamp`,
      );
    const divisor = TIMESTAMP_DIVISORS[name];
    if (divisor === undefined) throw new DataException(`Unsupported field type ${name} for event timestamp`);
    return Number(value / divisor);
  }

  private valueSchema(payloadSchema: Schema, eventSchema: Schema, event: Struct, routedBy: string | null): Schema {
    if (this.fieldSchemaVersion === null)
      return this.payloadSchemas.getOrCompute(payloadSchema, () =>
        this.schemaBuilder(payloadSchema, eventSchema, routedBy).build(),
      );
    const version = event.getInt32(this.fieldSchemaVersion);
    let schema = this.versionedSchemas.get(version);
    if (schema === undefined) {
      const builder = this.schemaBuilder(payloadSchema, eventSchema, routedBy);
      if (version !== null) builder.version(version);
      schema = builder.build();
      this.versionedSchemas.set(version, schema);
    }
    return schema;
  }

  private schemaBuilder(payloadSchema: Schema, eventSchema: Schema, routedBy: string | null): SchemaBuilder {
    const builder = SchemaBuilder.struct().name(schemaName(eventSchema, String(routedBy)));
    builder.field(ENVELOPE_PAYLOAD, payloadSchema);
    for (const f of this.additionalFields) {
      if (f.placement !== "envelope") continue;
      const field = eventSchema.field(f.field);
      if (field === null) {
        if (!this.ignoreMissingFields) throw new DataException(`Unable to find field ${f.field} in event`);
        continue;
      }
      builder.field(f.alias, field.schema);
    }
    return builder;
  }
}

/** `ns.table.Value` routed by `order` is named `ns.table.order.Value`. */
function schemaName(eventSchema: Schema, routedBy: string): string {
  const original = eventSchema.name;
  if (original === null) return routedBy;
  const lastDot = original.lastIndexOf(".");
  return lastDot === -1
    ? `${routedBy}.${original}`
    : `${original.slice(0, lastDot + 1)}${routedBy}.${original.slice(lastDot + 1)}`;
}
