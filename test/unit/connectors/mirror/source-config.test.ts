// MirrorSourceConnector's settings and decisions as Kafka 4.1's: which topics, their remote names, the
// offset-syncs topic's name and place, and the round robin of partitions over tasks.
import { describe, expect, test } from "bun:test";
import {
  assignTopicPartitions,
  decodeTopicPartition,
  encodeTopicPartition,
  javaHashMapOrder,
  MirrorSourceConfig,
  mirrorSourceSettings,
} from "#src/connectors/mirror/source-config.ts";
import { MirrorSourceConnector } from "#src/connectors/mirror/source-connector.ts";

const base = {
  name: "mm2-source",
  "source.cluster.alias": "primary",
  "target.cluster.alias": "backup",
  "source.cluster.bootstrap.servers": "src:9092",
  "target.cluster.bootstrap.servers": "dst:9092",
};

describe("MirrorSourceConnector settings", () => {
  test("Kafka's defaults", () => {
    const config = new MirrorSourceConfig(base);
    expect(config.replicationFactor).toBe(2);
    expect(config.offsetSyncsTopicReplicationFactor).toBe(3);
    expect(config.maxOffsetLag).toBe(100);
    expect(config.pollTimeoutMs).toBe(1000);
    expect(config.refreshTopicsIntervalMs).toBe(600000);
    expect(config.syncTopicConfigsIntervalMs).toBe(600000);
    expect(config.syncTopicAclsIntervalMs).toBe(600000);
    expect(config.emitOffsetSyncs).toBe(true);
    expect(config.offsetSyncsTopicLocation).toBe("source");
  });

  test("switched-off refresh, config and ACL sync have negative intervals", () => {
    const config = new MirrorSourceConfig({
      ...base,
      "refresh.topics.enabled": "false",
      "sync.topic.configs.enabled": "false",
      "sync.topic.acls.enabled": "false",
    });
    expect(config.refreshTopicsIntervalMs).toBeLessThan(0);
    expect(config.syncTopicConfigsIntervalMs).toBeLessThan(0);
    expect(config.syncTopicAclsIntervalMs).toBeLessThan(0);
    expect(new MirrorSourceConfig({ ...base, "sync.topic.acls.interval.seconds": "5" }).syncTopicAclsIntervalMs).toBe(
      5000,
    );
  });

  test("the offset-syncs topic is named after the other cluster", () => {
    expect(new MirrorSourceConfig(base).offsetSyncsTopic).toBe("mm2-offset-syncs.backup.internal");
    const onTarget = new MirrorSourceConfig({ ...base, "offset-syncs.topic.location": "target" });
    expect(onTarget.offsetSyncsTopicLocation).toBe("target");
    expect(onTarget.offsetSyncsTopic).toBe("mm2-offset-syncs.primary.internal");
    expect(() => new MirrorSourceConfig({ ...base, "offset-syncs.topic.location": "elsewhere" })).toThrow(
      /offset-syncs.topic.location/,
    );
  });

  test("ACL sync is a setting of its own, on or off; a filter class of its own is refused", () => {
    for (const value of ["true", "false"])
      expect(mirrorSourceSettings.unsupportedIn({ "sync.topic.acls.enabled": value })).toMatchObject({
        ignored: [],
        refused: [],
      });
    expect(mirrorSourceSettings.unsupportedIn({ "topic.filter.class": "com.example.Filter" }).refused).toHaveLength(1);
  });
});

describe("which topics are replicated", () => {
  const config = new MirrorSourceConfig(base);

  test("the filter's, never internal ones, never the target's own come back", () => {
    expect(config.shouldReplicateTopic("orders")).toBe(true);
    expect(config.shouldReplicateTopic("__consumer_offsets")).toBe(false);
    expect(config.shouldReplicateTopic("mm2-offset-syncs.backup.internal")).toBe(false);
    expect(config.shouldReplicateTopic("primary.checkpoints.internal")).toBe(false);
    // A topic that came from the target: replicating it back would be a cycle.
    expect(config.shouldReplicateTopic("backup.orders")).toBe(false);
    expect(config.shouldReplicateTopic("third.backup.orders")).toBe(false);
    expect(config.shouldReplicateTopic("third.orders")).toBe(true);
  });

  test("heartbeats are replicated whatever the filter, unless heartbeats.replication.enabled=false", () => {
    const narrow = new MirrorSourceConfig({ ...base, topics: "orders" });
    expect(narrow.shouldReplicateTopic("heartbeats")).toBe(true);
    expect(narrow.shouldReplicateTopic("third.heartbeats")).toBe(true);
    expect(narrow.shouldReplicateTopic("payments")).toBe(false);
    const off = new MirrorSourceConfig({ ...base, topics: "orders", "heartbeats.replication.enabled": "false" });
    expect(off.shouldReplicateTopic("heartbeats")).toBe(false);
  });

  test("remote names follow the policy", () => {
    expect(config.formatRemoteTopic("orders")).toBe("primary.orders");
    const identity = new MirrorSourceConfig({
      ...base,
      "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
    });
    expect(identity.formatRemoteTopic("orders")).toBe("orders");
    expect(identity.formatRemoteTopic("heartbeats")).toBe("primary.heartbeats");
    expect(identity.shouldReplicateTopic("orders")).toBe(true);
  });
});

