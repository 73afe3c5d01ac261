// MirrorCheckpointConnector's pure parts as Kafka 4.1 has them: groups spread over tasks, which
// checkpoints are written, how topics are renamed, which target offsets sync.group.offsets commits, and
// the settings it refuses.
import { describe, expect, test } from "bun:test";
import type { Checkpoint } from "#src/connectors/mirror/checkpoint.ts";
import { CheckpointConfig } from "#src/connectors/mirror/checkpoint-config.ts";
import {
  findConsumerGroups,
  groupPartitions,
  javaHashSetOrder,
  MirrorCheckpointConnector,
} from "#src/connectors/mirror/checkpoint-connector.ts";
import { GroupFilter, TopicFilter } from "#src/connectors/mirror/filters.ts";
import type { Broker, GroupOffset } from "#src/broker/broker.ts";
import {
  checkpointIsMoreRecent,
  downstreamTopic,
  offsetsToSync,
  type CheckpointsByGroup,
} from "#src/connectors/mirror/checkpoint-task.ts";
import { replicationPolicy } from "#src/connectors/mirror/replication-policy.ts";
import { ConfigError } from "#src/platform/settings.ts";

const base = { "source.cluster.alias": "east", "target.cluster.alias": "west" };

const cp = (over: Partial<Checkpoint> = {}): Checkpoint => ({
  group: "g",
  topic: "east.t",
  partition: 0,
  upstreamOffset: 10,
  downstreamOffset: 20,
  metadata: "",
  ...over,
});

describe("groups over tasks", () => {
  test("in the order Kafka's HashSet of them iterates (orders printed by a JVM for these names)", () => {
    expect(javaHashSetOrder(["late", "app"])).toEqual(["app", "late"]);
    expect(
      javaHashSetOrder(["orders-app", "billing", "reader", "audit", "group-1", "group-2", "group-10", "x"]),
    ).toEqual(["group-10", "orders-app", "reader", "audit", "x", "group-2", "group-1", "billing"]);
    const twenty = Array.from({ length: 20 }, (_, i) => `g${i}`);
    expect(javaHashSetOrder(twenty).join(",")).toBe(
      "g11,g10,g13,g0,g12,g1,g15,g2,g14,g3,g17,g4,g16,g5,g19,g6,g18,g7,g8,g9",
    );
  });
  test("contiguous runs, the first ones one longer (Kafka's ConnectorUtils.groupPartitions)", () => {
    expect(groupPartitions(["a", "b", "c", "d", "e"], 3)).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(groupPartitions(["a", "b"], 2)).toEqual([["a"], ["b"]]);
  });
});

describe("groups to checkpoint", () => {
  test("the group filter's, with offsets in a topic the topic filter takes (Kafka's findConsumerGroups)", async () => {
    const offsets: Record<string, GroupOffset[]> = {
      app: [{ topic: "orders", partition: 0, offset: 1, metadata: "" }],
      "console-consumer-7": [{ topic: "orders", partition: 0, offset: 1, metadata: "" }],
      internal: [{ topic: "__consumer_offsets", partition: 0, offset: 1, metadata: "" }],
      idle: [],
      both: [
        { topic: "__x", partition: 0, offset: 1, metadata: "" },
        { topic: "payments", partition: 2, offset: 5, metadata: "" },
      ],
    };
    // Only the two group calls: the rest of the client is never reached.
    const source = {
      listConsumerGroups: async () => Object.keys(offsets),
      groupOffsets: async (group: string) => offsets[group] ?? [],
    } as unknown as Broker;
    expect((await findConsumerGroups(source, new GroupFilter(), new TopicFilter())).sort()).toEqual(["app", "both"]);
    expect(await findConsumerGroups(source, new GroupFilter(["a.*"]), new TopicFilter(["payments"]))).toEqual([]);
  });
});

describe("which checkpoints are written", () => {
  test("the first for a partition, a downstream advance, an upstream rewind; never a downstream rewind or a repeat", () => {
    expect(checkpointIsMoreRecent(cp(), undefined)).toBe(true);
    expect(checkpointIsMoreRecent(cp({ downstreamOffset: 21 }), cp())).toBe(true);
    expect(checkpointIsMoreRecent(cp({ upstreamOffset: 5, downstreamOffset: 3 }), cp())).toBe(true);
    expect(checkpointIsMoreRecent(cp({ upstreamOffset: 12, downstreamOffset: 19 }), cp())).toBe(false);
    expect(checkpointIsMoreRecent(cp({ upstreamOffset: 11 }), cp())).toBe(false);
  });
});

