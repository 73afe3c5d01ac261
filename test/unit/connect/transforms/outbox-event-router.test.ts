import { describe, expect, test } from "bun:test";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import type { SourceRecord } from "#src/connect/api/records.ts";
import { EventRouter } from "#src/connect/transforms/index.ts";
import { BUILTIN_TRANSFORMS } from "#src/connect/transforms/registry.ts";
import { validateTransforms } from "#src/connect/transforms/chain.ts";
import { configured, source } from "./helpers.ts";

// A Debezium PostgreSQL change event of an outbox table public.outbox, topic prefix `server`.
const UUID = SchemaBuilder.string().name("io.debezium.data.Uuid").version(1).build();
const JSON_TEXT = SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build();
const KEY = SchemaBuilder.struct().name("server.public.outbox.Key").field("id", UUID).build();
const ROW = SchemaBuilder.struct()
  .name("server.public.outbox.Value")
  .optional()
  .field("id", UUID)
  .field("aggregatetype", Schema.STRING_SCHEMA)
  .field("aggregateid", Schema.STRING_SCHEMA)
  .field("type", Schema.STRING_SCHEMA)
  .field("payload", JSON_TEXT)
  .field("tenant", Schema.OPTIONAL_STRING_SCHEMA)
  .field("shard", Schema.OPTIONAL_INT32_SCHEMA)
  .field("version", Schema.OPTIONAL_INT32_SCHEMA)
  .field("created", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).optional().build())
  .build();
const ENVELOPE = SchemaBuilder.struct()
  .name("server.public.outbox.Envelope")
  .version(2)
  .field("before", ROW)
  .field("after", ROW)
  .field("op", Schema.STRING_SCHEMA)
  .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
  .build();

const ID = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
function row(payload: string | null, aggregatetype = "order"): Struct {
  return new Struct(ROW)
    .put("id", ID)
    .put("aggregatetype", aggregatetype)
    .put("aggregateid", "42")
    .put("type", "OrderCreated")
    .put("payload", payload)
    .put("tenant", "acme")
    .put("shard", 3)
    .put("version", 7)
    .put("created", 1_700_000_000_123_456n);
}
function event(op: string, before: Struct | null, after: Struct | null): SourceRecord {
  return source({
    topic: "server.public.outbox",
    keySchema: KEY,
    key: new Struct(KEY).put("id", ID),
    valueSchema: ENVELOPE,
    value: new Struct(ENVELOPE)
      .put("before", before)
      .put("after", after)
      .put("op", op)
      .put("ts_ms", 1_700_000_000_500n),
    headers: [{ key: "__debezium.context.connectorName", schema: Schema.STRING_SCHEMA, value: "server" }],
  });
}

const router = (config: Record<string, string> = {}) => configured(new EventRouter(), config);
const PAYLOAD = '{"customer": "c1", "lines": [{"sku": "x", "qty": 2}], "total": 12.5}';

