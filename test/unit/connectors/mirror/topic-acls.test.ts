// Which source topic ACLs MirrorSourceConnector copies and as what, as Kafka 4.1's syncTopicAcls decides.
import { describe, expect, test } from "bun:test";
import type { TopicAcl } from "#src/broker/broker.ts";
import { MirrorSourceConfig } from "#src/connectors/mirror/source-config.ts";
import { shouldReplicateAcl, targetTopicAcl, targetTopicAcls } from "#src/connectors/mirror/topic-acls.ts";

const config = new MirrorSourceConfig({
  name: "mm2-source",
  "source.cluster.alias": "primary",
  "target.cluster.alias": "backup",
  "source.cluster.bootstrap.servers": "src:9092",
  "target.cluster.bootstrap.servers": "dst:9092",
  topics: "orders.*",
});

const acl = (over: Partial<TopicAcl>): TopicAcl => ({
  topic: "orders",
  patternType: "LITERAL",
  principal: "User:alice",
  host: "*",
  operation: "READ",
  permission: "ALLOW",
  ...over,
});

const sync = (acls: TopicAcl[]) =>
  targetTopicAcls(
    acls,
    (t) => config.shouldReplicateTopic(t),
    (t) => config.formatRemoteTopic(t),
  );

describe("which bindings", () => {
  test("every one but ALLOW WRITE", () => {
    expect(shouldReplicateAcl(acl({ operation: "WRITE" }))).toBe(false);
    expect(shouldReplicateAcl(acl({ operation: "WRITE", permission: "DENY" }))).toBe(true);
    expect(shouldReplicateAcl(acl({ operation: "ALL" }))).toBe(true);
    expect(shouldReplicateAcl(acl({ operation: "DESCRIBE" }))).toBe(true);
    expect(shouldReplicateAcl(acl({ operation: "READ", permission: "DENY" }))).toBe(true);
  });

  test("only LITERAL ones on topics the connector replicates", () => {
    expect(
      sync([
        acl({ patternType: "PREFIXED", topic: "orders" }),
        acl({ topic: "payments" }),
        acl({ topic: "__consumer_offsets" }),
        acl({ topic: "backup.orders" }), // came from the target: a cycle
        acl({ topic: "orders-eu", host: "10.0.0.1" }),
      ]),
    ).toEqual([acl({ topic: "primary.orders-eu", host: "10.0.0.1" })]);
  });
});

describe("as what", () => {
  test("named after the remote topic; ALLOW ALL becomes ALLOW READ, DENY ALL stays", () => {
    expect(targetTopicAcl(acl({ operation: "ALL" }), "primary.orders")).toEqual(
      acl({ topic: "primary.orders", operation: "READ" }),
    );
    expect(targetTopicAcl(acl({ operation: "ALL", permission: "DENY" }), "primary.orders")).toEqual(
      acl({ topic: "primary.orders", operation: "ALL", permission: "DENY" }),
    );
  });

  test("ALLOW READ, ALLOW ALL, ALLOW WRITE and DENY READ of one principal give one ALLOW READ and the DENY READ", () => {
    expect(
      sync([
        acl({ operation: "READ" }),
        acl({ operation: "ALL" }),
        acl({ operation: "WRITE" }),
        acl({ operation: "READ", permission: "DENY" }),
        acl({ operation: "DESCRIBE", principal: "User:bob" }),
      ]),
    ).toEqual([
      acl({ topic: "primary.orders" }),
      acl({ topic: "primary.orders", permission: "DENY" }),
      acl({ topic: "primary.orders", operation: "DESCRIBE", principal: "User:bob" }),
    ]);
  });

  test("nothing on the source, nothing to create", () => {
    expect(sync([])).toEqual([]);
  });
});