describe("topic names on the target", () => {
  const policy = replicationPolicy("org.apache.kafka.connect.mirror.DefaultReplicationPolicy");
  test("a source topic gets the source's prefix; one that came from the target gets its own name back", () => {
    expect(downstreamTopic(policy, "east", "west", "orders")).toBe("east.orders");
    expect(downstreamTopic(policy, "east", "west", "west.orders")).toBe("orders");
    expect(downstreamTopic(policy, "east", "west", "north.orders")).toBe("east.north.orders");
  });
});

describe("sync.group.offsets", () => {
  const checkpoints: CheckpointsByGroup = new Map([
    [
      "g",
      new Map([
        ["a", cp({ topic: "east.t", partition: 0, downstreamOffset: 20, metadata: "m" })],
        ["b", cp({ topic: "east.t", partition: 1, downstreamOffset: 5 })],
      ]),
    ],
  ]);
  const all = [
    { topic: "east.t", partition: 0, offset: 20, metadata: "m" },
    { topic: "east.t", partition: 1, offset: 5, metadata: "" },
  ];
  test("a group not idle on the target (active, or not there) is given every checkpoint", () => {
    expect(offsetsToSync(checkpoints, new Map())).toEqual(new Map([["g", all]]));
  });
  test("an idle group only where its target offset is missing or behind", () => {
    const idle = new Map([["g", [{ topic: "east.t", partition: 0, offset: 25, metadata: "" }]]]);
    expect(offsetsToSync(checkpoints, idle)).toEqual(new Map([["g", [all[1]!]]]));
    const ahead = new Map([
      [
        "g",
        [
          { topic: "east.t", partition: 0, offset: 20, metadata: "" },
          { topic: "east.t", partition: 1, offset: 9, metadata: "" },
        ],
      ],
    ]);
    expect(offsetsToSync(checkpoints, ahead)).toEqual(new Map());
  });
});

describe("settings", () => {
  test("names the topics as Kafka does, with the offset syncs on either cluster", () => {
    const config = new CheckpointConfig(base);
    expect(config.checkpointsTopic()).toBe("east.checkpoints.internal");
    expect(config.offsetSyncsTopic()).toBe("mm2-offset-syncs.west.internal");
    const onTarget = new CheckpointConfig({ ...base, "offset-syncs.topic.location": "target" });
    expect(onTarget.offsetSyncsTopic()).toBe("mm2-offset-syncs.east.internal");
  });
  test("intervals are negative when their feature is off (sync.group.offsets is off by default)", () => {
    const config = new CheckpointConfig({ ...base, "emit.checkpoints.interval.seconds": "5" });
    expect(config.intervalMs("emit.checkpoints")).toBe(5000);
    expect(config.intervalMs("sync.group.offsets")).toBe(-1);
    expect(config.intervalMs("refresh.groups")).toBe(600000);
  });
  test("refuses to run without checkpoints or without offset syncs, as Kafka's validate does", () => {
    expect(() => new CheckpointConfig({ ...base, "emit.checkpoints.enabled": "false" })).toThrow(ConfigError);
    expect(() => new CheckpointConfig({ ...base, "emit.offset-syncs.enabled": "false" })).toThrow(
      "MirrorCheckpointConnector can't run without offset syncs",
    );
    expect(
      () => new CheckpointConfig({ ...base, enabled: "false", "emit.checkpoints.enabled": "false" }),
    ).not.toThrow();
  });
  test("validation names those settings, as Kafka's connector does", async () => {
    const addressed = {
      ...base,
      "source.cluster.bootstrap.servers": "east:9092",
      "target.cluster.bootstrap.servers": "west:9092",
    };
    const problems = await new MirrorCheckpointConnector().validate({
      ...addressed,
      "emit.checkpoints.enabled": "false",
    });
    expect(problems).toEqual(
      new Map([
        [
          "emit.checkpoints.enabled",
          ["MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false"],
        ],
      ]),
    );
    expect(await new MirrorCheckpointConnector().validate(addressed)).toEqual(new Map());
  });
  test("a disabled connector has no tasks", async () => {
    const connector = new MirrorCheckpointConnector();
    await connector.start({ ...base, enabled: "false" });
    expect(connector.taskConfigs(4)).toEqual([]);
  });
  test("offsets may only be set to 0 with the partition keys the tasks write", () => {
    const connector = new MirrorCheckpointConnector();
    const ok = new Map([[{ group: "g", topic: "east.t", partition: 0 }, { offset: 0 }]]);
    expect(connector.alterOffsets({}, ok)).toBe(true);
    const bad = new Map([[{ group: "g", topic: "east.t", partition: 0 }, { offset: 3 }]]);
    expect(() => connector.alterOffsets({}, bad)).toThrow("the only accepted value is 0");
    const noGroup = new Map([[{ topic: "east.t", partition: 0 }, { offset: 0 }]]);
    expect(() => connector.alterOffsets({}, noGroup)).toThrow("missing the 'group' key");
  });
});
