// Debezium's transforms in Sluice against the real ones: the same PostgreSQL CDC connector config, with
// Debezium's outbox EventRouter and ByLogicalTableRouter in its transform chain, runs in Apache Kafka
// Connect 4.1.1 (Debezium 3.7's jars, its transforms included) and in a Sluice worker, on the same
// tables; the routed topics are compared record by record: keys, values (schema and payload) and
// headers, tombstones included.
// One connector per side captures three outbox tables and two shards; TopicNameMatches predicates give
// each outbox table its own EventRouter:
// - outbox_plain: EventRouter with every setting at its default (snapshot read, inserts of two
//   aggregate types, an update and a delete that are dropped, a NULL payload);
// - outbox_rich: a column placed in a header and in the envelope (with an alias), the type in a header,
//   the value schema's version from a column,
//   table.expand.json.payload=true (nested objects, arrays, int/long/double, null members, empty
//   arrays, and a payload that is not a JSON object, sent as it is);
// - outbox_typed: route.by.field=type, a replacement with the named group, route.tombstone.on.empty.payload,
//   the record timestamp from a column (checked on the records as fetched);
// - shard_1 and shard_2: ByLogicalTableRouter into one `shards` topic (same ids in both: the key's
//   physical-table field keeps them apart), inserts, an update, a delete and its tombstone;
// - part_1 and part_2: ToLogicalTopicRouter (3.x's name) with key.field.name, key.field.regex /
//   key.field.replacement and schema.name.adjustment.mode=avro (the topic `all-parts` is not an Avro name).
// Routed outbox topics are prefixed with each side's name by a last RegexRouter (both write to one
// broker). What differs by nature is normalized: each side's name (<prefix>) and the runId header.
// SLUICE_DUMP_DIR=<dir> writes both sides' records there as JSON, to look into a difference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  differences,
  type Event,
  type Json,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
  UUID_V7,
  withoutPrefix,
} from "../fixtures/cdc-side-by-side.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";

const LABEL = "smt";
const OUTBOX_COLUMNS =
  "id uuid PRIMARY KEY, aggregatetype varchar(255) NOT NULL, aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload jsonb, tenant text, schemaversion int, occurred timestamp(6)";
/** When row n's event occurred (its timestamp(6) column, read by Debezium as a MicroTimestamp). */
const occurred = (n: number) =>
  new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 123) + n * 1000).toISOString().replace("Z", "456");
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const outboxRow = (n: number, aggregatetype: string, aggregateid: string, type: string, payload: string | null) =>
  `('${uuid(n)}', '${aggregatetype}', '${aggregateid}', '${type}', ${payload === null ? "NULL" : `'${payload}'`}, 'tenant-${n}', ${n}, '${occurred(n)}')`;

const RICH_PAYLOAD = JSON.stringify({
  customer: { id: 7, name: "Ann", tags: ["a", "b"], address: { city: "Oslo", zip: null } },
  lines: [
    { sku: "x", qty: 2 },
    { sku: "y", qty: 1 },
  ],
  total: 24.98,
  big: 5000000000,
  none: null,
  empty: [],
  paid: false,
  "10": "an integer-like name",
});