describe("EventRouter", () => {
  test("is registered by Debezium's class name", () => {
    expect(BUILTIN_TRANSFORMS["io.debezium.transforms.outbox.EventRouter"]!()).toBeInstanceOf(EventRouter);
  });

  test("defaults: an insert becomes the payload on outbox.event.<aggregatetype>, keyed by aggregateid, with the id header", async () => {
    const out = (await router().apply(event("c", null, row(PAYLOAD))))!;
    expect(out.topic).toBe("outbox.event.order");
    expect(out.keySchema).toBe(Schema.STRING_SCHEMA);
    expect(out.key).toBe("42");
    expect(out.valueSchema).toBe(JSON_TEXT);
    expect(out.value).toBe(PAYLOAD);
    expect(out.timestamp).toBe(1_700_000_000_500);
    expect(out.kafkaPartition).toBeNull();
    expect(out.headers.map((h) => [h.key, h.value])).toEqual([
      ["__debezium.context.connectorName", "server"],
      ["id", ID],
    ]);
    expect(out.headers[1]!.schema).toBe(UUID);
  });

  test("snapshot reads are routed like inserts; deletes and tombstones are dropped; other records pass", async () => {
    const t = router();
    expect((await t.apply(event("r", null, row(PAYLOAD))))!.topic).toBe("outbox.event.order");
    expect(await t.apply(event("d", row(PAYLOAD), null))).toBeNull();
    expect(await t.apply(source({ topic: "x", keySchema: KEY, key: null, value: null }))).toBeNull();
    const heartbeat = source({
      topic: "__debezium-heartbeat.server",
      valueSchema: SchemaBuilder.struct()
        .name("io.debezium.connector.common.Heartbeat")
        .field("ts_ms", Schema.INT64_SCHEMA)
        .build(),
      value: null,
    });
    const hb = { ...heartbeat, value: new Struct(heartbeat.valueSchema!).put("ts_ms", 1n) };
    expect(await t.apply(hb)).toBe(hb);
  });

  test("updates are dropped (warn, error) or fail the task (fatal)", async () => {
    expect(await router().apply(event("u", row(PAYLOAD), row(PAYLOAD)))).toBeNull();
    expect(
      await router({ "table.op.invalid.behavior": "error" }).apply(event("u", row(PAYLOAD), row(PAYLOAD))),
    ).toBeNull();
    expect(() =>
      router({ "table.op.invalid.behavior": "fatal" }).apply(event("u", row(PAYLOAD), row(PAYLOAD))),
    ).toThrow("Unexpected update message received");
  });

  test("additional placement: envelope fields make a Struct value named after the route, headers follow id, partition picks it", async () => {
    const t = router({
      "table.fields.additional.placement": "type:header:eventType,tenant:envelope,type:envelope:kind,shard:partition",
    });
    const out = (await t.apply(event("c", null, row(PAYLOAD))))!;
    expect(out.valueSchema!.name).toBe("server.public.outbox.order.Value");
    expect(out.valueSchema!.fields.map((f) => [f.name, f.schema])).toEqual([
      ["payload", JSON_TEXT],
      ["tenant", Schema.OPTIONAL_STRING_SCHEMA],
      ["kind", Schema.STRING_SCHEMA],
    ]);
    const value = out.value as Struct;
    expect([value.get("payload"), value.get("tenant"), value.get("kind")]).toEqual([PAYLOAD, "acme", "OrderCreated"]);
    expect(out.headers.slice(1).map((h) => [h.key, h.value])).toEqual([
      ["id", ID],
      ["eventType", "OrderCreated"],
    ]);
    expect(out.kafkaPartition).toBe(3);
    // The value schema is kept per payload schema: the first route names it.
    const other = (await t.apply(event("c", null, row(PAYLOAD, "invoice"))))!;
    expect([other.topic, other.valueSchema!.name]).toEqual([
      "outbox.event.invoice",
      "server.public.outbox.order.Value",
    ]);
  });

  test("a missing additional column fails the record, or is left out with table.field.additional.missing=ignore", async () => {
    expect(() =>
      router({ "table.fields.additional.placement": "nope:envelope" }).apply(event("c", null, row(PAYLOAD))),
    ).toThrow("Unable to find field nope in event");
    const out = (await router({
      "table.fields.additional.placement": "nope:envelope,nope:header,tenant:envelope",
      "table.field.additional.missing": "ignore",
    }).apply(event("c", null, row(PAYLOAD))))!;
    expect(out.valueSchema!.fields.map((f) => f.name)).toEqual(["payload", "tenant"]);
    expect(out.headers.map((h) => h.key)).not.toContain("nope");
  });

  test("route.by.field, route.topic.regex and route.topic.replacement name the topic", async () => {
    const out = (await router({
      "route.by.field": "type",
      "route.topic.regex": "(?<kind>[A-Z][a-z]+)(.*)",
      "route.topic.replacement": "events.${kind}.$2",
    }).apply(event("c", null, row(PAYLOAD))))!;
    expect(out.topic).toBe("events.Order.Created");
    // A value the regex does not match names the topic as it is.
    const plain = (await router({ "route.topic.regex": "x(.*)", "route.topic.replacement": "y$1" }).apply(
      event("c", null, row(PAYLOAD)),
    ))!;
    expect(plain.topic).toBe("order");
  });

  test("table.field.event.key and the timestamp column", async () => {
    const out = (await router({ "table.field.event.key": "shard", "table.field.event.timestamp": "created" }).apply(
      event("c", null, row(PAYLOAD)),
    ))!;
    expect([out.keySchema, out.key]).toEqual([Schema.OPTIONAL_INT32_SCHEMA, 3]);
    expect(out.timestamp).toBe(1_700_000_000_123);
    expect(() => router({ "table.field.event.timestamp": "tenant" }).apply(event("c", null, row(PAYLOAD)))).toThrow(
      "Field 'tenant' is not of type INT64",
    );
  });

  test("an empty payload routes a tombstone only with route.tombstone.on.empty.payload", async () => {
    const kept = (await router().apply(event("c", null, row(null))))!;
    expect([kept.valueSchema, kept.value]).toEqual([JSON_TEXT, null]);
    const tomb = (await router({ "route.tombstone.on.empty.payload": "true" }).apply(event("c", null, row(" "))))!;
    expect([tomb.valueSchema, tomb.value, tomb.key]).toEqual([null, null, "42"]);
  });

  test("table.field.event.schema.version versions the value schema", async () => {
    const out = (await router({
      "table.field.event.schema.version": "version",
      "table.fields.additional.placement": "type:envelope",
    }).apply(event("c", null, row(PAYLOAD))))!;
    expect(out.valueSchema!.version).toBe(7);
  });

  test("table.expand.json.payload: the JSON text becomes a Struct with an inferred schema", async () => {
    const out = (await router({ "table.expand.json.payload": "true" }).apply(event("c", null, row(PAYLOAD))))!;
    const schema = out.valueSchema!;
    expect(schema.name).toBe("payload");
    expect(schema.fields.map((f) => [f.name, f.schema.type])).toEqual([
      ["customer", "STRING"],
      ["lines", "ARRAY"],
      ["total", "FLOAT64"],
    ]);
    expect(schema.field("lines")!.schema.valueSchema!.name).toBe("payload.lines");
    const value = out.value as Struct;
    expect(value.get("customer")).toBe("c1");
    expect(value.get("total")).toBe(12.5);
    expect(((value.get("lines") as Struct[])[0] as Struct).get("qty")).toBe(2);
    // A schema that cannot be inferred (a mixed array) leaves the text as it is; a value that does not fit
    // the inferred schema (an integer beyond 64 bits) fails the record, as in Debezium, where the schema
    // is replaced before the value is made.
    const mixed = (await router({ "table.expand.json.payload": "true" }).apply(
      event("c", null, row('{"m": [1, "x"]}')),
    ))!;
    expect([mixed.valueSchema, mixed.value]).toEqual([JSON_TEXT, '{"m": [1, "x"]}']);
    expect(() =>
      router({ "table.expand.json.payload": "true", "table.fields.additional.placement": "type:envelope" }).apply(
        event("c", null, row('{"n": 123456789012345678901234567890}')),
      ),
    ).toThrow();
    // Not JSON: sent unchanged.
    const text = (await router({ "table.expand.json.payload": "true" }).apply(event("c", null, row("plain"))))!;
    expect([text.valueSchema, text.value]).toEqual([JSON_TEXT, "plain"]);
  });

  test("settings are checked: placements, regexes, behaviours; tracing.* is accepted with a warning", () => {
    const check = (settings: Record<string, string>) =>
      Object.keys(
        validateTransforms({
          transforms: "o",
          "transforms.o.type": "io.debezium.transforms.outbox.EventRouter",
          ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`transforms.o.${k}`, v])),
        }),
      );
    expect(check({})).toEqual([]);
    expect(check({ "table.fields.additional.placement": "a" })).toEqual([
      "transforms.o.table.fields.additional.placement",
    ]);
    expect(check({ "table.fields.additional.placement": "a:body" })).toEqual([
      "transforms.o.table.fields.additional.placement",
    ]);
    expect(check({ "route.topic.regex": "(" })).toEqual(["transforms.o.route.topic.regex"]);
    expect(check({ "table.op.invalid.behavior": "explode" })).toEqual(["transforms.o.table.op.invalid.behavior"]);
    expect(check({ "field.name.adjustment.mode": "avro" })).toEqual(["transforms.o.field.name.adjustment.mode"]);
    const def = new EventRouter().config();
    expect(def.unsupportedIn({ "tracing.operation.name": "x" }).ignored.map((u) => u.name)).toEqual([
      "tracing.operation.name",
    ]);
  });
});
