import { expect, test } from "bun:test";
import { METADATA_MAX_AGE_MS, metadataMaxAgeMs, taskShare } from "#src/connect/runtime/worker/sink-partitions.ts";

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
