import { describe, expect, test } from "bun:test";
import { ConfigState } from "#src/connect/runtime/storage/config-log.ts";
import {
  decodeConfigRecord,
  decodeOffsetRecord,
  decodeStatus,
  decodeStatusKey,
  encodeConfigRecord,
  encodeOffset,
  encodeStatus,
  offsetKey,
  partitionIdentity,
  statusKey,
  topicStatusRecord,
  type ConfigRecord,
} from "#src/connect/runtime/storage/internal-records.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

describe("config topic records", () => {
  // The exact key and value strings Kafka Connect's KafkaConfigBackingStore writes (JsonConverter,
  // schemas disabled): Sluice and Java workers share one config topic.
  const cases: [string, ConfigRecord, string, string | null][] = [
    [
      "connector config",
      { kind: "connector", name: "my-conn", config: { "connector.class": "X", "tasks.max": "2" } },
      "connector-my-conn",
      '{"properties":{"connector.class":"X","tasks.max":"2"}}',
    ],
    ["connector tombstone", { kind: "connector", name: "my-conn", config: null }, "connector-my-conn", null],
    [
      "target STARTED",
      { kind: "target", name: "c", state: "STARTED" },
      "target-state-c",
      '{"state":"STARTED","state.v2":"STARTED"}',
    ],
    [
      "target PAUSED",
      { kind: "target", name: "c", state: "PAUSED" },
      "target-state-c",
      '{"state":"PAUSED","state.v2":"PAUSED"}',
    ],
    // Pre-KIP-875 workers read `state` only, which has no STOPPED.
    [
      "target STOPPED",
      { kind: "target", name: "c", state: "STOPPED" },
      "target-state-c",
      '{"state":"PAUSED","state.v2":"STOPPED"}',
    ],
    ["target tombstone", { kind: "target", name: "c", state: null }, "target-state-c", null],
    [
      "task config, dashed name",
      { kind: "task", name: "my-dashed-conn", task: 12, config: { "task.class": "T" } },
      "task-my-dashed-conn-12",
      '{"properties":{"task.class":"T"}}',
    ],
    ["task tombstone", { kind: "task", name: "a-b", task: 0, config: null }, "task-a-b-0", null],
    ["commit", { kind: "commit", name: "my-conn", tasks: 2 }, "commit-my-conn", '{"tasks":2}'],
    // KIP-618's record of a fencing round.
    ["task count", { kind: "task-count", name: "my-conn", tasks: 3 }, "tasks-fencing-my-conn", '{"task-count":3}'],
    [
      "restart",
      { kind: "restart", name: "my-conn", includeTasks: true, onlyFailed: false },
      "restart-connector-my-conn",
      '{"include-tasks":true,"only-failed":false}',
    ],
    [
      "restart, only failed",
      { kind: "restart", name: "c", includeTasks: false, onlyFailed: true },
      "restart-connector-c",
      '{"include-tasks":false,"only-failed":true}',
    ],
  ];

  test.each(cases)("%s: exact bytes and round trip", (_, record, key, value) => {
    const encoded = encodeConfigRecord(record);
    expect(text(encoded.key)).toBe(key);
    expect(text(encoded.value)).toBe(value);
    expect(decodeConfigRecord(encoded.key, encoded.value)).toEqual(record);
  });

  test("a target state written by an old worker (no state.v2) is read from `state`", () => {
    expect(decodeConfigRecord(bytes("target-state-c"), bytes('{"state":"PAUSED"}'))).toEqual({
      kind: "target",
      name: "c",
      state: "PAUSED",
    });
  });

  test("keys Sluice does not act on decode to undefined", () => {
    expect(
      decodeConfigRecord(bytes("session-key"), bytes('{"key":"AAAA","algorithm":"HmacSHA256","creation-timestamp":1}')),
    ).toBeUndefined();
    expect(decodeConfigRecord(null, bytes("{}"))).toBeUndefined();
    // A commit or restart without a value carries nothing to act on.
    expect(decodeConfigRecord(bytes("commit-c"), null)).toBeUndefined();
    expect(decodeConfigRecord(bytes("restart-connector-c"), null)).toBeUndefined();
  });
});

