// Sluice's MirrorMaker 2 pieces against Kafka 4.1.1's own classes, run from Kafka's jars
// (test/fixtures/java/MirrorProbe.java, ConfigDefProbe.java): the replication policies, the default
// filters and the offset-sync record bytes answer as Kafka's for the same input, and every setting of
// Kafka's MirrorSourceConnector is implemented (with Kafka's default) or declared unsupported.
import { describe, expect, test } from "bun:test";
import { sourceConnectorDefinition } from "#src/connect/runtime/worker/connector-config.ts";
import { ConfigPropertyFilter, GroupFilter, TopicFilter } from "#src/connectors/mirror/filters.ts";
import { encodeOffsetSync } from "#src/connectors/mirror/offset-sync.ts";
import { replicationPolicy } from "#src/connectors/mirror/replication-policy.ts";
import { javaHashMapOrder, mirrorSourceSettings } from "#src/connectors/mirror/source-config.ts";
import { runMirrorProbe } from "../../fixtures/mirror-probe.ts";

/** Names with separators in odd places, MM2's and Kafka's own topics, heartbeats and look-alikes. */
const NAMES = [
  "orders",
  "us.orders",
  "a.b.orders",
  "orders.",
  ".orders",
  "..",
  "a..b",
  "a_b_c",
  "a__b",
  "_orders",
  "__consumer_offsets",
  "heartbeats",
  "us.heartbeats",
  "myheartbeats",
  "us_heartbeats",
  "mm2-offset-syncs.us.internal",
  "mm2-offset-syncs_us_internal",
  "mm2-configs.us.internal",
  "us.checkpoints.internal",
  "us_checkpoints_internal",
  "connect-offsets-internal",
  "orders.internal",
  "orders-internal",
  "orders.replica",
  "console-consumer-1",
  "connect-sink",
  "min.insync.replicas",
  "retention.ms",
  "message.timestamp.type",
  "leader.replication.throttled.replicas",
  "ü.tøpic",
  "",
];

const bool = (b: boolean) => String(b);
const nul = (v: string | null) => v ?? "NULL";

const POLICY_CASES: [string, string | undefined, string | undefined, string | undefined][] = [
  ["org.apache.kafka.connect.mirror.DefaultReplicationPolicy", undefined, undefined, undefined],
  ["org.apache.kafka.connect.mirror.DefaultReplicationPolicy", "_", undefined, undefined],
  ["org.apache.kafka.connect.mirror.DefaultReplicationPolicy", "_", "false", undefined],
  ["org.apache.kafka.connect.mirror.DefaultReplicationPolicy", "__", "true", undefined],
  ["org.apache.kafka.connect.mirror.DefaultReplicationPolicy", undefined, "false", undefined],
  ["org.apache.kafka.connect.mirror.IdentityReplicationPolicy", undefined, undefined, "us"],
  ["org.apache.kafka.connect.mirror.IdentityReplicationPolicy", "_", undefined, undefined],
];
const policyHeader = ([className, separator, internal, alias]: (typeof POLICY_CASES)[number]) =>
  ["@policy", className, separator ?? "-", internal ?? "-", alias ?? "-"].join("\t");

const SYNCS = [
  ["orders", 0, 0, 0],
  ["orders", 3, 12345, 678],
  ["tøpic.ü-☃", 2147483647, 9007199254740991, 1],
  ["", 0, -1, -1],
  ["x".repeat(249), 17, 2 ** 40, 2 ** 33 + 5],
] as const;

const HASHMAP_SIZES = [1, 2, 3, 4, 5, 7, 12, 13, 25, 100];
/** Put in by name, Java's map keeps names sharing a bucket by name too: the order Sluice assumes. */
const hashMapNames = (size: number) => Array.from({ length: size }, (_, i) => `topic-${(i * 7919) % 1000}`).sort();

/** Every question to Kafka's classes in one JVM start; the answers by section header. */
const answers = (() => {
  const sections = [
    ...POLICY_CASES.map((c) => [policyHeader(c), ...NAMES]),
    ["@filters", ...NAMES],
    ["@offset-sync", ...SYNCS.map((sync) => sync.join("\t"))],
    ...HASHMAP_SIZES.map((size) => [`@hashmap\t${size}`, ...hashMapNames(size)]),
  ];
  const out = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of runMirrorProbe("MirrorProbe.java", [], `${sections.flat().join("\n")}\n`)
    .trimEnd()
    .split("\n")) {
    if (line.startsWith("@")) out.set(line, (current = []));
    else current.push(line);
  }
  return out;
})();