/** The connector's transform chain on `side`: the same but for the last router's side prefix. */
function chain(side: Side): Record<string, string> {
  const matches = (table: string) => ({
    [`predicates.${table}.type`]: "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    [`predicates.${table}.pattern`]: `.*\\.public\\.${table}`,
  });
  return {
    "table.include.list":
      "public.outbox_plain,public.outbox_rich,public.outbox_typed,public.shard_1,public.shard_2,public.part_1,public.part_2",
    transforms: "plain,rich,typed,shards,parts,side",
    predicates: "outbox_plain,outbox_rich,outbox_typed",
    ...matches("outbox_plain"),
    ...matches("outbox_rich"),
    ...matches("outbox_typed"),
    "transforms.plain.type": "io.debezium.transforms.outbox.EventRouter",
    "transforms.plain.predicate": "outbox_plain",
    "transforms.rich.type": "io.debezium.transforms.outbox.EventRouter",
    "transforms.rich.predicate": "outbox_rich",
    "transforms.rich.table.fields.additional.placement":
      "tenant:header,tenant:envelope:tenant_id,type:header:eventType",
    "transforms.rich.table.expand.json.payload": "true",
    "transforms.rich.table.field.event.schema.version": "schemaversion",
    "transforms.typed.type": "io.debezium.transforms.outbox.EventRouter",
    "transforms.typed.predicate": "outbox_typed",
    "transforms.typed.route.by.field": "type",
    "transforms.typed.route.topic.regex": "Invoice(?<routedByValue>.*)",
    "transforms.typed.route.topic.replacement": "events.invoice.${routedByValue}",
    "transforms.typed.route.tombstone.on.empty.payload": "true",
    "transforms.typed.table.fields.additional.placement": "aggregatetype:header",
    "transforms.typed.table.field.event.timestamp": "occurred",
    "transforms.shards.type": "io.debezium.transforms.ByLogicalTableRouter",
    "transforms.shards.topic.regex": "(.*)\\.public\\.shard_(.*)",
    "transforms.shards.topic.replacement": "$1.public.shards",
    "transforms.parts.type": "io.debezium.transforms.ToLogicalTopicRouter",
    "transforms.parts.topic.regex": "(.*)\\.public\\.part_(.*)",
    "transforms.parts.topic.replacement": "$1.public.all-parts",
    "transforms.parts.key.field.name": "part",
    "transforms.parts.key.field.regex": ".*_(\\d+)",
    "transforms.parts.key.field.replacement": "part-$1",
    "transforms.parts.schema.name.adjustment.mode": "avro",
    "transforms.side.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.side.regex": "((outbox|events)\\..*)",
    "transforms.side.replacement": `${sideName(side, LABEL)}.$1`,
  };
}

/** Each routed topic (without the side's name) and the number of records it gets: after the snapshot, and in all. */
const TOPICS: Record<string, { snapshot: number; all: number }> = {
  "outbox.event.order": { snapshot: 1, all: 3 },
  "outbox.event.customer": { snapshot: 0, all: 1 },
  "outbox.event.invoice": { snapshot: 1, all: 3 },
  "events.invoice.Issued": { snapshot: 1, all: 1 },
  "events.invoice.Paid": { snapshot: 0, all: 2 },
  "events.invoice.Voided": { snapshot: 0, all: 1 },
  "public.shards": { snapshot: 2, all: 7 },
  "public.all-parts": { snapshot: 2, all: 4 },
};

const CHANGES = [
  `INSERT INTO outbox_plain VALUES ${outboxRow(2, "order", "o-2", "OrderCreated", '{"n": 2}')}`,
  `INSERT INTO outbox_plain VALUES ${outboxRow(3, "customer", "c-1", "CustomerCreated", '{"name": "Ann"}')}`,
  // An update and a delete of an outbox row are dropped (the update with a warning).
  `UPDATE outbox_plain SET payload = '{"n": 20}' WHERE id = '${uuid(2)}'`,
  `DELETE FROM outbox_plain WHERE id = '${uuid(2)}'`,
  `INSERT INTO outbox_plain VALUES ${outboxRow(4, "order", "o-4", "OrderCancelled", null)}`,
  `INSERT INTO outbox_rich VALUES ${outboxRow(12, "invoice", "i-2", "InvoiceIssued", RICH_PAYLOAD)}`,
  `INSERT INTO outbox_rich VALUES ${outboxRow(13, "invoice", "i-3", "InvoiceNoted", '"only a text"')}`,
  `INSERT INTO outbox_typed VALUES ${outboxRow(22, "invoice", "i-2", "InvoicePaid", '{"amount": 10}')}`,
  `INSERT INTO outbox_typed VALUES ${outboxRow(23, "invoice", "i-2", "InvoicePaid", null)}`,
  `INSERT INTO outbox_typed VALUES ${outboxRow(24, "invoice", "i-3", "InvoiceVoided", '{"why": "typo"}')}`,
  "INSERT INTO shard_1 VALUES (2, 'one-two')",
  "INSERT INTO shard_2 VALUES (2, 'two-two')",
  "UPDATE shard_1 SET name = 'one-one!' WHERE id = 1",
  "DELETE FROM shard_2 WHERE id = 1",
  "INSERT INTO part_1 VALUES (2, 'one-two')",
  "UPDATE part_2 SET name = 'two-one!' WHERE id = 1",
];

