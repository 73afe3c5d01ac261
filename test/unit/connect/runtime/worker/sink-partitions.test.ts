import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Broker } from "#src/broker/broker.ts";
import { EmbeddedBroker } from "#src/broker/embedded/embedded-broker.ts";
import {
  METADATA_MAX_AGE_MS,
  metadataMaxAgeMs,
  sinkPartitions,
  taskShare,
} from "#src/connect/runtime/worker/sink-partitions.ts";

test("a sink's partitions: one metadata request for all of its topics; missing ones created, then asked for once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sink-partitions-"));
  const embedded = new EmbeddedBroker({ dataDir: dir });
  await embedded.connect();
  try {
    for (const [name, partitions] of [
      ["a", 2],
      ["b", 1],
      ["c", 3],
    ] as const)
      await embedded.createTopic({ name, partitions, replicationFactor: 1 });
    const calls: string[] = [];
    const broker = new Proxy(embedded, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return value.apply(target, args);
        };
      },
    }) as Broker;
    const names = (tps: { topic: string; partition: number }[]) => tps.map((tp) => `${tp.topic}:${tp.partition}`);

    expect(names(await sinkPartitions(broker, ["c", "x", "a", "b"], "", false))).toEqual([
      "c:0",
      "c:1",
      "c:2",
      "a:0",
      "a:1",
      "b:0",
    ]);
    expect(calls).toEqual(["partitionCounts"]);

    calls.length = 0;
    const created = await sinkPartitions(broker, ["a", "x", "y"], "", true);
    expect(names(created)).toEqual(["a:0", "a:1", "x:0", "y:0"]);
    expect(calls).toEqual(["partitionCounts", "createTopic", "createTopic", "partitionCounts"]);

    calls.length = 0;
    expect(names(await sinkPartitions(broker, [], "^[ab]$", false))).toEqual(["a:0", "a:1", "b:0"]);
    expect(calls).toEqual(["listTopics", "partitionCounts"]);
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("metadata.max.age.ms: the connector's consumer.override first, then the worker's consumer. setting, then Kafka's five minutes", () => {
  expect(metadataMaxAgeMs({}, {})).toBe(METADATA_MAX_AGE_MS);
  expect(METADATA_MAX_AGE_MS).toBe(300_000);
  expect(metadataMaxAgeMs({}, { "consumer.metadata.max.age.ms": "2000" })).toBe(2000);
  expect(
    metadataMaxAgeMs({ "consumer.override.metadata.max.age.ms": " 500 " }, { "consumer.metadata.max.age.ms": "2000" }),
  ).toBe(500);
});

test("a value that is no number, or negative, fails as Kafka's consumer config does", () => {
  expect(() => metadataMaxAgeMs({ "consumer.override.metadata.max.age.ms": "soon" }, {})).toThrow(
    "Invalid value soon for configuration metadata.max.age.ms: Not a number of type LONG",
  );
  expect(() => metadataMaxAgeMs({}, { "consumer.metadata.max.age.ms": "-1" })).toThrow(
    "Invalid value -1 for configuration metadata.max.age.ms: Value must be at least 0",
  );
});

test("each task takes every tasks.max-th partition from its index: all are read, none twice", () => {
  const all = ["a", "b"].flatMap((topic) => [0, 1, 2].map((partition) => ({ topic, partition })));
  const shares = [0, 1, 2, 3].map((index) => taskShare(all, index, 4));
  expect(shares.map((s) => s.map((tp) => `${tp.topic}:${tp.partition}`))).toEqual([
    ["a:0", "b:1"],
    ["a:1", "b:2"],
    ["a:2"],
    ["b:0"],
  ]);
  expect(shares.flat().length).toBe(all.length);
});
