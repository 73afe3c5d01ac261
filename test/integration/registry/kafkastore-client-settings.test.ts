// The registry's `kafkastore.` Kafka client settings, as Confluent hands them to its store's clients, on a
// real Kafka broker: the batches it writes to its topic carry the codec asked for (read back by Kafka's
// DumpLogSegments), max.request.size bounds the schemas it stores, and a value Kafka's client refuses
// stops start-up with Kafka's message.
import { afterAll, expect, test } from "bun:test";
import { batchCodecs, sharedKafka } from "../../fixtures/kafka.ts";
import { client, registryPlace, startTestRegistry, type TestRegistry } from "../../fixtures/registry.ts";

const started: TestRegistry[] = [];
/** A group of its own per registry: registries of one group forward writes to their leader. */
let groups = 0;
const alone = (settings: Record<string, string>) => ({
  "schema.registry.group.id": `kafkastore-client-settings-${Date.now()}-${groups++}`,
  ...settings,
});
afterAll(async () => {
  for (const r of started) await r.stop();
});

test("kafkastore.compression.type: the registry's writes to its topic are compressed", async () => {
  const place = await registryPlace("kafka");
  const sr = await startTestRegistry(
    place,
    alone({ "kafkastore.compression.type": "gzip", "kafkastore.linger.ms": "10" }),
  );
  started.push(sr);
  const api = client(sr.url);
  for (let i = 0; i < 3; i++) {
    const schema = { type: "record", name: `R${i}`, fields: [{ name: "f", type: "string" }] };
    expect((await api.register(`subject-${i}`, schema)).status).toBe(200);
  }
  const codecs = batchCodecs(await sharedKafka(), place.topic);
  expect(codecs.length).toBeGreaterThan(0);
  expect(new Set(codecs)).toEqual(new Set(["gzip"]));
}, 120_000);

test("kafkastore.max.request.size bounds the schemas the registry stores, as the store's producer would", async () => {
  const place = await registryPlace("kafka");
  const sr = await startTestRegistry(place, alone({ "kafkastore.max.request.size": "20000" }));
  started.push(sr);
  const api = client(sr.url);
  const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `field_${i}`, type: "string" }));
  expect((await api.register("small", { type: "record", name: "S", fields: fields(10) })).status).toBe(200);
  const large = await api.register("large", { type: "record", name: "L", fields: fields(1000) });
  expect(large.status).toBe(422);
  expect(large.body).toMatchObject({ error_code: 42209 });
}, 60_000);

test("a value Kafka's client refuses stops the registry with Kafka's message", async () => {
  const place = await registryPlace("kafka");
  await expect(startTestRegistry(place, { "kafkastore.compression.type": "brotli" })).rejects.toThrow(
    "Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd",
  );
  await expect(startTestRegistry(place, { "kafkastore.partitioner.class": "com.example.P" })).rejects.toThrow(
    "partitioner.class is not supported by Sluice",
  );
}, 60_000);