describe("tasks", () => {
  test("round robin as Kafka's: 3 topics of 8, 2 and 2 partitions over 3 tasks", () => {
    const parts = [
      ...Array.from({ length: 8 }, (_, partition) => ({ topic: "t0", partition })),
      ...Array.from({ length: 2 }, (_, partition) => ({ topic: "t1", partition })),
      ...Array.from({ length: 2 }, (_, partition) => ({ topic: "t2", partition })),
    ];
    const byTask = assignTopicPartitions(parts, 3).map((ps) => ps.map(encodeTopicPartition));
    expect(byTask).toEqual([
      ["t0-0", "t0-3", "t0-6", "t1-1"],
      ["t0-1", "t0-4", "t0-7", "t2-0"],
      ["t0-2", "t0-5", "t1-0", "t2-1"],
    ]);
  });

  test("no more tasks than partitions; none without partitions", () => {
    expect(assignTopicPartitions([{ topic: "a", partition: 0 }], 5)).toHaveLength(1);
    expect(assignTopicPartitions([], 5)).toEqual([]);
  });

  test("a task's partitions travel as Kafka writes them: <topic>-<partition>", () => {
    expect(decodeTopicPartition("my-topic-12")).toEqual({ topic: "my-topic", partition: 12 });
    expect(() => decodeTopicPartition("nodash")).toThrow();
    const task = new MirrorSourceConfig(
      new MirrorSourceConfig(base).taskConfig(
        [
          { topic: "a-b", partition: 0 },
          { topic: "c", partition: 3 },
        ],
        1,
      ),
      true,
    );
    expect(task.taskTopicPartitions).toEqual([
      { topic: "a-b", partition: 0 },
      { topic: "c", partition: 3 },
    ]);
    expect(task.taskIndex).toBe(1);
  });
});

describe("exactly once and offsets", () => {
  const connector = new MirrorSourceConnector();

  test("supported only with a read_committed source consumer (consumer. or source.consumer.)", async () => {
    expect(connector.exactlyOnceSupport(base)).toBe("UNSUPPORTED");
    expect(connector.exactlyOnceSupport({ ...base, "consumer.isolation.level": "read_committed" })).toBe("SUPPORTED");
    expect(connector.exactlyOnceSupport({ ...base, "source.consumer.isolation.level": "read_committed" })).toBe(
      "SUPPORTED",
    );
    const problems = await connector.validate({ ...base, "exactly.once.support": "required" });
    expect(problems.get("exactly.once.support")?.[0]).toContain("isolation.level set to 'read_committed'");
    expect(
      (
        await connector.validate({
          ...base,
          "exactly.once.support": "required",
          "consumer.isolation.level": "read_committed",
        })
      ).size,
    ).toBe(0);
  });

  test("a token endpoint for a cluster's login is a problem of its setting", async () => {
    const problems = await connector.validate({
      ...base,
      "source.cluster.sasl.oauthbearer.token.endpoint.url": "file:///etc/passwd",
    });
    expect(problems.get("source.cluster.sasl.oauthbearer.token.endpoint.url")?.[0]).toContain(
      "the token endpoints the worker allows, and file:///etc/passwd is not one",
    );
  });

  test("a token endpoint the worker allows in KAFKA_OPTS, as Kafka 4's allow-list, is no problem", async () => {
    const url = "https://login.example.com/oauth2/token";
    const before = process.env.KAFKA_OPTS;
    process.env.KAFKA_OPTS = `-Xmx1g -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=https://other.example.com,${url}`;
    try {
      const allowed = await connector.validate({ ...base, "source.cluster.sasl.oauthbearer.token.endpoint.url": url });
      expect(allowed.has("source.cluster.sasl.oauthbearer.token.endpoint.url")).toBe(false);
      const handler = await connector.validate({
        ...base,
        "source.cluster.sasl.login.callback.handler.class": "com.example.Handler",
      });
      expect(handler.get("source.cluster.sasl.login.callback.handler.class")?.[0]).toContain("may not choose");
    } finally {
      if (before === undefined) delete process.env.KAFKA_OPTS;
      else process.env.KAFKA_OPTS = before;
    }
  });

  test("offset-syncs settings without offset syncs are refused", async () => {
    const problems = await connector.validate({
      ...base,
      "emit.offset-syncs.enabled": "false",
      "offset-syncs.topic.location": "target",
    });
    expect(problems.has("emit.offset-syncs.enabled")).toBe(true);
  });

  test("altered offsets are checked as Kafka's connector checks them", () => {
    const ok = { cluster: "primary", partition: 0, topic: "orders" };
    expect(connector.alterOffsets(base, new Map([[ok, { offset: 5 }]]))).toBe(true);
    expect(connector.alterOffsets(base, new Map([[{ garbage: 1 }, null]]))).toBe(true);
    expect(() => connector.alterOffsets(base, new Map([[{ partition: 0, topic: "t" }, { offset: 1 }]]))).toThrow(
      /'cluster' key/,
    );
    expect(() => connector.alterOffsets(base, new Map([[{ ...ok, partition: -1 }, { offset: 1 }]]))).toThrow(
      /cannot be negative/,
    );
    expect(() => connector.alterOffsets(base, new Map([[ok, { offset: "x" }]]))).toThrow(/must be an integer/);
    expect(() => connector.alterOffsets(base, new Map([[ok, {}]]))).toThrow(/missing the 'offset' key/);
  });
});

describe("the order topics are dealt in", () => {
  test("Java's HashMap iteration order: by bucket of String.hashCode, ties by name", () => {
    // "orders" and "payments" fall in buckets 2 and 3 of a 4-bucket map; "late-1" shares "orders"'s.
    expect(javaHashMapOrder(["payments", "orders"])).toEqual(["orders", "payments"]);
    expect(javaHashMapOrder(["payments", "orders", "late-1"])).toEqual(["late-1", "orders", "payments"]);
    expect(javaHashMapOrder([])).toEqual([]);
  });
});
