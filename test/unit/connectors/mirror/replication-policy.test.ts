// Kafka 4.1's DefaultReplicationPolicy and IdentityReplicationPolicy, case by case as their Java code answers.
import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import {
  DefaultReplicationPolicy,
  IdentityReplicationPolicy,
  replicationPolicy,
} from "#src/connectors/mirror/replication-policy.ts";

describe("DefaultReplicationPolicy", () => {
  const policy = new DefaultReplicationPolicy();

  test("prefixes the source alias and finds it again", () => {
    expect(policy.formatRemoteTopic("us-west", "orders")).toBe("us-west.orders");
    expect(policy.topicSource("us-west.orders")).toBe("us-west");
    expect(policy.upstreamTopic("us-west.orders")).toBe("orders");
    expect(policy.topicSource("orders")).toBeNull();
    expect(policy.upstreamTopic("orders")).toBeNull();
  });

  test("follows several hops to the original topic", () => {
    expect(policy.upstreamTopic("b.a.orders")).toBe("a.orders");
    expect(policy.originalTopic("b.a.orders")).toBe("orders");
    expect(policy.originalTopic("orders")).toBe("orders");
  });

  test("splits as Java does: trailing separators are dropped, a leading one counts", () => {
    expect(policy.topicSource("orders.")).toBeNull();
    expect(policy.topicSource(".orders")).toBe("");
    expect(policy.upstreamTopic(".orders")).toBe("orders");
    expect(policy.topicSource("..")).toBeNull();
    expect(policy.topicSource("a..b")).toBe("a");
    expect(policy.upstreamTopic("a..b")).toBe(".b");
  });

  test("names MM2's own topics", () => {
    expect(policy.heartbeatsTopic()).toBe("heartbeats");
    expect(policy.offsetSyncsTopic("target")).toBe("mm2-offset-syncs.target.internal");
    expect(policy.checkpointsTopic("source")).toBe("source.checkpoints.internal");
    expect(policy.isHeartbeatsTopic("heartbeats")).toBe(true);
    expect(policy.isHeartbeatsTopic("a.b.heartbeats")).toBe(true);
    expect(policy.isHeartbeatsTopic("myheartbeats")).toBe(false);
    expect(policy.isCheckpointsTopic("source.checkpoints.internal")).toBe(true);
  });

  test("internal topics as Kafka 4.1 tells them: Kafka's and MM2's, no longer Connect's", () => {
    expect(policy.isInternalTopic("__consumer_offsets")).toBe(true);
    expect(policy.isInternalTopic(".hidden")).toBe(true);
    expect(policy.isInternalTopic("mm2-offset-syncs.target.internal")).toBe(true);
    expect(policy.isInternalTopic("mm2-configs.source.internal")).toBe(true);
    expect(policy.isInternalTopic("source.checkpoints.internal")).toBe(true);
    expect(policy.isInternalTopic("connect-offsets-internal")).toBe(false);
    expect(policy.isInternalTopic("orders.internal")).toBe(false);
    expect(policy.isMM2InternalTopic("orders.internal")).toBe(false);
    expect(policy.isInternalTopic("orders")).toBe(false);
  });

  test("a custom separator names remote topics and, unless switched off, the internal ones", () => {
    const dash = new DefaultReplicationPolicy({ separator: "_" });
    expect(dash.formatRemoteTopic("us", "orders")).toBe("us_orders");
    expect(dash.topicSource("us_orders")).toBe("us");
    expect(dash.topicSource("us.orders")).toBeNull();
    expect(dash.offsetSyncsTopic("t")).toBe("mm2-offset-syncs_t_internal");
    expect(dash.checkpointsTopic("s")).toBe("s_checkpoints_internal");
    expect(dash.isInternalTopic("mm2-offset-syncs_t_internal")).toBe(true);
    const legacy = new DefaultReplicationPolicy({ separator: "_", internalTopicSeparatorEnabled: false });
    expect(legacy.formatRemoteTopic("us", "orders")).toBe("us_orders");
    expect(legacy.offsetSyncsTopic("t")).toBe("mm2-offset-syncs.t.internal");
    expect(legacy.checkpointsTopic("s")).toBe("s.checkpoints.internal");
    // The switch means nothing without a separator given, as in Kafka's configure.
    expect(new DefaultReplicationPolicy({ internalTopicSeparatorEnabled: false }).offsetSyncsTopic("t")).toBe(
      "mm2-offset-syncs.t.internal",
    );
  });

  test("a separator of several characters is matched literally", () => {
    const p = new DefaultReplicationPolicy({ separator: "--" });
    expect(p.formatRemoteTopic("a", "x-y")).toBe("a--x-y");
    expect(p.topicSource("a--x-y")).toBe("a");
    expect(p.upstreamTopic("a--x-y")).toBe("x-y");
  });
});

describe("IdentityReplicationPolicy", () => {
  const policy = new IdentityReplicationPolicy({ sourceClusterAlias: "primary" });

  test("keeps names; every topic comes from source.cluster.alias", () => {
    expect(policy.formatRemoteTopic("primary", "orders")).toBe("orders");
    expect(policy.topicSource("orders")).toBe("primary");
    expect(policy.upstreamTopic("orders")).toBe("orders");
    expect(policy.originalTopic("orders")).toBe("orders");
    expect(new IdentityReplicationPolicy().topicSource("orders")).toBeNull();
  });

  test("renames heartbeats as the default policy does", () => {
    expect(policy.formatRemoteTopic("primary", "heartbeats")).toBe("primary.heartbeats");
    expect(policy.topicSource("primary.heartbeats")).toBe("primary");
    expect(policy.upstreamTopic("primary.heartbeats")).toBe("heartbeats");
    expect(policy.isHeartbeatsTopic("primary.heartbeats")).toBe(true);
  });
});

describe("replication.policy.class", () => {
  test("takes Kafka's class names", () => {
    expect(replicationPolicy("org.apache.kafka.connect.mirror.DefaultReplicationPolicy")).toBeInstanceOf(
      DefaultReplicationPolicy,
    );
    expect(replicationPolicy("org.apache.kafka.connect.mirror.IdentityReplicationPolicy")).toBeInstanceOf(
      IdentityReplicationPolicy,
    );
  });

  test("refuses another class by name", () => {
    expect(() => replicationPolicy("com.example.MyPolicy")).toThrow(ConfigError);
    expect(() => replicationPolicy("com.example.MyPolicy")).toThrow(/replication.policy.class/);
  });
});
