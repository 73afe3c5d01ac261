// A `_schemas` topic written by Confluent Schema Registry (and Karapace's key style) is served as-is,
// and what Sluice writes uses Confluent's exact key bytes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { encoder, decoder } from "#src/broker/broker.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { client, startTestRegistry, type TestRegistry } from "../../fixtures/registry.ts";

const topic = `_schemas_confluent_${Date.now()}`;
const rec = (key: object, value: object | null) => ({
  key: encoder.encode(JSON.stringify(key)),
  value: value === null ? null : encoder.encode(JSON.stringify(value)),
  partition: 0,
});

describe("a _schemas topic written by Confluent Schema Registry", () => {
  let broker: KafkaBroker;
  let sr: TestRegistry;

  beforeAll(async () => {
    broker = new KafkaBroker({ bootstrapServers: [(await sharedKafka()).bootstrap] });
    await broker.connect();
    await broker.createTopic({
      name: topic,
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    const v1 = '{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"long"}]}';
    const v2 =
      '{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"long"},{"name":"note","type":["null","string"],"default":null}]}';
    await broker.produce(topic, [
      rec({ keytype: "NOOP", magic: 0 }, null),
      rec(
        { keytype: "SCHEMA", subject: "orders-value", version: 1, magic: 1 },
        { subject: "orders-value", version: 1, id: 21, schema: v1, deleted: false },
      ),
      rec(
        { keytype: "SCHEMA", subject: "orders-value", version: 2, magic: 1 },
        { subject: "orders-value", version: 2, id: 22, schema: v2, deleted: false },
      ),
      rec(
        { keytype: "SCHEMA", subject: "gone-value", version: 1, magic: 1 },
        { subject: "gone-value", version: 1, id: 23, schema: '"string"', deleted: false },
      ),
      rec({ keytype: "DELETE_SUBJECT", subject: "gone-value", magic: 0 }, { subject: "gone-value", version: 1 }),
      // Karapace writes the global config key with "subject":null.
      rec({ keytype: "CONFIG", subject: null, magic: 0 }, { compatibilityLevel: "FULL" }),
      rec({ keytype: "CONFIG", subject: "orders-value", magic: 0 }, { compatibilityLevel: "NONE" }),
      rec({ keytype: "MODE", subject: "frozen-value", magic: 0 }, { subject: "frozen-value", mode: "READONLY" }),
      // Keytypes this registry does not know are skipped, as Confluent's reader skips them.
      rec({ keytype: "CONTEXT", tenant: "default", context: ".ctx", magic: 0 }, { tenant: "default", context: ".ctx" }),
    ]);
    sr = await startTestRegistry({ kind: "kafka", bootstrap: (await sharedKafka()).bootstrap, topic });
  }, 120_000);
  afterAll(async () => {
    await sr?.stop();
    await broker?.close();
  }, 60_000);

  test("serves the existing ids, versions, configs, modes and deletions", async () => {
    const api = client(sr.url);
    expect((await api.get("/subjects")).body).toEqual(["orders-value"]);
    expect((await api.get("/subjects?deleted=true")).body).toEqual(["gone-value", "orders-value"]);
    expect((await api.get("/subjects/orders-value/versions/latest")).body).toMatchObject({ version: 2, id: 22 });
    expect((await api.get("/schemas/ids/21")).body.schema).toContain('"name":"Order"');
    expect((await api.get("/config")).body).toEqual({ compatibilityLevel: "FULL" });
    expect((await api.get("/config/orders-value")).body).toEqual({ compatibilityLevel: "NONE" });
    expect((await api.get("/mode/frozen-value")).body).toEqual({ mode: "READONLY" });
    // The next id continues after Confluent's highest.
    expect((await api.register("new-value", '"bytes"')).body).toEqual({ guid: expect.any(String), id: 24 });
    // Re-registering Confluent's schema finds its id.
    const v1 = '{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"long"}]}';
    expect((await api.register("orders-value", v1)).body).toEqual({ guid: expect.any(String), id: 21 });
  });

  test("writes Confluent's record formats, reusing the key bytes it read for tombstones", async () => {
    const api = client(sr.url);
    expect((await api.delete("/config")).status).toBe(200);
    const end = (await broker.endOffsets(topic))[0]!;
    const records = await broker.fetch(topic, 0, 0, { maxBytes: 10_000_000 });
    const written = records
      .filter((r) => r.offset < end)
      .map((r) => ({
        key: decoder.decode(r.key!),
        value: r.value === null ? null : JSON.parse(decoder.decode(r.value)),
      }));
    expect(written).toContainEqual({
      key: '{"keytype":"SCHEMA","subject":"new-value","version":1,"magic":1}',
      value: { subject: "new-value", version: 1, id: 24, schema: '"bytes"', deleted: false },
    });
    // The global config tombstone repeats Karapace's key bytes, so compaction removes the old record.
    expect(written[written.length - 1]).toEqual({ key: '{"keytype":"CONFIG","subject":null,"magic":0}', value: null });
    expect((await api.get("/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
  });
});
