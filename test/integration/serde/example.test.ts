// examples/serde-with-platformatic-kafka.ts stays runnable: run it against the Kafka fixture and a registry.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { registryPlace, startTestRegistry, type TestRegistry } from "../../fixtures/registry.ts";

let sr: TestRegistry;
beforeAll(async () => {
  sr = await startTestRegistry(await registryPlace("kafka"));
}, 120_000);
afterAll(() => sr?.stop());

test("the README's @platformatic/kafka example produces and consumes through the serde", async () => {
  const proc = Bun.spawn(
    [process.execPath, join(import.meta.dir, "..", "..", "..", "examples", "serde-with-platformatic-kafka.ts")],
    {
      env: {
        ...process.env,
        KAFKA_BOOTSTRAP_SERVERS: (await sharedKafka()).bootstrap,
        SCHEMA_REGISTRY_URL: sr.url,
        TOPIC: `example-${Date.now()}`,
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
  expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ id: "p-1", amount: 12.5 });
}, 90_000);