describe("replication policies answer as Kafka's", () => {
  test.each(POLICY_CASES)("%s separator=%s internal=%s alias=%s", (className, separator, internal, alias) => {
    const kafka = answers.get(policyHeader([className, separator, internal, alias]));
    const policy = replicationPolicy(className, {
      ...(separator !== undefined ? { separator } : {}),
      ...(internal !== undefined ? { internalTopicSeparatorEnabled: internal === "true" } : {}),
      ...(alias !== undefined ? { sourceClusterAlias: alias } : {}),
    });
    const sluice = [
      ...NAMES.map((name) =>
        [
          name,
          policy.formatRemoteTopic("src", name),
          nul(policy.topicSource(name)),
          nul(policy.upstreamTopic(name)),
          policy.originalTopic(name),
          bool(policy.isInternalTopic(name)),
          bool(policy.isMM2InternalTopic(name)),
          bool(policy.isHeartbeatsTopic(name)),
          bool(policy.isCheckpointsTopic(name)),
        ].join("\t"),
      ),
      ["#", policy.offsetSyncsTopic("alias"), policy.checkpointsTopic("alias"), policy.heartbeatsTopic()].join("\t"),
    ];
    expect(sluice).toEqual(kafka!);
  });
});

test("the default topic, group and config property filters answer as Kafka's", () => {
  const kafka = answers.get("@filters");
  const [topics, groups, configs] = [new TopicFilter(), new GroupFilter(), new ConfigPropertyFilter()];
  const sluice = NAMES.map((name) =>
    [
      name,
      bool(topics.shouldReplicateTopic(name)),
      bool(groups.shouldReplicateGroup(name)),
      bool(configs.shouldReplicateConfigProperty(name)),
    ].join("\t"),
  );
  expect(sluice).toEqual(kafka!);
});

test("offset-sync records are the bytes Kafka's OffsetSync writes", () => {
  const sluice = SYNCS.map(([topic, partition, upstreamOffset, downstreamOffset]) => {
    const { key, value } = encodeOffsetSync({ topic, partition, upstreamOffset, downstreamOffset });
    return `${Buffer.from(key).toString("hex")}\t${Buffer.from(value).toString("hex")}`;
  });
  expect(sluice).toEqual(answers.get("@offset-sync")!);
});

test("topics are dealt to tasks in the order Java iterates Kafka's describeTopics map", () => {
  for (const size of HASHMAP_SIZES)
    expect(javaHashMapOrder(hashMapNames(size))).toEqual(answers.get(`@hashmap\t${size}`)!);
});

describe("Kafka's MirrorSourceConnector settings", () => {
  interface JavaSetting {
    name: string;
    type: string;
    default: string | null;
  }
  const kafka = runMirrorProbe("ConfigDefProbe.java", ["org.apache.kafka.connect.mirror.MirrorSourceConnector"])
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JavaSetting);
  // Defined at the top level by Kafka's MM2 config but used by none of its clients (they take
  // source.cluster.*/target.cluster.*): passed through as Kafka passes them.
  const topLevelSecurity = (name: string) => name === "security.protocol" || /^(ssl|sasl)\./.test(name);
  const own = kafka.filter((s) => !sourceConnectorDefinition.find(s.name) && !topLevelSecurity(s.name));

  test("is read whole", () => {
    expect(own.map((s) => s.name)).toContain("offset.lag.max");
    expect(own.length).toBeGreaterThan(25);
  });

  test("every one is implemented or declared unsupported", () => {
    expect(own.filter((s) => !mirrorSourceSettings.find(s.name)).map((s) => s.name)).toEqual([]);
  });

  test("implemented ones default as Kafka's", () => {
    const text = (v: unknown) => (v === undefined || v === null ? null : Array.isArray(v) ? v.join(",") : String(v));
    const differing = own
      .map((s) => ({ s, ours: mirrorSourceSettings.find(s.name)! }))
      .filter(({ ours }) => !ours.unsupported)
      .filter(({ s, ours }) => text(ours.default) !== (s.default === null ? null : s.default.replace(/\s*,\s*/g, ",")))
      .map(({ s, ours }) => `${s.name}: Kafka ${s.default}, Sluice ${text(ours.default)}`);
    expect(differing).toEqual([]);
  });
});