describe("ConfigState", () => {
  const task = (name: string, i: number, config: Record<string, string> | null = { i: String(i) }): ConfigRecord => ({
    kind: "task",
    name,
    task: i,
    config,
  });

  test("task configs become visible only with the commit record", () => {
    const state = new ConfigState();
    expect(state.apply({ kind: "connector", name: "c", config: { a: "1" } })).toEqual({
      kind: "connector",
      name: "c",
      removed: false,
    });
    expect(state.apply(task("c", 0))).toBeUndefined();
    expect(state.apply(task("c", 1))).toBeUndefined();
    expect(state.tasks.has("c")).toBe(false);
    expect(state.apply({ kind: "commit", name: "c", tasks: 2 })).toEqual({ kind: "tasks", name: "c" });
    expect(state.tasks.get("c")).toEqual([{ i: "0" }, { i: "1" }]);
    expect(state.connectors.get("c")).toEqual({ a: "1" });
  });

  test("a new generation of task configs replaces the old one only at its commit", () => {
    const state = new ConfigState();
    for (const r of [task("c", 0), task("c", 1), { kind: "commit", name: "c", tasks: 2 } as ConfigRecord])
      state.apply(r);
    state.apply(task("c", 0, { gen: "2" }));
    expect(state.tasks.get("c")).toEqual([{ i: "0" }, { i: "1" }]);
    state.apply({ kind: "commit", name: "c", tasks: 1 });
    expect(state.tasks.get("c")).toEqual([{ gen: "2" }]);
  });

  test("new task configs wait for a fencing round; its task-count record ends the wait", () => {
    const state = new ConfigState();
    state.apply({ kind: "connector", name: "c", config: {} });
    state.apply(task("c", 0));
    state.apply({ kind: "commit", name: "c", tasks: 1 });
    expect(state.pendingFencing.has("c")).toBe(true);
    expect(state.apply({ kind: "task-count", name: "c", tasks: 1 })).toEqual({ kind: "task-count", name: "c" });
    expect(state.pendingFencing.has("c")).toBe(false);
    expect(state.taskCounts.get("c")).toBe(1);
    state.apply({ kind: "commit", name: "c", tasks: 1 });
    expect(state.pendingFencing.has("c")).toBe(true);
  });

  test("an incomplete commit (a task config missing) is ignored", () => {
    const state = new ConfigState();
    state.apply({ kind: "connector", name: "c", config: {} });
    state.apply(task("c", 0));
    // Task 1 never written: the writer died mid-way.
    expect(state.apply({ kind: "commit", name: "c", tasks: 2 })).toBeUndefined();
    expect(state.tasks.has("c")).toBe(false);
  });

  test("removing a connector drops its target state and task configs", () => {
    const state = new ConfigState();
    state.apply({ kind: "connector", name: "c", config: {} });
    state.apply({ kind: "target", name: "c", state: "PAUSED" });
    state.apply(task("c", 0));
    state.apply({ kind: "commit", name: "c", tasks: 1 });
    state.apply(task("c", 0, { pending: "yes" }));
    expect(state.target("c")).toBe("PAUSED");

    expect(state.apply({ kind: "connector", name: "c", config: null })).toEqual({
      kind: "connector",
      name: "c",
      removed: true,
    });
    expect(state.connectors.has("c")).toBe(false);
    expect(state.targets.has("c")).toBe(false);
    expect(state.target("c")).toBe("STARTED");
    expect(state.tasks.has("c")).toBe(false);
    // Pending task configs went too: a re-created connector's commit does not pick them up.
    state.apply({ kind: "connector", name: "c", config: {} });
    expect(state.apply({ kind: "commit", name: "c", tasks: 1 })).toBeUndefined();
  });

  test("a tombstone for an unknown connector changes nothing", () => {
    const state = new ConfigState();
    expect(state.apply({ kind: "connector", name: "nope", config: null })).toBeUndefined();
  });

  test("target states and restart requests are reported as changes", () => {
    const state = new ConfigState();
    expect(state.target("c")).toBe("STARTED"); // the default without a record
    expect(state.apply({ kind: "target", name: "c", state: "STOPPED" })).toEqual({ kind: "target", name: "c" });
    expect(state.target("c")).toBe("STOPPED");
    expect(state.apply({ kind: "target", name: "c", state: null })).toEqual({ kind: "target", name: "c" });
    expect(state.target("c")).toBe("STARTED");
    expect(state.apply({ kind: "restart", name: "c", includeTasks: true, onlyFailed: true })).toEqual({
      kind: "restart",
      name: "c",
      includeTasks: true,
      onlyFailed: true,
    });
  });

  test("applying decoded records in log order", () => {
    // The path ConfigLog takes: bytes as Kafka wrote them, decoded, then applied.
    const log: [string, string | null][] = [
      ["connector-a-b", '{"properties":{"k":"v"}}'],
      ["task-a-b-0", '{"properties":{"t":"0"}}'],
      ["session-key", '{"key":"x"}'],
      ["commit-a-b", '{"tasks":1}'],
      ["target-state-a-b", '{"state":"PAUSED","state.v2":"STOPPED"}'],
    ];
    const state = new ConfigState();
    const changes = log.map(([k, v]) => {
      const record = decodeConfigRecord(bytes(k), v === null ? null : bytes(v));
      return record && state.apply(record);
    });
    expect(changes).toEqual([
      { kind: "connector", name: "a-b", removed: false },
      undefined,
      undefined,
      { kind: "tasks", name: "a-b" },
      { kind: "target", name: "a-b" },
    ]);
    expect(state.tasks.get("a-b")).toEqual([{ t: "0" }]);
    expect(state.target("a-b")).toBe("STOPPED");
  });
});

