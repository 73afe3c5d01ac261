// The schema log's one writer: a request's deadline covers its wait behind earlier writes, and a write
// whose caller was answered still lands before the next one decides anything.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedBroker } from "#src/broker/embedded/embedded-broker.ts";
import { RegistryError } from "#src/registry/errors.ts";
import type { RegistryRecord } from "#src/registry/store/records.ts";
import { SchemaLog } from "#src/registry/store/schema-log.ts";
import { RegistryState } from "#src/registry/store/state.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

const schemaRecord = (i: number): RegistryRecord => ({
  keytype: "SCHEMA",
  subject: `s${i}`,
  version: 1,
  value: { subject: `s${i}`, version: 1, id: i + 1, schema: '"string"', deleted: false },
});

test("writes stuck behind a hung produce all fail with 50002 by their own deadline; the stuck one is read before the next write", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-schema-log-"));
  const broker = new EmbeddedBroker({ dataDir: dir });
  await broker.connect();
  const log = new SchemaLog(broker, new RegistryState(), {
    topic: "_schemas",
    replicationFactor: 1,
    timeoutMs: 200,
    initTimeoutMs: 5000,
  });
  await log.start();
  cleanup.push(async () => {
    await log.stop();
    await broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const produce = broker.produce.bind(broker);
  broker.produce = async (topic, records) => {
    await gate; // the broker is away until released
    return produce(topic, records);
  };

  const started = Date.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => log.exclusive(async () => ({ records: [schemaRecord(i)], result: i }))),
  );
  const elapsed = Date.now() - started;
  for (const o of outcomes) {
    expect(o.status).toBe("rejected");
    const err = (o as PromiseRejectedResult).reason as RegistryError;
    expect(err).toBeInstanceOf(RegistryError);
    expect(err.errorCode).toBe(50002);
  }
  // One deadline each, not one per write queued ahead (8 × 200 ms); loose, to stay clear of scheduling noise.
  expect(elapsed).toBeLessThan(1000);

  // The first write's produce was in flight when its caller was answered; once it lands, the next
  // write reads it before deciding (so an id it took is never handed out again).
  release();
  broker.produce = produce;
  const seen = await log.exclusive(async () => ({ records: [], result: log.state.maxId }));
  expect(seen).toBe(1);
  expect(log.state.version("s0", 1)?.id).toBe(1);
  expect(log.state.version("s1", 1)).toBeUndefined();
});