function normalize(event: Event, side: Side): Event {
  const e = withoutPrefix(event, sideName(side, LABEL));
  expect(e.headers["__debezium.context.runId"], `${side} runId header`).toMatch(UUID_V7);
  e.headers["__debezium.context.runId"] = "<runId>";
  const payload = (e.value as Json | null)?.payload;
  // The shards' envelopes: times and the source block are compared by the connector's own test.
  if (payload?.source) {
    payload.ts_ms = payload.ts_us = payload.ts_ns = "<time>";
    payload.source = "<source>";
  }
  return e;
}

describe(`Debezium ${DEBEZIUM_VERSION}'s outbox EventRouter and ByLogicalTableRouter: Sluice's route the same records`, () => {
  let sides: SideBySide;
  const topic = (side: Side, name: string) => `${sideName(side, LABEL)}.${name}`;
  const countAtLeast = (side: Side, name: string, n: number) =>
    sides.eventsUntil(topic(side, name), `${n} records`, (all) => all.length >= n);

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare(pg) {
        for (const table of ["outbox_plain", "outbox_rich", "outbox_typed"])
          pg.psql(`CREATE TABLE ${table} (${OUTBOX_COLUMNS})`);
        pg.psql(`INSERT INTO outbox_plain VALUES ${outboxRow(1, "order", "o-1", "OrderCreated", '{"n": 1}')}`);
        pg.psql(
          `INSERT INTO outbox_rich VALUES ${outboxRow(11, "invoice", "i-1", "InvoiceIssued", '{"total": 1, "lines": []}')}`,
        );
        pg.psql(`INSERT INTO outbox_typed VALUES ${outboxRow(21, "invoice", "i-1", "InvoiceIssued", '{"amount": 1}')}`);
        for (const table of ["shard_1", "shard_2", "part_1", "part_2"]) {
          pg.psql(`CREATE TABLE ${table} (id int PRIMARY KEY, name text)`);
          pg.psql(`INSERT INTO ${table} VALUES (1, '${table} row 1')`);
        }
      },
    });
  }, 240_000);
  afterAll(() => sides?.stop(), 60_000);

  test("the transforms' config definitions list Debezium's settings with Debezium's types and defaults", async () => {
    // Settings Debezium reads but leaves out of its ConfigDef, which Sluice lists.
    const unlisted: Record<string, string[]> = {
      "io.debezium.transforms.outbox.EventRouter": ["field.name.adjustment.mode"],
      "io.debezium.transforms.ByLogicalTableRouter": [
        "key.field.name",
        "schema.name.adjustment.mode",
        "logical.table.cache.size",
      ],
      "io.debezium.transforms.ToLogicalTopicRouter": ["key.field.name", "schema.name.adjustment.mode"],
    };
    for (const [plugin, extra] of Object.entries(unlisted)) {
      const [debezium, sluice] = await Promise.all(
        SIDES.map(async (side) => {
          const got = await sides.api(side).get(`/connector-plugins/${plugin}/config`);
          expect(got.status, `${side} ${plugin}`).toBe(200);
          return (got.body as { name: string; type: string; default_value: string | null; required: boolean }[]).map(
            (k) => `${k.name} ${k.type} ${k.required ? "required" : `default=${k.default_value}`}`,
          );
        }),
      );
      expect(sluice!.filter((k) => !extra.includes(k.split(" ")[0]!))).toEqual(debezium!);
      expect(sluice!.filter((k) => extra.includes(k.split(" ")[0]!)).length).toBe(extra.length);
    }
  });

  test("the routed topics hold the same records", async () => {
    for (const side of SIDES) {
      const created = await sides.api(side).post("/connectors", {
        name: sideName(side, LABEL),
        config: sides.connectorConfig(side, LABEL, chain(side)),
      });
      expect(created.status, `${side}: ${JSON.stringify(created.body)}`).toBe(201);
    }
    // Once every snapshot record is routed, the slot exists and streaming will see every change.
    for (const side of SIDES)
      for (const [name, { snapshot }] of Object.entries(TOPICS))
        if (snapshot > 0) await countAtLeast(side, name, snapshot);
    for (const change of CHANGES) sides.pg.psql(change);

    const report: string[] = [];
    const all: Record<string, Record<Side, Event[]>> = {};
    for (const [name, { all: n }] of Object.entries(TOPICS)) {
      const [debezium, sluice] = await Promise.all(SIDES.map((side) => countAtLeast(side, name, n)));
      await sides.dump(`debezium-${name}`, debezium!);
      await sides.dump(`sluice-${name}`, sluice!);
      all[name] = { debezium: debezium!, sluice: sluice! };
      expect([name, debezium!.length, sluice!.length]).toEqual([name, n, n]);
      for (let i = 0; i < n; i++)
        report.push(
          ...differences(normalize(debezium![i]!, "debezium"), normalize(sluice![i]!, "sluice")).map(
            (d) => `${name} record ${i}${d}`,
          ),
        );
    }
    expect(report).toEqual([]);

    // What the records are (the same on both sides, by the comparison above).
    const ours = (name: string) => all[name]!.sluice.map((e) => normalize(e, "sluice"));
    const [snapshotOrder, streamedOrder, nullPayload] = ours("outbox.event.order");
    expect(snapshotOrder!.key).toEqual({ schema: { type: "string", optional: false }, payload: "o-1" });
    expect(snapshotOrder!.headers.id).toBe(uuid(1));
    expect(snapshotOrder!.value).toEqual({
      schema: { type: "string", optional: true, name: "io.debezium.data.Json", version: { number: "1" } },
      payload: '{"n": 1}',
    });
    expect(streamedOrder!.headers.id).toBe(uuid(2));
    expect((nullPayload!.value as Json).payload).toBeNull();
    const [, expanded, text] = ours("outbox.event.invoice");
    expect(expanded!.headers).toMatchObject({ id: uuid(12), tenant: "tenant-12", eventType: "InvoiceIssued" });
    const value = expanded!.value as Json;
    expect(value.schema.name).toBe("<prefix>.public.outbox_rich.invoice.Value");
    expect(value.schema.version).toEqual({ number: "12" });
    expect(Object.keys(value.payload)).toEqual(["payload", "tenant_id"]);
    expect(value.payload.payload.customer.address).toEqual({ city: "Oslo" });
    expect(value.payload.payload.big).toEqual({ number: "5000000000" });
    expect((text!.value as Json).payload.payload).toBe('"only a text"');
    // The typed events' Kafka timestamps are their rows' `occurred`, in milliseconds.
    for (const side of SIDES) {
      const fetched = await sides.worker.connect.broker.fetch(topic(side, "events.invoice.Paid"), 0, 0);
      expect([side, fetched.map((r) => r.timestamp)]).toEqual([
        side,
        [22, 23].map((n) => Date.parse(occurred(n).slice(0, 23) + "Z")),
      ]);
    }
    const [paid, tombstone] = ours("events.invoice.Paid");
    expect(paid!.headers.aggregatetype).toBe("invoice");
    expect(tombstone!.value).toBeNull();
    const shards = ours("public.shards");
    expect(shards.map((e) => (e.key as Json).payload)).toEqual([
      { id: { number: "1" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_1" },
      { id: { number: "1" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_2" },
      { id: { number: "2" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_1" },
      { id: { number: "2" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_2" },
      { id: { number: "1" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_1" },
      { id: { number: "1" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_2" },
      { id: { number: "1" }, __dbz__physicalTableIdentifier: "<prefix>.public.shard_2" },
    ]);
    expect((shards[0]!.value as Json).schema.name).toBe("<prefix>.public.shards.Envelope");
    expect(shards[6]!.value).toBeNull();
    const parts = ours("public.all-parts");
    expect((parts[0]!.key as Json).schema.name).toBe("<prefix>.public.all_parts.Key");
    expect(parts.map((e) => (e.key as Json).payload.part)).toEqual(["part-1", "part-2", "part-1", "part-2"]);
  }, 300_000);
});