describe("status topic records", () => {
  test("keys as Kafka's KafkaStatusBackingStore writes them", () => {
    expect(text(statusKey({ connector: "my-conn" }))).toBe("status-connector-my-conn");
    expect(text(statusKey({ connector: "my-conn", task: 3 }))).toBe("status-task-my-conn-3");
    expect(decodeStatusKey(bytes("status-connector-my-conn"))).toEqual({ connector: "my-conn" });
    expect(decodeStatusKey(bytes("status-task-my-conn-3"))).toEqual({ connector: "my-conn", task: 3 });
    expect(decodeStatusKey(bytes("status-topic-orders.v1:connector-my-conn"))).toEqual({
      topic: "orders.v1",
      connector: "my-conn",
    });
    expect(decodeStatusKey(bytes("something-else"))).toBeUndefined();
    expect(decodeStatusKey(null)).toBeUndefined();
  });

  test("status values: state, trace, worker_id, generation", () => {
    const running = encodeStatus({ state: "RUNNING", workerId: "host:8083" }, 7);
    expect(text(running)).toBe('{"state":"RUNNING","trace":null,"worker_id":"host:8083","generation":7}');
    expect(decodeStatus(running)).toEqual({ status: { state: "RUNNING", workerId: "host:8083" }, generation: 7 });
    const failed = encodeStatus({ state: "FAILED", trace: "boom\n\tat X", workerId: "w" }, 1);
    expect(decodeStatus(failed)).toEqual({
      status: { state: "FAILED", trace: "boom\n\tat X", workerId: "w" },
      generation: 1,
    });
    expect(decodeStatus(null)).toBeNull();
  });

  test("topic status record", () => {
    const before = Date.now();
    const { key, value } = topicStatusRecord("orders", "my-conn", 2);
    expect(text(key)).toBe("status-topic-orders:connector-my-conn");
    expect(decodeStatusKey(key)).toEqual({ topic: "orders", connector: "my-conn" });
    const parsed = JSON.parse(text(value)!);
    expect(Object.keys(parsed.topic)).toEqual(["name", "connector", "task", "discoverTimestamp"]);
    expect(parsed.topic).toMatchObject({ name: "orders", connector: "my-conn", task: 2 });
    expect(parsed.topic.discoverTimestamp).toBeGreaterThanOrEqual(before);
    expect(parsed.topic.discoverTimestamp).toBeLessThanOrEqual(Date.now());
  });
});

describe("offsets topic records", () => {
  test("key is the compact JSON array [connector, partition]", () => {
    expect(text(offsetKey("conn", { a: 1 }))).toBe('["conn",{"a":1}]');
    expect(text(encodeOffset({ position: 42 }))).toBe('{"position":42}');
    expect(encodeOffset(null)).toBeNull();
  });

  test("decode round trip, tombstones, and keys that are not offsets", () => {
    expect(decodeOffsetRecord(offsetKey("conn", { file: "x", n: 1 }), encodeOffset({ pos: 3 }))).toEqual({
      connector: "conn",
      partition: { file: "x", n: 1 },
      offset: { pos: 3 },
    });
    expect(decodeOffsetRecord(offsetKey("conn", { a: 1 }), null)).toEqual({
      connector: "conn",
      partition: { a: 1 },
      offset: null,
    });
    for (const bad of ['{"a":1}', '["conn"]', '[1,{"a":1}]', '["conn",null]', '["conn",{"a":1},3]'])
      expect(decodeOffsetRecord(bytes(bad), null)).toBeUndefined();
  });

  test("partitionIdentity ignores field order, but not connector or values", () => {
    expect(partitionIdentity("conn", { a: 1, b: "x" })).toBe(partitionIdentity("conn", { b: "x", a: 1 }));
    expect(partitionIdentity("conn", { a: 1 })).not.toBe(partitionIdentity("other", { a: 1 }));
    expect(partitionIdentity("conn", { a: 1 })).not.toBe(partitionIdentity("conn", { a: 2 }));
  });
});
