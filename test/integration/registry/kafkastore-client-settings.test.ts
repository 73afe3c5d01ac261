// The registry's `kafkastore.` Kafka client settings, as Confluent hands them to its store's clients, on a
// real Kafka broker: the batches it writes to its topic carry the codec asked for (read back by Kafka's
// DumpLogSegments), a value Kafka's client refuses stops start-up with Kafka's message, and a setting the
// registry decides itself is said to have no effect.
import { afterAll, expect, test } from "bun:test";
import { batchCodecs, sharedKafka } from "../../fixtures/kafka.ts";
import { client, registryPlace, startTestRegistry, type TestRegistry } from "../../fixtures/registry.ts";

const started: TestRegistry[] = [];
afterAll(async () => {
  for (const r of started) await r.stop();
});

test("kafkastore.compression.type: the registry's writes to its topic are compressed", async () => {
  const place = await registryPlace("kafka");
  const sr = await startTestRegistry(place, { "kafkastore.compression.type": "gzip", "kafkastore.linger.ms": "10" });
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

test("a value Kafka's client refuses stops the registry with Kafka's message", async () => {
  const place = await registryPlace("kafka");
  await expect(startTestRegistry(place, { "kafkastore.compression.type": "brotli" })).rejects.toThrow(
    "Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd",
  );
  await expect(startTestRegistry(place, { "kafkastore.partitioner.class": "com.example.P" })).rejects.toThrow(
    "partitioner.class is not supported by Sluice",
  );
}, 60_000);
