// The settings every MM2 connector shares and the client settings gathered from them as Kafka's
// MirrorConnectorConfig gathers them (no client is connected here).
import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { MirrorConfig, mirrorSettingsDefinition } from "#src/connectors/mirror/mirror-config.ts";
import { IdentityReplicationPolicy } from "#src/connectors/mirror/replication-policy.ts";

const definition = mirrorSettingsDefinition([]);
const base = {
  name: "mm2",
  "source.cluster.alias": "primary",
  "target.cluster.alias": "backup",
  "source.cluster.bootstrap.servers": "src:9092",
  "target.cluster.bootstrap.servers": "dst:9092",
};

describe("MM2 shared settings", () => {
  test("source.cluster.alias is required; target.cluster.alias defaults to target", () => {
    expect(() => new MirrorConfig(definition, {})).toThrow(/source.cluster.alias/);
    const config = new MirrorConfig(definition, { "source.cluster.alias": "a" });
    expect(config.targetClusterAlias).toBe("target");
    expect(config.adminTimeoutMs).toBe(60000);
    expect(config.policy.formatRemoteTopic("a", "t")).toBe("a.t");
  });

  test("the replication policy takes the separator and, for IdentityReplicationPolicy, the source alias", () => {
    const config = new MirrorConfig(definition, {
      ...base,
      "replication.policy.separator": "_",
      "replication.policy.internal.topic.separator.enabled": "false",
    });
    expect(config.policy.formatRemoteTopic("primary", "orders")).toBe("primary_orders");
    expect(config.policy.offsetSyncsTopic("backup")).toBe("mm2-offset-syncs.backup.internal");
    const identity = new MirrorConfig(definition, {
      ...base,
      "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
    });
    expect(identity.policy).toBeInstanceOf(IdentityReplicationPolicy);
    expect(identity.policy.topicSource("orders")).toBe("primary");
  });

  test("another replication policy class is refused by name", () => {
    expect(() => new MirrorConfig(definition, { ...base, "replication.policy.class": "com.example.Policy" })).toThrow(
      /replication.policy.class/,
    );
  });

  test("a ForwardingAdmin other than Kafka's is refused", () => {
    const { refused } = definition.unsupportedIn({ "forwarding.admin.class": "com.example.Admin" });
    expect(refused.map((u) => u.name)).toEqual(["forwarding.admin.class"]);
    expect(
      definition.unsupportedIn({ "forwarding.admin.class": "org.apache.kafka.clients.admin.ForwardingAdmin" }).refused,
    ).toEqual([]);
  });

  test("a connector may not point its clusters' logins at a token endpoint, file or handler", () => {
    for (const key of [
      "source.cluster.sasl.oauthbearer.token.endpoint.url",
      "target.cluster.sasl.login.callback.handler.class",
      "source.consumer.sasl.login.class",
      "admin.sasl.oauthbearer.jwt.retriever.class",
    ]) {
      expect(() => new MirrorConfig(definition, { ...base, [key]: "http://169.254.169.254/" })).toThrow(key);
    }
    expect(
      () => new MirrorConfig(definition, { ...base, "source.cluster.sasl.mechanism": "SCRAM-SHA-512" }),
    ).not.toThrow();
  });

  test("client settings pass through without a warning", () => {
    const { unknown } = definition.parse({
      ...base,
      "source.cluster.security.protocol": "SSL",
      "consumer.fetch.min.bytes": "5",
      "target.admin.request.timeout.ms": "1",
    });
    expect(unknown).toEqual(["name"]); // the runtime's setting, which the runtime declares
  });
});

describe("MM2 client settings", () => {
  test("the cluster's connection and security, then <role>., then <side>.<role>.", () => {
    const config = new MirrorConfig(definition, {
      ...base,
      "source.cluster.security.protocol": "SASL_SSL",
      "source.cluster.sasl.mechanism": "PLAIN",
      "source.cluster.fetch.min.bytes": "99", // not a connection setting: dropped, as Kafka drops it
      "consumer.fetch.min.bytes": "10",
      "source.consumer.fetch.min.bytes": "20",
      "consumer.max.poll.records": "7",
      "target.consumer.max.poll.records": "8",
      "admin.request.timeout.ms": "1000",
    });
    expect(config.clientProps("source", "consumer")).toEqual({
      "bootstrap.servers": "src:9092",
      "security.protocol": "SASL_SSL",
      "sasl.mechanism": "PLAIN",
      "fetch.min.bytes": "20",
      "max.poll.records": "7",
      "enable.auto.commit": "false",
      "auto.offset.reset": "earliest",
    });
    expect(config.clientProps("target", "consumer")["max.poll.records"]).toBe("8");
    expect(config.clientProps("target", "admin")).toEqual({
      "bootstrap.servers": "dst:9092",
      "request.timeout.ms": "1000",
    });
    expect(config.clientProps("source", "producer")).toEqual({
      "bootstrap.servers": "src:9092",
      "security.protocol": "SASL_SSL",
      "sasl.mechanism": "PLAIN",
    });
  });

  test("a consumer's auto.offset.reset may be given; enable.auto.commit is always false", () => {
    const config = new MirrorConfig(definition, {
      ...base,
      "consumer.auto.offset.reset": "latest",
      "consumer.enable.auto.commit": "true",
    });
    expect(config.clientProps("source", "consumer")["auto.offset.reset"]).toBe("latest");
    expect(config.clientProps("source", "consumer")["enable.auto.commit"]).toBe("false");
  });

  test("a cluster's client needs its bootstrap servers", () => {
    const config = new MirrorConfig(definition, { "source.cluster.alias": "a" });
    expect(() => config.client("source", ["consumer"], "test")).toThrow(/source.cluster.bootstrap.servers/);
  });

  test("roles sharing one client must agree on its connection", () => {
    const config = new MirrorConfig(definition, {
      ...base,
      "source.admin.security.protocol": "SSL",
    });
    expect(() => config.client("source", ["consumer", "admin"], "test")).toThrow(ConfigError);
    expect(() => config.client("source", ["consumer", "admin"], "test")).toThrow(/source.admin.security.protocol/);
  });

  test("a client is a Kafka client of the cluster's servers", () => {
    const config = new MirrorConfig(definition, base);
    const client = config.client("target", ["admin", "producer"], "offset-syncs");
    expect(client.kind).toBe("kafka");
  });

  test("a bad client setting is refused with Kafka's message", () => {
    const config = new MirrorConfig(definition, { ...base, "consumer.fetch.min.bytes": "many" });
    expect(() => config.client("source", ["consumer"], "test")).toThrow(/fetch.min.bytes/);
  });
});
