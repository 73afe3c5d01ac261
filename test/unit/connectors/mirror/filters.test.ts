// Kafka 4.1's DefaultTopicFilter, DefaultGroupFilter and DefaultConfigPropertyFilter with their defaults.
import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { ConfigPropertyFilter, GroupFilter, TopicFilter } from "#src/connectors/mirror/filters.ts";

describe("topic filter", () => {
  test("defaults: everything but MM2's internal topics, replicas and Kafka's own", () => {
    const filter = new TopicFilter();
    expect(filter.shouldReplicateTopic("orders")).toBe(true);
    expect(filter.shouldReplicateTopic("connect-offsets-internal")).toBe(true);
    expect(filter.shouldReplicateTopic("mm2-offset-syncs.target.internal")).toBe(false);
    expect(filter.shouldReplicateTopic("mm2-configs.source.internal")).toBe(false);
    expect(filter.shouldReplicateTopic("orders.replica")).toBe(false);
    expect(filter.shouldReplicateTopic("__consumer_offsets")).toBe(false);
  });

  test("names and regexes match whole names; excludes win", () => {
    const filter = new TopicFilter(["orders", "pay.*"], ["payments-internal"]);
    expect(filter.shouldReplicateTopic("orders")).toBe(true);
    expect(filter.shouldReplicateTopic("orders2")).toBe(false);
    expect(filter.shouldReplicateTopic("my-orders")).toBe(false);
    expect(filter.shouldReplicateTopic("payouts")).toBe(true);
    expect(filter.shouldReplicateTopic("payments-internal")).toBe(false);
  });

  test("an empty include list selects nothing; an empty exclude list excludes nothing", () => {
    expect(new TopicFilter([], []).shouldReplicateTopic("orders")).toBe(false);
    expect(new TopicFilter([".*"], []).shouldReplicateTopic("__consumer_offsets")).toBe(true);
  });

  test("a pattern that is no regex is refused by setting", () => {
    expect(() => new TopicFilter(["orders("])).toThrow(ConfigError);
    expect(() => new TopicFilter(["orders("])).toThrow(/topics/);
  });
});

describe("group filter", () => {
  test("defaults: everything but console consumers, Connect's groups and Kafka's own", () => {
    const filter = new GroupFilter();
    expect(filter.shouldReplicateGroup("billing")).toBe(true);
    expect(filter.shouldReplicateGroup("console-consumer-4711")).toBe(false);
    expect(filter.shouldReplicateGroup("connect-my-sink")).toBe(false);
    expect(filter.shouldReplicateGroup("__share")).toBe(false);
  });

  test("groups and groups.exclude", () => {
    const filter = new GroupFilter(["app-.*"], ["app-test"]);
    expect(filter.shouldReplicateGroup("app-1")).toBe(true);
    expect(filter.shouldReplicateGroup("app-test")).toBe(false);
    expect(filter.shouldReplicateGroup("other")).toBe(false);
  });
});

describe("config property filter", () => {
  test("Kafka 4.1's defaults leave throttles, timestamps and durability to each cluster", () => {
    const filter = new ConfigPropertyFilter();
    for (const name of [
      "follower.replication.throttled.replicas",
      "leader.replication.throttled.replicas",
      "message.timestamp.difference.max.ms",
      "message.timestamp.type",
      "unclean.leader.election.enable",
      "min.insync.replicas",
    ])
      expect(filter.shouldReplicateConfigProperty(name)).toBe(false);
    expect(filter.shouldReplicateConfigProperty("retention.ms")).toBe(true);
    expect(filter.shouldReplicateConfigProperty("cleanup.policy")).toBe(true);
    // The dots are escaped: a look-alike name is copied.
    expect(filter.shouldReplicateConfigProperty("min_insync_replicas")).toBe(true);
    expect(filter.shouldReplicateSourceDefault("retention.ms")).toBe(false);
  });

  test("config.properties.exclude and use.defaults.from=source", () => {
    const filter = new ConfigPropertyFilter(["retention\\..*"], "source");
    expect(filter.shouldReplicateConfigProperty("retention.ms")).toBe(false);
    expect(filter.shouldReplicateConfigProperty("min.insync.replicas")).toBe(true);
    expect(filter.shouldReplicateSourceDefault("segment.ms")).toBe(true);
    expect(new ConfigPropertyFilter([]).shouldReplicateConfigProperty("min.insync.replicas")).toBe(true);
  });
});
