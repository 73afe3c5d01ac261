// Kafka going away during writes: 500 with 50001/50002 and a clear message, nothing partial, reads go
// on from memory, and writes work again once Kafka is back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { client, startTestRegistry, type TestRegistry } from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";

describe("Kafka outage", () => {
  let kafka: KafkaCluster;
  let sr: TestRegistry;
  beforeAll(async () => {
    kafka = await startKafka();
    sr = await startTestRegistry({ kind: "kafka", bootstrap: kafka.bootstrap, topic: "_schemas" });
  }, 120_000);
  afterAll(async () => {
    await sr?.stop();
    await kafka?.stop();
  }, 60_000);

  test("writes fail with 5000x while Kafka is down and succeed after it returns", async () => {
    if (!kafka.owned)
      throw new Error("this test stops the broker: it needs the fixture's own Kafka, not KAFKA_BOOTSTRAP_SERVERS");
    const api = client(sr.url);
    const before = await api.register("outage-value", '"string"');
    expect(before.status).toBe(200);

    await kafka.kill();
    const failed = await api.register("outage2-value", { type: "record", name: "R", fields: [] });
    expect(failed.status).toBe(500);
    expect([50001, 50002]).toContain(failed.body.error_code);
    expect(failed.body.message).toMatch(/backend|store|Kafka/i);
    // Reads are served from memory meanwhile.
    expect((await api.get(`/schemas/ids/${before.body.id}`)).status).toBe(200);
    expect((await api.get("/subjects/outage-value/versions")).body).toEqual([1]);

    await kafka.start();
    const after = await waitFor(
      "a registration to succeed after Kafka is back",
      async () => {
        const r = await api.register("outage2-value", { type: "record", name: "R", fields: [] });
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 60000, intervalMs: 500 },
    );
    expect(after.body.id).toBeGreaterThan(before.body.id);
    // The failed attempt left nothing behind: exactly one version.
    expect((await api.get("/subjects/outage2-value/versions")).body).toEqual([1]);
  }, 180_000);
});
