// Registrations during a Kafka outage fail within kafkastore.timeout.ms's time, counted from when the
// request arrived (time queued behind the one writer included), with Confluent's 50002 (timed out) or
// 50001 (store error); once Kafka is back they succeed, and no id that was answered is given again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonCall } from "../../fixtures/http.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { type SluiceProcess, startSluice } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const TIMEOUT_MS = 1000;
const CLIENTS = 16;

describe("registrations during a Kafka outage", () => {
  let kafka: KafkaCluster;
  let registry: SluiceProcess;
  let url: string;
  beforeAll(async () => {
    kafka = await startKafka();
    const port = freePort();
    url = `http://127.0.0.1:${port}`;
    registry = await startSluice(
      [
        "registry",
        "--listeners",
        url,
        "--bootstrap-servers",
        kafka.bootstrap,
        "--kafkastore.timeout.ms",
        String(TIMEOUT_MS),
        "--kafkastore.topic.replication.factor",
        "1",
      ],
      { readyUrl: `${url}/subjects`, log: "sluice.log", timeoutMs: 60_000 },
    );
  }, 180_000);
  afterAll(async () => {
    await registry?.stop();
    await kafka?.stop();
  }, 60_000);

  const register = (subject: string, name: string) =>
    jsonCall(
      `${url}/subjects/${subject}/versions`,
      "POST",
      { schema: JSON.stringify({ type: "record", name, fields: [{ name: "a", type: "string" }] }) },
      {
        "content-type": "application/vnd.schemaregistry.v1+json",
      },
    );

  test("each of 16 concurrent registrations answers 50002/50001 within a few timeouts, and ids stay unique after Kafka returns", async () => {
    if (!kafka.owned)
      throw new Error("this test stops the broker: it needs the fixture's own Kafka, not KAFKA_BOOTSTRAP_SERVERS");
    const acknowledged = new Map<number, string>();
    const before = await register("before-value", "Before");
    expect(before.status).toBe(200);
    acknowledged.set(before.body.id, "Before");

    await kafka.kill();
    const fired = Date.now();
    const replies = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const reply = await register(`outage-${i}-value`, `Outage${i}`);
        return { ...reply, after: Date.now() - fired };
      }),
    );
    for (const r of replies) {
      expect(r.status).toBe(500);
      expect([50001, 50002]).toContain(r.body.error_code);
    }
    // Loose bound on purpose: the deadline covers queueing, so nobody waits for the writers before them.
    expect(Math.max(...replies.map((r) => r.after))).toBeLessThan(3 * TIMEOUT_MS);

    await kafka.start();
    await waitFor(
      "a registration to succeed after Kafka is back",
      async () => {
        const r = await register("after-value", "After");
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    ).then((r) => acknowledged.set(r.body.id, "After"));
    for (let i = 0; i < CLIENTS; i++) {
      const r = await register(`outage-${i}-value`, `Outage${i}`);
      expect(r.status).toBe(200);
      // A write that timed out may still have landed: then it answers that id now, never another schema's.
      expect(acknowledged.has(r.body.id) ? acknowledged.get(r.body.id) : `Outage${i}`).toBe(`Outage${i}`);
      acknowledged.set(r.body.id, `Outage${i}`);
    }
    expect(acknowledged.size).toBe(CLIENTS + 2);
    for (const [id, name] of acknowledged) {
      const schema = await jsonCall(`${url}/schemas/ids/${id}`, "GET", undefined, {});
      expect(JSON.parse(schema.body.schema).name).toBe(name);
    }
  }, 240_000);
});
